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
public struct SeriesStatistics: Sendable, Equatable, Codable {
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

    /// `(Σ w_k, Σ w_k (x_k − c))`, or with `squared` `(Σ w_k, Σ w_k (x_k − c)²)`: plain
    /// loops per case (a closure per element would cost a call each).
    func sums(x: UnsafeBufferPointer<Double>, about c: Double, squared: Bool = false) -> (Double, Double) {
      var weightSum = 0.0, weighted = 0.0
      switch self {
      case .array(let weights):
        weights.withUnsafeBufferPointer { w in
          for k in w.indices {
            let d = x[k] - c
            weightSum += w[k]
            weighted += w[k] * (squared ? d * d : d)
          }
        }
      case .validDurations(let premium):
        premium.valid.withUnsafeBufferPointer { valid in
          premium.time.withUnsafeBufferPointer { time in
            var k = 0
            let last = valid.count - 1
            for i in 0..<valid.count where valid[i] {
              let w = i < last ? Double(time[i + 1] - time[i]) : 0
              let d = x[k] - c
              weightSum += w
              weighted += w * (squared ? d * d : d)
              k += 1
            }
          }
        }
      }
      return (weightSum, weighted)
    }
  }

  /// The shared computation.
  private init(values: consuming [Double], weights: Weights) {
    let n = values.count
    count = n
    quantiles = []
    guard n > 0 else { return }
    let mean = values.withUnsafeBufferPointer { BLAS.sum($0) } / Double(n)
    // One pass for the deviations d = x − mean: their sum, powers, extremes and
    // weighted sums. Corrected two-pass: on values with a large offset `mean` is only
    // good to a few ulps of the offset, and that error biases the odd moments; the mean
    // r of the deviations is that error, and the moments about mean + r follow from
    // the power sums exactly (r is far below the spread, so nothing cancels).
    var (s1, s2, s3, s4, low, high) = (0.0, 0.0, 0.0, 0.0, Double.infinity, -Double.infinity)
    values.withUnsafeBufferPointer { x in
      for k in 0..<n {
        let v = x[k], d = v - mean, d2 = d * d
        s1 += d
        s2 += d2
        s3 += d2 * d
        s4 += d2 * d2
        low = Swift.min(low, v)
        high = Swift.max(high, v)
      }
    }
    let (weightSum, weightedDeviation) = values.withUnsafeBufferPointer { weights.sums(x: $0, about: mean) }
    let count = Double(n)
    let r = s1 / count
    let (p2, p3, p4) = (s2 / count, s3 / count, s4 / count)
    let m2 = Swift.max(p2 - r * r, 0)
    let m3 = p3 - 3 * r * p2 + 2 * r * r * r
    let m4 = p4 - 4 * r * p3 + 6 * r * r * p2 - 3 * r * r * r * r
    let meanTW: Double? = weightSum > 0 ? mean + weightedDeviation / weightSum : nil
    // Weighted spread about the weighted mean: a second pass, since the weights can
    // put the weighted mean far from the mean and the power-sum shortcut would cancel.
    let weightedSquares = meanTW.map { m in values.withUnsafeBufferPointer { weights.sums(x: $0, about: m, squared: true).1 } } ?? 0
    // All values equal: the figures are exact (the constant, spreads 0), whatever the
    // rounding of the sums above.
    let constant = low == high
    self.mean = constant ? low : mean + r
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

extension SeriesStatistics {
  /// `count` values with `quantiles`; every other figure undefined until set.
  init(count: Int, quantiles: [Double]) {
    self.count = count
    self.quantiles = quantiles
  }
}
