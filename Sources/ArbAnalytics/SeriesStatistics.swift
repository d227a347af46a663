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
  /// The sum goes through BLAS; the moments and extremes are one tight loop
  /// (corrected two-pass, no copy of the data); the quantiles reorder `values` in
  /// place, which is why it is taken `consuming` (pass its last use to avoid a copy).
  /// - Complexity: O(n) plus one O(n) expected multi-target quickselect.
  public init(values: consuming [Double], weights: [Double]) {
    precondition(values.count == weights.count, "SeriesStatistics: \(values.count) values vs \(weights.count) weights")
    self.init(values: consume values, weights: .array(weights))
  }

  /// As `init(values:weights:)`, with the weights of the valid points of a premium
  /// series (their durations) read from it in order instead of packed into an array.
  public init(values: consuming [Double], validOf premium: PremiumSeries) {
    precondition(values.count == premium.validPoints, "SeriesStatistics: \(values.count) values vs \(premium.validPoints) valid points")
    self.init(values: consume values, weights: .validDurations(premium))
  }

  /// Where the weights come from.
  private enum Weights {
    case array([Double])
    case validDurations(PremiumSeries)

    /// Calls `body(k, w_k)` for k = 0, 1, … in order.
    @inline(__always)
    func forEach(_ body: (Int, Double) -> Void) {
      switch self {
      case .array(let weights):
        weights.withUnsafeBufferPointer { w in for k in w.indices { body(k, w[k]) } }
      case .validDurations(let premium):
        premium.valid.withUnsafeBufferPointer { valid in
          premium.time.withUnsafeBufferPointer { time in
            var k = 0
            for i in 0..<valid.count where valid[i] {
              body(k, i + 1 < time.count ? Double(time[i + 1] - time[i]) : 0)
              k += 1
            }
          }
        }
      }
    }
  }

  /// The shared computation.
  private init(values: consuming [Double], weights: Weights) {
    let n = values.count
    count = n
    quantiles = []
    guard n > 0 else { return }
    var weightSum = 0.0, weightedSum = 0.0
    let sum = values.withUnsafeBufferPointer { x in
      weights.forEach { k, w in
        weightSum += w
        weightedSum += w * x[k]
      }
      return BLAS.sum(x)
    }
    let mean = sum / Double(n)
    let meanTW = weightSum > 0 ? weightedSum / weightSum : nil
    var (m2, m3, m4, low, high, weightedSquares, residual) = (0.0, 0.0, 0.0, Double.infinity, -Double.infinity, 0.0, 0.0)
    values.withUnsafeBufferPointer { x in
      // Corrected two-pass: on values with a large offset `mean` is only good to a few
      // ulps of the offset, and that error biases the odd moments. The mean of the
      // centred values is that error, far below one ulp of `mean`; take it out.
      for i in 0..<n { residual += x[i] - mean }
      residual /= Double(n)
      for i in 0..<n {
        let d = (x[i] - mean) - residual, d2 = d * d
        m2 += d2
        m3 += d2 * d
        m4 += d2 * d2
        low = Swift.min(low, x[i])
        high = Swift.max(high, x[i])
      }
      let shiftTW = (meanTW ?? mean) - mean - residual
      weights.forEach { k, w in
        let e = (x[k] - mean) - residual - shiftTW
        weightedSquares += w * e * e
      }
    }
    m2 /= Double(n)
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
    quantiles = Quantiles.computeInPlace(&values, probabilities: Self.quantileLevels.map { $0 / 100 }) ?? []
  }
}
