/// Descriptive statistics of a premium series over its valid points
/// (`docs/definitions.md`, "Statistics").
///
/// - `std`: sample (divisor n − 1), two-pass; matches `numpy.std(x, ddof=1)`.
/// - `skew = m3 / m2^1.5`, `kurtosis = m4 / m2² − 3`, population central moments
///   (scipy's `skew`/`kurtosis` with `bias=True`).
/// - `meanTW = Σwx / Σw`, `stdTW = sqrt(Σw(x − meanTW)² / Σw)` with the point durations as w.
/// - Quantiles: type 7 (`Quantiles`).
///
/// A figure that is undefined (fewer than two points, zero variance, zero total
/// weight) is `nil` and printed as JSON `null` or `-`, never as 0 or NaN.
public struct SeriesStatistics: Sendable, Equatable {
  public static let quantileLevels: [Double] = [1, 5, 25, 50, 75, 95, 99]

  public var count: Int
  public var mean: Double?
  public var std: Double?
  public var min: Double?
  public var max: Double?
  public var meanTW: Double?
  public var stdTW: Double?
  public var skew: Double?
  public var kurtosis: Double?
  /// Values at `quantileLevels` (percent), in that order; empty when count is 0.
  public var quantiles: [Double]

  /// Computes every statistic of `values` weighted by `weights` (same length, ≥ 0).
  ///
  /// Sums and dot products go through BLAS; the higher moments and extremes are one
  /// tight loop over the centred copy.
  /// - Complexity: O(n) plus one O(n) expected quickselect for the quantiles.
  public init(values: [Double], weights: [Double]) {
    precondition(values.count == weights.count, "SeriesStatistics: \(values.count) values vs \(weights.count) weights")
    let n = values.count
    count = n
    quantiles = Quantiles.compute(values, probabilities: Self.quantileLevels.map { $0 / 100 }) ?? []
    guard n > 0 else { return }
    let (sum, weightSum, weightedSum) = values.withUnsafeBufferPointer { x in
      weights.withUnsafeBufferPointer { w in (BLAS.sum(x), BLAS.asum(w), BLAS.dot(w, x)) }
    }
    let mean = sum / Double(n)
    let meanTW = weightSum > 0 ? weightedSum / weightSum : nil
    var centred = values
    var (m2, m3, m4, low, high, weightedSquares, residual) = (0.0, 0.0, 0.0, Double.infinity, -Double.infinity, 0.0, 0.0)
    centred.withUnsafeMutableBufferPointer { c in
      BLAS.shift(c, by: -mean)
      // Corrected two-pass: on values with a large offset `mean` is only good to a few
      // ulps of the offset, and that error biases the odd moments. The centred copy's own
      // mean is that error, far below one ulp of `mean`; take it out.
      residual = BLAS.sum(UnsafeBufferPointer(c)) / Double(n)
      BLAS.shift(c, by: -residual)
      m2 = BLAS.dot(UnsafeBufferPointer(c), UnsafeBufferPointer(c)) / Double(n)
      let shiftTW = (meanTW ?? mean) - mean - residual
      weights.withUnsafeBufferPointer { w in
        values.withUnsafeBufferPointer { x in
          for i in 0..<n {
            let d = c[i], d2 = d * d
            m3 += d2 * d
            m4 += d2 * d2
            let e = d - shiftTW
            weightedSquares += w[i] * e * e
            low = Swift.min(low, x[i])
            high = Swift.max(high, x[i])
          }
        }
      }
    }
    m3 /= Double(n)
    m4 /= Double(n)
    // All values equal: the figures are exact (the constant, spreads 0), whatever the
    // rounding of the sums above.
    let constant = low == high
    self.mean = constant ? low : mean + residual
    self.min = low
    self.max = high
    self.meanTW = constant && meanTW != nil ? low : meanTW
    if weightSum > 0 { stdTW = constant ? 0 : (weightedSquares / weightSum).squareRoot() }
    if n >= 2 { std = constant ? 0 : (m2 * Double(n) / Double(n - 1)).squareRoot() }
    // Zero (or rounding-level) variance: skew and kurtosis are undefined.
    if !constant && m2 > 0 && m2.squareRoot() > 1e-12 * Swift.max(abs(mean), Double.leastNormalMagnitude) {
      skew = m3 / (m2 * m2.squareRoot())
      kurtosis = m4 / (m2 * m2) - 3
    }
  }
}
