import ArbAnalytics
import ArbCore
import ArbIngest
import TestSupport
import Testing

@testable import ArbBacktest

// The engine against a slow, obvious re-reading of docs/definitions.md on random
// quote streams: its own union clock, as-of by linear search, validity by ages.

struct OracleTrade: Equatable {
  var entry: Int64, exit: Int64, rich: Int, pnl: Double, fees: Double
}

func oracleTrades(_ legs: [QuoteSeries], _ p: ConvergenceParameters, maxStale: Int64?) -> [OracleTrade] {
  func asOf(_ k: Int, _ t: Int64) -> Int? { legs[k].time.lastIndex { $0 <= t } }
  let start = max(legs[0].time[0], legs[1].time[0])
  let clock = Array(Set(legs[0].time + legs[1].time)).filter { $0 >= start }.sorted()
  let valid = clock.filter { t in
    (0..<2).allSatisfy { k in
      let j = asOf(k, t)!
      return (maxStale.map { t - legs[k].time[j] <= $0 } ?? true) && legs[k].bid[j].isFinite && legs[k].ask[j].isFinite
    }
  }
  let s = p.slippageBps / 10_000
  func fill(_ t: Int64) -> [(bid: Double, ask: Double)]? {
    var quotes: [(bid: Double, ask: Double)] = []
    for k in 0..<2 {
      let j = asOf(k, t + p.latency)!
      if let limit = p.maxStale, t + p.latency - legs[k].time[j] > limit { return nil }
      quotes.append((legs[k].bid[j], legs[k].ask[j]))
    }
    return quotes
  }
  var trades: [OracleTrade] = []
  var position: (entry: Int64, rich: Int, sellR: Double, buyC: Double, qR: Double, qC: Double, fees: Double)? = nil
  var cooldownUntil = Int64.min
  func book(_ o: (entry: Int64, rich: Int, sellR: Double, buyC: Double, qR: Double, qC: Double, fees: Double), _ q: [(bid: Double, ask: Double)], _ t: Int64) {
    let c = 1 - o.rich
    let buyR = q[o.rich].ask * (1 + s), sellC = q[c].bid * (1 - s)
    let fees = o.fees + p.fees[o.rich] * o.qR * buyR + p.fees[c] * o.qC * sellC
    trades.append(OracleTrade(entry: o.entry, exit: t, rich: o.rich, pnl: o.qR * (o.sellR - buyR) + o.qC * (sellC - o.buyC) - fees, fees: fees))
  }
  for (n, t) in valid.enumerated() {
    let q = (0..<2).map { k in (bid: legs[k].bid[asOf(k, t)!], ask: legs[k].ask[asOf(k, t)!]) }
    if let o = position {
      if t == o.entry { continue }
      let closing = (q[o.rich].ask / q[1 - o.rich].bid - 1) * 100
      if closing <= p.exit || (p.maxHolding.map { t - o.entry >= $0 } ?? false), let f = fill(t) {
        book(o, f, t)
        position = nil
        cooldownUntil = p.cooldown.map { t + $0 } ?? .min
      }
      continue
    }
    if n == valid.count - 1 { break }
    let ab = (q[0].bid / q[1].ask - 1) * 100, ba = (q[1].bid / q[0].ask - 1) * 100
    guard max(ab, ba) >= p.entry, t >= cooldownUntil, let f = fill(t) else { continue }
    let r = ab >= ba ? 0 : 1, c = 1 - r
    let sellR = f[r].bid * (1 - s), buyC = f[c].ask * (1 + s)
    let qR = p.notional / sellR, qC = p.notional / buyC
    position = (t, r, sellR, buyC, qR, qC, p.fees[r] * qR * sellR + p.fees[c] * qC * buyC)
  }
  if let o = position, let t = valid.last {
    // Forced exit: the last valid point's own quotes, no latency.
    book(o, (0..<2).map { k in (bid: legs[k].bid[asOf(k, t)!], ask: legs[k].ask[asOf(k, t)!]) }, t)
  }
  return trades
}

