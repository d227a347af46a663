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
