import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// A large file counted as two parts on two threads (`FileQuoteStream.count`) reports
// exactly what the whole file read in one pass reports: rows at one time across the
// split collapsed, a window's edge at the split, bad rows and their line numbers on
// either side, a series that starts after the split, and a split the parts cannot be
// joined across.
@Suite("Counting in two parts")
struct CountInTwoPartsTests {
  static let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
  static let t0: Int64 = 1_735_689_600_000_000

  /// One Tardis quotes row; every row of a file has the same width.
  static func row(_ symbol: String, _ time: Int64, bid: Int = 100, amount: Int = 1) -> String {
    "binance,\(symbol),\(time),\(time + 900),1.5,\(bid).5,\(bid).0,\(amount).0\n"
  }

  /// A file of at least `parallelThreshold` bytes: BTCUSDT and ETHUSDT rows a
  /// millisecond apart, every seventh row at the time of its symbol's row before; then
  /// `edit` changes rows by index, knowing the index of the first row of the second half.
  static func file(in folder: TemporaryFolder, _ name: String, edit: (inout [String], Int) -> Void = { _, _ in }) throws -> String {
    var rows: [String] = []
    var last: [String: Int64] = [:]
    var i = 0
    while rows.count < 240_000 {
      let symbol = i % 3 == 2 ? "ETHUSDT" : "BTCUSDT"
      var time = t0 + Int64(i) * 1000
      if i % 7 == 6, let before = last[symbol] { time = before }
      last[symbol] = time
      rows.append(row(symbol, time, bid: 100 + i % 50))
      i += 1
    }
    edit(&rows, try secondHalfStart(rows))
    let path = folder.write(name, header + rows.joined())
    #expect(try FileSource(path: path).size >= parallelThreshold)
    return path
  }

  /// The index of the row the second half of a file of `rows` starts with, as
  /// `Ingest.readInTwoHalves` splits it (every row of the same width).
  static func secondHalfStart(_ rows: [String]) throws -> Int {
    let width = rows[0].utf8.count, headerWidth = header.utf8.count
    let size = headerWidth + width * rows.count
    // The first line break at or after the middle ends the first half.
    let end = ((size / 2 - headerWidth) / width + 1) * width + headerWidth
    return (end - headerWidth) / width
  }

  /// Makes the rows before and at `k` BTCUSDT quotes at one time (the natural time of
  /// row `k - 1`), of other amounts; returns that time.
  static func equalTimes(_ rows: inout [String], at k: Int) -> Int64 {
    let time = t0 + Int64(k - 1) * 1000
    rows[k - 1] = row("BTCUSDT", time, amount: 1)
    rows[k] = row("BTCUSDT", time, amount: 2)
    return time
  }

  /// The time field of `row`.
  static func time(_ row: String) -> Int64 { Int64(row.split(separator: ",")[2])! }

  /// Counts `path` in two parts (checking that it is) and expects the report, errors,
  /// price sources and quarantine of the whole read in one pass.
  static func expectCountedAsWhole(_ path: String, options base: IngestOptions, folder: TemporaryFolder, _ comment: Comment) throws {
    var options = base
    let quarantinePath = folder.path + "/rejected.csv"
    options.quarantinePath = quarantinePath
    /// The quarantine file `body` wrote, removed.
    func quarantine<T>(_ body: () throws -> T) -> (Result<T, any Error>, Data?) {
      let result = Result { try body() }
      defer { try? FileManager.default.removeItem(atPath: quarantinePath) }
      return (result, try? Data(contentsOf: URL(fileURLWithPath: quarantinePath)))
    }
    let leg = try LegSpec(parsing: path)
    var oneThread = options
    oneThread.splitLargeFiles = false
    let (whole, wholeQuarantine) = quarantine { try Ingest.read(path: path, options: try leg.ingestOptions(oneThread, specOverrides: [])) }
    let (counted, countedQuarantine) = quarantine { try FileQuoteStream.count(leg, options: options) }
    switch (counted, whole) {
    case (.success(let counted), .success(let file)):
      let counted = try #require(counted, comment)
      FileQuoteStreamTests.expectSameAccounting(counted.report, file.report, comment)
      #expect(counted.report.errors.map { "\($0)" } == file.report.errors.map { "\($0)" }, comment)
      #expect(counted.priceSources == file.series.map(\.priceSource), comment)
      #expect(countedQuarantine == wholeQuarantine, comment)
    case (.failure(let error), .failure(let expected)):
      #expect("\(error)" == "\(expected)", comment)
    default:
      Issue.record("\(comment): counted \(counted), the whole read \(whole)")
    }
  }

