import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// The order books `arbkit record --books` records, one fixture per venue (the recorder
// tests' fixtures, in the shapes the venues document); every expected value below is
// read off the fixture text by hand.

/// One venue's book response and what it reads to.
struct BookCase: Sendable, CustomTestStringConvertible {
  var venue: String
  var endpoint: String
  var params: String
  var fixture: String
  var instrument: Instrument
  var bid: Double
  var ask: Double
  var bidSize: Double
  var askSize: Double
  var exchangeTime: Int64?
  var bids: [Double]
  var bidSizes: [Double]
  var asks: [Double]
  var askSizes: [Double]

  var testDescription: String { "\(venue) \(endpoint)" }
}

@Suite("REST snapshots: order books")
struct RESTSnapshotBookTests {
  static let fixtures = Repository.root.appendingPathComponent("Tests/ArbRecordTests/Fixtures")
  static let receiveTime: Int64 = 1_622_591_002_000_000

  /// A `rest.snapshots` line answering `endpoint` of `venue` with `body`.
  static func line(_ venue: String, _ endpoint: String, _ params: String, body: String, time: Int64 = receiveTime) -> String {
    "{\"recv_ts_us\":\(time),\"venue\":\"\(venue)\",\"endpoint\":\"\(endpoint)\",\"params\":{\(params)},\"status\":200,\"response\":\(body)}"
  }

