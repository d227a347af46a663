import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Every bad-input class: with `--bad-rows fail` (the default) the first bad row throws
// its reason at `path:line:column`; with `skip` the row is counted by kind and its raw
// line goes to the quarantine file.

@Suite("Bad rows")
struct BadRowTests {
  /// A Tardis quotes file: header, one good row (local time 100), then `row` on line 3.
  static func tardis(_ row: String) -> String { tardisQuotesHeader + "\n" + tardisGoodRow + "\n" + row + "\n" }

  /// Reads `path` (header, one good row, the bad `row` on line 3) under both policies:
  /// `fail` throws the reason at 3:`column`; `skip` keeps the good row, counts the bad
  /// one by kind, and quarantines the header line and the bad line byte for byte.
  static func checkBadRow(
    path: String, header: String, row: String, column: Int, reason: IngestError.Reason,
    options: IngestOptions = IngestOptions(), in folder: TemporaryFolder
  ) throws {
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
    #expect(error?.reason == reason)
    #expect(error?.position == SourcePosition(path: path, line: 3, column: column))

    var skip = options
    skip.badRows = .skip
    skip.quarantinePath = folder.path + "/rejected.csv"
    let file = try Ingest.read(path: path, options: skip)
    #expect(file.report.rowsRead == 2)
    #expect(file.report.rowsAccepted == 1)
    #expect(file.report.rowsRejected == 1)
    #expect(file.report.rejectedByKind.map(\.kind) == [reason.kind])
    #expect(file.report.rejectedByKind.map(\.count) == [1])
    #expect(file.report.errors == [IngestError(reason, at: SourcePosition(path: path, line: 3, column: column))])
    #expect(file.series.first?.count == 1)
    let quarantined = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/rejected.csv"))
    #expect(quarantined == Data((header + "\n" + row + "\n").utf8))
  }

  // Columns counted by hand: field k starts after the k commas before it.
  static let tardisRows: [(row: String, column: Int, reason: IngestError.Reason)] = [
    ("binance,BTCUSDT,2,200,1,10.5,10.4", 34, .wrongFieldCount(expected: 8, found: 7)),
    ("binance,BTCUSDT,2,200,1,10.5,10.4,2,9", 38, .wrongFieldCount(expected: 8, found: 9)),
    ("binance,BTCUSDT,2,200,1,10.5,10.4x,2", 30, .invalidNumber(column: "bid_price", text: "10.4x")),
    ("binance,BTCUSDT,2,200,1,10.5,10.4,2a", 35, .invalidNumber(column: "bid_amount", text: "2a")),
    ("binance,BTCUSDT,2,200,1,nan,10.4,2", 25, .nonFinite(column: "ask_price", text: "nan")),
    ("binance,BTCUSDT,2,200,1,10.5,inf,2", 30, .nonFinite(column: "bid_price", text: "inf")),
    ("binance,BTCUSDT,2,200,-Infinity,10.5,10.4,2", 23, .nonFinite(column: "ask_amount", text: "-Infinity")),
    ("binance,BTCUSDT,2,200,1,10.5,0,2", 30, .nonPositivePrice(column: "bid_price", text: "0")),
    ("binance,BTCUSDT,2,200,1,-10.5,10.4,2", 25, .nonPositivePrice(column: "ask_price", text: "-10.5")),
    ("binance,BTCUSDT,2,200,1,10.5,10.4,-2", 35, .negativeSize(column: "bid_amount", text: "-2")),
    ("binance,BTCUSDT,2,200,1,10.5,10.6,2", 30, .crossedBook(bid: 10.6, ask: 10.5)),
    ("binance,BTCUSDT,2,50,1,10.5,10.4,2", 19, .timestampNotIncreasing(previous: 100, found: 50)),
    ("binance,BTCUSDT,2,12:00,1,10.5,10.4,2", 19, .invalidTimestamp(column: "local_timestamp", text: "12:00")),
    ("binance,BTCUSDT,x,200,1,10.5,10.4,2", 17, .invalidTimestamp(column: "timestamp", text: "x")),
  ]

  @Test("a bad Tardis row: fail throws it at 3:column, skip counts and quarantines it", arguments: tardisRows)
  func tardisRow(c: (row: String, column: Int, reason: IngestError.Reason)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("quotes.csv", Self.tardis(c.row))
    try Self.checkBadRow(path: path, header: tardisQuotesHeader, row: c.row, column: c.column, reason: c.reason, in: folder)
  }

  static let spec = #"{"time": {"column": "ts", "form": "us"}, "price": "close"}"#
  static let descendingSpec = #"{"order": "descending", "time": {"column": "ts", "form": "us"}, "price": "close"}"#

