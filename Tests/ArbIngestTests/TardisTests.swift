import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// The two real Tardis fixtures (first rows of the free first-of-month downloads).
// Tardis files carry two clocks: `timestamp` (exchange) and `local_timestamp`
// (receive). ArbKit keeps both: `time` is the chosen clock, `otherTime` the other one.

@Suite("Tardis fixtures")
struct TardisTests {
  static let huobiExchange: [Int64] = [
    1_588_291_201_099_000, 1_588_291_201_133_000, 1_588_291_201_216_000, 1_588_291_201_243_000,
    1_588_291_201_371_000, 1_588_291_201_471_000, 1_588_291_201_514_000, 1_588_291_201_604_000,
    1_588_291_201_672_000, 1_588_291_201_814_000,
  ]
  static let huobiLocal: [Int64] = [
    1_588_291_201_234_268, 1_588_291_201_454_126, 1_588_291_201_454_401, 1_588_291_201_670_755,
    1_588_291_201_671_098, 1_588_291_201_671_346, 1_588_291_201_671_489, 1_588_291_201_716_868,
    1_588_291_201_889_451, 1_588_291_201_927_888,
  ]

  @Test("huobi-dm-swap quotes: venue huobi, inverse, receive time by default")
  func huobiQuotes() throws {
    let file = try Ingest.read(path: fixture("huobi-dm-swap_quotes_BTC-USD.csv"))
    #expect(file.report.format == "tardis.quotes")
    #expect(file.report.rowsRead == 10 && file.report.rowsAccepted == 10 && file.report.rowsCollapsed == 0)
    #expect(file.series.count == 1)
    let series = file.series[0]
    #expect(series.instrument == Instrument(venue: "huobi", market: .inverse, symbol: "BTC-USD"))
    #expect(series.priceSource == .book)
    #expect(series.clock == .local)
    #expect(series.time == Self.huobiLocal)
    #expect(series.otherTime == Self.huobiExchange)
    // ask_amount,ask_price,bid_price,bid_amount = 5494,8629.3,8629.2,806 on the first row
    #expect(series.ask == Array(repeating: 8629.3, count: 10))
    #expect(series.bid == Array(repeating: 8629.2, count: 10))
    #expect(series.askSize == [5494, 5493, 5494, 5495, 5493, 5673, 5463, 5411, 5411, 5411])
    #expect(series.bidSize == [806, 806, 806, 806, 806, 856, 856, 856, 857, 847])
  }

  @Test("with the exchange clock the two times swap")
  func huobiExchangeClock() throws {
    var options = IngestOptions()
    options.clock = .exchange
    let series = try #require(try Ingest.read(path: fixture("huobi-dm-swap_quotes_BTC-USD.csv"), options: options).series.first)
    #expect(series.clock == .exchange)
    #expect(series.time == Self.huobiExchange)
    #expect(series.otherTime == Self.huobiLocal)
    #expect(series.askSize.first == 5494)
  }

  @Test("bitmex trades: one price per row, duplicate receive times collapse to the last")
  func bitmexTrades() throws {
    let file = try Ingest.read(path: fixture("bitmex_trades_XBTUSD.csv"))
    #expect(file.report.format == "tardis.trades")
    #expect(file.report.rowsRead == 10 && file.report.rowsAccepted == 10)
    // rows 2…10 share local_timestamp 1583020803336743: 8 collapse into row 10
    #expect(file.report.rowsCollapsed == 8)
    let series = try #require(file.series.first)
    #expect(series.instrument == Instrument(venue: "bitmex", market: .inverse, symbol: "XBTUSD"))
    #expect(series.priceSource == .last)
    #expect(series.time == [1_583_020_803_307_160, 1_583_020_803_336_743])
    #expect(series.otherTime == [1_583_020_803_145_000, 1_583_020_803_276_000])
    #expect(series.bid == [8531.5, 8531.5])
    #expect(series.ask == series.bid)
    #expect(series.bidSize.allSatisfy(\.isNaN) && series.askSize.allSatisfy(\.isNaN))
  }

  @Test("bitmex trades with the exchange clock")
  func bitmexExchangeClock() throws {
    var options = IngestOptions()
    options.clock = .exchange
    let file = try Ingest.read(path: fixture("bitmex_trades_XBTUSD.csv"), options: options)
    #expect(file.report.rowsCollapsed == 8)
    #expect(file.series.first?.time == [1_583_020_803_145_000, 1_583_020_803_276_000])
    #expect(file.series.first?.otherTime == [1_583_020_803_307_160, 1_583_020_803_336_743])
  }

  static let exchangeIDs: [(id: String, venue: String, market: MarketKind)] = [
    ("binance", "binance", .spot), ("binance-futures", "binance", .linear),
    ("binance-delivery", "binance", .inverse), ("bybit", "bybit", .linear), ("okex-swap", "okx", .linear),
    ("huobi-dm-swap", "huobi", .inverse), ("bitmex", "bitmex", .inverse),
  ]

  @Test("a Tardis exchange id resolves through the registry", arguments: exchangeIDs)
  func exchangeID(c: (id: String, venue: String, market: MarketKind)) throws {
    let row = "\(c.id),BTCUSDT,1,100,1,10.5,10.4,2"
    let file = try ingest(tardisQuotesHeader + "\n" + row + "\n")
    #expect(file.series.first?.instrument == Instrument(venue: c.venue, market: c.market, symbol: "BTCUSDT"))
  }

  @Test("an exchange id the registry does not know is kept as the venue")
  func unknownExchangeID() throws {
    let file = try ingest(tardisQuotesHeader + "\nnew-venue,BTCUSDT,1,100,1,10.5,10.4,2\n")
    #expect(file.series.first?.instrument == Instrument(venue: "new-venue", market: .spot, symbol: "BTCUSDT"))
  }

  @Test("a Tardis file with two symbols gives two series in order of appearance")
  func twoSymbols() throws {
    let text =
      [
        tardisQuotesHeader,
        "binance-futures,BTCUSDT,1,100,1,10.5,10.4,2",
        "binance-futures,ETHUSDT,2,110,1,2.5,2.4,2",
        "binance-futures,BTCUSDT,3,120,1,10.6,10.5,2",
      ].joined(separator: "\n") + "\n"
    let file = try ingest(text)
    #expect(file.series.map(\.instrument.symbol) == ["BTCUSDT", "ETHUSDT"])
    #expect(file.report.instruments.map(\.rows) == [2, 1])
    #expect(file.series[0].bid == [10.4, 10.5])
    #expect(file.series[1].time == [110])
  }
}
