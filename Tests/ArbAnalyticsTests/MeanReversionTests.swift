import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// Variance ratio and rolling AR(1) half-life against hand-worked cases, slow
/// implementations and seeded processes with known behaviour.
@Suite("Mean reversion: variance ratio and rolling half-life")
struct MeanReversionTests {
  /// VR(q) by the definition, the q-period changes summed from the one-period ones.
  static func slowRatio(_ x: [Double], q: Int) -> Double {
    let r = (1..<x.count).map { x[$0] - x[$0 - 1] }
    let n = Double(r.count)
    let mu = r.reduce(0, +) / n
    let var1 = r.map { ($0 - mu) * ($0 - mu) }.reduce(0, +) / (n - 1)
    var sum = 0.0
    for end in q...r.count {
      let change = r[(end - q)..<end].reduce(0, +)
      sum += (change - Double(q) * mu) * (change - Double(q) * mu)
    }
    let m = Double(q) * (n - Double(q) + 1) * (1 - Double(q) / n)
    return sum / m / var1
  }

  static func randomWalk(_ n: Int, beta: Double, seed: UInt64) -> [Double] {
    var rng = SplitMix64(seed: seed)
    var x = [0.0]
    for _ in 1..<n { x.append(x.last! + beta * x.last! + rng.normal()) }
    return x
  }

  @Test func `variance ratio by hand`() throws {
    // r = 1, 2, −1, 2; μ = 1; σ²₁ = 6/3 = 2; two-step changes 3, 1, 1 → (1, −1, −1)
    // about 2μ, Σ = 3, m = 2·3·(1/2) = 3: σ²₂ = 1, VR = 0.5, z = −0.5 / √(6/24) = −1.
    let vr = try #require(VarianceRatio(values: [0, 1, 3, 2, 4], q: 2))
    #expect(isClose(vr.ratio, 0.5) && isClose(vr.z, -1))
    #expect(VarianceRatio(values: [0, 1, 3, 2, 4], q: 4) == nil)  // needs n > q increments
    #expect(VarianceRatio(values: [1, 2, 3, 4, 5, 6], q: 2) == nil)  // constant increments
  }

  @Test("VR equals the slow sum", arguments: [2, 3, 10, 50])
  func againstSlow(q: Int) throws {
    let x = Self.randomWalk(2_000, beta: -0.1, seed: 3).map { $0 + 1e4 }
    let vr = try #require(VarianceRatio(values: x, q: q))
    #expect(isClose(vr.ratio, Self.slowRatio(x, q: q), rel: 1e-9))
  }

  /// n = 200 000 increments, q = 10: under i.i.d. increments the asymptotic std of VR is
  /// √(2·19·9 / (3·10·n)) = 0.0075, so a random walk lands within 5σ = 0.038 of 1 (and
  /// |z| < 5). An AR(1) Δx = −0.5 x + ε has VR(q) → (1 − 0.5^q) / (q (1 − 0.5)) = 0.1998
  /// for q = 10; its sampling error is below the i.i.d. one, so the same 0.038 holds.
  @Test("a random walk gives VR ≈ 1, AR(1) with β = −0.5 gives VR(10) ≈ 0.2", .tags(.slow))
  func processes() throws {
    let walk = try #require(VarianceRatio(values: Self.randomWalk(200_001, beta: 0, seed: 17), q: 10))
    #expect(abs(walk.ratio - 1) < 0.038 && abs(walk.z) < 5)
    let ar = try #require(VarianceRatio(values: Self.randomWalk(200_001, beta: -0.5, seed: 17), q: 10))
    #expect(abs(ar.ratio - (1 - pow(0.5, 10)) / 5) < 0.038)
    #expect(ar.z < -50)
  }

  /// Plain least squares of Δx on the lagged x for the points lo…i.
  static func slowBeta(_ x: [Double], from lo: Int, to i: Int) -> Double? {
    let pairs = (lo..<i).map { (x[$0], x[$0 + 1] - x[$0]) }
    guard pairs.count >= 2 else { return nil }
    let mx = pairs.map(\.0).reduce(0, +) / Double(pairs.count)
    let my = pairs.map(\.1).reduce(0, +) / Double(pairs.count)
    let sxx = pairs.reduce(0) { $0 + ($1.0 - mx) * ($1.0 - mx) }
    let sxy = pairs.reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
    return sxx > 0 ? sxy / sxx : nil
  }

  @Test("rolling half-life equals a per-window least squares", arguments: [RollingWindow.points(3), .points(40), .time(30_000_000)])
  func rollingHalfLife(window: RollingWindow) {
    let x = Self.randomWalk(1_500, beta: -0.2, seed: 9).enumerated().map { $0 % 200 < 10 ? 1.5 : $1 + 50 }
    var t: [Int64] = [0]
    for k in 1..<x.count { t.append(t.last! + (k % 300 == 0 ? 90_000_000 : 1_000_000 + Int64(k % 7) * 100_000)) }
    let rolling = RollingHalfLife(values: x, time: t, window: window)
    for i in x.indices {
      let lo: Int
      switch window {
      case .points(let n): lo = max(0, i - n + 1)
      case .time(let span): lo = (0...i).first { t[i] - span < t[$0] }!
      }
      // A constant regressor has no slope (the definition), whatever rounding says.
      let constant = i > lo && Set(x[lo..<i]).count == 1
      let expected = constant ? nil : Self.slowBeta(x, from: lo, to: i)
      guard let expected else {
        #expect(rolling.beta[i].isNaN && rolling.points[i].isNaN)
        continue
      }
      #expect(isClose(rolling.beta[i], expected, rel: 1e-7, abs: 1e-9))
      if let h = HalfLife.points(beta: expected), abs(expected) > 1e-6 {
        #expect(isClose(rolling.points[i], h, rel: 1e-6))
        #expect(isClose(rolling.seconds[i], h * Double(t[i] - t[lo]) / Double(i - lo) / 1e6, rel: 1e-6))
      }
    }
    // The whole series as one window gives HalfLife's own slope.
    let all = RollingHalfLife(values: x, time: t, window: .points(x.count))
    #expect(isClose(all.beta[x.count - 1], HalfLife.slope(x)!, rel: 1e-9))
  }
}