  static let columnRows: [(spec: String, row: String, column: Int, reason: IngestError.Reason)] = [
    (spec, #"2,"37,006.4""#, 4, .invalidNumber(column: "close", text: "37,006.4")),
    (spec, "2,NaN", 3, .nonFinite(column: "close", text: "NaN")),
    (spec, "2,-0.0", 3, .nonPositivePrice(column: "close", text: "-0.0")),
    (spec, "2", 2, .wrongFieldCount(expected: 2, found: 1)),
    (spec, #"2,"5"#, 3, .unterminatedQuote),
    (spec, #"2,"5"x"#, 3, .unterminatedQuote),
    (spec, "x,5", 1, .invalidTimestamp(column: "ts", text: "x")),
    (spec, "2,", 3, .missingPrice(column: "close")),
    (spec, "0,5", 1, .timestampNotIncreasing(previous: 1, found: 0)),
    (descendingSpec, "2,5", 1, .timestampNotDecreasing(previous: 1, found: 2)),
  ]

  @Test("a bad column-spec row: fail throws it, skip counts and quarantines it", arguments: columnRows)
  func columnRow(c: (spec: String, row: String, column: Int, reason: IngestError.Reason)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("prices.csv", "ts,close\n1,5\n" + c.row + "\n")
    let options = try columnOptions(c.spec)
    try Self.checkBadRow(path: path, header: "ts,close", row: c.row, column: c.column, reason: c.reason, options: options, in: folder)
  }

  static let nativeRows: [(row: String, column: Int, reason: IngestError.Reason)] = [
    ("2000,binance,perp,BTCUSDT,10,11,1,1,", 14, .invalidMarket(column: "market", text: "perp")),
    ("2000,binance,spot,BTCUSDT,,11,1,1,", 27, .missingPrice(column: "bid")),
    ("2000,binance,spot,BTCUSDT,10,,1,1,", 30, .missingPrice(column: "ask")),
    ("2000,binance,spot,BTCUSDT,,,1,1,", 33, .missingPrice(column: "last")),
  ]

  @Test("a bad ArbKit native row: fail throws it, skip counts and quarantines it", arguments: nativeRows)
  func nativeRow(c: (row: String, column: Int, reason: IngestError.Reason)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last"
    let path = folder.write("native.csv", header + "\n1000,binance,spot,BTCUSDT,10,11,1,1,\n" + c.row + "\n")
    try Self.checkBadRow(path: path, header: header, row: c.row, column: c.column, reason: c.reason, in: folder)
  }

  // MARK: Header and file level

  @Test("a misspelled Tardis header is an unknown format when detecting")
  func misspelledHeaderDetected() throws {
    let path = fixture("tardis-quotes-misspelled-header.csv")
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path) }
    let header = "exchange,symbol,timestamp,local_timestmap,ask_amount,ask_price,bid_price,bid_amount"
    #expect(error?.reason == .unknownFormat(firstLine: header))
    #expect(error?.position == SourcePosition(path: path, line: 1, column: 1))
  }

  @Test("a misspelled Tardis header is a missing header when the format is given")
  func misspelledHeaderNamed() throws {
    let path = fixture("tardis-quotes-misspelled-header.csv")
    var options = IngestOptions()
    options.format = .tardisQuotes
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
    #expect(error?.reason == .missingHeader(expected: tardisQuotesHeader))
    #expect(error?.position == SourcePosition(path: path, line: 1, column: 1))
  }

  @Test("a file without a Tardis header (data on line 1) is a missing header for a named format")
  func headerlessTardis() throws {
    var options = IngestOptions()
    options.format = .tardisTrades
    let error = #expect(throws: IngestError.self) { try ingest(tardisGoodRow + "\n", options: options) }
    #expect(error?.reason == .missingHeader(expected: "exchange,symbol,timestamp,local_timestamp,id,side,price,amount"))
    #expect(error?.position.line == 1)
    #expect(error?.position.column == 1)
  }

  @Test("an unknown header is an unknown format at 1:1")
  func unknownFormat() throws {
    let error = #expect(throws: IngestError.self) { try ingest("foo,bar\n1,2\n") }
    #expect(error?.reason == .unknownFormat(firstLine: "foo,bar"))
    #expect(error?.position.line == 1)
    #expect(error?.position.column == 1)
  }

  @Test("a spec column the header lacks is a missing column at 1:1")
  func missingColumn() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("prices.csv", "ts,open\n1,5\n")
    let options = try columnOptions(Self.spec)
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
    #expect(error?.reason == .missingColumn(name: "close"))
    #expect(error?.position == SourcePosition(path: path, line: 1, column: 1))
  }

