import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// A streamed run takes, chunk by chunk, exactly the decisions of the point-by-point
// pass on the whole legs: chunks down to two points put boundaries inside open
// positions, cooldowns and holding limits.

@Suite("Streamed convergence decisions equal the whole-leg pass")
struct StreamedConvergenceTests {
  /// The rules of `runs` on `legs`, streamed in chunks of `chunkPoints` (and leg chunks
  /// of `legRows`) on `jobs` threads, each compared with its own pass.
  static func compare(
    _ legs: [QuoteSeries], _ runs: [ConvergenceParameters], options: AlignmentOptions, chunkPoints: Int, legRows: Int, jobs: Int = 2,
    sellLeg: Int? = nil
  ) throws {
    let aligned = try AlignedLegs(legs: legs, options: options)
    let streamed = try ConvergenceBacktest.decide(
      runs.map(ConvergenceBacktest.init), open: { k, _ in SeriesQuoteStream(legs[k]) }, options: options, sellLeg: sellLeg,
      chunkPoints: chunkPoints, legChunkRows: legRows, jobs: jobs)
    #expect(streamed.clockPoints == aligned.count && streamed.validPoints == aligned.validPoints)
    #expect(streamed.legTimes.map { $0?.lowerBound } == legs.map { $0.time.first })
    #expect(streamed.legTimes.map { $0?.upperBound } == legs.map { $0.time.last })
    var traded = 0
    for (k, p) in runs.enumerated() {
      let pass = ConvergenceBacktest(parameters: p).decide(legs: legs, aligned: aligned)
      let run = streamed.runs[k]
      traded += pass.trades.count
      #expect(run.trades.count == pass.trades.count, "run \(k), chunk \(chunkPoints)")
      let mismatch = zip(run.trades, pass.trades).enumerated().first { !same($0.element.0, $0.element.1) }?.offset
      #expect(mismatch == nil, "run \(k), chunk \(chunkPoints): first different trade \(mismatch.map { String(describing: run.trades[$0]) } ?? "")")
      // Rows are the legs' own: the same as the pass's.
      #expect(zip(run.trades, pass.trades).allSatisfy { $0.richEntryRow == $1.richEntryRow && $0.cheapExitRow == $1.cheapExitRow })
      #expect(run.skipped.map(\.reason) == pass.skipped.map(\.reason) && run.skipped.map(\.count) == pass.skipped.map(\.count), "run \(k)")
      #expect(run.firstTime == pass.firstTime && run.lastTime == pass.lastTime)
    }
    #expect(traded > runs.count, "the runs trade")
  }

  /// Runs with every rule the streamed engine takes: latencies per leg, staleness,
  /// holding limits, cooldowns, the book-size cap, a fixed direction.
  static func runs(sellLeg: Int? = nil) -> [ConvergenceParameters] {
    [(0.1, -0.05), (0.2, 0.0), (0.3, 0.05), (0.1, 0.05), (0.2, -0.05), (0.15, 0.0)].enumerated().map { k, thresholds in
      var p = ConvergenceParameters(entry: thresholds.0, exit: thresholds.1, notional: 1000, fees: [0.001, 0.001])
      p.latency = k % 2 == 0 ? 1_000_000 : 0
      p.legLatency = k == 3 ? [2_000_000, 0] : nil
      p.maxStale = k % 3 == 1 ? 3_000_000 : 4_000_000
      p.maxHolding = k == 2 || k == 5 ? 20_000_000 : nil
      p.cooldown = k == 4 || k == 0 || k == 5 ? 15_000_000 : nil
      p.capAtBook = k == 1
      p.sellLeg = sellLeg
      return p
    }
  }

  /// The latencies a scenario draws (`costs.latency`, `costs.venue_latency.VENUE`):
  /// uniform, lognormal (one with a tail far past later chunks), recorded, and a
  /// different one per leg.
  static let drawnLatencies: [[Latency]] = [
    [.uniform(low: 0, high: 4_000_000), .uniform(low: 0, high: 4_000_000)],
    [.lognormal(median: 1_000_000, sigma: 1.5), .lognormal(median: 1_000_000, sigma: 1.5)],
    [.recorded, .recorded],
    [.uniform(low: 500_000, high: 2_500_000), .lognormal(median: 2_000_000, sigma: 0.5)],
    [.recorded, .fixed(1_000_000)],
    [.lognormal(median: 30_000_000, sigma: 3), .uniform(low: 2_000_000, high: 2_000_000)],
  ]

