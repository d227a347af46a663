import ArbAnalytics
import ArbCore
import ArbIngest
import Foundation
import TestSupport
import Testing

@testable import ArbBacktest

// Mode carry on real recordings. The shipped Bybit sample has spot and perp quotes
// but no settlement; the freqtrade XRP perp files have real settlements but no spot
// series, so that test pairs the real perp and funding with a spot leg made here.

@Suite("Carry backtest on real data")
struct CarryRealDataTests {
  static func load(_ path: String, _ instrument: Instrument?, field: SeriesField? = nil) throws -> QuoteSeries {
    try LegSpec(instrument: instrument, paths: [path], field: field).load(options: IngestOptions()).series
  }

  @Test("Bybit BTCUSDT spot and linear perp tickers: the engine's trades are the oracle's")
  func bybitAgainstOracle() throws {
    let sample = Repository.data("samples/bybit_BTCUSDT_spot-linear_tickers_2026-08-09.jsonl.zst")
    let spot = try Self.load(sample, Instrument(venue: "bybit", market: .spot, symbol: "BTCUSDT"))
    let perp = try Self.load(sample, Instrument(venue: "bybit", market: .linear, symbol: "BTCUSDT"))
    #expect(spot.count == 41 && perp.count == 134)
    for (latency, holding, cooldown) in [(100_000 as Int64, 10_000_000 as Int64?, 2_000_000 as Int64?), (0, 3_000_000, nil), (1_500_000, nil, nil)] {
      var p = ConvergenceParameters(entry: -0.0403, exit: -0.041, notional: 10_000, fees: [0.001, 0.00055])
      p.latency = latency
      p.maxHolding = holding
      p.cooldown = cooldown
      p.maxStale = 10_000_000
      let aligned = try AlignedLegs(legs: [spot, perp], options: AlignmentOptions(maxStale: p.maxStale))
      for size in [nil, 100.0] as [Double?] {
        let run = CarryBacktest(parameters: p, contractSize: size).run(legs: [spot, perp], aligned: aligned, funding: .none)
        let oracle = carryOracle(spot: spot, perp: perp, funding: fundingSeries([]), p, contractSize: size)
        #expect(run.trades.count == oracle.count && !oracle.isEmpty)
        for (a, b) in zip(run.trades, oracle) {
          #expect(a.entryTime == b.entry && a.exitTime == b.exit && a.richQuantity == b.perpQuantity)
          #expect(isClose(a.pnl, b.pnl, rel: 1e-12) && isClose(a.fees, b.fees, rel: 1e-12))
        }
      }
    }
  }

  @Test("freqtrade XRP perp and its 8-hourly settlements: times snapped, each payment r(τ) × q × the perp close at τ")
  func freqtradeFunding() throws {
    let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
    let instrument = Instrument(venue: "binance", market: .linear, symbol: "XRPUSDT")
    let perp = try Self.load(fixtures + "/XRP_USDT_USDT-1h-futures.json", instrument)
    let funding = try Self.load(fixtures + "/XRP_USDT_USDT-8h-funding_rate.json", instrument, field: .fundingRate)
    let settlements = try FundingSettlements(funding: funding, perp: perp)
    // The same files read here with JSONSerialization: [open_time_ms, open, high, low, close, volume].
    func rows(_ name: String) throws -> [[Double]] {
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name))) as! [[Double]]
    }
    let candles = try rows("XRP_USDT_USDT-1h-futures.json"), rates = try rows("XRP_USDT_USDT-8h-funding_rate.json")
    #expect(settlements.time.count == rates.count)
    // 1637193600017 ms is 2021-11-18 00:00:00.017: snapped to the hour.
    #expect(settlements.time.first == 1_637_193_600_000_000 && settlements.time.allSatisfy { $0 % hour == 0 })
    #expect(settlements.rate == rates.map { $0[1] })
    #expect(settlements.rate.contains { $0 < 0 } && settlements.rate.contains { $0 > 0.0001 })

    // A spot leg made here: 0.2 % under the perp close until 2021-11-19 12:00, then at it.
    let switchTime: Int64 = 1_637_323_200_000_000
    let spotPrice = zip(perp.time, perp.bid).map { $0 < switchTime ? $1 * 0.998 : $1 }
    var spot = perp
    spot.instrument = Instrument(venue: "made", market: .spot, symbol: "XRPUSDT")
    spot.bid = spotPrice
    spot.ask = spotPrice
    let p = ConvergenceParameters(entry: 0.15, exit: 0.05, notional: 10_000, fees: [0.001, 0.0005])
    let aligned = try AlignedLegs(legs: [spot, perp], options: AlignmentOptions())
    let run = CarryBacktest(parameters: p, contractSize: nil).run(legs: [spot, perp], aligned: aligned, funding: settlements)
    let trade = try #require(run.trades.first)
    #expect(run.trades.count == 1)
    #expect(trade.entryTime == 1_637_110_800_000_000 && trade.exitTime == switchTime)
    // Settlements at 2021-11-18 00, 08, 16 h and 2021-11-19 00, 08 h.
    let held = rates.map { (tau: Int64($0[0] / 3_600_000) * hour, rate: $0[1]) }.filter { $0.tau > trade.entryTime && $0.tau <= trade.exitTime }
    #expect(held.count == 5 && run.payments.map(\.time) == held.map(\.tau))
    let q = 10_000 / (candles[0][4] * 0.998)
    let expected = held.map { s in s.rate * q * candles.last { Int64($0[0]) * 1000 <= s.tau }![4] }
    for (payment, amount) in zip(run.payments, expected) { #expect(isClose(payment.amount, amount, rel: 1e-12)) }
    #expect(isClose(trade.funding, expected.reduce(0, +), rel: 1e-12))
    let days = run.journal.daily()
    #expect(days.map(\.date) == ["2021-11-17", "2021-11-18", "2021-11-19", "2021-11-20", "2021-11-21"])
    #expect(isClose(days[1].pnl, expected[0] + expected[1] + expected[2], rel: 1e-12) && days[1].trades == 0)
  }
}
