import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// Hand-built quote sequences: every fill, fee and PnL below was worked out by hand
// (exact fractions) from docs/definitions.md, "Threshold backtest".

/// A leg from `(seconds, bid, ask)` rows.
func leg(_ name: String, _ rows: [(Int64, Double, Double)]) -> QuoteSeries {
  QuoteSeries(
    instrument: Instrument(venue: name, market: .spot, symbol: "BTCUSDT"), priceSource: .book,
    time: rows.map { $0.0 * 1_000_000 }, bid: rows.map(\.1), ask: rows.map(\.2),
    bidSize: rows.map { _ in .nan }, askSize: rows.map { _ in .nan })
}

func run(_ legs: [QuoteSeries], _ parameters: ConvergenceParameters, maxStale: Int64? = nil) throws -> BacktestRun {
  let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: maxStale))
  return ConvergenceBacktest(parameters: parameters).run(legs: legs, aligned: aligned)
}

let second: Int64 = 1_000_000

@Suite("Convergence backtest, hand-worked")
struct ConvergenceTests {
  // A is rich at 10 s (exec = 100.5/100.1 − 1 = 0.3996 %); the closing premium
  // ask_A/bid_B − 1 is 0.1998 % at 20 s and 0.1 % at 30 s.
  static let a = leg("a", [(0, 100, 100.1), (10, 100.5, 100.6), (20, 100.2, 100.3), (30, 100, 100.1), (40, 100, 100.1)])
  static let b = leg("b", [(0, 99.9, 100), (10, 100, 100.1), (20, 100.1, 100.2), (30, 100, 100.1), (40, 100, 100.1)])

  static func parameters(entry: Double = 0.3, exit: Double = 0.15) -> ConvergenceParameters {
    ConvergenceParameters(entry: entry, exit: exit, notional: 10_000, fees: [0.001, 0.001])
  }

  @Test("one round trip: sell A at 100.5, buy B at 100.1; buy A back at 100.1, sell B at 100")
  func basicTrade() throws {
    let result = try run([Self.a, Self.b], Self.parameters())
    let trade = try #require(result.trades.first)
    #expect(result.trades.count == 1)
    #expect(trade.entryTime == 10 * second && trade.exitTime == 30 * second)
    #expect(trade.rich == 0 && trade.cheap == 1)
    #expect(isClose(trade.entryPremium, 0.399_600_399_600_4, rel: 1e-9))
    #expect(isClose(trade.exitPremium, 0.1, rel: 1e-9))
    #expect((trade.richSell, trade.cheapBuy, trade.richBuy, trade.cheapSell) == (100.5, 100.1, 100.1, 100))
    // q_A = 10000/100.5, q_B = 10000/100.1; gross = 0.4 q_A − 0.1 q_B = 29.810985…
    // fees = 0.001 (10000 + 10000 + 100.1 q_A + 100 q_B) = 39.950208995
    #expect(isClose(trade.fees, 39.950_208_994_985_11, rel: 1e-12))
    #expect(isClose(trade.pnl, -10.139_223_960_119_482, rel: 1e-12))
    #expect(trade.exitReason == .signal)
    #expect(result.wins == 0 && result.forcedExits == 0)
    #expect(isClose(result.pnlBps, -10.139_223_960_119_482, rel: 1e-12))  // N = 10 000: 1 bp = 1 unit
    #expect(isClose(result.maxDrawdown, 10.139_223_960_119_482, rel: 1e-12))
    #expect(result.exposure == 0.5)  // 20 s of 0 … 40 s
    #expect(result.meanHoldingSeconds == 20)
  }

  @Test("latency fills at the quotes 5 s later; slippage 10 bps moves every fill against us")
  func latencyAndSlippage() throws {
    let a = leg("a", [(0, 100, 100.1), (10, 100.5, 100.6), (15, 100.4, 100.5), (20, 100.2, 100.3), (30, 100, 100.1), (35, 99.9, 100.0), (40, 100, 100.1)])
    let b = leg("b", [(0, 99.9, 100), (10, 100, 100.1), (15, 100.05, 100.15), (20, 100.1, 100.2), (30, 100, 100.1), (35, 99.95, 100.05), (40, 100, 100.1)])
    var parameters = Self.parameters()
    parameters.latency = 5 * second
    parameters.slippageBps = 10
    let result = try run([a, b], parameters)
    let trade = try #require(result.trades.first)
    #expect(result.trades.count == 1)
    // Signal at 10 s (fills at 15 s), exit signal at 30 s (fills at 35 s): 15 s and
    // 20 s have closing premiums 0.4498 % and 0.1998 %.
    #expect(trade.entryTime == 10 * second && trade.exitTime == 30 * second)
    #expect(isClose(trade.richSell, 100.2996, rel: 1e-14))  // 100.4 × 0.999
    #expect(isClose(trade.cheapBuy, 100.25015, rel: 1e-14))  // 100.15 × 1.001
    #expect(isClose(trade.richBuy, 100.1, rel: 1e-14))  // 100.0 × 1.001
    #expect(isClose(trade.cheapSell, 99.85005, rel: 1e-14))  // 99.95 × 0.999
    #expect(isClose(trade.fees, 39.940_189_456_810_94, rel: 1e-12))
    #expect(isClose(trade.pnl, -59.949_975_713_640_974, rel: 1e-12))
  }