/// A random walk of two books around a common price with a mean-reverting gap.
func randomLegs(_ seed: UInt64, count: Int) -> [QuoteSeries] {
  var rng = SplitMix64(seed: seed)
  var legs: [QuoteSeries] = []
  var mid = 100.0
  var gap = 0.0
  var rows: [[(Int64, Double, Double)]] = [[], []]
  var t: Int64 = 0
  for _ in 0..<count {
    t += Int64(1 + rng.next() % 3_000_000)
    mid *= 1 + 0.0005 * rng.normal()
    gap = 0.9 * gap + 0.002 * rng.normal()
    let k = Int(rng.next() % 2)
    let center = k == 0 ? mid * (1 + gap) : mid
    let spread = center * 0.0002 * (1 + rng.uniform())
    rows[k].append((t, center - spread / 2, center + spread / 2))
  }
  for k in 0..<2 {
    legs.append(
      QuoteSeries(
        instrument: Instrument(venue: "v\(k)", market: .spot, symbol: "X"), priceSource: .book,
        time: rows[k].map(\.0), bid: rows[k].map(\.1), ask: rows[k].map(\.2),
        bidSize: rows[k].map { _ in .nan }, askSize: rows[k].map { _ in .nan }))
  }
  return legs
}

@Suite("Convergence backtest against a slow oracle")
struct ConvergenceOracleTests {
  @Test("random books: the same trades, PnL and fees", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func randomBooks(seed: UInt64) throws {
    let legs = randomLegs(seed, count: 1500)
    var p = ConvergenceParameters(entry: 0.25, exit: 0.02, notional: 5000, fees: [0.0004, 0.001])
    p.slippageBps = Double(seed % 3)
    p.latency = Int64(seed % 2) * 2_000_000
    p.maxStale = seed % 3 == 0 ? 4_000_000 : nil
    p.maxHolding = seed % 2 == 0 ? 60_000_000 : nil
    p.cooldown = seed == 5 ? 30_000_000 : nil
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: p.maxStale))
    let engine = ConvergenceBacktest(parameters: p).run(legs: legs, aligned: aligned)
    let oracle = oracleTrades(legs, p, maxStale: p.maxStale)
    #expect(engine.trades.count == oracle.count)
    #expect(oracle.count >= 5, "the random walk should trade")
    for (a, b) in zip(engine.trades, oracle) {
      #expect(a.entryTime == b.entry && a.exitTime == b.exit && a.rich == b.rich)
      #expect(isClose(a.pnl, b.pnl, rel: 1e-12, abs: 1e-9))
      #expect(isClose(a.fees, b.fees, rel: 1e-12))
    }
  }
}

@Suite("Convergence backtest on the real demo pair against the oracle")
struct ConvergenceRealDataTests {
  /// The first two days of a shipped sample, through its column spec.
  static func firstDays(_ file: String, _ spec: String, venue: String) throws -> QuoteSeries {
    var options = IngestOptions()
    options.format = .columns(try ColumnSpec.load(path: Repository.data("formats/" + spec)))
    options.instrument = Instrument(venue: venue, market: .spot, symbol: "BTCUSDC")
    var series = try #require(try Ingest.read(path: Repository.data("samples/" + file), options: options).series.first)
    let end = series.time[0] + 2 * 86_400_000_000
    let n = series.time.firstIndex { $0 >= end } ?? series.count
    series.time = Array(series.time[..<n])
    series.bid = Array(series.bid[..<n])
    series.ask = Array(series.ask[..<n])
    series.bidSize = Array(series.bidSize[..<n])
    series.askSize = Array(series.askSize[..<n])
    return series
  }

  @Test("Binance.US vs Kraken, 1-2 March 2023: the engine's trades are the oracle's")
  func demoPair() throws {
    let legs = [
      try Self.firstDays("binanceus_BTCUSDC_1m_2023-03-01_21.csv", "binanceus-kline-1m.json", venue: "binanceus"),
      try Self.firstDays("kraken_BTCUSDC_1m_2023-03-01_21.csv.gz", "kraken-ohlcvt-1m.json", venue: "kraken"),
    ]
    var p = ConvergenceParameters(entry: 0.1, exit: 0.0, notional: 10_000, fees: [0.001, 0.0026])
    p.slippageBps = 1
    p.latency = 60_000_000
    p.maxStale = 120_000_000
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: p.maxStale))
    let engine = ConvergenceBacktest(parameters: p).run(legs: legs, aligned: aligned)
    let oracle = oracleTrades(legs, p, maxStale: p.maxStale)
    #expect(engine.trades.count == oracle.count)
    #expect(oracle.count >= 20)
    for (a, b) in zip(engine.trades, oracle) {
      #expect(a.entryTime == b.entry && a.exitTime == b.exit && a.rich == b.rich)
      #expect(isClose(a.pnl, b.pnl, rel: 1e-12, abs: 1e-9))
    }
  }
}
