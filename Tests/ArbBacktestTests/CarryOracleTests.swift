import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// Mode carry against a slow, obvious re-reading of docs/definitions.md on random spot
// and perp quotes with hourly funding: its own union clock, as-of by linear search,
// funding by scanning every settlement for every trade.

struct CarryOracleTrade {
  var entry: Int64, exit: Int64, quantity: Double, perpQuantity: Double, funding: Double, fees: Double, pnl: Double
}

func carryOracle(
  spot: QuoteSeries, perp: QuoteSeries, funding: QuoteSeries, _ p: ConvergenceParameters, contractSize: Double?
) -> [CarryOracleTrade] {
  let legs = [spot, perp]
  func asOf(_ k: Int, _ t: Int64) -> Int? { legs[k].time.lastIndex { $0 <= t } }
  let start = max(spot.time[0], perp.time[0])
  let clock = Array(Set(spot.time + perp.time)).filter { $0 >= start }.sorted()
  let valid = clock.filter { t in (0..<2).allSatisfy { k in p.maxStale.map { t - legs[k].time[asOf(k, t)!] <= $0 } ?? true } }
  let s = p.slippageBps / 10_000
  let latency = p.legLatency ?? [p.latency, p.latency]
  func quotes(at t: Int64, latency: [Int64]) -> [(bid: Double, ask: Double)]? {
    var q: [(bid: Double, ask: Double)] = []
    for k in 0..<2 {
      let j = asOf(k, t + latency[k])!
      if let limit = p.maxStale, t + latency[k] - legs[k].time[j] > limit { return nil }
      q.append((legs[k].bid[j], legs[k].ask[j]))
    }
    return q
  }
  var trades: [CarryOracleTrade] = []
  var open: (t: Int64, spotBuy: Double, perpSell: Double)? = nil
  var cooldownUntil = Int64.min
  func close(_ o: (t: Int64, spotBuy: Double, perpSell: Double), _ q: [(bid: Double, ask: Double)], at t: Int64) {
    let spotSell = q[0].bid * (1 - s), perpBuy = q[1].ask * (1 + s)
    let quantity = p.notional / o.spotBuy
    var perpQuantity = quantity, perpPnL = quantity * (o.perpSell - perpBuy), perpFees = p.fees[1] * quantity * (o.perpSell + perpBuy)
    if let c = contractSize {
      perpQuantity = max(1, (quantity * o.perpSell / c).rounded(.toNearestOrAwayFromZero))
      perpPnL = (perpQuantity * c / perpBuy - perpQuantity * c / o.perpSell) * spotSell
      perpFees = p.fees[1] * (perpQuantity * c / o.perpSell + perpQuantity * c / perpBuy) * spotSell
    }
    var received = 0.0
    for (k, tau) in funding.time.enumerated() where o.t < tau && tau <= t {
      // p(τ): the perp's last quote at or before τ (the generated quotes have both sides).
      let j = perp.time.lastIndex { $0 <= tau }!
      let mid = (perp.bid[j] + perp.ask[j]) / 2
      received += contractSize.map { funding.bid[k] * perpQuantity * $0 } ?? funding.bid[k] * quantity * mid
    }
    let fees = p.fees[0] * quantity * (o.spotBuy + spotSell) + perpFees
    trades.append(
      CarryOracleTrade(
        entry: o.t, exit: t, quantity: quantity, perpQuantity: perpQuantity, funding: received, fees: fees,
        pnl: quantity * (spotSell - o.spotBuy) + perpPnL - fees + received))
  }
  for (n, t) in valid.enumerated() {
    let q = quotes(at: t, latency: [0, 0])!
    if let o = open {
      if t == o.t { continue }
      let closing = (q[1].ask / q[0].bid - 1) * 100
      if closing <= p.exit || (p.maxHolding.map { t - o.t >= $0 } ?? false), let f = quotes(at: t, latency: latency) {
        close(o, f, at: t)
        open = nil
        cooldownUntil = p.cooldown.map { t + $0 } ?? .min
      }
      continue
    }
    if n == valid.count - 1 { break }
    guard (q[1].bid / q[0].ask - 1) * 100 >= p.entry, t >= cooldownUntil, let f = quotes(at: t, latency: latency) else { continue }
    open = (t, f[0].ask * (1 + s), f[1].bid * (1 - s))
  }
  if let o = open, let t = valid.last { close(o, quotes(at: t, latency: [0, 0])!, at: t) }
  return trades
}