  @Test("an empty file is an error; a header-only file is zero rows")
  func emptyAndHeaderOnly() throws {
    let empty = fixture("empty.csv")
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: empty) }
    #expect(error?.reason == .emptyFile)
    #expect(error?.position == SourcePosition(path: empty, line: 1, column: 1))

    for text in [tardisQuotesHeader + "\n", tardisQuotesHeader, tardisQuotesHeader + "\n\n"] {
      let file = try ingest(text)
      #expect(file.report.format == "tardis.quotes")
      #expect(file.report.rowsRead == 0)
      #expect(file.series.isEmpty)
      #expect(file.report.firstTime == nil)
    }
    let file = try Ingest.read(path: fixture("tardis-quotes-header-only.csv"))
    #expect(file.report.rowsRead == 0 && file.report.rowsRejected == 0)
  }

  @Test("a missing file is FileError.missing")
  func missingFile() throws {
    let path = "/nonexistent-arbkit/quotes.csv"
    let error = #expect(throws: FileError.self) { try Ingest.read(path: path) }
    #expect(error == .missing(path: path))
  }

  // MARK: skip

  @Test("skip counts every rejection by kind and quarantines the raw lines")
  func skipAccounting() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = fixture("tardis-quotes-every-bad-row.csv")
    var options = IngestOptions()
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.csv"
    options.keptErrors = 4
    let file = try Ingest.read(path: path, options: options)
    let report = file.report

    #expect(report.rowsRead == 12)
    #expect(report.rowsAccepted == 3)
    #expect(report.rowsRejected == 9)
    #expect(report.rowsRead == report.rowsAccepted + report.rowsRejected)
    let kinds = report.rejectedByKind.map { "\($0.kind)=\($0.count)" }
    #expect(
      kinds == [
        "wrong_field_count=1", "invalid_number=1", "non_finite=2", "non_positive_price=2",
        "negative_size=1", "crossed_book=1", "timestamp_backwards=1",
      ])
    #expect(report.errors.count == 4)
    #expect(report.errors.map(\.position.line) == [3, 4, 5, 6])
    #expect(report.errors[1] == IngestError(.invalidNumber(column: "ask_price", text: "abc"), at: SourcePosition(path: path, line: 4, column: 25)))

    // Accepted rows only, in order.
    #expect(file.series.count == 1)
    #expect(file.series[0].time == [100, 900, 1200])
    #expect(file.series[0].bid == [10.4, 10.5, 10.6])

    // The quarantine file: the header line, then each rejected line as it was.
    #expect(report.quarantinePath == options.quarantinePath)
    let lines = try textLines(path)
    let expected = ([lines[0]] + [3, 4, 5, 6, 7, 8, 9, 11, 12].map { lines[$0 - 1] }).joined(separator: "\n") + "\n"
    let written = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/rejected.csv"))
    #expect(written == Data(expected.utf8))
  }

  @Test("skip on a headerless spec file quarantines the raw lines only")
  func skipHeaderless() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("candles.csv", "60,1.5\n120,x\n180,2.5\n240,0\n")
    var options = try columnOptions(#"{"header": false, "time": {"column": 1, "form": "s"}, "price": 2}"#)
    options.badRows = .skip
    options.quarantinePath = folder.path + "/q.csv"
    let file = try Ingest.read(path: path, options: options)
    #expect(file.report.rowsRead == 4)
    #expect(file.report.rowsAccepted == 2)
    #expect(file.report.rejectedByKind.map(\.kind) == ["invalid_number", "non_positive_price"])
    #expect(
      file.report.errors.map(\.position) == [
        SourcePosition(path: path, line: 2, column: 5), SourcePosition(path: path, line: 4, column: 5),
      ])
    #expect(file.report.errors.first?.reason == .invalidNumber(column: "#2", text: "x"))
    #expect(file.series[0].time == [60_000_000, 180_000_000])
    #expect(try String(contentsOfFile: folder.path + "/q.csv", encoding: .utf8) == "120,x\n240,0\n")
  }

  @Test("skip writes no quarantine file when nothing is rejected")
  func skipClean() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var options = IngestOptions()
    options.badRows = .skip
    options.quarantinePath = folder.path + "/q.csv"
    let file = try Ingest.read(path: folder.write("q.csv.in", Self.tardis("binance,BTCUSDT,2,200,1,10.5,10.4,2")), options: options)
    #expect(file.report.rowsRejected == 0)
    #expect(file.report.quarantinePath == nil)
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/q.csv"))
  }
}
