import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// The as-of join (`AlignedLegs`) on hand-worked legs and against the linear-search oracle.
@Suite("Alignment")
struct AlignmentTests {
  // A quotes at 10 20 40, B at 15 20 30 50. Everyone has quoted at 15, so the union
  // clock is 15 20 30 40 50. As-of index of A: 0 1 1 2 2 (ages 5 0 10 0 10); of B:
  // 0 1 2 2 3 (ages 0 0 0 10 0). Durations to the next point: 5 10 10 10, then 0.
  static let a = QuoteSeries.leg("a", [10, 20, 40], bid: [99, 100, 101], ask: [100, 101, 102])
  static let b = QuoteSeries.leg("b", [15, 20, 30, 50], bid: [98, 99, 100, 101], ask: [99, 100, 101, 102])

  static let staleCases: [(maxStale: Int64?, valid: [Bool])] = [
    (nil, [true, true, true, true, true]),
    (10, [true, true, true, true, true]),  // age == max_stale is still valid
    (9, [true, true, false, false, false]),  // the three ages of 10 are one too old
    (5, [true, true, false, false, false]),
    (4, [false, true, false, false, false]),  // A is 5 old at 15
    (0, [false, true, false, false, false]),
  ]

  @Test("union clock, states, durations and max-stale", arguments: staleCases)
  func unionClock(c: (maxStale: Int64?, valid: [Bool])) throws {
    let aligned = try AlignedLegs(legs: [Self.a, Self.b], options: AlignmentOptions(maxStale: c.maxStale))
    #expect(aligned.time == [15, 20, 30, 40, 50])
    #expect(aligned.duration == [5, 10, 10, 10, 0])
    #expect(aligned.perLeg == [[0, 1, 1, 2, 2], [0, 1, 2, 2, 3]])
    #expect(aligned.valid == c.valid)
    #expect(aligned.validPoints == c.valid.filter { $0 }.count)
    #expect(aligned.stalePoints == c.valid.filter { !$0 }.count)
    #expect(aligned.count == 5)
  }

  static let gridCases: [(step: Int64, maxStale: Int64?, time: [Int64], state: [[Int32]], valid: [Bool])] = [
    // t0 = ⌊15/20⌋·20 = 0, before either leg: invalid. Then 20, 40 (≤ last quote 50).
    (20, nil, [0, 20, 40], [[-1, 1, 2], [-1, 1, 2]], [false, true, true]),
    // t0 = 10: A has quoted (at 10), B not yet: invalid and counted as stale.
    (10, nil, [10, 20, 30, 40, 50], [[0, 1, 1, 2, 2], [-1, 1, 2, 2, 3]], [false, true, true, true, true]),
    // Ages on that grid as above; max-stale 9 drops 30 (A 10), 40 (B 10), 50 (A 10).
    (10, 9, [10, 20, 30, 40, 50], [[0, 1, 1, 2, 2], [-1, 1, 2, 2, 3]], [false, true, false, false, false]),
    // t0 = 15 itself when on the grid; 15 35 up to 50.
    (5, nil, [15, 20, 25, 30, 35, 40, 45, 50], [[0, 1, 1, 1, 1, 2, 2, 2], [0, 1, 1, 2, 2, 2, 2, 3]], [Bool](repeating: true, count: 8)),
  ]

  @Test("fixed grid", arguments: gridCases)
  func grid(c: (step: Int64, maxStale: Int64?, time: [Int64], state: [[Int32]], valid: [Bool])) throws {
    let aligned = try AlignedLegs(legs: [Self.a, Self.b], options: AlignmentOptions(maxStale: c.maxStale, grid: c.step))
    #expect(aligned.time == c.time)
    #expect(aligned.perLeg == c.state)
    #expect(aligned.valid == c.valid)
    #expect(aligned.duration == c.time.indices.map { $0 + 1 < c.time.count ? c.step : 0 })
    #expect(aligned.stalePoints == c.valid.filter { !$0 }.count)
  }

  @Test("grid before 1970 floors downwards")
  func negativeGrid() throws {
    // Start −12 floors to −20 (not −10); points −20 −10 0 (0 ≤ last quote 7).
    let x = QuoteSeries.leg("x", [-15, 5], price: [1, 2]), y = QuoteSeries.leg("y", [-12, 7], price: [1, 2])
    let aligned = try AlignedLegs(legs: [x, y], options: AlignmentOptions(grid: 10))
    #expect(aligned.time == [-20, -10, 0])
    #expect(aligned.perLeg == [[-1, 0, 0], [-1, 0, 0]])
    #expect(aligned.valid == [false, true, true])
  }

  static let badPrices: [(name: String, price: Double, onBid: Bool)] = [
    ("NaN ask (one-sided quote)", .nan, false), ("NaN bid", .nan, true), ("zero bid", 0, true),
    ("negative ask", -1, false), ("infinite ask", .infinity, false), ("infinite bid", .infinity, true),
  ]

  @Test("a missing, zero, negative or non-finite side makes its points invalid", arguments: badPrices)
  func badPrice(c: (name: String, price: Double, onBid: Bool)) throws {
    var a = Self.a
    if c.onBid { a.bid[1] = c.price } else { a.ask[1] = c.price }
    // A's quote 1 (t = 20) is the as-of state at 20 and 30.
    let aligned = try AlignedLegs(legs: [a, Self.b])
    #expect(aligned.valid == [true, false, false, true, true])
    #expect(aligned.stalePoints == 2)
    let analysis = PremiumAnalysis(premium: PremiumSeries(aligned: aligned, legs: [a, Self.b]))
    #expect(analysis.mid.statistics.count == 3 && analysis.exec.statistics.count == 3)
    #expect(analysis.everyFigure.allSatisfy { $0.value.map(\.isFinite) ?? true })
  }

