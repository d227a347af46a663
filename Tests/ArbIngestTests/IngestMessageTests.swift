import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Messages that say what is wrong with the input: a zip of several files is refused
// with their names, a damaged compressed stream is reported as such rather than as the
// garbage rows it inflates to, and a quoted header name reads as CSV quotes it.
@Suite("Ingest messages")
struct IngestMessageTests {
  @Test func `a zip of several files is refused with their names, not read as its first file`() throws {
    let path = fixture("BTCUSDT-bookTicker-two-files.zip")
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path) }
    #expect(error?.reason == .severalZipEntries(names: ["day1.csv", "day2.csv"]))
    #expect(error?.description.contains("zip archive holds several files (day1.csv, day2.csv), one file per archive is read") == true)
  }

  @Test func `a streamed zip of several files (data descriptors) is refused too`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let plain = try String(contentsOfFile: fixture("BTCUSDT-bookTicker-2024-03-01.csv"), encoding: .utf8)
    folder.write("a.csv", plain)
    folder.write("b.csv", plain)
    let target = folder.path + "/BTCUSDT-bookTicker-2024-03-01.zip"
    #expect(try runProgram("/bin/sh", ["-c", "cd '\(folder.path)' && /usr/bin/zip -q - a.csv b.csv | cat > '\(target)'"]) == 0)
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: target) }
    #expect(error?.reason == .severalZipEntries(names: ["a.csv", "b.csv", "…"]))
  }

  /// 60 000 Tardis quote rows whose values vary (so that deflate does not repeat them).
  static func quotes() -> String {
    var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    for i in 1...60_000 {
      let t = 1_588_291_201_099_000 + i * 1000
      text += "huobi-dm-swap,BTC-USD,\(t),\(t + 100),\(i * 7919 % 9000 + 1),\(8629.3 + Double(i) / 10),\(8629.2 + Double(i) / 10),\(i * 104_729 % 900 + 1)\n"
    }
    return text
  }

  @Test("a flipped byte inside a gzip is a corrupt stream, not the bad rows it inflates to", arguments: [BadRowPolicy.fail, .skip])
  func flippedByte(policy: BadRowPolicy) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let gzipped = try gzip(folder.write("quotes.csv", Self.quotes()))
    var bytes = try Data(contentsOf: URL(fileURLWithPath: gzipped))
    bytes[20_000] ^= 0x04
    let flipped = folder.write("flipped.csv.gz", bytes)
    var options = IngestOptions()
    options.badRows = policy
    options.quarantinePath = folder.path + "/rejected.csv"
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: flipped, options: options) }
    #expect(error?.reason == .corruptCompressedStream(detail: "incorrect data check"), "\(String(describing: error))")
    #expect(error?.position.line ?? 0 > 1)
  }

  @Test func `an intact gzip with a bad row still reports the row`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let gzipped = try gzip(folder.write("quotes.csv", Self.quotes() + "huobi-dm-swap,BTC-USD,1,2,3\n"))
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: gzipped) }
    #expect(error?.reason == .wrongFieldCount(expected: 8, found: 5))
    #expect(error?.position.line == 60_002)
  }

  @Test func `a quoted header name reads a doubled quote as one`() throws {
    let spec = #"{"time": {"column": "t\"s", "form": "s"}, "price": "p,x", "quote": "\""}"#
    let file = try ingest("\"t\"\"s\",\"p,x\"\n1735689600,101.5\n", options: try columnOptions(spec))
    #expect(file.series.first?.bid == [101.5])
  }
}
