import ArbCore
import Foundation
import TestSupport
import Testing
@testable import ArbIngest

/// Large plain files are read as two halves on two threads. These tests call that path
/// directly on small files and compare it with the one-pass reader: the same columns,
/// counts, errors (with absolute line numbers) and quarantined lines.
@Suite("Reading a file as two halves")
struct TwoHalvesTests {
  static let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"

  /// `rows` Tardis quotes of two instruments, with a bad row every `badEvery` rows.
  static func quotes(rows: Int, badEvery: Int, seed: UInt64) -> String {
    var rng = SplitMix64(seed: seed)
    var text = header
    var time: Int64 = 1_000_000
    for i in 0..<rows {
      time += Int64(1 + rng.next() % 5)  // equal times also happen: duplicates collapse
      let symbol = i % 3 == 0 ? "ETHUSDT" : "BTCUSDT"
      let bid = 100 + Double(rng.next() % 1000) / 10
      if badEvery > 0 && i % badEvery == badEvery - 1 {
        text += "bybit,\(symbol),\(time),\(time),1,\(bid - 1),\(bid),2\n"  // crossed book
      } else {
        text += "bybit,\(symbol),\(time - 3),\(time),1.5,\(bid + 0.1),\(bid),2\n"
      }
    }
    return text
  }

  static func read(_ path: String, halves: Bool, _ options: IngestOptions) throws -> IngestedFile? {
    let size = try FileSource(path: path).size
    guard halves else { return try Ingest.readSequentially(path: path, options: options, size: size) }
    var reader = try Ingest.readInTwoHalves(PlainFile(path: path, count: size), options: options)
    return try reader?.finish()
  }

  static func expectSame(_ a: IngestedFile, _ b: IngestedFile) {
    #expect(a.report.rowsRead == b.report.rowsRead)
    #expect(a.report.rowsAccepted == b.report.rowsAccepted)
    #expect(a.report.rowsRejected == b.report.rowsRejected)
    #expect(a.report.rowsCollapsed == b.report.rowsCollapsed)
    #expect(a.report.errors == b.report.errors)
    #expect(a.report.rejectedByKind.map(\.kind) == b.report.rejectedByKind.map(\.kind))
    #expect(a.report.rejectedByKind.map(\.count) == b.report.rejectedByKind.map(\.count))
    #expect(a.series.count == b.series.count)
    for (x, y) in zip(a.series, b.series) {
      #expect(x.instrument == y.instrument)
      #expect(x.time == y.time && x.otherTime == y.otherTime)
      #expect(x.bid == y.bid && x.ask == y.ask && x.bidSize == y.bidSize && x.askSize == y.askSize)
    }
  }

  @Test("skipping bad rows: identical to one pass, quarantine included", arguments: [0, 7, 1000])
  func skipMatchesOnePass(badEvery: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("q.csv", Self.quotes(rows: 5000, badEvery: badEvery, seed: UInt64(badEvery)))
    var options = IngestOptions()
    options.badRows = .skip
    options.keptErrors = 10_000
    options.quarantinePath = folder.path + "/halves.rejected.csv"
    let halves = try #require(try Self.read(path, halves: true, options))
    options.quarantinePath = folder.path + "/one-pass.rejected.csv"
    let onePass = try #require(try Self.read(path, halves: false, options))
    Self.expectSame(halves, onePass)
    #expect(halves.report.rowsRead == 5000)
    if badEvery > 0 {
      let a = FileManager.default.contents(atPath: folder.path + "/halves.rejected.csv")
      #expect(a != nil && a == FileManager.default.contents(atPath: folder.path + "/one-pass.rejected.csv"))
    }
  }

  @Test func `a bad row in the second half fails at its absolute line`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var lines = Self.quotes(rows: 2000, badEvery: 0, seed: 1).split(separator: "\n").map(String.init)
    lines[1800] = lines[1800].replacingOccurrences(of: ",1.5,", with: ",abc,")
    let path = folder.write("q.csv", lines.joined(separator: "\n") + "\n")
    let halves = #expect(throws: IngestError.self) { try Self.read(path, halves: true, IngestOptions()) }
    let onePass = #expect(throws: IngestError.self) { try Self.read(path, halves: false, IngestOptions()) }
    #expect(halves == onePass)
    #expect(halves?.position.line == 1801)
  }

  @Test func `a second half that goes back in time is left to the one-pass reader`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // The later rows restart at an earlier time: the halves cannot simply be joined.
    let rows = Self.quotes(rows: 1000, badEvery: 0, seed: 2).split(separator: "\n").dropFirst().map(String.init)
    let path = folder.write("q.csv", Self.header + (rows + rows).joined(separator: "\n") + "\n")
    let joined = try Self.read(path, halves: true, IngestOptions())
    #expect(joined == nil)
    var sorted = IngestOptions()
    sorted.sort = true
    Self.expectSame(try #require(try Self.read(path, halves: true, sorted)), try #require(try Self.read(path, halves: false, sorted)))
  }
}
