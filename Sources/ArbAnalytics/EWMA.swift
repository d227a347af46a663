import Foundation

/// The half-life of an exponentially weighted average.
public enum EWMAHalfLife: Sendable, Equatable {
  /// A weight halves every `h` points (h > 0).
  case points(Double)
  /// A weight halves every `h` µs of time (h > 0).
  case time(Int64)
}

/// Exponentially weighted mean and std of a series (`docs/definitions.md`, "EWMA").
///
/// With decay `a_k = 0.5^(1/h)` per point, or `0.5^((t_k − t_{k−1})/h)` in time, and
/// `α_k = 1 − a_k`: `m_1 = x_1`, `v_1 = 0`, then `m_k = m_{k−1} + α_k (x_k − m_{k−1})`,
/// `v_k = a_k (v_{k−1} + α_k (x_k − m_{k−1})²)`; `std_k = √v_k` from the second point
/// on. No bias correction (pandas `ewm(alpha=α, adjust=False)`, `var(bias=True)`).
/// The std of the first point is `nan` (undefined, never printed).
public struct EWMA: Sendable {
  public var mean: [Double]
  public var std: [Double]

  /// EWMA of `values` (valid points in time order) at times `time`.
  public init(values: [Double], time: [Int64], halfLife: EWMAHalfLife) {
    let points = values.withUnsafeBufferPointer { x in
      time.withUnsafeBufferPointer { t in
        RollingStream(window: .points(1), statistics: false, ewma: halfLife, halfLife: false).add(values: x, time: t)
      }
    }
    mean = points.ewmaMean
    std = points.ewmaStd
  }
}