/// Spot and perp books around one price, the perp's basis mean-reverting around
/// +0.1 %, quotes 1 s to 2 min apart; hourly settlements with signed random rates.
func randomCarryData(_ seed: UInt64, count: Int) -> (spot: QuoteSeries, perp: QuoteSeries, funding: QuoteSeries) {
  var rng = SplitMix64(seed: seed)
  var rows: [[(Int64, Double, Double)]] = [[], []]
  var mid = 100.0, basis = 0.001
  var t: Int64 = 0
  for _ in 0..<count {
    t += Int64(1 + rng.next() % 120_000_000)
    mid *= 1 + 0.0005 * rng.normal()
    basis = 0.001 + 0.9 * (basis - 0.001) + 0.0015 * rng.normal()
    let k = Int(rng.next() % 2)
    let center = k == 0 ? mid : mid * (1 + basis)
    let spread = center * 0.0002 * (1 + rng.uniform())
    rows[k].append((t, center - spread / 2, center + spread / 2))
  }
  func series(_ k: Int) -> QuoteSeries {
    QuoteSeries(
      instrument: Instrument(venue: "v", market: k == 0 ? .spot : .linear, symbol: "X"), priceSource: .book,
      time: rows[k].map(\.0), bid: rows[k].map(\.1), ask: rows[k].map(\.2), bidSize: rows[k].map { _ in .nan }, askSize: rows[k].map { _ in .nan })
  }
  let hours = (0...(t / hour + 1)).map { $0 * hour }
  let rates = hours.map { _ in 0.0003 * rng.normal() }
  let funding = QuoteSeries(
    instrument: Instrument(venue: "v", market: .linear, symbol: "X"), priceSource: .last, field: .fundingRate,
    time: hours, bid: rates, ask: rates, bidSize: rates.map { _ in .nan }, askSize: rates.map { _ in .nan })
  return (series(0), series(1), funding)
}

@Suite("Carry backtest against a slow oracle")
struct CarryOracleTests {
  @Test("random spot and perp books with hourly funding: the same trades, funding and PnL", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func randomBooks(seed: UInt64) throws {
    let data = randomCarryData(seed, count: 1500)
    var p = ConvergenceParameters(entry: 0.2, exit: 0.02, notional: 5000, fees: [0.001, 0.0005])
    p.slippageBps = Double(seed % 3)
    p.legLatency = seed % 2 == 0 ? [0, 3_000_000] : nil
    p.latency = Int64(seed % 3) * 2_000_000
    p.maxStale = seed % 3 == 0 ? 200_000_000 : nil
    p.maxHolding = seed == 4 ? 2 * hour : nil
    p.cooldown = seed == 5 ? hour / 2 : nil
    let contractSize: Double? = seed % 2 == 1 ? 10 : nil
    let legs = [data.spot, data.perp]
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: p.maxStale))
    let settlements = try FundingSettlements(funding: data.funding, perp: data.perp)
    let engine = CarryBacktest(parameters: p, contractSize: contractSize)
    let run = engine.run(legs: legs, aligned: aligned, funding: settlements)
    let oracle = carryOracle(spot: data.spot, perp: data.perp, funding: data.funding, p, contractSize: contractSize)
    #expect(run.trades.count == oracle.count)
    #expect(oracle.count >= 5, "the random basis should trade")
    #expect(oracle.contains { $0.funding != 0 }, "some trades should hold over a settlement")
    for (a, b) in zip(run.trades, oracle) {
      #expect(a.entryTime == b.entry && a.exitTime == b.exit)
      #expect(a.cheapQuantity == b.quantity && a.richQuantity == b.perpQuantity)
      #expect(isClose(a.funding, b.funding, rel: 1e-12, abs: 1e-12))
      #expect(isClose(a.fees, b.fees, rel: 1e-12))
      #expect(isClose(a.pnl, b.pnl, rel: 1e-10, abs: 1e-9))
    }
    #expect(isClose(run.journal.total, oracle.reduce(0) { $0 + $1.pnl }, rel: 1e-10, abs: 1e-9))
    // The first-passage index decides the same round trips.
    let index = try ConvergenceIndex(legs: legs, options: AlignmentOptions(maxStale: p.maxStale), sellLeg: 1)
    let indexed = engine.price(engine.rules.decide(legs: legs, index: index), funding: settlements)
    #expect(indexed.trades == run.trades && indexed.payments == run.payments)
    #expect(indexed.skipped.map(\.reason) == run.skipped.map(\.reason) && indexed.skipped.map(\.count) == run.skipped.map(\.count))
  }
}