  /// `runs(sellLeg:)` with the drawn latencies in turn, each at two seeds.
  static func drawnRuns(sellLeg: Int? = nil) -> [ConvergenceParameters] {
    runs(sellLeg: sellLeg).enumerated().flatMap { k, p in
      [7, 1000 + UInt64(k)].map { seed in
        var p = p
        p.latencyModels = drawnLatencies[k % drawnLatencies.count]
        p.seed = seed
        return p
      }
    }
  }

  /// `legs` with a receive (local) and an exchange time per quote: the receive time
  /// `time`, the exchange time up to 3 s before it (or up to 0.5 s after it: a delay of 0).
  static func withBothClocks(_ legs: [QuoteSeries], seed: UInt64) -> [QuoteSeries] {
    var rng = SplitMix64(seed: seed)
    return legs.map { leg in
      var leg = leg
      leg.clock = .local
      leg.otherTime = leg.time.map { $0 - Int64(rng.next() % 3_500_000) + 500_000 }
      return leg
    }
  }

  /// Each entry's fill rows in `legs`, found apart from the engine: the last quote at or
  /// before the signal plus the leg's latency, a uniform one drawn as `low + ⌊u × (high −
  /// low)⌋` from `SeededDraw`, a recorded one the receive minus the exchange time
  /// (at least 0) of the quote in force at the signal.
  static func expectEntryRows(_ decisions: ConvergenceDecisions, legs: [QuoteSeries], _ p: ConvergenceParameters) {
    for trade in decisions.trades {
      for (k, row) in [(trade.rich, trade.richEntryRow), (trade.cheap, trade.cheapEntryRow)] {
        let t = trade.entryTime
        let inForce = { (time: Int64) in legs[k].time.lastIndex { $0 <= time }! }
        let delay: Int64
        switch p.latencies[k] {
        case .uniform(let low, let high):
          delay = low + Int64((SeededDraw.uniform(seed: p.seed, .latency, UInt64(bitPattern: t), UInt64(k)) * Double(high - low)).rounded(.down))
        case .recorded: delay = max(0, legs[k].time[inForce(t)] - legs[k].otherTime[inForce(t)])
        case .fixed(let value): delay = value
        case .lognormal: continue
        }
        #expect(row == inForce(t + delay), "leg \(k) at \(t), \(p.latencies[k])")
      }
    }
  }

  @Test("drawn latencies (uniform, lognormal, recorded, one per leg) on random legs", arguments: [2, 3, 7, 100, 1 << 16])
  func drawn(chunkPoints: Int) throws {
    let legs = Self.withBothClocks(randomLegs(21, count: 4000), seed: 5)
    let runs = Self.drawnRuns()
    let options = AlignmentOptions(maxStale: 4_000_000)
    try Self.compare(legs, runs, options: options, chunkPoints: chunkPoints, legRows: chunkPoints % 7 + 1)
    guard chunkPoints == 2 else { return }
    // The fill rows against a computation of their own, and the draws matter: they fill elsewhere than latency 0.
    let aligned = try AlignedLegs(legs: legs, options: options)
    var moved = 0
    for p in runs {
      let pass = ConvergenceBacktest(parameters: p).decide(legs: legs, aligned: aligned)
      Self.expectEntryRows(pass, legs: legs, p)
      var fixed = p
      fixed.latencyModels = nil
      fixed.latency = 0
      let undelayed = ConvergenceBacktest(parameters: fixed).decide(legs: legs, aligned: aligned)
      moved += zip(pass.trades, undelayed.trades).filter { $0.richEntryRow != $1.richEntryRow || $0.cheapEntryRow != $1.cheapEntryRow }.count
    }
    #expect(moved > runs.count)
  }

  @Test("drawn latencies with a fixed direction (mode carry's), one thread", arguments: [2, 7, 4_000])
  func drawnFixedDirection(chunkPoints: Int) throws {
    let legs = Self.withBothClocks(randomLegs(8, count: 3000), seed: 9)
    try Self.compare(legs, Self.drawnRuns(sellLeg: 1), options: AlignmentOptions(), chunkPoints: chunkPoints, legRows: 5, jobs: 1, sellLeg: 1)
  }

