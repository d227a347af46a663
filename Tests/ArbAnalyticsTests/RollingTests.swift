import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// Rolling mean/std/z and EWMA against hand-worked values and direct computations.
@Suite("Rolling statistics and EWMA")
struct RollingTests {
  /// Two-pass mean and sample std of the window ending at `i`, by the definition.
  static func slow(_ x: [Double], _ t: [Int64], _ window: RollingWindow, at i: Int) -> (mean: Double, std: Double?) {
    let members: [Double]
    switch window {
    case .points(let n): members = Array(x[max(0, i - n + 1)...i])
    case .time(let span): members = (0...i).filter { t[i] - span < t[$0] }.map { x[$0] }
    }
    // Corrected mean: the plain one is off by rounding of the sum (~1e-9 at 1e6).
    let rough = members.reduce(0, +) / Double(members.count)
    let mean = rough + members.reduce(0) { $0 + ($1 - rough) } / Double(members.count)
    guard members.count >= 2 else { return (mean, nil) }
    let ss = members.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
    return (mean, (ss / Double(members.count - 1)).squareRoot())
  }

  @Test func `count window by hand`() {
    let r = RollingStatistics(values: [1, 2, 4, 7], time: [0, 1, 2, 3], window: .points(3))
    #expect(r.mean[0] == 1 && r.std[0].isNaN && r.z[0].isNaN)
    #expect(isClose(r.mean[1], 1.5) && isClose(r.std[1], 0.5.squareRoot()) && isClose(r.z[1], 0.5 / 0.5.squareRoot()))
    #expect(isClose(r.mean[2], 7.0 / 3) && isClose(r.std[2], (7.0 / 3).squareRoot()))
    #expect(isClose(r.z[2], (4 - 7.0 / 3) / (7.0 / 3).squareRoot()))
    #expect(isClose(r.mean[3], 13.0 / 3) && isClose(r.std[3], (19.0 / 3).squareRoot()))
  }

  @Test func `time window holds t − T < t_i ≤ t`() {
    // T = 10: at t = 20 the point at 10 is out (10 ≤ 20 − 10), the one at 11 is in.
    let r = RollingStatistics(values: [5, 1, 3, 8], time: [0, 10, 11, 20], window: .time(10))
    #expect(r.mean[1] == 1 && r.std[1].isNaN)  // the point at 0 left at t = 10
    #expect(isClose(r.mean[2], 2) && isClose(r.std[2], 2.0.squareRoot()))
    #expect(isClose(r.mean[3], 5.5) && isClose(r.std[3], 12.5.squareRoot()))
  }

  @Test func `constant window: std exactly 0 and no z`() {
    let r = RollingStatistics(values: [0.3, 0.1, 0.1, 0.1, 0.2], time: [0, 1, 2, 3, 4], window: .points(3))
    #expect(r.mean[3] == 0.1 && r.std[3] == 0 && r.z[3].isNaN)
    #expect(r.std[4] > 0 && r.z[4].isFinite)
  }

