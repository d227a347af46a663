import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// The two kimchi-premium JSON sources (SOURCES.md §1 order books, §3 daily history).
// Expected values were read with Python's json module (best levels as max of bids and
// min of asks; times from datetime in UTC) from the fixture files.

@Suite("order-book lines and daily history")
struct KimchiJSONTests {
  @Test("order-book snapshots: top of book per line, venue symbol grammar, ranges of SOURCES.md")
  func orderBooks() throws {
    let binance = try Ingest.read(path: fixture("json/binance_BTC_USDT_06.jsonl.gz"))
    #expect(binance.report.format == "orderbook.jsonl")
    #expect(binance.report.rowsRead == 3 && binance.report.rowsAccepted == 3)
    let b = try #require(binance.series.first)
    #expect(binance.series.count == 1 && b.instrument == Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT"))
    #expect(b.priceSource == .book && b.time.first == 1_756_015_521_192_890 && b.time.last == 1_756_015_539_911_470)
    #expect(b.bid == [115279.25, 115279.25, 115279.25] && b.ask == [115279.26, 115279.26, 115279.26])
    #expect(b.bidSize == [3.06231, 3.06282, 3.06772] && b.askSize == [8.61031, 8.55934, 8.48721])

    let upbit = try Ingest.read(path: fixture("json/upbit_BTC_KRW_06.jsonl.gz"))
    let u = try #require(upbit.series.first)
    #expect(upbit.report.rowsRead == 8 && u.count == 8)
    #expect(u.instrument == Instrument(venue: "upbit", market: .spot, symbol: "KRW-BTC"))
    #expect(u.time.first == 1_756_015_398_382_000 && u.time.last == 1_756_015_550_382_000)
    #expect(u.bid.allSatisfy { $0 == 159_508_000 } && u.ask.first == 159_523_000 && u.ask.last == 159_515_000)
  }

  @Test("order-book lines: the best level even when a side is not sorted; symbols in each venue's grammar")
  func unsortedAndSymbols() throws {
    let line = #"{"timestamp":"2025-08-24T06:05:21.5","exchange":"bithumb","symbol":"BTC/KRW","bids":[[99,1],[101,2],[100,3]],"asks":[[103,1],[102,4]]}"#
    let file = try ingest(line + "\n", name: "book.jsonl")
    let s = try #require(file.series.first)
    #expect(s.instrument.symbol == "BTC_KRW" && s.bid == [101] && s.bidSize == [2] && s.ask == [102] && s.askSize == [4])
    #expect(s.time == [1_756_015_521_500_000])
    #expect(OrderBookLineHandler.venueSymbol("ETH/USDT", venue: "okx") == "ETH-USDT")
    #expect(OrderBookLineHandler.venueSymbol("BTC/USDT:USDT", venue: "binance") == "BTC/USDT:USDT", "not BASE/QUOTE: as given")
    #expect(OrderBookLineHandler.venueSymbol("BTC/USD", venue: "kraken") == "BTC/USD", "grammar not known: as given")
  }