  static let errorCases: [(name: String, legs: [QuoteSeries], error: AlignmentError)] = [
    ("no legs", [], .tooFewLegs(count: 0)),
    ("one leg", [a], .tooFewLegs(count: 1)),
    ("an empty leg", [a, .leg("empty", [], price: [])], .emptyLeg(instrument: "empty:spot:BTCUSD")),
    ("A ends before B starts", [.leg("x", [1, 2], price: [1, 1]), .leg("y", [5, 6], price: [1, 1])], .noOverlap(lastEnd: 2, firstStart: 5)),
    ("third leg after both", [a, b, .leg("z", [60], price: [1])], .noOverlap(lastEnd: 40, firstStart: 60)),
  ]

  @Test("legs that cannot be aligned", arguments: errorCases)
  func errors(c: (name: String, legs: [QuoteSeries], error: AlignmentError)) {
    let error = #expect(throws: AlignmentError.self) { try AlignedLegs(legs: c.legs) }
    #expect(error == c.error)
    #expect(Oracle.align(c.legs) == nil)
  }

  @Test("legs touching at one instant, a single quote, one and two points")
  func smallClocks() throws {
    // A ends at 5, B starts at 5: one common instant, then B's 6.
    let touching = try AlignedLegs(legs: [.leg("x", [1, 5], price: [1, 2]), .leg("y", [5, 6], price: [1, 1])])
    #expect(touching.time == [5, 6] && touching.duration == [1, 0] && touching.perLeg == [[1, 1], [0, 1]])
    // One point: duration 0.
    let one = try AlignedLegs(legs: [.leg("x", [7], price: [1]), .leg("y", [7], price: [2])])
    #expect(one.time == [7] && one.duration == [0] && one.valid == [true] && one.perLeg == [[0], [0]])
    // A single quote at 10 against B at 5 10 20 30: ages of A 0 10 20.
    let single = try AlignedLegs(
      legs: [.leg("x", [10], price: [1]), .leg("y", [5, 10, 20, 30], price: [1, 1, 1, 1])],
      options: AlignmentOptions(maxStale: 15))
    #expect(single.time == [10, 20, 30] && single.perLeg == [[0, 0, 0], [1, 2, 3]])
    #expect(single.valid == [true, true, false])
  }

  @Test("every point stale: count 0, every figure nil, nothing NaN")
  func allStale() throws {
    // Start 50; A is 50 old at 50 and 150, B at 100.
    let x = QuoteSeries.leg("x", [0, 100], bid: [99, 100], ask: [100, 101])
    let y = QuoteSeries.leg("y", [50, 150], bid: [99, 100], ask: [100, 101])
    let aligned = try AlignedLegs(legs: [x, y], options: AlignmentOptions(maxStale: 10))
    #expect(aligned.validPoints == 0 && aligned.stalePoints == 3)
    let premium = PremiumSeries(aligned: aligned, legs: [x, y])
    #expect(premium.validPoints == 0)
    let analysis = PremiumAnalysis(premium: premium)
    for summary in [analysis.mid, analysis.exec] {
      #expect(summary.statistics.count == 0 && summary.statistics.quantiles.isEmpty)
      #expect(summary.halfLife == nil)
      #expect(summary.bands.count == 2 && summary.bands.allSatisfy { $0.episodes == 0 })
    }
    #expect(analysis.topShare.isEmpty && analysis.bottomShare.isEmpty)
    let figures = analysis.everyFigure
    #expect(figures.count > 30)
    #expect(figures.allSatisfy { $0.value == nil }, "\(figures.filter { $0.value != nil }.map(\.name))")
  }

  static let randomCases: [(legs: Int, maxStale: Int64?, grid: Int64?)] = [
    (2, nil, nil), (2, 40, nil), (3, 25, nil), (4, 60, nil), (2, nil, 7), (3, 30, 10), (4, 15, 3), (2, 0, nil), (2, 3, nil),
  ]

  @Test("random legs against linear search", arguments: randomCases)
  func random(c: (legs: Int, maxStale: Int64?, grid: Int64?)) throws {
    var rng = SplitMix64(seed: UInt64(c.legs * 1000) + UInt64(c.maxStale ?? 7) + UInt64(c.grid ?? 3))
    for round in 0..<10 {
      var legs = (0..<c.legs).map { k in
        rng.leg("v\(k)", count: rng.int(1...120), start: Int64(rng.int(-50...50)), maxGap: rng.int(1...40))
      }
      // Some one-sided quotes.
      for k in legs.indices where rng.uniform() < 0.5 {
        let j = rng.int(0...(legs[k].count - 1))
        legs[k].bid[j] = .nan
      }
      guard let expected = Oracle.align(legs, maxStale: c.maxStale, grid: c.grid) else {
        #expect(throws: AlignmentError.self) { try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: c.maxStale, grid: c.grid)) }
        continue
      }
      let got = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: c.maxStale, grid: c.grid))
      #expect(got.time == expected.time, "round \(round)")
      #expect(got.duration == expected.duration, "round \(round)")
      #expect(got.valid == expected.valid, "round \(round)")
      #expect(got.perLeg.map { $0.map(Int.init) } == expected.state, "round \(round)")
      #expect(got.validPoints == expected.validPoints)
    }
  }
}
