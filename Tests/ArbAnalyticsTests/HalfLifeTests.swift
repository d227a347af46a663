import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// AR(1) half-life: `Δx_t = α + β x_{t−1} + ε`, `half_life = −ln 2 / ln(1 + β)`.
@Suite("Half-life")
struct HalfLifeTests {
  @Test("hand-worked OLS on four points")
  func handWorked() throws {
    // x = 1, 0.5, 0.5, 0.1: lagged 1 0.5 0.5 (mean 2/3, centred 1/3 −1/6 −1/6, Σc² = 1/6),
    // Δ = −0.5 0 −0.4: Σ c Δ = −1/6 + 1/15 = −1/10, β = −0.1 / (1/6) = −0.6.
    // half-life = −ln 2 / ln 0.4 = 0.7564707973660301 points. Durations 2 1 3 0 s:
    // median (1 + 2)/2 = 1.5 s → 1.1347061960490452 s.
    let h = try #require(HalfLife(values: [1, 0.5, 0.5, 0.1], durations: [2e6, 1e6, 3e6, 0]))
    #expect(isClose(h.beta, -0.6, rel: 1e-14))
    #expect(isClose(h.points, 0.7564707973660301, rel: 1e-14))
    #expect(isClose(h.seconds, 0.7564707973660301 * 1.5, rel: 1e-14))
  }

  @Test("AR(1) with φ = 0.9 recovers −ln 2 / ln 0.9 ≈ 6.58 points", .tags(.slow))
  func ar1() throws {
    var rng = SplitMix64(seed: 9)
    var x = [Double](repeating: 0, count: 200_000)
    for t in 1..<x.count { x[t] = 0.9 * x[t - 1] + 0.01 * rng.normal() }
    // Offset by a constant: α absorbs it, β must not change.
    let shifted = x.map { $0 + 0.3 }
    let durations = x.indices.map { Double($0 % 3 + 1) * 1e6 }  // 1 2 3 s … median 2 s
    let h = try #require(HalfLife(values: shifted, durations: durations))
    let truth = -log(2.0) / log(0.9)  // 6.578813478960585
    #expect(abs(h.points / truth - 1) < 0.02, "\(h.points)")
    #expect(isClose(h.seconds, h.points * 2, rel: 1e-15))
    let o = try #require(Oracle.halfLife(shifted, durations: durations))
    // 2e5 terms summed in a different order (BLAS blocks vs compensated): 1e-9.
    #expect(isClose(h.beta, o.beta, rel: 1e-9) && isClose(h.points, o.points, rel: 1e-9))
  }

  static let rejected: [(name: String, values: [Double])] = [
    ("empty", []),
    ("one point", [1]),
    ("two points", [1, 2]),
    ("constant", [0.25, 0.25, 0.25, 0.25, 0.25]),
    ("constant regressor", [0.1, 0.1, 0.1, 0.3]),  // lagged 0.1 0.1 0.1
    ("linear trend (Δ constant, β = 0)", (0..<50).map { Double($0) * 0.25 }),
    ("explosive (β = 0.1)", (0..<50).map { pow(1.1, Double($0)) }),
    ("alternating (β = −2)", (0..<50).map { $0 % 2 == 0 ? 1 : -1 }),
    ("alternating around 5 (β = −2)", (0..<51).map { $0 % 2 == 0 ? 5.5 : 4.5 }),
  ]

  @Test("no half-life unless −1 < β < 0", arguments: rejected)
  func rejectedSeries(c: (name: String, values: [Double])) {
    let durations = [Double](repeating: 1e6, count: c.values.count)
    #expect(HalfLife(values: c.values, durations: durations) == nil)
    #expect(Oracle.halfLife(c.values, durations: durations) == nil)
  }

  @Test("three points: the smallest fit")
  func threePoints() throws {
    // x = 1, 0, 0.5: lagged 1 0 (mean 0.5, centred ½ −½, Σc² = ½), Δ = −1 0.5:
    // Σ c Δ = −½ − ¼ = −¾, β = −1.5 → rejected. x = 1, 0.5, 0.25: lagged 1 0.5 (mean
    // 0.75, centred ¼ −¼, Σc² = ⅛), Δ = −0.5 −0.25: Σ c Δ = −⅛ + 1/16 = −1/16, β = −0.5,
    // half-life −ln 2 / ln 0.5 = 1 point exactly.
    #expect(HalfLife(values: [1, 0, 0.5], durations: [1e6, 1e6, 0]) == nil)
    let h = try #require(HalfLife(values: [1, 0.5, 0.25], durations: [4e6, 0, 0]))
    #expect(h.beta == -0.5 && isClose(h.points, 1, rel: 1e-15))
    // Durations 4 0 0 s: median 0 → no seconds.
    #expect(h.seconds == nil)
  }

  @Test("seconds use the median point duration")
  func medianDuration() throws {
    let x: [Double] = [1, 0.5, 0.5, 0.1]
    for (durations, median) in [([1e6, 1e6, 9e9, 0], 1e6), ([5e5, 9e5, 7e5, 3e6], 8e5), ([0, 2e6, 0, 2e6], 1e6)] as [([Double], Double)] {
      let h = try #require(HalfLife(values: x, durations: durations))
      #expect(isClose(h.seconds, h.points * median / 1e6, rel: 1e-15), "\(durations)")
    }
  }

  static let seeds: [UInt64] = [1, 2, 3, 4, 5]

  @Test("random AR(1) series against the oracle", arguments: seeds)
  func random(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    let n = rng.int(3...5000)
    let phi = 0.2 + 0.75 * rng.uniform()
    var x = [rng.normal()]
    for _ in 1..<n { x.append(phi * x.last! + rng.normal() * 0.05) }
    let durations = x.map { _ in Double(rng.int(0...10)) * 1e6 }
    let h = HalfLife(values: x, durations: durations), o = Oracle.halfLife(x, durations: durations)
    #expect((h == nil) == (o == nil), "n \(n) φ \(phi)")
    if let h, let o {
      // Σ c Δ without Δ's mean vs fully centred, compensated: a few ulps of n terms.
      #expect(isClose(h.beta, o.beta, rel: 1e-10) && isClose(h.points, o.points, rel: 1e-10))
      #expect(isClose(h.seconds, o.seconds, rel: 1e-10))
    }
  }
}

extension Tag {
  @Tag static var slow: Self
}