  @Test("a position open at the end is closed at the last valid point's quotes")
  func forcedExit() throws {
    let result = try run([Self.a, Self.b], Self.parameters(exit: -1))
    let trade = try #require(result.trades.first)
    #expect(trade.exitTime == 40 * second && trade.exitReason == .endOfData)
    #expect(result.forcedExits == 1)
    // The 40 s quotes equal the 30 s ones: the same PnL as the basic trade.
    #expect(isClose(trade.pnl, -10.139_223_960_119_482, rel: 1e-12))
  }

  @Test("maxHolding closes at the first valid point at least that long after the entry")
  func maxHolding() throws {
    var parameters = Self.parameters(exit: -1)
    parameters.maxHolding = 15 * second
    let trade = try #require(try run([Self.a, Self.b], parameters).trades.first)
    #expect(trade.exitTime == 30 * second && trade.exitReason == .maxHolding)
    #expect(isClose(trade.pnl, -10.139_223_960_119_482, rel: 1e-12))
  }

  @Test("the exit test starts at the next valid point after the entry")
  func exitNotAtEntryPoint() throws {
    // At the entry point the closing premium is 100.6/100 − 1 = 0.6 % ≤ 0.7.
    let trade = try #require(try run([Self.a, Self.b], Self.parameters(exit: 0.7)).trades.first)
    #expect(trade.entryTime == 10 * second && trade.exitTime == 20 * second)
  }

  @Test("no position opens at the last valid point")
  func noEntryAtLastPoint() throws {
    let a = leg("a", [(0, 100, 100.1), (10, 100.5, 100.6)])
    let b = leg("b", [(0, 99.9, 100), (10, 100, 100.1)])
    let result = try run([a, b], Self.parameters())
    #expect(result.trades.isEmpty)
    #expect(result.skipped.isEmpty)
  }

  @Test("a fill quote older than the staleness limit skips the signal, counted")
  func staleFill() throws {
    var parameters = Self.parameters()
    parameters.latency = 5 * second
    parameters.maxStale = 3 * second
    // The fill time 15 s has only the 10 s quotes (5 s old); 20 s has no signal.
    let result = try run([Self.a, Self.b], parameters, maxStale: 3 * second)
    #expect(result.trades.isEmpty)
    #expect(result.skipped.map(\.reason) == [.staleFill] && result.skipped.map(\.count) == [1])
  }

  @Test("cooldown: an entry signal within it is skipped and counted")
  func cooldown() throws {
    let a = leg("a", [(0, 100, 100.1), (10, 100.5, 100.6), (20, 100.2, 100.3), (30, 100, 100.1), (40, 100.5, 100.6), (50, 100.5, 100.6), (60, 100, 100.1)])
    let b = leg("b", [(0, 99.9, 100), (10, 100, 100.1), (20, 100.1, 100.2), (30, 100, 100.1), (40, 100, 100.1), (50, 100, 100.1), (60, 100, 100.1)])
    let free = try run([a, b], Self.parameters())
    #expect(free.trades.map(\.entryTime) == [10 * second, 40 * second])
    #expect(free.trades.map(\.exitTime) == [30 * second, 60 * second])
    var parameters = Self.parameters()
    parameters.cooldown = 15 * second
    let cooled = try run([a, b], parameters)
    #expect(cooled.trades.map(\.entryTime) == [10 * second, 50 * second])
    #expect(cooled.skipped.map(\.reason) == [.cooldown] && cooled.skipped.map(\.count) == [1])
    #expect(cooled.trades[1].exitReason == .signal)
  }

  @Test("the other direction: B rich, A cheap")
  func reverseDirection() throws {
    let result = try run([Self.b, Self.a], Self.parameters())
    let trade = try #require(result.trades.first)
    #expect(trade.rich == 1 && trade.cheap == 0)
    #expect(isClose(trade.pnl, -10.139_223_960_119_482, rel: 1e-12))
  }
}

@Suite("Backtest metrics")
struct BacktestMetricsTests {
  static func trade(exitDay: Int64, pnl: Double) -> Trade {
    let day: Int64 = 86_400_000_000
    return Trade(
      entryTime: exitDay * day, exitTime: exitDay * day + 3_600_000_000, rich: 0, cheap: 1, entryPremium: 0.2, exitPremium: 0,
      richSell: 1, richBuy: 1, cheapBuy: 1, cheapSell: 1, richQuantity: 1, cheapQuantity: 1, fees: 1, pnl: pnl, exitReason: .signal)
  }