  @Test("every point equals the direct computation", arguments: [RollingWindow.points(1), .points(2), .points(17), .time(5_000), .time(60_000)])
  func againstSlow(window: RollingWindow) {
    var rng = SplitMix64(seed: 7)
    var t: [Int64] = [], x: [Double] = []
    var now: Int64 = 0, level = 0.0
    for k in 0..<3000 {
      now += Int64(1 + rng.uniform() * 2_000) + (k % 500 == 0 ? 100_000 : 0)  // gaps wider than a window
      level += rng.normal() * 0.01
      x.append(k % 300 < 20 ? 0.25 : level)  // constant runs
      t.append(now)
    }
    let r = RollingStatistics(values: x, time: t, window: window)
    for i in x.indices {
      let (mean, std) = Self.slow(x, t, window, at: i)
      #expect(isClose(r.mean[i], mean, rel: 1e-10, abs: 1e-13))
      if let std {
        #expect(isClose(r.std[i], std, rel: 1e-7, abs: 1e-12))
        if std > 1e-12 { #expect(isClose(r.z[i], (x[i] - mean) / std, rel: 1e-6, abs: 1e-9)) } else { #expect(r.z[i].isNaN) }
      } else {
        #expect(r.std[i].isNaN && r.z[i].isNaN)
      }
    }
  }

  /// Running sums `Σx`, `Σx²` updated by adding and subtracting: the textbook rolling
  /// variance that cancels on large offsets.
  static func naiveStd(_ x: [Double], window n: Int) -> [Double] {
    var s = 0.0, s2 = 0.0
    var out = [Double](repeating: .nan, count: x.count)
    for i in x.indices {
      s += x[i]
      s2 += x[i] * x[i]
      if i >= n {
        s -= x[i - n]
        s2 -= x[i - n] * x[i - n]
      }
      let m = Double(min(i + 1, n))
      if m >= 2 { out[i] = (max(s2 - s * s / m, 0) / (m - 1)).squareRoot() }
    }
    return out
  }

  /// 10 M points of 1e6 + noise of std 1e-3: a two-pass std of any window is accurate to
  /// ~1e-16 × 1e6 / 1e-3 ≈ 1e-7 relative at worst, while Σx² ≈ 3e14 in a window of 300
  /// has an ulp of 0.06, 2 × 10⁵ times the window's Σ(x − x̄)² ≈ 3e-4: the naive sums
  /// lose every digit, the windowed Welford update keeps them.
  @Test("10 M points with a large offset: stable where running sums fail", .tags(.slow))
  func largeOffset() {
    let n = 10_000_000, w = 300
    var rng = SplitMix64(seed: 11)
    let x = (0..<n).map { _ in 1e6 + 1e-3 * rng.normal() }
    let t = (0..<n).map { Int64($0) * 1_000 }
    let rolling = RollingStatistics(values: x, time: t, window: .points(w))
    let timed = RollingStatistics(values: x, time: t, window: .time(Int64(w) * 1_000))
    let naive = Self.naiveStd(x, window: w)
    var worst = 0.0, worstTimed = 0.0, worstNaive = 0.0, worstZ = 0.0
    for i in stride(from: w, to: n, by: 9_973) + [n - 1] {
      let (mean, std) = Self.slow(x, t, .points(w), at: i)
      let exact = std!
      worst = max(worst, abs(rolling.std[i] - exact) / exact)
      worstTimed = max(worstTimed, abs(timed.std[i] - exact) / exact)
      worstNaive = max(worstNaive, abs(naive[i] - exact) / exact)
      worstZ = max(worstZ, abs(rolling.z[i] - (x[i] - mean) / exact))
    }
    #expect(worst < 1e-6 && worstTimed < 1e-6, "windowed moments drifted: \(worst), \(worstTimed)")
    #expect(worstZ < 1e-6)
    #expect(worstNaive > 1e-2, "the data must defeat running sums: \(worstNaive)")
  }

  @Test func `EWMA by hand, half-life one point`() {
    let e = EWMA(values: [0, 1, 1], time: [0, 10, 20], halfLife: .points(1))
    #expect(e.mean == [0, 0.5, 0.75])
    #expect(e.std[0].isNaN)
    #expect(isClose(e.std[1], 0.5) && isClose(e.std[2], 0.1875.squareRoot()))
  }

  /// The recursion equals the explicit weighted mean and population variance with the
  /// adjust=False weights: `w_1 = Π_{l≥2} a_l`, `w_j = (1 − a_j) Π_{l>j} a_l`.
  @Test("EWMA equals the explicit weights, in points and in time", arguments: [false, true])
  func ewmaAgainstWeights(inTime: Bool) {
    var rng = SplitMix64(seed: 5)
    var t: [Int64] = [0]
    for _ in 1..<400 { t.append(t.last! + Int64(1 + rng.uniform() * 3_000_000)) }
    let x = t.indices.map { _ in 100 + rng.normal() }
    let halfLife: EWMAHalfLife = inTime ? .time(5_000_000) : .points(7.5)
    let e = EWMA(values: x, time: t, halfLife: halfLife)
    func decay(_ l: Int) -> Double {
      switch halfLife {
      case .points(let h): pow(0.5, 1 / h)
      case .time(let h): pow(0.5, Double(t[l] - t[l - 1]) / Double(h))
      }
    }
    for k in [1, 2, 10, 399] {
      var weights = [Double](repeating: 0, count: k + 1)
      for j in 0...k {
        var w = j == 0 ? 1 : 1 - decay(j)
        for l in stride(from: j + 1, through: k, by: 1) { w *= decay(l) }
        weights[j] = w
      }
      let total = weights.reduce(0, +)
      let mean = zip(weights, x).reduce(0) { $0 + $1.0 * $1.1 } / total
      let variance = zip(weights, x).reduce(0) { $0 + $1.0 * ($1.1 - mean) * ($1.1 - mean) } / total
      #expect(isClose(total, 1, rel: 1e-12))
      #expect(isClose(e.mean[k], mean, rel: 1e-12))
      #expect(isClose(e.std[k], variance.squareRoot(), rel: 1e-9))
    }
  }

  @Test func `EWMA in time with equal spacing equals EWMA in points`() {
    let x = (0..<50).map { sin(Double($0)) }
    let t = (0..<50).map { Int64($0) * 2_000_000 }
    let byTime = EWMA(values: x, time: t, halfLife: .time(6_000_000))
    let byPoints = EWMA(values: x, time: t, halfLife: .points(3))
    for k in 1..<50 { #expect(isClose(byTime.mean[k], byPoints.mean[k], rel: 1e-12) && isClose(byTime.std[k], byPoints.std[k], rel: 1e-10)) }
  }
}
