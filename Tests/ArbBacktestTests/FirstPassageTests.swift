import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// The first-passage search must take exactly the decisions of the point-by-point
// pass, for every rule, on random and real data.

/// Field by field, with `nan` equal to itself (sizes a source does not have).
func same(_ a: TradeDecision, _ b: TradeDecision) -> Bool {
  let numbers: [KeyPath<TradeDecision, Double>] = [\.entryPremium, \.exitPremium, \.richBid, \.richBidSize, \.cheapAsk, \.cheapAskSize, \.richAsk, \.cheapBid]
  return a.entryTime == b.entryTime && a.exitTime == b.exitTime && a.rich == b.rich && a.cheap == b.cheap && a.exitReason == b.exitReason
    && numbers.allSatisfy { a[keyPath: $0].bitPattern == b[keyPath: $0].bitPattern }
}

@Suite("First-passage decisions equal the point-by-point pass")
struct FirstPassageTests {
  @Test("block skips find the same first position as a scan")
  func blocks() {
    var rng = SplitMix64(seed: 9)
    let values = (0..<20_000).map { _ in rng.uniform() < 0.001 ? 5.0 : rng.normal() }
    let up = FirstPassage(values, upward: true), down = FirstPassage(values, upward: false)
    for start in stride(from: 0, to: values.count, by: 97) {
      for threshold in [1.0, 3.0, 4.9, 6.0] {
        #expect(up.first(from: start, threshold: threshold) == values.indices.dropFirst(start).first { values[$0] >= threshold })
        #expect(down.first(from: start, threshold: -threshold) == values.indices.dropFirst(start).first { values[$0] <= -threshold })
      }
    }
    #expect(FirstPassage([.nan, 1], upward: true).first(from: 0, threshold: -10) == 1)
  }

  @Test("nan never passes, wherever it lies in a block")
  func nanValues() {
    var rng = SplitMix64(seed: 13)
    let values = (0..<10_000).map { _ in rng.uniform() < 0.05 ? .nan : rng.normal() }
    let up = FirstPassage(values, upward: true), down = FirstPassage(values, upward: false)
    for start in stride(from: 0, to: values.count, by: 89) {
      for threshold in [-3.0, 0.0, 2.5] {
        #expect(up.first(from: start, threshold: threshold) == values.indices.dropFirst(start).first { values[$0] >= threshold })
        #expect(down.first(from: start, threshold: threshold) == values.indices.dropFirst(start).first { values[$0] <= threshold })
      }
    }
  }

  @Test("a search bounded by a limit finds only what lies before it")
  func bounded() {
    var rng = SplitMix64(seed: 11)
    let values = (0..<9_000).map { _ in rng.uniform() < 0.002 ? 4.0 : rng.normal() }
    let up = FirstPassage(values, upward: true)
    for start in stride(from: 0, to: values.count, by: 211) {
      for limit in [start, start + 1, start + 63, start + 64, start + 700, start + 4_096, values.count, values.count + 5] {
        let expected = values.indices.dropFirst(start).first { $0 < limit && values[$0] >= 3.5 }
        #expect(up.first(from: start, threshold: 3.5, before: limit) == expected, "start \(start), limit \(limit)")
      }
    }
  }

  @Test("a search from inside a block, into a short last block, at every start near the edges")
  func blockEdges() {
    // One passing value in each of: the first small block, mid-column, and the short
    // last block (8,262 values: two large blocks and 70 more).
    var values = [Double](repeating: 0, count: 2 * FirstPassage.largeBlock + 70)
    for p in [5, 4_100, values.count - 3] { values[p] = 1 }
    let up = FirstPassage(values, upward: true), down = FirstPassage(values.map { -$0 }, upward: false)
    for start in Array(0..<130) + Array(4_030..<4_170) + Array((values.count - 140)...values.count) {
      let expected = values.indices.dropFirst(start).first { values[$0] >= 0.5 }
      #expect(up.first(from: start, threshold: 0.5) == expected, "start \(start)")
      #expect(down.first(from: start, threshold: -0.5) == expected, "start \(start)")
    }
  }

