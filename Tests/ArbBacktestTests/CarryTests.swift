import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// Hand-built spot and perp quotes: every fill, fee, funding payment and PnL below is
// worked out by hand from docs/definitions.md, "Carry backtest".

let hour: Int64 = 3_600_000_000

/// A leg from `(hours, bid, ask)` rows.
func carryLeg(_ market: MarketKind, _ rows: [(Double, Double, Double)]) -> QuoteSeries {
  QuoteSeries(
    instrument: Instrument(venue: market == .spot ? "s" : "p", market: market, symbol: "BTCUSDT"), priceSource: .book,
    time: rows.map { Int64($0.0 * Double(hour)) }, bid: rows.map(\.1), ask: rows.map(\.2),
    bidSize: rows.map { _ in .nan }, askSize: rows.map { _ in .nan })
}

/// A funding series from `(hours, rate)` rows.
func fundingSeries(_ rows: [(Int64, Double)]) -> QuoteSeries {
  QuoteSeries(
    instrument: Instrument(venue: "p", market: .linear, symbol: "BTCUSDT"), priceSource: .last, field: .fundingRate,
    time: rows.map { $0.0 * hour }, bid: rows.map(\.1), ask: rows.map(\.1), bidSize: rows.map { _ in .nan }, askSize: rows.map { _ in .nan })
}

func carry(
  _ spot: QuoteSeries, _ perp: QuoteSeries, funding: QuoteSeries, _ parameters: ConvergenceParameters, contractSize: Double? = nil
) throws -> BacktestRun {
  let aligned = try AlignedLegs(legs: [spot, perp], options: AlignmentOptions(maxStale: parameters.maxStale))
  let settlements = try FundingSettlements(funding: funding, perp: perp)
  return CarryBacktest(parameters: parameters, contractSize: contractSize).run(legs: [spot, perp], aligned: aligned, funding: settlements)
}

@Suite("Carry backtest, hand-worked")
struct CarryTests {
  // b_open = bid_P / ask_S − 1: 0 % at 0 h, 1 % at 1 h (open). b_close = ask_P / bid_S − 1:
  // 1 % at 2 h, 0.196 % at 3 h, 0.099 % at 4 h (close).
  static let spot = carryLeg(.spot, [(0, 100, 100.1), (1, 100, 100), (2, 100, 100.2), (3, 102, 102.2), (4, 101, 101.1), (5, 101, 101.1)])
  static let perp = carryLeg(.linear, [(0, 100.1, 100.2), (1, 101, 101.2), (2, 100.8, 101), (3, 102.1, 102.2), (4, 101, 101.1), (5, 101, 101.1)])
  // Settlements before the entry, exactly at the entry (not paid), +1 bp, −2 bp,
  // +3 bp exactly at the exit (paid), and after the exit.
  static let funding = fundingSeries([(0, 0.01), (1, 0.01), (2, 0.0001), (3, -0.0002), (4, 0.0003), (5, 0.01)])

  static func parameters(entry: Double = 0.5, exit: Double = 0.1) -> ConvergenceParameters {
    ConvergenceParameters(entry: entry, exit: exit, notional: 10_000, fees: [0.001, 0.0005])
  }

