import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// cryptofeed recordings (SOURCES.md §5): slices of the real files in Fixtures/json.
// The expected counts and last values come from an independent replay of the slices
// with Python's json module and Decimal (`ts` rounded half up to the µs; skipped kinds
// counted the same way): per series the number of distinct receive times and the
// value at the last one.

@Suite("cryptofeed recordings")
struct CryptofeedTests {
  typealias Expected = (
    venue: String, market: MarketKind, symbol: String, field: SeriesField, book: Bool, count: Int, lastTime: Int64, bid: Double, ask: Double
  )

  static let cases: [(file: String, rows: Int, skipped: [String: Int], series: [Expected])] = [
    (
      "bybit-slice.jsonl.zst", 367,
      ["header": 1, "connect": 2, "send": 24, "bybit subscribe": 20, "bybit orderbook": 207, "bybit kline": 13, "bybit publicTrade": 9],
      [
        ("bybit", .linear, "BTCUSDT", .price, true, 31, 1_786_310_822_490_062, 65114.2, 65114.3),
        ("bybit", .linear, "BTCUSDT", .mark, false, 5, 1_786_310_822_191_475, 65117.98, 65117.98),
        ("bybit", .linear, "BTCUSDT", .index, false, 5, 1_786_310_822_191_475, 65138.39, 65138.39),
        ("bybit", .linear, "BTCUSDT", .fundingRate, false, 1, 1_786_310_819_526_357, 0.0001, 0.0001),
        ("bybit", .linear, "ETHUSDT", .price, true, 18, 1_786_310_822_082_199, 1922.54, 1922.55),
        ("bybit", .linear, "ETHUSDT", .fundingRate, false, 2, 1_786_310_822_282_545, 4.709e-05, 4.709e-05),
        ("bybit", .linear, "SOLUSDT", .index, false, 3, 1_786_310_820_387_955, 77.338, 77.338),
        ("bybit", .linear, "DOGEUSDT", .price, true, 14, 1_786_310_822_441_440, 0.07053, 0.07054),
        ("bybit", .spot, "BTCUSDT", .price, false, 1, 1_786_310_819_526_088, 65140.5, 65140.5),
        ("bybit", .spot, "ETHUSDT", .price, false, 1, 1_786_310_819_526_314, 1923.27, 1923.27),
      ]
    ),
    (
      "binance-delivery-slice.jsonl.zst", 200, ["header": 1, "connect": 1, "binance depth": 82, "binance aggTrade": 1],
      [
        ("binance", .inverse, "BCHUSD_PERP", .price, true, 41, 1_626_916_409_221_064, 427.9, 427.91),
        ("binance", .future, "ETHUSD_210924", .price, true, 10, 1_626_916_409_220_886, 1992.17, 1992.18),
        ("binance", .future, "BCHUSD_210924", .price, true, 17, 1_626_916_409_221_049, 429.35, 429.58),
        ("binance", .inverse, "ETCUSD_PERP", .price, true, 29, 1_626_916_409_221_324, 42.269, 42.289),
      ]
    ),
    (
      "okx-slice.jsonl.zst", 120, ["header": 1, "connect": 1, "send": 3, "okx subscribe": 18, "okx trades": 16, "okx books": 73],
      [
        ("okx", .future, "BTC-USD-220527", .price, true, 1, 1_652_459_225_506_609, 30210.4, 30220.1),
        ("okx", .inverse, "UNI-USD-SWAP", .price, true, 1, 1_652_459_225_506_837, 5.134, 5.142),
        ("okx", .spot, "BTC-USDT", .price, true, 6, 1_652_459_227_462_719, 30243.4, 30243.5),
      ]
    ),
    (
      "upbit-slice.jsonl.zst", 80, ["header": 1, "connect": 1, "send": 1],
      [
        ("upbit", .spot, "KRW-LAMB", .price, false, 53, 1_618_678_268_906_859, 127, 127),
        ("upbit", .spot, "KRW-LAMB", .price, true, 18, 1_618_678_268_493_939, 126, 127),
        ("upbit", .spot, "BTC-XTZ", .price, true, 4, 1_618_678_268_955_551, 0.00011802, 0.00012221),
      ]
    ),
    (
      "bithumb-slice.jsonl.zst", 9, ["header": 1, "connect": 1, "send": 1, "bithumb status": 2],
      [
        ("bithumb", .spot, "CON_KRW", .price, false, 1, 1_622_591_015_093_842, 3.908, 3.908),
        ("bithumb", .spot, "GOM2_KRW", .price, false, 3, 1_622_591_024_414_725, 7.525, 7.525),
      ]
    ),
  ]

  @Test("real slices: every line accepted, skipped messages by kind, series counts and last values as replayed independently", arguments: cases)
  func slice(c: (file: String, rows: Int, skipped: [String: Int], series: [Expected])) throws {
    let file = try Ingest.read(path: fixture("json/" + c.file))
    let report = file.report
    #expect(report.format == "cryptofeed.jsonl")
    #expect(report.rowsRead == c.rows && report.rowsAccepted == c.rows && report.rowsRejected == 0 && report.errorRecords == 0)
    #expect(Dictionary(uniqueKeysWithValues: report.skippedByKind.map { ($0.kind, $0.count) }) == c.skipped)
    for e in c.series {
      let s = try #require(series(file, e.venue, e.market, e.symbol, e.field, book: e.field == .price ? e.book : nil), "\(e)")
      #expect(s.count == e.count && s.time.last == e.lastTime && s.bid.last == e.bid && s.ask.last == e.ask, "\(e)")
      #expect(s.priceSource == (e.book ? .book : .last))
      #expect(zip(s.time, s.time.dropFirst()).allSatisfy { $0 < $1 })
      #expect(s.otherTime.count == s.count, "the exchange time is kept as the other clock")
    }
  }

