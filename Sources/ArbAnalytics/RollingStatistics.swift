import ArbCore

/// A rolling window over the valid points of a series (`docs/definitions.md`,
/// "Rolling and mean reversion").
public enum RollingWindow: Sendable, Equatable {
  /// The last `n` valid points, the current one included (n ≥ 1).
  case points(Int)
  /// The valid points with `t − T < t_i ≤ t`, T in µs (> 0).
  case time(Int64)

  /// Checks once that every window over `times` starts at a time (`t − T`).
  ///
  /// - Throws: `TimeError.Reason.overflow` (`.rollingWindow`).
  public func checkRange(_ times: ClosedRange<Int64>) throws(TimeError) {
    if case .time(let span) = self { try TimeArithmetic.check(times, plus: -span...0, .rollingWindow) }
  }

  /// The first index of the window ending at point `i`, given the one of point `i − 1`
  /// (windows only move forward).
  @inline(__always)
  func start(at i: Int, after previous: Int, time: UnsafeBufferPointer<Int64>) -> Int {
    switch self {
    case .points(let n): return max(0, i - n + 1)
    case .time(let span):
      var lo = previous
      while time[lo] <= time[i] - span { lo += 1 }
      return lo
    }
  }
}

/// Rolling mean, sample std and z-score of a series at each of its points.
///
/// `mean[i]` and `std[i]` describe the window ending at point `i` (the point
/// included); `z[i] = (x_i − mean[i]) / std[i]`. The std is sample (divisor n − 1) and
/// undefined below 2 points; it is exactly 0 when every value of the window is equal,
/// and z is undefined then. Undefined entries are `nan` in these arrays and never
/// printed. Updates go through `WindowedMoments` (stable over any length).
public struct RollingStatistics: Sendable {
  public var mean: [Double]
  public var std: [Double]
  public var z: [Double]

  /// Rolling statistics of `values` (valid points only, in time order) at times `time`.
  ///
  /// - Precondition: `window.checkRange` passes for the times (user data: call it first).
  /// - Complexity: O(n) amortised.
  public init(values: [Double], time: [Int64], window: RollingWindow) {
    let points = values.withUnsafeBufferPointer { x in
      time.withUnsafeBufferPointer { t in RollingStream(window: window, halfLife: false).add(values: x, time: t) }
    }
    mean = points.mean
    std = points.std
    z = points.z
  }
}
