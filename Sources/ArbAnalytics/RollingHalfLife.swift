/// AR(1) half-life over a rolling window (`docs/definitions.md`, "Rolling half-life").
///
/// At point `i` the window holds points `lo…i` (`RollingWindow`); the fit is the one of
/// `HalfLife.slope` on those values: least squares `Δx_k = α + β x_{k−1}` over the pairs
/// `k = lo+1…i`. `beta[i]` needs at least 2 pairs and a non-constant regressor;
/// `points[i] = −ln 2 / ln(1 + β)` only for −1 < β < 0, and `seconds[i]` is that times
/// the window's mean point spacing `(t_i − t_lo) / (i − lo)`. Undefined entries are
/// `nan` (never printed).
public struct RollingHalfLife: Sendable {
  public var beta: [Double]
  public var points: [Double]
  public var seconds: [Double]

  /// Rolling fits of `values` (valid points in time order) at times `time` (µs).
  ///
  /// - Complexity: O(n) amortised (`WindowedMoments` over the pairs).
  public init(values: [Double], time: [Int64], window: RollingWindow) {
    let fits = values.withUnsafeBufferPointer { x in
      time.withUnsafeBufferPointer { t in RollingStream(window: window, statistics: false).add(values: x, time: t) }
    }
    beta = fits.beta
    points = fits.halfLifePoints
    seconds = fits.halfLifeSeconds
  }
}
