import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// A large plain file drained by pairs of segments on two threads hands out exactly the
// series its whole read in one pass gives: rows at one time across a segment's edge
// collapsed, windows, bad rows and their lines, series appearing late, rows going back
// across an edge (read on in order), and a line too long to find the end of.
@Suite("Draining a large file in segments")
struct DrainInSegmentsTests {
  typealias Big = CountInTwoPartsTests

  /// The segments of the checks: the default (two pairs over a file of 17 MB) and
  /// pairs of 64 KiB, whose edges fall on collapsed rows, bad rows and windows' edges.
  static let segments = [DrainSegments(), DrainSegments(bytes: 1 << 16, minimumFileBytes: 0)]

  static func check(_ path: String, _ options: IngestOptions, folder: TemporaryFolder, _ comment: String) throws {
    for segments in Self.segments {
      var options = options
      options.quarantinePath = folder.path + "/rejected.csv"
      let drained = try FileQuoteStreamTests.checkDrain(
        path, options: options, segments: segments, chunkSizes: [7, 1 << 16], "\(comment), segments of \(segments.bytes) bytes")
      #expect(drained, "\(comment)")
    }
  }

  @Test("rows at one time across a segment's edge, windows whose edges fall there, a series appearing late")
  func collapsedAndWindows() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var boundary: Int64 = 0
    let path = try Big.file(in: folder, "quotes.csv") { rows, k in
      boundary = Big.equalTimes(&rows, at: k)
      for j in stride(from: k + 10, to: rows.count, by: 11) { rows[j] = Big.row("SOLUSDT", Big.time(rows[j])) }
    }
    for window in [nil, TimeWindow(from: boundary), TimeWindow(to: boundary), TimeWindow(from: boundary + 1, to: boundary + 50_000_000)] {
      var options = IngestOptions()
      options.window = window
      options.storeColumns = .all
      try Self.check(path, options, folder: folder, "window \(String(describing: window))")
    }
  }

  @Test("bad rows on both sides of the middle, skipped and strict; a row going back across it")
  func badRowsAndGoingBack() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let bad = try Big.file(in: folder, "bad.csv") { rows, k in
      for j in stride(from: 3, to: rows.count, by: 4_999) { rows[j] = rows[j].replacingOccurrences(of: ",1.5,", with: ",1.x,") }
      rows[k + 1] = rows[k + 1].replacingOccurrences(of: ",1.5,", with: ",-1.,")
    }
    let back = try Big.file(in: folder, "back.csv") { rows, k in
      let last = Big.t0 + Int64(k - 1) * 1000
      rows[k - 1] = Big.row("BTCUSDT", last)
      rows[k] = Big.row("BTCUSDT", last - 1000)
      rows[k + 7] = rows[k + 7].replacingOccurrences(of: ",1.5,", with: ",1.x,")
    }
    for path in [bad, back] {
      for policy in [BadRowPolicy.skip, .fail] {
        var options = IngestOptions()
        options.badRows = policy
        options.keptErrors = 100
        try Self.check(path, options, folder: folder, "\(path) \(policy)")
      }
    }
  }

  /// The indices of the rows (all of one width) each pair of segments of `bytes` starts
  /// with after the first, as `FileQuoteStream.drain` cuts the file.
  static func pairStarts(_ rows: [String], bytes: Int) -> [Int] {
    let (width, header) = (rows[0].utf8.count, Big.header.utf8.count)
    let size = header + width * rows.count
    /// The end of the line byte `p` falls in.
    func lineEnd(_ p: Int) -> Int { min(size, header + ((p - header) / width + 1) * width) }
    var (offset, starts) = (header, [Int]())
    while offset < size {
      offset = lineEnd(lineEnd(offset + bytes) + bytes)
      if offset < size { starts.append((offset - header) / width) }
    }
    return starts
  }

  @Test("a row going back at the start of a pair, before the last row of the pair before: rejected as in one pass")
  func goingBackAfterAJoin() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let bytes = 1 << 16
    var starts: [Int] = []
    let path = try Big.file(in: folder, "back.csv") { rows, _ in
      starts = Self.pairStarts(rows, bytes: bytes)
      // Before the BTCUSDT rows just read by the other thread, after those of the first segment.
      for r in starts { rows[r] = Big.row("BTCUSDT", Big.t0 + Int64(r) * 1000 - 5_500) }
    }
    #expect(starts.count > 100)
    for policy in [BadRowPolicy.skip, .fail] {
      var options = IngestOptions()
      options.badRows = policy
      options.keptErrors = 1000
      options.quarantinePath = folder.path + "/rejected.csv"
      let drained = try FileQuoteStreamTests.checkDrain(
        path, options: options, segments: DrainSegments(bytes: bytes, minimumFileBytes: 0), chunkSizes: [1 << 16], "going back, \(policy)")
      #expect(drained)
    }
    var options = IngestOptions()
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.csv"
    var sink = FileQuoteStreamTests.CollectedSeries()
    let report = try #require(try FileQuoteStream.drain(try LegSpec(parsing: path), options: options, into: &sink)).report
    #expect(report.rowsRejected >= starts.count, "each row going back is rejected")
  }

  @Test("a line longer than a segment's search for its end: the rest is read in order")
  func longLine() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try Big.file(in: folder, "long.csv") { rows, k in
      rows[k / 2] = rows[k / 2].replacingOccurrences(of: ",1.5,", with: "," + String(repeating: "9", count: 70_000) + ",")
    }
    for policy in [BadRowPolicy.skip, .fail] {
      var options = IngestOptions()
      options.badRows = policy
      try Self.check(path, options, folder: folder, "long line, \(policy)")
    }
  }

  @Test("convert writes the same store from a large file read in segments as from one pass")
  func convertedStore() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try Big.file(in: folder, "quotes.csv")
    var onePass = IngestOptions()
    onePass.splitLargeFiles = false
    let stores = try [onePass, IngestOptions()].enumerated().map { k, options in
      let store = folder.path + "/store-\(k)"
      let added = try StoreFixture.convert([path], into: store, options: options, chunkRows: 1 << 16)
      #expect(added == [true])
      return StoreFixture.snapshot(store).mapValues(\.0)
    }
    #expect(stores[0].count > 3 && stores[0] == stores[1])
  }
}
