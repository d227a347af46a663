import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// Mode inventory against a slow, obvious re-reading of docs/definitions.md ("Inventory
// backtest") on random quote streams: its own union clock, as-of by linear search,
// balances and transfers kept by hand.

struct InventoryOracle {
  var trades: [(time: Int64, rich: Int, quantity: Double, pnl: Double)] = []
  var rebalances: [(start: Int64, end: Int64, booked: Double)] = []
  var skipped: [SkipReason: Int] = [:]
  var base: [Double], quote: [Double]
  var inTransit = (base: 0.0, quote: 0.0)

  init(_ legs: [QuoteSeries], _ p: InventoryParameters, uniformDelay: (low: Int64, high: Int64)) {
    (base, quote) = (p.base, p.quote)
    func asOf(_ k: Int, _ t: Int64) -> Int { legs[k].time.lastIndex { $0 <= t }! }
    let start = max(legs[0].time[0], legs[1].time[0])
    let clock = Array(Set(legs[0].time + legs[1].time)).filter { $0 >= start }.sorted()
    let valid = clock.filter { t in (0..<2).allSatisfy { k in p.maxStale.map { t - legs[k].time[asOf(k, t)] <= $0 } ?? true } }
    let s = p.slippageBps / 10_000
    let latency = p.legLatency ?? [p.latency, p.latency]
    // The transfer under way: start, due time, the legs the base and the quote leave.
    var transfer: (start: Int64, due: Int64, baseFrom: Int, quoteFrom: Int)? = nil
    for t in valid {
      let mid = (0..<2).map { k in (legs[k].bid[asOf(k, t)] + legs[k].ask[asOf(k, t)]) / 2 }
      if let r = transfer, let rebalance = p.rebalance, t >= r.due {
        let baseFee = inTransit.base > 0 ? min(rebalance.baseFees[r.baseFrom], inTransit.base) : 0
        let quoteFee = inTransit.quote > 0 ? min(rebalance.quoteFees[r.quoteFrom], inTransit.quote) : 0
        base[1 - r.baseFrom] += inTransit.base - baseFee
        quote[1 - r.quoteFrom] += inTransit.quote - quoteFee
        inTransit = (0, 0)
        for k in 0..<2 { quote[k] -= rebalance.cost * p.quote[k] / p.quote.reduce(0, +) }
        rebalances.append((r.start, t, -(rebalance.cost + quoteFee + baseFee * mid[1 - r.baseFrom])))
        transfer = nil
      }
      let a = asOf(0, t), b = asOf(1, t)
      let forward = (legs[0].bid[a] / legs[1].ask[b] - 1) * 100, backward = (legs[1].bid[b] / legs[0].ask[a] - 1) * 100
      guard max(forward, backward) >= p.entry else { continue }
      let fill = (0..<2).map { k in asOf(k, t + latency[k]) }
      if let limit = p.maxStale, (0..<2).contains(where: { t + latency[$0] - legs[$0].time[fill[$0]] > limit }) {
        skipped[.staleFill, default: 0] += 1
        continue
      }
      let rich = forward >= backward ? 0 : 1, cheap = 1 - rich
      let sell = legs[rich].bid[fill[rich]] * (1 - s), buy = legs[cheap].ask[fill[cheap]] * (1 + s)
      let wanted = p.notional / sell, byQuote = quote[cheap] / (buy * (1 + p.fees[cheap]))
      let q = min(wanted, base[rich], byQuote)
      guard q > 0 && q >= p.minSize else {
        // The limit that bound it: base first when base and quote tie, base for the wanted size.
        skipped[q == byQuote && byQuote < base[rich] ? .noQuote : .noBase, default: 0] += 1
        if transfer == nil, p.rebalance != nil {
          let baseExcess = base[0] - base.reduce(0, +) * p.base[0] / p.base.reduce(0, +)
          let quoteExcess = quote[0] - quote.reduce(0, +) * p.quote[0] / p.quote.reduce(0, +)
          let r = (baseExcess >= 0 ? 0 : 1, quoteExcess >= 0 ? 0 : 1)
          base[r.0] -= abs(baseExcess)
          quote[r.1] -= abs(quoteExcess)
          inTransit = (abs(baseExcess), abs(quoteExcess))
          let u = SeededDraw.uniform(seed: p.seed, .transfer, UInt64(bitPattern: t), 0)
          let delay = uniformDelay.low + Int64((u * Double(uniformDelay.high - uniformDelay.low)).rounded(.down))
          transfer = (t, t + delay, r.0, r.1)
        }
        continue
      }
      let fees = p.fees[rich] * q * sell + p.fees[cheap] * q * buy
      base[rich] -= q
      quote[rich] += q * sell * (1 - p.fees[rich])
      base[cheap] += q
      quote[cheap] -= q * buy * (1 + p.fees[cheap])
      trades.append((t, rich, q, q * (sell - buy) - fees))
    }
  }
}