  @Test("daily journal, drawdown and Sharpe by hand")
  func dailyAndSharpe() {
    let day: Int64 = 86_400_000_000
    // Days 0..3 (1970-01-01 .. 01-04): PnL 10, −30, 0 (no trade), 20.
    let run = BacktestRun(
      trades: [Self.trade(exitDay: 0, pnl: 10), Self.trade(exitDay: 1, pnl: -30), Self.trade(exitDay: 3, pnl: 20)],
      skipped: [], firstTime: 0, lastTime: 3 * day + 1, notional: 1000)
    #expect(run.journal.daily().map(\.date) == ["1970-01-01", "1970-01-02", "1970-01-03", "1970-01-04"])
    #expect(run.journal.daily().map(\.pnl) == [10, -30, 0, 20])
    #expect(run.journal.daily().map(\.trades) == [1, 1, 0, 1])
    // mean 0, so Sharpe 0; cumulative 10, −20, 0: drawdown 30 from the peak 10.
    #expect(run.journal.sharpe() == 0)
    #expect(run.maxDrawdown == 30)
    #expect(run.wins == 2 && run.pnl == 0 && run.fees == 3)
    // Seoul days: every exit at 01:00 UTC is 10:00 KST, the same dates.
    #expect(run.journal.daily(offset: 9 * 3_600_000_000).map(\.pnl) == [10, -30, 0, 20])
    // Sample std of [10, 20] is 7.0710678; mean 15 → 15 / 7.0710678 × √365 = 40.5175…
    let two = BacktestRun(
      trades: [Self.trade(exitDay: 0, pnl: 10), Self.trade(exitDay: 1, pnl: 20)], skipped: [], firstTime: 0, lastTime: day, notional: 1000)
    #expect(isClose(two.journal.sharpe(), 15 / 50.0.squareRoot() * 365.0.squareRoot(), rel: 1e-12))
    // An exit at 20:00 UTC on 1 January is 05:00 on 2 January in Seoul.
    var late = Self.trade(exitDay: 0, pnl: 7)
    late.exitTime = 20 * 3_600_000_000
    let shifted = BacktestRun(trades: [late], skipped: [], firstTime: 0, lastTime: day, notional: 1000)
    #expect(shifted.journal.daily().map(\.pnl) == [7, 0])
    #expect(shifted.journal.daily(offset: 9 * 3_600_000_000).map(\.pnl) == [0, 7])
    #expect(shifted.journal.daily(offset: 9 * 3_600_000_000).map(\.date) == ["1970-01-01", "1970-01-02"])
    // One day only, or no variation: no Sharpe rather than inf or NaN.
    let one = BacktestRun(trades: [Self.trade(exitDay: 0, pnl: 5)], skipped: [], firstTime: 0, lastTime: 10, notional: 1000)
    #expect(one.journal.sharpe() == nil)
  }
}

@Suite("Convergence backtest: per-leg latency and the book-size cap")
struct ConvergenceFillOptionTests {
  @Test("leg A fills 5 s after the signal, leg B at once")
  func perLegLatency() throws {
    let a = leg("a", [(0, 100, 100.1), (10, 100.5, 100.6), (15, 100.4, 100.5), (20, 100.2, 100.3), (30, 100, 100.1), (35, 99.9, 100.0), (40, 100, 100.1)])
    let b = leg("b", [(0, 99.9, 100), (10, 100, 100.1), (15, 100.05, 100.15), (20, 100.1, 100.2), (30, 100, 100.1), (35, 99.95, 100.05), (40, 100, 100.1)])
    var parameters = ConvergenceTests.parameters()
    parameters.latency = 99 * second  // replaced by the per-leg list
    parameters.legLatency = [5 * second, 0]
    let trade = try #require(try run([a, b], parameters).trades.first)
    // Entry: sell A at its 15 s bid 100.4, buy B at its 10 s ask 100.1; exit: buy A at
    // its 35 s ask 100.0, sell B at its 30 s bid 100.
    #expect((trade.richSell, trade.cheapBuy, trade.richBuy, trade.cheapSell) == (100.4, 100.1, 100.0, 100))
    #expect(isClose(trade.pnl, -10.099_541_892_370_578, rel: 1e-12))
    #expect(isClose(trade.fees, 39.950_169_352_559_79, rel: 1e-12))
  }

  @Test("cap at book: both legs scale by the smallest room, PnL and fees scale with them")
  func capAtBook() throws {
    var a = ConvergenceTests.a
    a.bidSize = a.time.map { _ in 20 }
    a.askSize = a.time.map { _ in 20 }
    var parameters = ConvergenceTests.parameters()
    parameters.capAtBook = true
    let trade = try #require(try run([a, ConvergenceTests.b], parameters).trades.first)
    // Sell 10000/100.5 = 99.5 wanted on A, 20 on its bid: scale 0.201.
    let scale = 0.201_000_000_000_000_02
    #expect(isClose(trade.richQuantity, 20, rel: 1e-14))
    #expect(isClose(trade.cheapQuantity, 10_000 / 100.1 * scale, rel: 1e-14))
    #expect(isClose(trade.pnl, -10.139_223_960_119_482 * scale, rel: 1e-12))
    #expect(isClose(trade.fees, 39.950_208_994_985_11 * scale, rel: 1e-12))
    // No size on the book: the signal is skipped.
    a.bidSize = a.time.map { _ in 0 }
    let none = try run([a, ConvergenceTests.b], parameters)
    #expect(none.trades.isEmpty && none.skipped.map(\.reason) == [.noBookSize])
  }
}