  /// The text of the fixture `name`, without its final newline.
  static func body(_ name: String) throws -> String {
    try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func read(_ lines: [String], depth: Bool = false, clock: Clock = .local) throws -> IngestedFile {
    var options = IngestOptions()
    options.format = .restSnapshots
    options.keepDepth = depth
    options.clock = clock
    return try Ingest.read(bytes: Array((lines.joined(separator: "\n") + "\n").utf8), path: "books.jsonl", options: options)
  }

  static let cases: [BookCase] = [
    BookCase(
      venue: "bybit", endpoint: "/v5/market/orderbook", params: #""category":"linear","symbol":"BTCUSDT","limit":"50""#,
      fixture: "bybit-linear-orderbook.json", instrument: Instrument(venue: "bybit", market: .linear, symbol: "BTCUSDT"),
      bid: 36605.4, ask: 36605.5, bidSize: 1.204, askSize: 0.8, exchangeTime: 1_622_591_001_605_000,
      bids: [36605.4, 36605, 36604.5], bidSizes: [1.204, 0.35, 2.01], asks: [36605.5, 36606, 36606.5], askSizes: [0.8, 1.5, 3.125]),
    BookCase(
      venue: "binance", endpoint: "/fapi/v1/depth", params: #""symbol":"BTCUSDT","limit":"20""#,
      fixture: "binance-linear-depth.json", instrument: Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT"),
      bid: 36601.2, ask: 36601.3, bidSize: 0.501, askSize: 3.972, exchangeTime: 1_622_591_001_641_000,
      bids: [36601.2, 36601.1, 36600.5], bidSizes: [0.501, 0.003, 0.088], asks: [36601.3, 36601.4, 36602], askSizes: [3.972, 0.023, 1.25]),
    BookCase(
      venue: "binance", endpoint: "/api/v3/depth", params: #""symbol":"BTCUSDT","limit":"20""#,
      fixture: "binance-spot-depth.json", instrument: Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT"),
      bid: 36612.01, ask: 36612.02, bidSize: 1.204, askSize: 0.051, exchangeTime: nil,
      bids: [36612.01, 36612, 36611.5], bidSizes: [1.204, 0.431, 2], asks: [36612.02, 36612.5, 36613], askSizes: [0.051, 0.75, 12]),
    BookCase(
      venue: "okx", endpoint: "/api/v5/market/books", params: #""instId":"BTC-USDT-SWAP","sz":"20""#,
      fixture: "okx-swap-books.json", instrument: Instrument(venue: "okx", market: .linear, symbol: "BTC-USDT-SWAP"),
      bid: 36603, ask: 36603.1, bidSize: 15, askSize: 8, exchangeTime: 1_622_591_001_612_000,
      bids: [36603, 36602.4, 36601.9], bidSizes: [15, 230, 9], asks: [36603.1, 36603.5, 36604], askSizes: [8, 120, 41]),
    BookCase(
      venue: "upbit", endpoint: "/v1/orderbook", params: #""markets":"KRW-BTC""#,
      fixture: "upbit-orderbook.json", instrument: Instrument(venue: "upbit", market: .spot, symbol: "KRW-BTC"),
      bid: 43_251_000, ask: 43_252_000, bidSize: 0.007, askSize: 0.24, exchangeTime: 1_622_591_001_610_000,
      bids: [43_251_000, 43_240_000, 43_230_000], bidSizes: [0.007, 2, 1], asks: [43_252_000, 43_260_000, 43_270_000], askSizes: [0.24, 1, 1]),
    BookCase(
      venue: "bithumb", endpoint: "/public/orderbook/BTC_KRW", params: "",
      fixture: "bithumb-orderbook-btc-krw.json", instrument: Instrument(venue: "bithumb", market: .spot, symbol: "BTC_KRW"),
      bid: 43_251_000, ask: 43_252_000, bidSize: 0.012, askSize: 0.24, exchangeTime: 1_622_591_001_615_000,
      bids: [43_251_000, 43_250_000, 43_240_000], bidSizes: [0.012, 1.5, 0.3305], asks: [43_252_000, 43_255_000, 43_260_000],
      askSizes: [0.24, 0.0085, 2]),
    // Coinone's asks are written highest first: the best ask is the lowest, wherever it is.
    BookCase(
      venue: "coinone", endpoint: "/public/v2/orderbook/KRW/BTC", params: "",
      fixture: "coinone-orderbook-btc.json", instrument: Instrument(venue: "coinone", market: .spot, symbol: "BTC"),
      bid: 43_249_000, ask: 43_253_000, bidSize: 0.5012, askSize: 0.41, exchangeTime: 1_622_591_001_620_000,
      bids: [43_249_000, 43_248_000, 43_245_000], bidSizes: [0.5012, 0.03, 1.2], asks: [43_253_000, 43_254_000, 43_258_000],
      askSizes: [0.41, 0.015, 0.7]),
  ]

  @Test("each venue's book: best bid and ask with sizes at the receive time, the exchange time kept; with depth, every level", arguments: cases)
  func book(_ c: BookCase) throws {
    let line = Self.line(c.venue, c.endpoint, c.params, body: try Self.body(c.fixture))
    let file = try Self.read([line])
    #expect(file.report.rowsRead == 1 && file.report.rowsAccepted == 1 && file.report.rowsRejected == 0)
    #expect(file.report.errorRecords == 0 && file.report.skippedByKind.isEmpty)
    #expect(file.series.count == 1)
    let quote = try #require(file.series.first)
    #expect(quote.instrument == c.instrument && quote.field == .price && quote.priceSource == .book)
    #expect(quote.time == [Self.receiveTime])
    #expect(quote.bid == [c.bid] && quote.ask == [c.ask] && quote.bidSize == [c.bidSize] && quote.askSize == [c.askSize])
    #expect(quote.depth == nil, "no depth unless asked for")
    if let exchangeTime = c.exchangeTime {
      #expect(quote.otherTime == [exchangeTime])
      #expect(try Self.read([line], clock: .exchange).series.first?.time == [exchangeTime])
    } else {
      #expect(throws: IngestError.self, "a book without an exchange time has no time on the exchange clock") {
        try Self.read([line], clock: .exchange)
      }
    }

    let deep = try #require(try Self.read([line], depth: true).series.first)
    let depth = try #require(deep.depth)
    #expect(depth.count == 1 && depth.bidStart == [0, c.bids.count] && depth.askStart == [0, c.asks.count])
    #expect(depth.bidPrice == c.bids && depth.bidSize == c.bidSizes && depth.askPrice == c.asks && depth.askSize == c.askSizes)
    #expect(deep.bid == [c.bid] && deep.ask == [c.ask])
  }

  @Test("Bithumb ALL_KRW: one book per coin object of data, symbol COIN_KRW, at data.timestamp")
  func bithumbAll() throws {
    let line = Self.line("bithumb", "/public/orderbook/ALL_KRW", "", body: try Self.body("bithumb-orderbook-all-krw.json"))
    let file = try Self.read([line], depth: true)
    #expect(file.series.map(\.instrument.symbol) == ["BTC_KRW", "ETH_KRW"])
    let eth = try #require(file.series.last)
    #expect(eth.bid == [3_102_000] && eth.ask == [3_103_000] && eth.bidSize == [3.1] && eth.askSize == [1.25])
    #expect(eth.otherTime == [1_622_591_001_615_000])
    #expect(eth.depth?.bidPrice == [3_102_000, 3_101_000, 3_100_000] && eth.depth?.askSize == [1.25, 4, 0.75])
  }