  static func compare(_ legs: [QuoteSeries], _ p: ConvergenceParameters, alignedStale: Int64?) throws {
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: alignedStale))
    let engine = ConvergenceBacktest(parameters: p)
    let pass = engine.decide(legs: legs, aligned: aligned)
    let index = try ConvergenceIndex(legs: legs, options: AlignmentOptions(maxStale: alignedStale))
    #expect(index.clockPoints == aligned.count && index.validPoints == aligned.validPoints)
    let fast = engine.decide(legs: legs, index: index)
    #expect(fast.trades.count == pass.trades.count)
    let mismatch = zip(fast.trades, pass.trades).enumerated().first { !same($0.element.0, $0.element.1) }?.offset
    #expect(mismatch == nil, "first different trade: \(mismatch.map { String(describing: fast.trades[$0]) } ?? "")")
    #expect(fast.skipped.map(\.reason) == pass.skipped.map(\.reason) && fast.skipped.map(\.count) == pass.skipped.map(\.count))
    #expect(fast.firstTime == pass.firstTime && fast.lastTime == pass.lastTime)
  }

  /// Runs with different rules decided together, a span of `span` valid points at a
  /// time, each equal to its own point-by-point pass.
  static func compareBatched(_ legs: [QuoteSeries], _ runs: [ConvergenceParameters], span: Int) throws {
    let options = AlignmentOptions(maxStale: 4_000_000)
    let aligned = try AlignedLegs(legs: legs, options: options)
    let index = try ConvergenceIndex(legs: legs, options: options)
    let batched = ConvergenceBacktest.decide(runs.map(ConvergenceBacktest.init), legs: legs, index: index, span: span)
    #expect(batched.count == runs.count)
    for (k, p) in runs.enumerated() {
      let pass = ConvergenceBacktest(parameters: p).decide(legs: legs, aligned: aligned)
      #expect(pass.trades.count > 0, "run \(k) trades")
      #expect(batched[k].trades.count == pass.trades.count, "run \(k), span \(span)")
      #expect(zip(batched[k].trades, pass.trades).allSatisfy { same($0, $1) }, "run \(k), span \(span)")
      #expect(batched[k].skipped.map(\.reason) == pass.skipped.map(\.reason) && batched[k].skipped.map(\.count) == pass.skipped.map(\.count))
      #expect(batched[k].firstTime == pass.firstTime && batched[k].lastTime == pass.lastTime)
    }
  }

  @Test("runs decided side by side, span by span, equal their own passes", arguments: [1, 2, 7, 64, 1_000, 1 << 20])
  func batched(span: Int) throws {
    let legs = randomLegs(5, count: 5000)
    var runs: [ConvergenceParameters] = []
    for (k, (entry, exit)) in [(0.1, -0.05), (0.2, 0.0), (0.3, 0.05), (0.1, 0.05), (0.2, -0.05)].enumerated() {
      var p = ConvergenceParameters(entry: entry, exit: exit, notional: 1000, fees: [0.001, 0.001])
      p.latency = k % 2 == 0 ? 1_000_000 : 0
      p.legLatency = k == 3 ? [2_000_000, 0] : nil
      p.maxStale = k % 3 == 1 ? 3_000_000 : nil
      p.maxHolding = k == 2 ? 20_000_000 : nil
      p.cooldown = k == 4 || k == 0 ? 15_000_000 : nil
      runs.append(p)
    }
    try Self.compareBatched(legs, runs, span: span)
  }

  @Test("random books, every rule", arguments: Array(1...12) as [UInt64])
  func random(seed: UInt64) throws {
    var legs = randomLegs(seed, count: 6000)
    if seed % 4 == 0 {
      var rng = SplitMix64(seed: seed)
      legs[0].bidSize = legs[0].time.map { _ in rng.uniform() < 0.05 ? 0 : 1 }
    }
    var p = ConvergenceParameters(entry: [0.1, 0.2, 0.3][Int(seed % 3)], exit: [-0.05, 0, 0.05][Int(seed % 3)], notional: 1000, fees: [0.001, 0.001])
    p.legLatency = seed % 2 == 0 ? [2_000_000, 0] : nil
    p.latency = seed % 3 == 0 ? 1_000_000 : 0
    p.maxStale = seed % 3 == 1 ? 3_000_000 : nil
    p.maxHolding = seed % 4 == 1 ? 20_000_000 : nil
    p.cooldown = seed % 5 == 2 ? 15_000_000 : nil
    p.capAtBook = seed % 4 == 0
    try Self.compare(legs, p, alignedStale: seed % 2 == 1 ? 5_000_000 : nil)
  }

  /// The demo pair's first days (Binance.US and Kraken BTC/USDC, 1-minute closes).
  static func realPairLegs() throws -> [QuoteSeries] {
    [
      try ConvergenceRealDataTests.firstDays("binanceus_BTCUSDC_1m_2023-03-01_21.csv", "binanceus-kline-1m.json", venue: "binanceus"),
      try ConvergenceRealDataTests.firstDays("kraken_BTCUSDC_1m_2023-03-01_21.csv.gz", "kraken-ohlcvt-1m.json", venue: "kraken"),
    ]
  }

  /// A grid of thresholds on the demo pair, with latency, staleness, holding limits and cooldowns.
  static let realPairRuns: [ConvergenceParameters] = [0.05, 0.1, 0.3].flatMap { entry in
    [0.0, 0.05].map { exit in
      var p = ConvergenceParameters(entry: entry, exit: exit, notional: 10_000, fees: [0.001, 0.004])
      p.latency = 60_000_000
      p.maxStale = 120_000_000
      p.maxHolding = entry == 0.3 ? 3_600_000_000 : nil
      p.cooldown = exit == 0.05 ? 300_000_000 : nil
      return p
    }
  }

  @Test("the real demo pair over a grid of thresholds")
  func realPair() throws {
    let legs = try Self.realPairLegs()
    for p in Self.realPairRuns { try Self.compare(legs, p, alignedStale: 120_000_000) }
  }
}
