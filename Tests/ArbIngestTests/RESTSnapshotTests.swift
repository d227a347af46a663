import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Recorded REST snapshots (`rest.snapshots`): the hand-made fixture holds one response
// per venue and endpoint in the documented shapes; every expected value below is read
// off the fixture text. Bad lines are hand-made, their columns found from the text.

/// The series of `file` for an instrument and field (the price series: book first).
func series(_ file: IngestedFile, _ venue: String, _ market: MarketKind, _ symbol: String, _ field: SeriesField = .price, book: Bool? = nil) -> QuoteSeries? {
  file.series.first {
    $0.instrument == Instrument(venue: venue, market: market, symbol: symbol) && $0.field == field
      && (book == nil || ($0.priceSource == .book) == book!)
  }
}

/// The 1-based byte column where `marker` starts in `line`, plus `shift`.
func column(of marker: String, in line: String, shift: Int = 0) -> Int {
  line[..<line.range(of: marker)!.lowerBound].utf8.count + 1 + shift
}

@Suite("REST snapshots")
struct RESTSnapshotTests {
  static let path = fixture("json/rest-snapshots.jsonl")

  @Test("every venue and endpoint: book quotes, last prices, mark, index and funding, error records, order books")
  func fixtureValues() throws {
    let file = try Ingest.read(path: Self.path)
    let report = file.report
    #expect(report.format == "rest.snapshots")
    #expect(report.rowsRead == 17 && report.rowsAccepted == 17 && report.rowsRejected == 0)
    #expect(report.errorRecords == 4)
    #expect(report.errorRecordSamples.map(\.position.line) == [3, 8, 13, 15])
    #expect(report.errorRecordSamples[0].reason == .errorRecord(detail: "bybit retCode 10001: params error: symbol invalid"))
    #expect(report.errorRecordSamples[3].reason == .errorRecord(detail: "okx code 50011: Too Many Requests"))
    #expect(report.skippedByKind.isEmpty)

    // Bybit linear perpetual, one book series in line order: the ticker of line 1, the
    // order book of line 16 (its top level), the bare ticker response of line 17.
    let perpetual = file.series.filter { $0.instrument == Instrument(venue: "bybit", market: .linear, symbol: "BTCUSDT") && $0.field == .price }
    #expect(perpetual.count == 1)
    let book = try #require(perpetual.first)
    #expect(book.priceSource == .book && book.time == [1_735_689_600_100_000, 1_735_689_601_600_000, 1_735_689_601_700_000])
    #expect(book.bid == [93512.3, 93512.3, 93514.9] && book.ask == [93512.4, 93512.4, 93515])
    #expect(book.bidSize == [1.2, 1.2, 1] && book.askSize == [0.8, 0.8, 2])
    #expect(book.otherTime == [1_735_689_600_095_000, 1_735_689_601_590_000, 1_735_689_601_695_000], "the server time is the other clock")
    #expect(series(file, "bybit", .linear, "BTCUSDT", .mark)?.bid == [93505.43, 93506])
    #expect(series(file, "bybit", .linear, "BTCUSDT", .index)?.bid == [93498.76, 93499])
    #expect(series(file, "bybit", .linear, "BTCUSDT", .fundingRate)?.bid == [0.0001, 0.00011])
    // The dated contract: a future, its empty funding rate no value.
    #expect(series(file, "bybit", .future, "BTCUSDT-26DEC25")?.bid == [95000.5])
    #expect(series(file, "bybit", .future, "BTCUSDT-26DEC25", .fundingRate) == nil)
    #expect(series(file, "bybit", .spot, "BTCUSDT")?.ask == [93520.2])
    #expect(series(file, "bybit", .spot, "BTCUSDT", .mark) == nil, "spot has no mark series")

    // Binance: last price, book ticker, premium index (USDⓈ-M and COIN-M).
    let last = try #require(series(file, "binance", .spot, "BTCUSDT", book: false))
    #expect(last.priceSource == .last && last.bid == [93512.4] && last.time == [1_735_689_600_400_000])
    #expect(series(file, "binance", .spot, "BTCUSDT", book: true)?.bid == [93512.39])
    #expect(series(file, "binance", .spot, "ETHUSDT")?.askSize == [3])
    #expect(series(file, "binance", .linear, "BTCUSDT", .fundingRate)?.bid == [-0.000125], "a negative rate is a value")
    #expect(series(file, "binance", .linear, "BTCUSDT", .mark)?.otherTime == [1_735_689_600_590_000])
    #expect(series(file, "binance", .inverse, "BTCUSD_PERP", .fundingRate)?.bid == [0.0001])
    #expect(series(file, "binance", .future, "BTCUSD_250328", .mark)?.bid == [95100.3])
    #expect(series(file, "binance", .future, "BTCUSD_250328", .fundingRate) == nil, "COIN-M \"\" rate is no value, not zero")

    // Upbit ticker (JSON numbers) and order book top level; Bithumb single and ALL.
    #expect(series(file, "upbit", .spot, "KRW-BTC", book: false)?.bid == [137_250_000])
    let upbitBook = try #require(series(file, "upbit", .spot, "KRW-BTC", book: true))
    #expect(upbitBook.bid == [137_240_000] && upbitBook.ask == [137_260_000] && upbitBook.bidSize == [0.007])
    let krwBTC = file.series.filter { $0.instrument.symbol == "KRW-BTC" }.map(\.priceSource)
    #expect(krwBTC == [.book, .last], "an instrument's book series comes before its last series")
    #expect(series(file, "upbit", .spot, "KRW-USDT")?.bid == [1475])
    #expect(series(file, "bithumb", .spot, "BTC_KRW")?.bid == [137_300_000, 137_310_000])
    #expect(series(file, "bithumb", .spot, "ETH_KRW")?.otherTime == [1_735_689_601_150_000])

    // OKX: a USDT swap is linear, a USD swap inverse.
    #expect(series(file, "okx", .linear, "BTC-USDT-SWAP")?.bid == [93512.4])
    #expect(series(file, "okx", .inverse, "BTC-USD-SWAP")?.ask == [93500.1])
    #expect(report.firstTime == 1_735_689_600_100_000 && report.lastTime == 1_735_689_601_700_000)
  }

