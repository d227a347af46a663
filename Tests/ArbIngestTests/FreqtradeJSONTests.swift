import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// freqtrade OHLCV JSON (SOURCES.md §7): two real files copied byte for byte into
// Fixtures (pretty-printed, one row per line), and small one-line files for the
// malformed cases. Counts are the rows of each file (`grep -c '^  \['`); times and
// closes were read off the file text by hand.

@Suite("freqtrade OHLCV JSON")
struct FreqtradeJSONTests {
  static let files: [(file: String, rows: Int, first: Int64, last: Int64, closes: [(Int64, Double)])] = [
    // [ 1637110800000, 1.0801, …, 1.07925, 3153694.607359 ] (2021-11-17 01:00)
    // [ 1637118000000, 1.07607, 1.08521, 1.05896, 1.06804, … ] (third row)
    // [ 1637467200000, 1.07685, 1.08229, 1.07552, 1.0765, … ] (2021-11-21 04:00)
    (
      "XRP_USDT_USDT-1h-futures.json", 100, 1_637_110_800_000_000, 1_637_467_200_000_000,
      [(1_637_110_800_000_000, 1.07925), (1_637_118_000_000_000, 1.06804), (1_637_467_200_000_000, 1.0765)]
    ),
    // [1636956000000, 1.20932, 1.21787, 1.20763, 1.21431, null] (2021-11-15 06:00)
    // [1637312400000, 1.05721, 1.06464, 1.05619, 1.06051, null] (2021-11-19 09:00)
    (
      "XRP_USDT_USDT-1h-mark.json", 100, 1_636_956_000_000_000, 1_637_312_400_000_000,
      [(1_636_956_000_000_000, 1.21431), (1_637_312_400_000_000, 1.06051)]
    ),
  ]

  @Test("each real file is detected: rows, first/last times, closes checked by hand, instrument", arguments: files)
  func realFile(c: (file: String, rows: Int, first: Int64, last: Int64, closes: [(Int64, Double)])) throws {
    let file = try Ingest.read(path: fixture(c.file))
    #expect(file.report.format == "freqtrade.ohlcv")
    #expect(file.report.rowsRead == c.rows && file.report.rowsAccepted == c.rows && file.report.rowsRejected == 0)
    #expect(file.report.rowsCollapsed == 0)
    let s = try #require(file.series.first)
    #expect(file.series.count == 1 && s.count == c.rows)
    #expect(s.instrument == Instrument(venue: "unknown", market: .linear, symbol: "XRPUSDT"))
    #expect(s.priceSource == .last)
    #expect(s.time.first == c.first && s.time.last == c.last)
    #expect(file.report.firstTime == c.first && file.report.lastTime == c.last)
    #expect(zip(s.time, s.time.dropFirst()).allSatisfy { $1 - $0 == 3_600_000_000 }, "hourly candles")
    for (time, close) in c.closes {
      let k = try #require(s.time.firstIndex(of: time))
      #expect(s.bid[k] == close && s.ask[k] == close)
    }
    // Named, and gzip-compressed: the same series.
    var options = IngestOptions()
    options.format = RecordFormat(id: "freqtrade.ohlcv")
    #expect(options.format == .freqtradeOHLCV)
    #expect(sameColumns(try #require(try Ingest.read(path: fixture(c.file), options: options).series.first), s))
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let plain = folder.write(c.file, try Data(contentsOf: URL(fileURLWithPath: fixture(c.file))))
    let gz = try gzip(plain)
    #expect(sameColumns(try #require(try Ingest.read(path: gz).series.first), s))
  }

  @Test("times: integer ms and a decimal ms are exact to the µs; instrument from the name or the leg")
  func timesAndInstrument() throws {
    let text = "[[1637193600017,0.5,0.5,0.5,0.5,null],[1637193600017.5,1,1,1,2.25,1],[1637222400007.0,1,1,1,3,0]]"
    let file = try ingest(text, name: "XRP_USDT-8h.json")
    let s = try #require(file.series.first)
    #expect(s.time == [1_637_193_600_017_000, 1_637_193_600_017_500, 1_637_222_400_007_000])
    #expect(s.bid == [0.5, 2.25, 3])
    #expect(s.instrument == Instrument(venue: "unknown", market: .spot, symbol: "XRPUSDT"))
    #expect(FreqtradeJSON.instrument(path: "d/XRP_USDT_USDT-5m-futures.json") == Instrument(venue: "unknown", market: .linear, symbol: "XRPUSDT"))
    #expect(FreqtradeJSON.instrument(path: "BTC_USD_BTC-1h-futures.json").market == .inverse)
    #expect(FreqtradeJSON.instrument(path: "candles.json") == Instrument(venue: "unknown", market: .spot, symbol: "unknown"))
    var options = IngestOptions()
    options.instrument = Instrument(venue: "binance", market: .linear, symbol: "XRPUSDT")
    #expect(try ingest(text, name: "XRP_USDT-8h.json", options: options).series.first?.instrument == options.instrument)
    // An empty array: no rows, no series; whitespace between the brackets still detects.
    let empty = try ingest(
      " [ ]", name: "x.json",
      options: {
        var o = IngestOptions(); o.format = .freqtradeOHLCV; return o
      }())
    #expect(empty.report.rowsRead == 0 && empty.series.isEmpty)
    #expect(try ingest("[\n [1,1,1,1,1,1]]", name: "x.json").report.format == "freqtrade.ohlcv")
  }

