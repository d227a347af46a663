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
    precondition(values.count == time.count, "EWMA: \(values.count) values vs \(time.count) times")
    let n = values.count
    var mean = [Double](repeating: .nan, count: n), std = mean
    guard n > 0 else {
      self.mean = mean
      self.std = std
      return
    }
    let pointDecay: Double
    let timeScale: Double
    switch halfLife {
    case .points(let h): (pointDecay, timeScale) = (pow(0.5, 1 / h), 0)
    case .time(let h): (pointDecay, timeScale) = (0, -log(2) / Double(h))
    }
    var m = values[0], v = 0.0
    mean[0] = m
    for k in 1..<n {
      let decay = timeScale == 0 ? pointDecay : exp(timeScale * Double(time[k] - time[k - 1]))
      let d = values[k] - m
      let alpha = 1 - decay
      m += alpha * d
      v = decay * (v + alpha * d * d)
      mean[k] = m
      std[k] = v.squareRoot()
    }
    self.mean = mean
    self.std = std
  }
}
