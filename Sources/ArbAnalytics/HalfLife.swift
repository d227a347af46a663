import Foundation

/// AR(1) half-life of mean reversion (`docs/definitions.md`, "Rolling and mean reversion").
///
/// Least squares `Δx_t = α + β x_{t−1} + ε` over consecutive values of the valid series;
/// `half_life = −ln 2 / ln(1 + β)` points, and in seconds × the median point duration.
/// Reported only when −1 < β < 0 (a mean-reverting series).
public struct HalfLife: Sendable, Equatable {
  public var beta: Double
  public var points: Double
  /// `nil` when the median point duration is 0.
  public var seconds: Double?

  /// Fits `values` (valid points in order) with `weights` their durations in µs.
  /// Returns `nil` when there are fewer than 3 points, the regressor is constant, or
  /// β is outside (−1, 0).
  public init?(values: [Double], durations: [Double]) {
    let n = values.count - 1
    guard n >= 2 else { return nil }
    let (beta, ok): (Double, Bool) = values.withUnsafeBufferPointer { x in
      let lagged = UnsafeBufferPointer(rebasing: x[0..<n])
      let current = UnsafeBufferPointer(rebasing: x[1...])
      let meanLag = BLAS.sum(lagged) / Double(n)
      var centredLag = Array(lagged)
      var delta = Array(current)
      let (sxx, sxy): (Double, Double) = centredLag.withUnsafeMutableBufferPointer { c in
        delta.withUnsafeMutableBufferPointer { d in
          BLAS.axpy(-1, lagged, d)  // Δx = x_t − x_{t−1}
          BLAS.shift(c, by: -meanLag)
          return (BLAS.dot(UnsafeBufferPointer(c), UnsafeBufferPointer(c)), BLAS.dot(UnsafeBufferPointer(c), UnsafeBufferPointer(d)))
        }
      }
      return sxx > 0 ? (sxy / sxx, true) : (0, false)
    }
    guard ok, beta > -1, beta < 0 else { return nil }
    self.beta = beta
    points = -log(2) / log1p(beta)
    let median = Quantiles.compute(durations, probabilities: [0.5])?[0] ?? 0
    seconds = median > 0 ? points * median / 1e6 : nil
  }
}
