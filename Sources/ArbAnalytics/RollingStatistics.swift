/// A rolling window over the valid points of a series (`docs/definitions.md`,
/// "Rolling and mean reversion").
public enum RollingWindow: Sendable, Equatable {
  /// The last `n` valid points, the current one included (n ≥ 1).
  case points(Int)
  /// The valid points with `t − T < t_i ≤ t`, T in µs (> 0).
  case time(Int64)

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
  /// - Complexity: O(n) amortised.
  public init(values: [Double], time: [Int64], window: RollingWindow) {
    precondition(values.count == time.count, "RollingStatistics: \(values.count) values vs \(time.count) times")
    let n = values.count
    var mean = [Double](repeating: .nan, count: n), std = mean, z = mean
    values.withUnsafeBufferPointer { x in
      time.withUnsafeBufferPointer { t in
        mean.withUnsafeMutableBufferPointer { mean in
          std.withUnsafeMutableBufferPointer { std in
            z.withUnsafeMutableBufferPointer { z in
              var moments = WindowedMoments(x: x, y: x)
              var run = 0  // trailing points equal to the current one
              for i in 0..<n {
                let lo = window.start(at: i, after: moments.lo, time: t)
                moments.advance(to: lo)
                run = i > 0 && x[i] == x[i - 1] ? run + 1 : 1
                let count = moments.count
                if run >= count {
                  // Every value of the window is x_i: exact mean, zero spread, no z.
                  mean[i] = x[i]
                  if count >= 2 { std[i] = 0 }
                  continue
                }
                mean[i] = moments.meanX
                let s = (moments.sxx / Double(count - 1)).squareRoot()
                std[i] = s
                if s > 0 { z[i] = (x[i] - mean[i]) / s }
              }
            }
          }
        }
      }
    }
    self.mean = mean
    self.std = std
    self.z = z
  }
}