  /// Whether `path` is counted in two parts: read by halves and joined (bad rows skipped).
  static func readsInTwoParts(_ path: String) throws -> Bool {
    var options = try LegSpec(parsing: path).ingestOptions(IngestOptions(), specOverrides: [])
    options.badRows = .skip
    if ParquetReader.reads(path: path, format: options.format) {
      let file = try MappedFile(path: path, readAhead: false)
      return try file.withBytes { bytes in
        try ParquetReader.readInTwoParts(ParquetTableSource(bytes, path: path, options: options), expectedRows: 1 << 12, countsIn: TimeWindow()) != nil
      }
    }
    return try Ingest.readInTwoHalves(PlainFile(path: path, count: try FileSource(path: path).size), options: options, countsIn: TimeWindow()) != nil
  }

  @Test("a row at the time of the row before the split collapses into it, inside and outside windows whose edges fall there")
  func collapsedAcrossTheSplit() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var boundary: Int64 = 0
    let path = try Self.file(in: folder, "quotes.csv") { rows, k in
      // The first row of the second half at the time of the last of the first.
      boundary = Self.equalTimes(&rows, at: k)
    }
    #expect(try Self.readsInTwoParts(path))
    for window in [nil, TimeWindow(from: boundary), TimeWindow(to: boundary), TimeWindow(to: boundary - 1), TimeWindow(from: boundary + 1)] {
      var options = IngestOptions()
      options.window = window
      try Self.expectCountedAsWhole(path, options: options, folder: folder, "window \(String(describing: window))")
    }
    // The collapse is counted once: the file's rows at one time, and no more.
    let counted = try #require(try FileQuoteStream.count(try LegSpec(parsing: path), options: IngestOptions()))
    #expect(counted.report.rowsCollapsed > 30_000 && counted.report.rowsAccepted == 240_000)
  }

  @Test("bad rows on both sides of the split: the same errors, line numbers and quarantine; strict, the first part's error")
  func badRows() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let afterSplit = try Self.file(in: folder, "after.csv") { rows, k in
      rows[k + 2] = rows[k + 2].replacingOccurrences(of: ",1.5,", with: ",1.x,")
      rows[k + 5_000] = rows[k + 5_000].replacingOccurrences(of: ",1.5,", with: ",-1.,")
    }
    let bothSides = try Self.file(in: folder, "both.csv") { rows, k in
      rows[k - 3] = rows[k - 3].replacingOccurrences(of: ",1.5,", with: ",1.x,")
      rows[k + 1] = rows[k + 1].replacingOccurrences(of: ",1.5,", with: ",1.x,")
    }
    for path in [afterSplit, bothSides] {
      #expect(try Self.readsInTwoParts(path))
      for policy in [BadRowPolicy.skip, .fail] {
        var options = IngestOptions()
        options.badRows = policy
        options.keptErrors = 100
        try Self.expectCountedAsWhole(path, options: options, folder: folder, "\(path) \(policy)")
      }
    }
    var strict = IngestOptions()
    strict.badRows = .fail
    do {
      _ = try FileQuoteStream.count(try LegSpec(parsing: afterSplit), options: strict)
      Issue.record("a bad row counted")
    } catch let error as IngestError {
      #expect(error.position.line > 120_000, "the second part's line numbers follow the first's: \(error)")
    }
  }

  @Test("a series that first appears after the split is counted after the others, in the order of the whole read")
  func seriesAfterTheSplit() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try Self.file(in: folder, "quotes.csv") { rows, k in
      for j in stride(from: k + 10, to: rows.count, by: 11) { rows[j] = Self.row("SOLUSDT", Self.time(rows[j])) }
    }
    #expect(try Self.readsInTwoParts(path))
    try Self.expectCountedAsWhole(path, options: IngestOptions(), folder: folder, "SOLUSDT after the split")
    let counted = try #require(try FileQuoteStream.count(try LegSpec(parsing: path), options: IngestOptions()))
    #expect(counted.report.instruments.map(\.0.symbol) == ["BTCUSDT", "ETHUSDT", "SOLUSDT"])
  }

  @Test("a row after the split before the last of its symbol: the parts are not joined, the file is counted in one pass")
  func goingBackAcrossTheSplit() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var split = 0
    let path = try Self.file(in: folder, "quotes.csv") { rows, k in
      split = k
      let last = Self.t0 + Int64(k - 1) * 1000
      rows[k - 1] = Self.row("BTCUSDT", last)
      rows[k] = Self.row("BTCUSDT", last - 1000)
      // A bad row after it: the row going back is the first error, as in one pass.
      rows[k + 7] = rows[k + 7].replacingOccurrences(of: ",1.5,", with: ",1.x,")
    }
    #expect(try !Self.readsInTwoParts(path))
    for policy in [BadRowPolicy.skip, .fail] {
      var options = IngestOptions()
      options.badRows = policy
      try Self.expectCountedAsWhole(path, options: options, folder: folder, "going back, \(policy)")
    }
    // The whole read in two halves reports it too.
    var onePass = IngestOptions()
    onePass.splitLargeFiles = false
    func firstError(_ options: IngestOptions) -> String {
      do {
        _ = try Ingest.read(path: path, options: options)
        return "none"
      } catch { return "\(error)" }
    }
    #expect(firstError(IngestOptions()) == firstError(onePass))
    #expect(firstError(onePass).contains(":\(split + 2):"), "the row going back, line \(split + 2): \(firstError(onePass))")
  }

  @Test("a Parquet table of several row groups: rows at one time across the split, bad values, windows")
  func parquetTables() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let bad = folder.path + "/bad.parquet"
    try ParquetTypedPathTests.badTable(at: bad, groups: 4, rows: 20_000)
    let collapsed = folder.path + "/collapsed.parquet"
    try Self.tableWithEqualTimesAtGroupEdges(at: collapsed)
    for path in [bad, collapsed] {
      #expect(try Self.readsInTwoParts(path))
      let edge = Self.t0 + 40_000 * 1000
      for window in [nil, TimeWindow(from: edge), TimeWindow(to: edge - 1)] {
        for policy in [BadRowPolicy.skip, .fail] {
          var options = IngestOptions()
          options.window = window
          options.badRows = policy
          options.keptErrors = 1000
          try Self.expectCountedAsWhole(path, options: options, folder: folder, "\(path) \(policy) \(String(describing: window))")
        }
      }
    }
  }

  /// Two row groups of 40,000 BTCUSDT quotes a millisecond apart, the first row of the
  /// second group at the time of the last of the first.
  static func tableWithEqualTimesAtGroupEdges(at path: String) throws {
    let writer = try ParquetFileWriter(path: path, fields: ParquetTypedPathTests.tardisQuoteFields)
    for g in 0..<2 {
      let times = (0..<40_000).map { t0 + Int64(g * 40_000 + $0 - g) * 1000 }
      let n = times.count
      try writer.write([
        .strings([String?](repeating: "binance", count: n)), .strings([String?](repeating: "BTCUSDT", count: n)), .integers(times),
        .integers(times.map { $0 + 900 }), .doubles(Array(repeating: 1.5, count: n)), .doubles((0..<n).map { 100.5 + Double($0 % 9) }),
        .doubles((0..<n).map { 100 + Double($0 % 9) }), .doubles(Array(repeating: 2, count: n)),
      ])
    }
    try writer.commit()
  }
}