  static let header = #"{"t":"header","format":2,"exchange":"BYBIT","config":{}}"#
  static let connect = #"{"t":"connect","conn":"BYBIT.ws.2","ts":1.0,"addr":"wss://stream.bybit.com/v5/public/linear"}"#

  /// A recv line of `message` (JSON text) on the linear connection at `ts` seconds.
  static func recv(_ ts: String, _ message: String) -> String {
    let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    return #"{"t":"recv","conn":"BYBIT.ws.2","ts":"# + ts + #","data":""# + escaped + #""}"#
  }

  static func ticker(_ type: String, _ fields: String, ts: Int = 5) -> String {
    #"{"topic":"tickers.BTCUSDT","type":""# + type + #"","data":{"symbol":"BTCUSDT""# + fields + #"},"ts":"# + "\(ts)" + "}"
  }

  @Test("Bybit deltas keep the last value per field; a point per series a message changed; a rejected delta changes nothing")
  func bybitDeltas() throws {
    let lines = [
      Self.header, Self.connect,
      Self.recv(
        "2.0",
        Self.ticker(
          "snapshot",
          #","lastPrice":"100","markPrice":"100.5","indexPrice":"100.4","fundingRate":"0.0001","bid1Price":"99.9","bid1Size":"1","ask1Price":"100.1","ask1Size":"2""#
        )),
      Self.recv("3.0", Self.ticker("delta", #","bid1Price":"100.0","bid1Size":"3""#)),
      Self.recv("4.0", Self.ticker("delta", #","volume24h":"10""#)),
      Self.recv("5.0", Self.ticker("delta", #","bid1Price":"abc""#)),
      Self.recv("6.0", Self.ticker("delta", #","ask1Price":"100.2","fundingRate":"-0.0002""#)),
      Self.recv("7.0", Self.ticker("delta", #","markPrice":"100.6""#)),
    ]
    var options = IngestOptions()
    options.badRows = .skip
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    options.quarantinePath = folder.path + "/q.jsonl"
    let file = try Ingest.read(path: folder.write("BYBIT.jsonl", lines.joined(separator: "\n")), options: options)
    #expect(file.report.rowsRead == 8 && file.report.rowsAccepted == 7 && file.report.rowsRejected == 1)
    #expect(file.report.errors.first?.reason == .invalidNumber(column: "bid1Price", text: "abc"))
    #expect(file.report.errors.first?.position.line == 6)
    let book = try #require(series(file, "bybit", .linear, "BTCUSDT"))
    #expect(book.time == [2_000_000, 3_000_000, 6_000_000])
    #expect(book.bid == [99.9, 100.0, 100.0] && book.ask == [100.1, 100.1, 100.2], "the rejected bid never entered the state")
    #expect(book.bidSize == [1, 3, 3] && book.askSize == [2, 2, 2])
    #expect(series(file, "bybit", .linear, "BTCUSDT", .mark)?.bid == [100.5, 100.6])
    #expect(series(file, "bybit", .linear, "BTCUSDT", .mark)?.time == [2_000_000, 7_000_000])
    #expect(series(file, "bybit", .linear, "BTCUSDT", .index)?.bid == [100.4])
    #expect(series(file, "bybit", .linear, "BTCUSDT", .fundingRate)?.bid == [0.0001, -0.0002])
    #expect(file.report.rowsCollapsed == 0)
  }

  @Test("bad lines: the recorder's structure, the message inside, base64; errors point into the line")
  func badLines() throws {
    let badMessage = Self.recv("3.0", #"{"topic":"tickers.BTCUSDT","#)
    let lines: [(line: String, kind: String, marker: String?)] = [
      (#"{"t":"weird","conn":"x","ts":1}"#, "invalid_value", "weird"),
      (#"{"t":"recv","conn":"BYBIT.ws.2","ts":"later","data":"{}"}"#, "invalid_timestamp", "later"),
      (#"{"conn":"x"}"#, "missing_column", nil),
      (badMessage, "malformed_json", #"{\"topic"#),
      (#"{"t":"recv","conn":"UPBIT.ws.1","ts":2.5,"b64":"not base64!"}"#, "invalid_value", "not base64"),
      (#"{"t":"recv","conn":"BYBIT.ws.2","ts":4.0}"#, "missing_column", nil),
    ]
    var options = IngestOptions()
    options.badRows = .skip
    options.format = .cryptofeed
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    options.quarantinePath = folder.path + "/q.jsonl"
    let text = ([Self.header, Self.connect] + lines.map(\.line)).joined(separator: "\n")
    let file = try Ingest.read(path: folder.write("bad.jsonl", text), options: options)
    #expect(file.report.rowsRejected == lines.count && file.report.rowsAccepted == 2)
    for (k, c) in lines.enumerated() {
      let error = file.report.errors[k]
      let expected = c.marker.map { column(of: $0, in: c.line) } ?? 1
      #expect(error.reason.kind == c.kind && error.position.line == k + 3 && error.position.column == expected, "\(c.line): \(error)")
    }
  }

  @Test("detected from the header line, and by name")
  func detection() throws {
    #expect(try JSONSources.format(path: fixture("json/okx-slice.jsonl.zst"), size: 1, named: nil) == .cryptofeed)
    #expect(RecordFormat(id: "cryptofeed.jsonl") == .cryptofeed)
  }
}
