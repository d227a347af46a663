import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// A streamed inventory run steps through exactly the valid points of the whole-leg
// pass, carrying its balances, its rebalance under way and its counts from one chunk to
// the next: chunks down to two points put boundaries between a missed opportunity and
// the rebalance it starts, and every figure is the same bytes.

@Suite("Streamed inventory runs equal the whole-leg pass")
struct StreamedInventoryTests {
  /// `runs` on `legs`, streamed in chunks of `chunkPoints` (and leg chunks of `legRows`)
  /// on `jobs` threads, each compared field by field with its own pass; the number of
  /// rebalances that end after the point that started them.
  @discardableResult
  static func compare(
    _ legs: [QuoteSeries], _ runs: [InventoryParameters], options: AlignmentOptions, chunkPoints: Int, legRows: Int, jobs: Int = 2
  ) throws -> Int {
    let aligned = try AlignedLegs(legs: legs, options: options)
    let streamed = try InventoryArbitrage.run(
      runs.map(InventoryArbitrage.init), open: { k, _ in SeriesQuoteStream(legs[k]) }, options: options, chunkPoints: chunkPoints,
      legChunkRows: legRows, jobs: jobs)
    #expect(streamed.clockPoints == aligned.count && streamed.validPoints == aligned.validPoints)
    #expect(streamed.legTimes.map { $0?.lowerBound } == legs.map { $0.time.first })
    #expect(streamed.legTimes.map { $0?.upperBound } == legs.map { $0.time.last })
    var (traded, rebalanced) = (0, 0)
    for (k, p) in runs.enumerated() {
      let pass = InventoryArbitrage(parameters: p).run(legs: legs, aligned: aligned)
      let run = streamed.runs[k]
      traded += pass.trades.count
      rebalanced += pass.rebalances.filter { $0.end > $0.start }.count
      #expect(run.trades == pass.trades, "run \(k), chunk \(chunkPoints)")
      #expect(run.rebalances == pass.rebalances, "run \(k), chunk \(chunkPoints)")
      #expect(run.path == pass.path, "run \(k), chunk \(chunkPoints)")
      #expect(run.skipped.map(\.reason) == pass.skipped.map(\.reason) && run.skipped.map(\.count) == pass.skipped.map(\.count), "run \(k)")
      #expect(run.firstTime == pass.firstTime && run.lastTime == pass.lastTime && run.notional == pass.notional)
      #expect(run.pnl.bitPattern == pass.pnl.bitPattern)
    }
    #expect(traded > runs.count, "the runs trade")
    return rebalanced
  }

  /// Runs with every rule the streamed engine takes: latencies per leg, staleness, small
  /// balances that run out, rebalances with and without delay, the book-size cap and a
  /// minimum size.
  static func runs() -> [InventoryParameters] {
    (0..<8).map { k in
      var p = InventoryParameters(
        entry: [0.05, 0.1, 0.2, 0.15][k % 4], notional: 1000, fees: [0.001, 0.0015], base: [8, 12], quote: [900 + 100 * Double(k), 1500])
      p.latency = k % 2 == 0 ? 1_000_000 : 0
      p.legLatency = k == 3 ? [2_000_000, 0] : nil
      p.maxStale = k % 3 == 1 ? 3_000_000 : 4_000_000
      p.slippageBps = k == 5 ? 2 : 0
      p.rebalance =
        k == 6
        ? nil
        : .init(
          cost: 2, delay: [0, .fixed(5_000_000), .uniform(low: 1_000_000, high: 60_000_000), .lognormal(median: 30_000_000, sigma: 1)][k % 4],
          baseFees: [0.001, 0.002], quoteFees: [1, 0.5])
      p.capAtBook = k == 1 || k == 7
      p.minSize = k == 7 ? 1.5 : 0
      return p
    }
  }

  @Test("random legs, every rule, chunk sizes from two points", arguments: [2, 3, 7, 100, 5_000, 1 << 16])
  func random(chunkPoints: Int) throws {
    var legs = randomLegs(21, count: 4000)
    var rng = SplitMix64(seed: 3)
    legs[0].bidSize = legs[0].time.map { _ in rng.uniform() < 0.05 ? 0 : 1 + 3 * rng.uniform() }
    legs[0].askSize = legs[0].time.map { _ in 2 }
    legs[1].bidSize = legs[1].time.map { _ in 3 }
    legs[1].askSize = legs[1].time.map { _ in rng.uniform() < 0.05 ? 0 : 1 + 3 * rng.uniform() }
    let rebalanced = try Self.compare(
      legs, Self.runs(), options: AlignmentOptions(maxStale: 4_000_000), chunkPoints: chunkPoints, legRows: chunkPoints % 7 + 1)
    #expect(rebalanced > 10, "rebalances start at one point and end at a later one")
  }

