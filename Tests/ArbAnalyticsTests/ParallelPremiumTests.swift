import ArbCore
import Testing
import TestSupport
@testable import ArbAnalytics

/// A long union clock is walked as two halves on two threads. Each half must start
/// from the legs' quotes in force at its first time, and the joined columns must be
/// exactly those of the one-thread walk (through `AlignedLegs`).
@Suite("Premium series walked in two halves")
struct ParallelPremiumTests {
  static func expectSame(_ a: PremiumSeries, _ b: PremiumSeries, _ comment: Comment? = nil) {
    #expect(a.time == b.time, comment)
    #expect(a.valid == b.valid, comment)
    #expect(a.validPoints == b.validPoints, comment)
    #expect(zip(a.mid, b.mid).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }, comment)
    #expect(zip(a.exec, b.exec).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }, comment)
    #expect(a.rich == b.rich && a.cheap == b.cheap && a.top == b.top && a.bottom == b.bottom, comment)
  }

  static let cases: [(legs: Int, maxGap: Int, maxStale: Int64?)] = [
    (2, 3, nil), (2, 1, 2), (3, 5, 4), (4, 2, nil), (3, 40, 10),
  ]

  @Test("random legs: halves equal one walk", arguments: cases)
  func randomLegs(c: (legs: Int, maxGap: Int, maxStale: Int64?)) throws {
    var rng = SplitMix64(seed: UInt64(c.legs * 100 + c.maxGap))
    for round in 0..<10 {
      // Small gaps make many legs quote at the same times (coinciding clock points).
      let legs = (0..<c.legs).map { k in
        rng.leg("v\(k)", count: rng.int(50...400), start: Int64(rng.int(0...20)), maxGap: c.maxGap)
      }
      let options = AlignmentOptions(maxStale: c.maxStale)
      let halves = try PremiumSeries(legs: legs, options: options, splitAbove: 1)
      let oneWalk = PremiumSeries(aligned: try AlignedLegs(legs: legs, options: options), legs: legs)
      Self.expectSame(halves, oneWalk, "round \(round)")
    }
  }

  @Test func `below the threshold the series is walked once, with the same result`() throws {
    var rng = SplitMix64(seed: 9)
    let legs = (0..<3).map { k in rng.leg("v\(k)", count: 300, start: 0, maxGap: 3) }
    let options = AlignmentOptions(maxStale: 5)
    Self.expectSame(
      try PremiumSeries(legs: legs, options: options, splitAbove: 1),
      try PremiumSeries(legs: legs, options: options, splitAbove: .max))
  }

  @Test func `a grid is never split`() throws {
    var rng = SplitMix64(seed: 10)
    let legs = (0..<2).map { k in rng.leg("v\(k)", count: 300, start: Int64(k * 7), maxGap: 4) }
    let options = AlignmentOptions(grid: 3)
    Self.expectSame(
      try PremiumSeries(legs: legs, options: options, splitAbove: 1),
      PremiumSeries(aligned: try AlignedLegs(legs: legs, options: options), legs: legs))
  }
}