  @Test("the real demo pair at drawn latencies, chunks inside its trades")
  func drawnRealPair() throws {
    let legs = try FirstPassageTests.realPairLegs()
    let models: [[Latency]] = [
      [.uniform(low: 0, high: 180_000_000), .uniform(low: 0, high: 180_000_000)], [.lognormal(median: 60_000_000, sigma: 1), .fixed(0)],
      [.uniform(low: 30_000_000, high: 90_000_000), .lognormal(median: 120_000_000, sigma: 0.5)],
    ]
    let runs = FirstPassageTests.realPairRuns.enumerated().map { k, p in
      var p = p
      p.latencyModels = models[k % models.count]
      p.seed = UInt64(k % 2)
      return p
    }
    for chunkPoints in [2, 3, 7, 100, 1 << 16] {
      try Self.compare(legs, runs, options: AlignmentOptions(maxStale: 120_000_000), chunkPoints: chunkPoints, legRows: 100)
    }
  }

  @Test("random legs, every rule, chunk sizes from two points", arguments: [2, 3, 17, 256, 5_000, 1 << 16])
  func random(chunkPoints: Int) throws {
    var legs = randomLegs(21, count: 4000)
    var rng = SplitMix64(seed: 3)
    legs[0].bidSize = legs[0].time.map { _ in rng.uniform() < 0.05 ? 0 : 1 }
    legs[0].askSize = legs[0].time.map { _ in 2 }
    legs[1].bidSize = legs[1].time.map { _ in 3 }
    legs[1].askSize = legs[1].time.map { _ in rng.uniform() < 0.05 ? 0 : 4 }
    try Self.compare(legs, Self.runs(), options: AlignmentOptions(maxStale: 4_000_000), chunkPoints: chunkPoints, legRows: chunkPoints % 7 + 1)
  }

  @Test("a fixed direction (mode carry's) and no staleness limit", arguments: [2, 31, 4_000])
  func fixedDirection(chunkPoints: Int) throws {
    let legs = randomLegs(8, count: 3000)
    let runs = Self.runs(sellLeg: 1).map { p -> ConvergenceParameters in
      var p = p
      p.maxStale = nil
      return p
    }
    try Self.compare(legs, runs, options: AlignmentOptions(), chunkPoints: chunkPoints, legRows: 5, jobs: 1, sellLeg: 1)
  }

  @Test("a grid clock", arguments: [2, 97])
  func grid(chunkPoints: Int) throws {
    let legs = randomLegs(5, count: 3000)
    try Self.compare(legs, Self.runs(), options: AlignmentOptions(maxStale: 4_000_000, grid: 700_000), chunkPoints: chunkPoints, legRows: 64)
  }

  @Test("the real demo pair, chunks inside its trades")
  func realPair() throws {
    let legs = try FirstPassageTests.realPairLegs()
    for chunkPoints in [2, 50, 1_000] {
      try Self.compare(legs, FirstPassageTests.realPairRuns, options: AlignmentOptions(maxStale: 120_000_000), chunkPoints: chunkPoints, legRows: 100)
    }
  }

  @Test("legs without a valid point decide nothing")
  func noValidPoint() throws {
    let legs = [
      QuoteSeries(instrument: Instrument(venue: "a", market: .spot, symbol: "X"), priceSource: .book, time: [0, 10_000_000], bid: [1, 1], ask: [1.1, 1.1]),
      QuoteSeries(
        instrument: Instrument(venue: "b", market: .spot, symbol: "X"), priceSource: .book, time: [5_000_000, 6_000_000], bid: [1, 1], ask: [1.1, 1.1]),
    ]
    let options = AlignmentOptions(maxStale: 1)
    let run = ConvergenceParameters(entry: 0.1, exit: 0, notional: 1, fees: [0, 0])
    let streamed = try ConvergenceBacktest.decide([ConvergenceBacktest(parameters: run)], open: { k, _ in SeriesQuoteStream(legs[k]) }, options: options)
    let pass = ConvergenceBacktest(parameters: run).decide(legs: legs, aligned: try AlignedLegs(legs: legs, options: options))
    #expect(streamed.validPoints == 0 && streamed.runs[0].trades.isEmpty && pass.trades.isEmpty)
    #expect(streamed.runs[0].firstTime == nil && pass.firstTime == nil)
  }
}