  @Test("drawn latencies (uniform, lognormal, recorded, one per leg) on random legs", arguments: [2, 3, 7, 100, 1 << 16])
  func drawn(chunkPoints: Int) throws {
    let legs = StreamedConvergenceTests.withBothClocks(randomLegs(21, count: 4000), seed: 5)
    let runs = Self.runs().enumerated().flatMap { k, p in
      [7, 1000 + UInt64(k)].map { seed in
        var p = p
        p.latencyModels = StreamedConvergenceTests.drawnLatencies[k % StreamedConvergenceTests.drawnLatencies.count]
        p.seed = seed
        return p
      }
    }
    let options = AlignmentOptions(maxStale: 4_000_000)
    try Self.compare(legs, runs, options: options, chunkPoints: chunkPoints, legRows: chunkPoints % 7 + 1, jobs: chunkPoints % 2 + 1)
    guard chunkPoints == 2 else { return }
    // The draws matter: the runs trade otherwise than at latency 0.
    let aligned = try AlignedLegs(legs: legs, options: options)
    let changed = runs.filter { p in
      var fixed = p
      fixed.latencyModels = nil
      fixed.latency = 0
      return InventoryArbitrage(parameters: p).run(legs: legs, aligned: aligned).trades
        != InventoryArbitrage(parameters: fixed).run(legs: legs, aligned: aligned).trades
    }
    #expect(changed.count > runs.count / 2)
  }

  @Test("the real demo pair at drawn latencies")
  func drawnRealPair() throws {
    let legs = try FirstPassageTests.realPairLegs()
    let runs = [Latency.uniform(low: 0, high: 180_000_000), .lognormal(median: 60_000_000, sigma: 1.2)].flatMap { latency in
      [0.2, 0.4].map { entry in
        var p = InventoryParameters(entry: entry, notional: 5000, fees: [0.001, 0.0026], base: [0.5, 0.5], quote: [12_000, 12_000])
        p.latencyModels = [latency, .uniform(low: 10_000_000, high: 70_000_000)]
        p.seed = 11
        p.maxStale = 120_000_000
        p.rebalance = .init(cost: 25, delay: .fixed(3_600_000_000), baseFees: [0.0002, 0.00015], quoteFees: [1, 2])
        return p
      }
    }
    for chunkPoints in [2, 3, 7, 100, 1 << 16] {
      try Self.compare(legs, runs, options: AlignmentOptions(maxStale: 120_000_000), chunkPoints: chunkPoints, legRows: 100)
    }
  }

  @Test("no staleness limit, one thread, a grid clock", arguments: [2, 31, 4_000])
  func grid(chunkPoints: Int) throws {
    let legs = randomLegs(5, count: 3000)
    try Self.compare(legs, Self.runs(), options: AlignmentOptions(), chunkPoints: chunkPoints, legRows: 5, jobs: 1)
    try Self.compare(legs, Self.runs(), options: AlignmentOptions(maxStale: 4_000_000, grid: 700_000), chunkPoints: chunkPoints, legRows: 64)
  }

  @Test("the real demo pair, chunks between a missed opportunity and its rebalance")
  func realPair() throws {
    let legs = try FirstPassageTests.realPairLegs()
    let runs = [(0.2, 3_600_000_000 as Int64), (0.4, 600_000_000), (0.1, 7_200_000_000)].map { entry, delay in
      var p = InventoryParameters(entry: entry, notional: 5000, fees: [0.001, 0.0026], base: [0.5, 0.5], quote: [12_000, 12_000])
      p.latency = 60_000_000
      p.maxStale = 120_000_000
      p.rebalance = .init(cost: 25, delay: .fixed(delay), baseFees: [0.0002, 0.00015], quoteFees: [1, 2])
      return p
    }
    for chunkPoints in [2, 3, 7, 100, 1_000] {
      let rebalanced = try Self.compare(legs, runs, options: AlignmentOptions(maxStale: 120_000_000), chunkPoints: chunkPoints, legRows: 100)
      #expect(rebalanced > 0)
    }
  }

  @Test("legs without a valid point run nothing, as on whole legs")
  func noValidPoint() throws {
    let legs = [
      QuoteSeries(instrument: Instrument(venue: "a", market: .spot, symbol: "X"), priceSource: .book, time: [0, 10_000_000], bid: [1, 1], ask: [1.1, 1.1]),
      QuoteSeries(
        instrument: Instrument(venue: "b", market: .spot, symbol: "X"), priceSource: .book, time: [5_000_000, 6_000_000], bid: [1, 1], ask: [1.1, 1.1]),
    ]
    let options = AlignmentOptions(maxStale: 1)
    let p = InventoryParameters(entry: 0.1, notional: 1, fees: [0, 0], base: [1, 1], quote: [1, 1])
    let streamed = try InventoryArbitrage.run([InventoryArbitrage(parameters: p)], open: { k, _ in SeriesQuoteStream(legs[k]) }, options: options)
    let pass = InventoryArbitrage(parameters: p).run(legs: legs, aligned: try AlignedLegs(legs: legs, options: options))
    #expect(streamed.validPoints == 0 && streamed.runs[0].trades.isEmpty && pass.trades.isEmpty)
    #expect(streamed.runs[0].path == pass.path && streamed.runs[0].firstTime == nil && pass.firstTime == nil)
  }
}
