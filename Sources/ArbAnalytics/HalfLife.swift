import Foundation

/// AR(1) half-life of mean reversion (`docs/definitions.md`, "Rolling and mean reversion").
///
/// Least squares `Δx_t = α + β x_{t−1} + ε` over consecutive values of the valid series;
/// `half_life = −ln 2 / ln(1 + β)` points, and in seconds × the median point duration.
/// Reported only when −1 < β < 0 (a mean-reverting series).
public struct HalfLife: Sendable, Equatable, Codable {
  public var beta: Double
  public var points: Double
  /// `nil` when the median point duration is 0.
  public var seconds: Double?

  /// Fits `values` (valid points in order) with `durations` their durations in µs.
  /// Returns `nil` when there are fewer than 3 points, the regressor is constant, or
  /// β is outside (−1, 0).
  public init?(values: [Double], durations: consuming [Double]) {
    guard let beta = Self.slope(values) else { return nil }
    self.init(beta: beta, durations: durations)
  }

  /// The half-life of a fitted slope β; `durations` are reordered in place for their
  /// median. `nil` unless −1 < β < 0.
  public init?(beta: Double, durations: consuming [Double]) {
    self.init(beta: beta, medianDuration: Quantiles.computeInPlace(&durations, probabilities: [0.5])?[0] ?? 0)
  }

  /// The half-life of a fitted slope β with `medianDuration` the median point
  /// duration (µs). `nil` unless −1 < β < 0.
  public init?(beta: Double, medianDuration median: Double) {
    guard let points = Self.points(beta: beta) else { return nil }
    self.beta = beta
    self.points = points
    seconds = median > 0 ? points * median / 1e6 : nil
  }

  /// `−ln 2 / ln(1 + β)` points, or `nil` unless −1 < β < 0.
  public static func points(beta: Double) -> Double? {
    beta > -1 && beta < 0 ? -log(2) / log1p(beta) : nil
  }

  /// The least-squares slope β of `Δx_t` on `x_{t−1}`, or `nil` for fewer than 3
  /// values or a constant regressor. Two passes, no copy: the lag mean (BLAS), then
  /// the centred sums.
  public static func slope(_ values: [Double]) -> Double? {
    let n = values.count - 1
    guard n >= 2 else { return nil }
    return values.withUnsafeBufferPointer { x -> Double? in
      let meanLag = BLAS.sum(UnsafeBufferPointer(rebasing: x[0..<n])) / Double(n)
      var sxx = 0.0, sxy = 0.0
      for t in 1...n {
        let c = x[t - 1] - meanLag
        sxx += c * c
        sxy += c * (x[t] - x[t - 1])
      }
      return sxx > 0 ? sxy / sxx : nil
    }
  }
}