  @Test("the exchange clock: the venue's time orders the series; a response without one is rejected")
  func exchangeClock() throws {
    var options = IngestOptions()
    options.clock = .exchange
    options.badRows = .skip
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    options.quarantinePath = folder.path + "/q.jsonl"
    let file = try Ingest.read(path: Self.path, options: options)
    #expect(file.report.rowsRejected == 2 && file.report.errors.map(\.position.line) == [4, 5])
    #expect(file.report.rejectedByKind.map(\.kind) == ["invalid_timestamp"])
    let perpetual = file.series.filter { $0.instrument == Instrument(venue: "bybit", market: .linear, symbol: "BTCUSDT") && $0.field == .price }
    #expect(perpetual.map(\.time) == [[1_735_689_600_095_000, 1_735_689_601_590_000, 1_735_689_601_695_000]], "tickers and the order book, one series")
    let quarantined = try String(contentsOfFile: folder.path + "/q.jsonl", encoding: .utf8).split(separator: "\n")
    #expect(quarantined.count == 2 && quarantined[0].contains("/api/v3/ticker/price"))
  }

  static let good =
    #"{"recv_ts_us": 100, "venue": "bybit", "endpoint": "/v5/market/tickers", "params": {"category": "linear"}, "response": {"retCode":0,"result":{"list":[{"symbol":"BTCUSDT","bid1Price":"10","ask1Price":"11"}]},"time":90}}"#