  @Test("linear perp: buy spot at 100, sell perp at 101; sell spot at 101, buy perp at 101.1; three settlements")
  func linearTrade() throws {
    let run = try carry(Self.spot, Self.perp, funding: Self.funding, Self.parameters())
    let trade = try #require(run.trades.first)
    #expect(run.trades.count == 1)
    #expect(trade.entryTime == 1 * hour && trade.exitTime == 4 * hour && trade.exitReason == .signal)
    #expect(trade.rich == 1 && trade.cheap == 0)
    #expect(isClose(trade.entryPremium, 1, rel: 1e-12))
    #expect(isClose(trade.exitPremium, (101.1 / 101 - 1) * 100, rel: 1e-12))
    #expect((trade.cheapBuy, trade.richSell, trade.cheapSell, trade.richBuy) == (100, 101, 101, 101.1))
    // q = 10000 / 100 = 100 on both legs.
    #expect(trade.cheapQuantity == 100 && trade.richQuantity == 100)
    // Funding at p(τ) = perp mid: 1e-4 × 100 × 100.9, −2e-4 × 100 × 102.15, 3e-4 × 100 × 101.05.
    #expect(run.payments.map(\.time) == [2 * hour, 3 * hour, 4 * hour])
    #expect(run.payments.map(\.price) == [100.9, 102.15, 101.05])
    let amounts = [1.009, -2.043, 3.0315]
    for (payment, amount) in zip(run.payments, amounts) { #expect(isClose(payment.amount, amount, rel: 1e-12)) }
    #expect(isClose(trade.funding, 1.9975, rel: 1e-12) && isClose(run.funding, 1.9975, rel: 1e-12))
    // Fees: 0.001 × 100 × (100 + 101) + 0.0005 × 100 × (101 + 101.1) = 20.1 + 10.105.
    #expect(isClose(trade.fees, 30.205, rel: 1e-12))
    // PnL: spot 100 × 1 − perp 100 × 0.1 − fees + funding = 100 − 10 − 30.205 + 1.9975.
    #expect(isClose(trade.pnl, 61.7925, rel: 1e-12))
    // Journal: the payments at 2, 3, 4 h, then the exit without its funding at 4 h.
    let bookings = run.journal.bookings
    #expect(bookings.map(\.time) == [2, 3, 4, 4].map { $0 * hour })
    #expect(bookings.map(\.isTrade) == [false, false, false, true])
    #expect(isClose(bookings[3].pnl, 59.795, rel: 1e-12))
    #expect(isClose(run.journal.total, 61.7925, rel: 1e-12))
    // Cumulative 1.009, −1.034, …: drawdown 2.043 from the peak 1.009.
    #expect(isClose(run.maxDrawdown, 2.043, rel: 1e-12))
    #expect(run.journal.daily().map(\.trades) == [1])
  }

  @Test("latency: fills at the quotes 10 minutes after the signals; settlements still on the signal times")
  func latencyMovesFills() throws {
    let later = 1.0 / 6
    var spotRows: [(Double, Double, Double)] = [(0, 100, 100.1), (1, 100, 100), (1 + later, 100.5, 100.6), (2, 100, 100.2), (3, 102, 102.2)]
    spotRows += [(4, 101, 101.1), (4 + later, 100.9, 101), (5, 101, 101.1)]
    var perpRows: [(Double, Double, Double)] = [(0, 100.1, 100.2), (1, 101, 101.2), (1 + later, 101.3, 101.4), (2, 100.8, 101), (3, 102.1, 102.2)]
    perpRows += [(4, 101, 101.1), (4 + later, 101.2, 101.3), (5, 101, 101.1)]
    var parameters = Self.parameters()
    parameters.latency = hour / 6
    let run = try carry(carryLeg(.spot, spotRows), carryLeg(.linear, perpRows), funding: Self.funding, parameters)
    let trade = try #require(run.trades.first)
    #expect(run.trades.count == 1)
    #expect(trade.entryTime == 1 * hour && trade.exitTime == 4 * hour)
    // Entry: spot ask 100.6, perp bid 101.3; exit: spot bid 100.9, perp ask 101.3.
    #expect((trade.cheapBuy, trade.richSell, trade.cheapSell, trade.richBuy) == (100.6, 101.3, 100.9, 101.3))
    let q = 10_000 / 100.6
    #expect(isClose(trade.cheapQuantity, q, rel: 1e-15))
    // Funding q × (1e-4 × 100.9 − 2e-4 × 102.15 + 3e-4 × 101.05) = 0.019975 q.
    #expect(isClose(trade.funding, 0.019975 * q, rel: 1e-12))
    // Fees 0.001 q × 201.5 + 0.0005 q × 202.6; PnL q (0.3 + 0 − 0.2015 − 0.1013 + 0.019975).
    #expect(isClose(trade.fees, 0.3028 * q, rel: 1e-12))
    #expect(isClose(trade.pnl, 0.017175 * q, rel: 1e-10))
  }

  @Test("inverse perp: 337 contracts of 30 USD, coin PnL sold at the spot exit price, funding r × n × C")
  func inversePerp() throws {
    var perp = Self.perp
    perp.instrument.market = .inverse
    let run = try carry(Self.spot, perp, funding: Self.funding, Self.parameters(), contractSize: 30)
    let trade = try #require(run.trades.first)
    // n = round(100 × 101 / 30) = round(336.67) = 337.
    #expect(trade.richQuantity == 337 && trade.cheapQuantity == 100)
    let coin = 337 * 30 * (1 / 101.1 - 1 / 101.0)
    let coinFees = 0.0005 * 337 * 30 * (1 / 101.0 + 1 / 101.1)
    // Funding (1e-4 − 2e-4 + 3e-4) × 337 × 30 = 2.022.
    #expect(isClose(trade.funding, 2.022, rel: 1e-12))
    #expect(zip(run.payments.map(\.amount), [1.011, -2.022, 3.033]).allSatisfy { isClose($0, $1, rel: 1e-12) })
    #expect(isClose(trade.fees, 20.1 + coinFees * 101, rel: 1e-12))
    #expect(isClose(trade.pnl, 100 - 20.1 + (coin - coinFees) * 101 + 2.022, rel: 1e-12))
    // A notional under half a contract still trades one: 10 / 100 × 101 / 30 = 0.34.
    var small = Self.parameters()
    small.notional = 10
    let one = try #require(try carry(Self.spot, perp, funding: Self.funding, small, contractSize: 30).trades.first)
    #expect(one.richQuantity == 1 && isClose(one.funding, 0.0002 * 30, rel: 1e-12))
  }

  @Test("forced exit two days later: a negative settlement paid, each on its own day")
  func forcedExitAcrossDays() throws {
    let spot = carryLeg(.spot, [(0, 100, 100.1), (22, 100, 100), (24, 100, 100.2), (48, 102, 102.2), (49, 101, 101.1)])
    let perp = carryLeg(.linear, [(0, 100.1, 100.2), (22, 101, 101.2), (24, 100.8, 101), (48, 102.1, 102.2), (49, 101.6, 101.7)])
    let funding = fundingSeries([(16, 0.0005), (24, -0.0001), (48, 0.0002), (56, 0.0007)])
    let run = try carry(spot, perp, funding: funding, Self.parameters())
    let trade = try #require(run.trades.first)
    #expect(trade.entryTime == 22 * hour && trade.exitTime == 49 * hour && trade.exitReason == .endOfData)
    #expect(run.forcedExits == 1)
    // Closed at the 49 h quotes: spot bid 101, perp ask 101.7.
    #expect((trade.cheapSell, trade.richBuy) == (101, 101.7))
    // −1e-4 × 100 × 100.9 + 2e-4 × 100 × 102.15 = −1.009 + 2.043.
    #expect(isClose(trade.funding, 1.034, rel: 1e-12))
    // 100 − 20.1 − 70 − 0.0005 × 100 × 202.7 + 1.034.
    #expect(isClose(trade.pnl, 0.799, rel: 1e-9))
    let days = run.journal.daily()
    #expect(days.map(\.date) == ["1970-01-01", "1970-01-02", "1970-01-03"])
    #expect(days.map(\.trades) == [0, 0, 1])
    #expect(days[0].pnl == 0 && isClose(days[1].pnl, -1.009, rel: 1e-12) && isClose(days[2].pnl, 2.043 + 0.799 - 1.034, rel: 1e-9))
    #expect(isClose(run.maxDrawdown, 1.009, rel: 1e-12))
  }

  @Test("only the direction that sells the perp opens; mode convergence would sell the spot")
  func fixedDirection() throws {
    // Spot rich: bid_S / ask_P − 1 = 1 %, while b_open = 99.9 / 101.1 − 1 < 0.
    let spot = carryLeg(.spot, [(0, 100, 100.1), (1, 101, 101.1), (2, 100, 100.1)])
    let perp = carryLeg(.linear, [(0, 100, 100.1), (1, 99.9, 100), (2, 100, 100.1)])
    let funding = fundingSeries([(1, 0.0001)])
    #expect(try carry(spot, perp, funding: funding, Self.parameters()).trades.isEmpty)
    #expect(try run([spot, perp], Self.parameters()).trades.count == 1)
  }

  @Test("a ticker-rate series or a price series is not a set of settlements")
  func notSettlements() throws {
    var ticker = fundingSeries([(1, 0.0001), (2, 0.0002)])
    ticker.time[1] += 1_000_000
    #expect(throws: FundingError.self) { try FundingSettlements(funding: ticker, perp: Self.perp) }
    #expect(throws: FundingError.self) { try FundingSettlements(funding: Self.perp, perp: Self.perp) }
    // Without funding the trade is the same but for the settlements.
    let aligned = try AlignedLegs(legs: [Self.spot, Self.perp], options: AlignmentOptions())
    let bare = CarryBacktest(parameters: Self.parameters(), contractSize: nil).run(legs: [Self.spot, Self.perp], aligned: aligned, funding: .none)
    #expect(bare.payments.isEmpty && bare.trades[0].funding == 0 && isClose(bare.trades[0].pnl, 61.7925 - 1.9975, rel: 1e-12))
  }
}