  @Test("order-book lines: bad lines rejected with line and column")
  func badOrderBooks() throws {
    let head = #"{"timestamp":"2025-08-24T06:05:21","exchange":"upbit","symbol":"BTC/KRW","#
    let lines: [(line: String, kind: String, marker: String?)] = [
      (head + #""bids":[],"asks":[[2,1]]}"#, "missing_price", "[],"),
      (head + #""bids":[[1,1]],"asks":[[0,1]]}"#, "non_positive_price", "0,1"),
      (head + #""bids":[[1,-1]],"asks":[[2,1]]}"#, "negative_size", "-1"),
      (head + #""bids":[[3,1]],"asks":[[2,1]]}"#, "crossed_book", nil),
      (head + #""bids":[[1]],"asks":[[2,1]]}"#, "invalid_value", "[1]"),
      (#"{"timestamp":"24/08/2025","exchange":"upbit","symbol":"BTC/KRW","bids":[[1,1]],"asks":[[2,1]]}"#, "invalid_timestamp", "24/08"),
      (head + #""asks":[[2,1]]}"#, "missing_column", nil),
    ]
    var options = IngestOptions()
    options.format = .orderBookLines
    options.badRows = .skip
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    options.quarantinePath = folder.path + "/q.jsonl"
    let file = try Ingest.read(path: folder.write("bad.jsonl", lines.map(\.line).joined(separator: "\n")), options: options)
    #expect(file.report.rowsRead == lines.count && file.report.rowsRejected == lines.count)
    for (k, c) in lines.enumerated() {
      let error = file.report.errors[k]
      let expected = c.marker.map { column(of: $0, in: c.line) } ?? 1
      #expect(error.reason.kind == c.kind && error.position.line == k + 1 && error.position.column == expected, "\(c.line): \(error)")
    }
  }

  @Test("daily history slice: a series per quantity at 00:00 UTC; usdt_price only where the key is")
  func historySlice() throws {
    let file = try Ingest.read(path: fixture("json/history-slice.json"))
    #expect(file.report.format == "kimchi.history")
    #expect(file.report.rowsRead == 6 && file.report.rowsAccepted == 6)
    let btc = try #require(series(file, "upbit", .spot, "KRW-BTC"))
    #expect(btc.bid == [4_322_000, 4_321_000, 4_657_000, 98_334_000, 97_919_000, 98_125_000] && btc.priceSource == .last)
    #expect(btc.time.first == 1_506_297_600_000_000 && btc.time.last == 1_717_804_800_000_000)
    #expect(series(file, "bitstamp", .spot, "btcusd")?.bid == [3918, 3888.03, 4199.29, 70775, 69326, 69306])
    #expect(series(file, "fx", .fx, "USDKRW")?.bid == [1131.99, 1138.16, 1142.24, 1368.1, 1367.2, 1367.2])
    let usdt = try #require(series(file, "upbit", .spot, "KRW-USDT"))
    #expect(usdt.bid == [1412, 1416] && usdt.time == [1_717_718_400_000_000, 1_717_804_800_000_000])
  }

  @Test("daily history: bad rows rejected with line:column in a pretty-printed file; broken structure fails")
  func badHistory() throws {
    let text = """
      [
        {"date": "2024-06-07", "btc_krw_price": 97919000.0, "fx_rate": 1367.2},
        {"date": "2024-06-08", "btc_krw_price": "lots"},
        {"btc_krw_price": 1.0},
        {"date": "2024-06-09", "fx_rate": null, "usdt_price": 1416.0},
        {"date": "2024-06-01", "fx_rate": 1300.0},
        7
      ]
      """
    var options = IngestOptions()
    options.badRows = .skip
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    options.quarantinePath = folder.path + "/q.jsonl"
    options.format = .kimchiHistory
    let path = folder.write("history.json", text)
    let file = try Ingest.read(path: path, options: options)
    #expect(file.report.rowsRead == 6 && file.report.rowsAccepted == 2 && file.report.rowsRejected == 4)
    let found = file.report.errors.map { "\($0.reason.kind)@\($0.position.line):\($0.position.column)" }
    #expect(found == ["invalid_number@3:44", "invalid_timestamp@4:3", "timestamp_backwards@6:3", "invalid_value@7:3"])
    #expect(series(file, "fx", .fx, "USDKRW")?.bid == [1367.2], "null adds no point")
    #expect(series(file, "upbit", .spot, "KRW-USDT")?.time == [1_717_891_200_000_000])
    let broken = folder.write("broken.json", "[\n  {\"date\": \"2024-06-07\"},\n  {\"date\" \"x\"}\n]")
    #expect(throws: IngestError(.malformedJSON(expected: "':' after a key", found: "\""), at: SourcePosition(path: broken, line: 3, column: 11))) {
      try Ingest.read(path: broken, options: options)
    }
    #expect(try JSONSources.format(path: fixture("json/history-slice.json"), size: 1, named: nil) == .kimchiHistory)
  }
}