  /// Hand-made bad lines: the line, the marker its error column points at (nil: column
  /// 1; "$": one past the end) and the reason's kind.
  static let bad: [(line: String, marker: String?, kind: String)] = [
    (#"{"recv_ts_us": 200, "venue": "bybit""#, "$", "malformed_json"),
    (#"{"venue":"bybit","endpoint":"/v5/market/tickers","response":{}}"#, nil, "missing_column"),
    (#"{"recv_ts_us": "soon", "venue": "bybit", "endpoint": "/x", "response": {}}"#, "\"soon\"", "invalid_timestamp"),
    (good.replacingOccurrences(of: "100", with: "300").replacingOccurrences(of: #""10""#, with: #""abc""#), "\"abc\"", "invalid_number"),
    (good.replacingOccurrences(of: "100", with: "400").replacingOccurrences(of: #""11""#, with: #""9""#), nil, "crossed_book"),
    (
      good.replacingOccurrences(of: "100", with: "500").replacingOccurrences(of: #""ask1Price""#, with: #""markPrice":"-5","ask1Price""#), "\"-5\"",
      "non_positive_price"
    ),
    (
      #"{"recv_ts_us": 600, "venue": "binance", "endpoint": "/api/v3/ticker/bookTicker", "response": {"symbol":"BTCUSDT","askPrice":"1"}}"#, nil,
      "missing_price"
    ),
    (good.replacingOccurrences(of: "100", with: "50"), nil, "timestamp_backwards"),
    ("[1,2]", nil, "invalid_value"),
    (#"{"recv_ts_us": 700, "venue": "okx", "endpoint": "/api/v5/market/tickers", "response": {"code":0,"data":[]}}"#, "0,\"data", "invalid_value"),
    (
      #"{"recv_ts_us": 800, "venue": "bybit", "endpoint": "/v5/market/tickers", "response": {"retCode":0,"result":{"category":"linear","list":[{"symbol":"X","lastPrice":"1e999"}]}}}"#,
      "\"1e999\"", "non_finite"
    ),
  ]

  @Test("bad lines: rejected with line, column and reason; skip keeps going and quarantines them; fail stops at the first")
  func badLines() throws {
    let text = ([Self.good] + Self.bad.map(\.line) + [Self.good.replacingOccurrences(of: "100", with: "900")]).joined(separator: "\n") + "\n"
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("bad.jsonl", text)
    var options = IngestOptions()
    options.format = .restSnapshots
    options.badRows = .skip
    options.quarantinePath = folder.path + "/q.jsonl"
    let file = try Ingest.read(path: path, options: options)
    #expect(file.report.rowsRead == Self.bad.count + 2 && file.report.rowsAccepted == 2 && file.report.rowsRejected == Self.bad.count)
    for (k, c) in Self.bad.enumerated() {
      let error = file.report.errors[k]
      let expected = c.marker.map { $0 == "$" ? c.line.utf8.count + 1 : column(of: $0, in: c.line, shift: $0.hasPrefix("\"") ? 1 : 0) } ?? 1
      #expect(error.reason.kind == c.kind && error.position.line == k + 2 && error.position.column == expected, "\(c.line): \(error)")
    }
    #expect(series(file, "bybit", .linear, "BTCUSDT")?.time == [100, 900], "no point of a rejected line is kept")
    let quarantined = try String(contentsOfFile: folder.path + "/q.jsonl", encoding: .utf8)
    #expect(quarantined == Self.bad.map { $0.line + "\n" }.joined())
    options.badRows = .fail
    #expect(
      throws: IngestError(
        .malformedJSON(expected: "',' or '}'", found: "end of input"), at: SourcePosition(path: path, line: 2, column: Self.bad[0].line.utf8.count + 1))
    ) {
      try Ingest.read(path: path, options: options)
    }
  }

  @Test("detected from the first line; named; an empty file and a file of blank lines")
  func detection() throws {
    #expect(try JSONSources.format(path: Self.path, size: 1, named: nil) == .restSnapshots)
    #expect(RecordFormat(id: "rest.snapshots") == .restSnapshots)
    #expect(RecordFormat.namedIDs.contains("rest.snapshots"))
    var options = IngestOptions()
    options.format = .restSnapshots
    #expect { try ingest("", name: "empty.jsonl", options: options) } throws: { ($0 as? IngestError)?.reason == .emptyFile }
    let blank = try ingest("\n  \n", name: "blank.jsonl", options: options)
    #expect(blank.report.rowsRead == 0 && blank.series.isEmpty)
  }
}