  /// The rows of a freqtrade file by Foundation's JSON parser: the independent oracle.
  static func oracleRows(_ name: String) throws -> [[Double]] {
    let data = try Data(contentsOf: URL(fileURLWithPath: fixture(name)))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [[Any]]).map { row in
      row.map { ($0 as? NSNumber)?.doubleValue ?? .nan }
    }
  }

  @Test("real 8h funding file: 91 signed rates from the open slot, times snapped to the whole hour")
  func realFundingRate() throws {
    let name = "XRP_USDT_USDT-8h-funding_rate.json"
    let file = try Ingest.read(path: fixture(name))
    #expect(file.report.rowsRead == 91 && file.report.rowsAccepted == 91 && file.report.rowsRejected == 0)
    let s = try #require(file.series.first)
    #expect(file.series.count == 1 && s.field == .fundingRate && s.count == 91)
    #expect(file.report.instruments.map(\.field) == [.fundingRate])
    let rows = try Self.oracleRows(name)
    // Oracle: the ms time rounded to the nearest hour (the file's offsets are 0–19 ms).
    #expect(rows.allSatisfy { $0[0].truncatingRemainder(dividingBy: 3_600_000) < 20 })
    #expect(s.time == rows.map { Int64(($0[0] / 3_600_000).rounded()) * 3_600_000_000 })
    #expect(s.bid == rows.map { $0[1] } && s.ask == s.bid)
    // 2021-11-18 00:00:00.017 is 00:00; the last row 2021-12-18 00:00.
    #expect(s.time.first == 1_637_193_600_000_000 && s.time.last == 1_639_785_600_000_000)
    #expect(zip(s.time, s.time.dropFirst()).allSatisfy { $1 - $0 == 8 * 3_600_000_000 }, "an 8-hour grid")
    #expect(s.bid.contains { $0 < 0 }, "the file has negative rates")
    #expect(s.bid.min() == -0.00219334 && s.bid.max() == 0.00058316)
    #expect(s.fundingInterval.isEmpty, "freqtrade does not state the interval per row")
  }

  @Test("real 8h mark file: a mark series of closes; a rate may be zero or negative, a mark may not")
  func realMarkAndSignedRates() throws {
    let name = "XRP_USDT_USDT-8h-mark.json"
    let s = try #require(try Ingest.read(path: fixture(name)).series.first)
    let rows = try Self.oracleRows(name)
    #expect(s.field == .mark && s.count == 91)
    #expect(s.time == rows.map { Int64($0[0]) * 1000 } && s.bid == rows.map { $0[4] })
    #expect(FreqtradeJSON.field(path: "a/XRP_USDT_USDT-1h-mark.json.gz") == .mark)
    #expect(FreqtradeJSON.field(path: "XRP_USDT_USDT-5m-futures.json") == .price)

    let rates = try ingest("[[1637193600000,0,0,0,0,0],[1637222400000,-0.0003,0,0,0,0],[1637251259999,2e-4,0,0,0,0]]", name: "X_USDT_USDT-8h-funding_rate.json")
    #expect(rates.series.first?.bid == [0, -0.0003, 0.0002])
    #expect(rates.series.first?.time.last == 1_637_251_200_000_000, "59.999 s late snaps back")
    let zeroMark = #expect(throws: IngestError.self) { try ingest("[[1637193600000,1,1,1,0,1]]", name: "X_USDT_USDT-8h-mark.json") }
    #expect(zeroMark?.reason == .nonPositivePrice(column: "close", text: "0"))
  }

  @Test("a funding time more than 60 s from a whole hour is rejected at its line:column")
  func offGrid() throws {
    let text = "[[1637193600000,0.0001,0,0,0,0],\n [1637193660001,0.0001,0,0,0,0]]"
    let error = #expect(throws: IngestError.self) { try ingest(text, name: "X_USDT_USDT-8h-funding_rate.json") }
    #expect(error?.reason == .offFundingGrid(column: "open_time", text: "1637193660001", toleranceMillis: 60_000))
    #expect(error?.position.line == 2 && error?.position.column == 3)
    #expect(error?.description.contains("not within 60000 ms of a whole hour") == true)
  }

  /// 1-based column of the first `needle` in a one-line `text`.
  static func column(_ needle: String, in text: String, after: Int = 0) -> Int {
    let bytes = Array(text.utf8), pattern = Array(needle.utf8)
    for k in after..<bytes.count where bytes[k...].starts(with: pattern) { return k + 1 }
    return -1
  }

  static let row1 = "[1637110800000,1.0,1.1,0.9,1.05,10]"

  static let malformed: [(name: String, text: String, reason: IngestError.Reason, line: Int, column: Int)] = [
    ("missing closing bracket", "[" + row1, .malformedJSON(expected: "',' or ']' after a row", found: "end of file"), 1, row1.utf8.count + 2),
    (
      "missing row bracket", "[[1637110800000,1,1,1,1,1 [1637114400000,1,1,1,1,1]]",
      .malformedJSON(expected: "',' or ']' inside a row", found: "["), 1, 27
    ),
    ("trailing comma in a row", "[[1637110800000,1,1,1,1,]]", .malformedJSON(expected: "a value", found: "]"), 1, 25),
    ("not an array", "{\"a\": 1}", .unknownFormat(firstLine: "{\"a\": 1}"), 1, 1),
    (
      "non-number close", "[" + row1 + ",[1637114400000,1.0,1.1,0.9,abc,10]]",
      .invalidNumber(column: "close", text: "abc"), 1, column("abc", in: "[" + row1 + ",[1637114400000,1.0,1.1,0.9,abc,10]]")
    ),
    ("non-number open", "[[1637110800000,\"1.0\",1.1,0.9,1.05,10]]", .invalidNumber(column: "open", text: "\"1.0\""), 1, 17),
    (
      "short row", "[" + row1 + ",[1637114400000,1.0,1.1,0.9,1.05]]",
      .wrongFieldCount(expected: 6, found: 5), 1, row1.utf8.count + 35 - 1
    ),
    ("bad time", "[[16371108x0000,1,1,1,1,1]]", .invalidTimestamp(column: "open_time", text: "16371108x0000"), 1, 3),
    ("null close", "[[1637110800000,1,1,1,null,1]]", .missingPrice(column: "close"), 1, 23),
    ("zero close", "[[1637110800000,1,1,1,0,1]]", .nonPositivePrice(column: "close", text: "0"), 1, 23),
    (
      "backwards time", "[" + row1 + ",[1637107200000,1,1,1,1,1]]",
      .timestampNotIncreasing(previous: 1_637_110_800_000_000, found: 1_637_107_200_000_000), 1, row1.utf8.count + 4
    ),
    (
      "second line", "[\n  [1637110800000, 1, 1, 1, 1.05, 1],\n  [1637114400000, 1, 1, 1, x, 1]\n]",
      .invalidNumber(column: "close", text: "x"), 3, 28
    ),
  ]

  @Test("malformed input reports its reason at line:column", arguments: malformed)
  func malformedInput(c: (name: String, text: String, reason: IngestError.Reason, line: Int, column: Int)) throws {
    var options = IngestOptions()
    options.format = c.name == "not an array" ? nil : .freqtradeOHLCV
    let error = #expect(throws: IngestError.self, "\(c.name)") { try ingest(c.text, name: "XRP_USDT_USDT-1h-futures.json", options: options) }
    #expect(error?.reason == c.reason, "\(c.name)")
    #expect(error?.position.line == c.line && error?.position.column == c.column, "\(c.name): \(String(describing: error?.position))")
  }

  @Test("skip: a bad row is counted and quarantined, the structure error still fails")
  func skip() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var options = IngestOptions()
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.json"
    let text = "[" + Self.row1 + ", [1637114400000,1,1,1,abc,1],[1637118000000,1,1,1,1.5,1]]"
    let file = try Ingest.read(path: folder.write("XRP_USDT-1h.json", text), options: options)
    #expect(file.report.rowsRead == 3 && file.report.rowsAccepted == 2 && file.report.rowsRejected == 1)
    #expect(file.report.rejectedByKind.first?.kind == "invalid_number")
    #expect(file.report.errors.first?.position.column == Self.column("abc", in: text))
    #expect(file.series.first?.bid == [1.05, 1.5])
    #expect(try String(contentsOfFile: folder.path + "/rejected.json", encoding: .utf8) == "[1637114400000,1,1,1,abc,1]\n")
    let broken = folder.write("y.json", "[" + Self.row1)
    #expect(throws: IngestError.self) { try Ingest.read(path: broken, options: options) }
  }
}