@Suite("Inventory backtest against a slow oracle")
struct InventoryOracleTests {
  @Test("random books: the same trades, transfers, balances and PnL", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func randomBooks(seed: UInt64) throws {
    let legs = randomLegs(seed + 40, count: 3000)
    let delay = (low: Int64(seed % 3) * 20_000_000, high: 60_000_000 + Int64(seed) * 10_000_000)
    var p = InventoryParameters(entry: 0.1 + 0.02 * Double(seed % 3), notional: 800, fees: [0.0004, 0.001], base: [6, 9], quote: [700, 1100])
    p.slippageBps = Double(seed % 3)
    p.latency = Int64(seed % 2) * 2_000_000
    p.legLatency = seed == 3 ? [0, 3_000_000] : nil
    p.maxStale = seed % 3 == 0 ? nil : 4_000_000
    p.minSize = seed == 4 ? 2 : 0
    p.seed = seed
    p.rebalance = .init(cost: 3, delay: .uniform(low: delay.low, high: delay.high), baseFees: [0.01, 0.02], quoteFees: [1.5, 0.5])
    let engine = InventoryArbitrage(parameters: p).run(legs: legs, aligned: try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: p.maxStale)))
    let oracle = InventoryOracle(legs, p, uniformDelay: delay)
    #expect(engine.trades.count == oracle.trades.count && oracle.trades.count >= 5)
    for (a, b) in zip(engine.trades, oracle.trades) {
      #expect(a.time == b.time && a.rich == b.rich)
      #expect(isClose(a.quantity, b.quantity, rel: 1e-12) && isClose(a.pnl, b.pnl, rel: 1e-12, abs: 1e-9))
    }
    #expect(engine.rebalances.map(\.start) == oracle.rebalances.map(\.start) && engine.rebalances.map(\.end) == oracle.rebalances.map(\.end))
    #expect(oracle.rebalances.count >= 2, "the balances run out and are refilled")
    for (a, b) in zip(engine.rebalances, oracle.rebalances) { #expect(isClose(-(a.cost + a.feeValue), b.booked, rel: 1e-12)) }
    #expect(Dictionary(uniqueKeysWithValues: engine.skipped.map { ($0.reason, $0.count) }) == oracle.skipped)
    let last = try #require(engine.path.last)
    for k in 0..<2 {
      #expect(isClose(last.base[k], oracle.base[k], rel: 1e-9, abs: 1e-9) && isClose(last.quote[k], oracle.quote[k], rel: 1e-9, abs: 1e-9))
    }
    #expect(isClose(last.baseInTransit, oracle.inTransit.base, rel: 1e-12, abs: 1e-12))
    #expect(isClose(last.quoteInTransit, oracle.inTransit.quote, rel: 1e-12, abs: 1e-12))
    let booked = oracle.trades.reduce(0) { $0 + $1.pnl } + oracle.rebalances.reduce(0) { $0 + $1.booked }
    #expect(isClose(engine.pnl, booked, rel: 1e-9, abs: 1e-9))
    #expect(isClose(engine.timeInTransit, Double(oracle.rebalances.reduce(0) { $0 + $1.end - $1.start }) / 1e6, rel: 1e-15))
  }
}