  @Test("an error response to a book request is an error record, as the venue's tickers'")
  func errorRecords() throws {
    let lines = [
      Self.line("bybit", "/v5/market/orderbook", #""category":"linear","symbol":"BTCUSDT""#, body: try Self.body("bybit-error.json")),
      Self.line("binance", "/fapi/v1/depth", #""symbol":"BTCUSDX""#, body: #"{"code":-1121,"msg":"Invalid symbol."}"#),
      Self.line("okx", "/api/v5/market/books", #""instId":"BTC-USDT-SWAP""#, body: #"{"code":"51001","msg":"Instrument ID does not exist","data":[]}"#),
      Self.line("upbit", "/v1/orderbook", #""markets":"KRW-XYZ""#, body: #"{"error":{"name":"404","message":"Code not found"}}"#),
      Self.line("bithumb", "/public/orderbook/XYZ_KRW", "", body: #"{"status":"5500","message":"Invalid Parameter"}"#),
      Self.line("coinone", "/public/v2/orderbook/KRW/XYZ", "", body: #"{"result":"error","error_code":"107","error_msg":"Parameter value is wrong"}"#),
    ]
    let report = try Self.read(lines).report
    #expect(report.rowsRead == 6 && report.rowsAccepted == 6 && report.rowsRejected == 0)
    #expect(report.errorRecords == 6 && report.skippedByKind.isEmpty)
    let details = report.errorRecordSamples.map { sample -> String in
      if case .errorRecord(let detail) = sample.reason { return detail }
      return ""
    }
    #expect(
      details == [
        "bybit retCode 10006: Too many visits!", "binance code -1121: Invalid symbol.", "okx code 51001: Instrument ID does not exist",
        "upbit 404: Code not found", "bithumb status 5500: Invalid Parameter", "coinone error_code 107: Parameter value is wrong",
      ])
  }

  @Test("a ticker and a book of one instrument: two book series, the whole book first; only it carries depth")
  func tickerAndBook() throws {
    let params = #""category":"linear","symbol":"BTCUSDT""#
    let lines = [
      Self.line("bybit", "/v5/market/tickers", params, body: try Self.body("bybit-linear-tickers.json"), time: Self.receiveTime),
      Self.line("bybit", "/v5/market/orderbook", params, body: try Self.body("bybit-linear-orderbook.json"), time: Self.receiveTime + 1000),
    ]
    let file = try Self.read(lines, depth: true)
    let books = file.series.filter { $0.instrument == Instrument(venue: "bybit", market: .linear, symbol: "BTCUSDT") && $0.field == .price }
    #expect(books.count == 2 && books.allSatisfy { $0.priceSource == .book })
    #expect(books.first?.bid == [36605.4] && books.first?.depth?.count == 1)
    #expect(books.last?.time == [Self.receiveTime] && books.last?.depth == nil)
  }

  @Test("bad levels are rejected with their column; read = accepted + rejected")
  func badLevels() throws {
    let params = #""category":"linear","symbol":"BTCUSDT""#
    let good = try Self.body("bybit-linear-orderbook.json")
    let lines = [
      Self.line("bybit", "/v5/market/orderbook", params, body: good.replacingOccurrences(of: #"["36605.0","0.350"]"#, with: #"["36605.0"]"#)),
      Self.line("bybit", "/v5/market/orderbook", params, body: good.replacingOccurrences(of: #""36606.5""#, with: #""-1""#)),
      Self.line("bybit", "/v5/market/orderbook", params, body: good.replacingOccurrences(of: #"["36605.0","0.350"]"#, with: #"["36605.4","0.350"]"#)),
      Self.line("bybit", "/v5/market/orderbook", params, body: good, time: Self.receiveTime + 1),
    ]
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var options = IngestOptions()
    options.format = .restSnapshots
    options.keepDepth = true
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.jsonl"
    let file = try Ingest.read(bytes: Array((lines.joined(separator: "\n") + "\n").utf8), path: "books.jsonl", options: options)
    let report = file.report
    #expect(report.rowsRead == 4 && report.rowsAccepted == 1 && report.rowsRejected == 3)
    #expect(report.rowsRead == report.rowsAccepted + report.rowsRejected)
    #expect(file.series.first?.bid == [36605.4])
  }

  @Test("a book with an empty side adds no point")
  func emptySide() throws {
    let body = #"{"retCode":0,"retMsg":"OK","result":{"s":"BTCUSDT","b":[],"a":[["36605.5","0.800"]],"ts":1622591001605,"u":1,"seq":2},"time":1622591001643}"#
    let file = try Self.read([Self.line("bybit", "/v5/market/orderbook", #""category":"linear""#, body: body)])
    #expect(file.report.rowsAccepted == 1 && file.series.isEmpty)
  }
}
