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
    precondition(values.count == time.count, "RollingHalfLife: \(values.count) values vs \(time.count) times")
    let n = values.count
    var beta = [Double](repeating: .nan, count: n), points = beta, seconds = beta
    // Pair k = (x_k, x_{k+1} − x_k): the regressor and the response.
    let changes = n < 2 ? [] : (0..<n - 1).map { values[$0 + 1] - values[$0] }
    let lags = Array(values.dropLast())
    lags.withUnsafeBufferPointer { x in
      changes.withUnsafeBufferPointer { y in
        time.withUnsafeBufferPointer { t in
          var moments = WindowedMoments(x: x, y: y)
          var lo = 0
          var run = 0  // trailing lag values equal to the newest one
          for i in 1..<max(n, 1) {
            lo = window.start(at: i, after: lo, time: t)
            // The pairs of points lo…i are lo..<i; no pair when the window is one point.
            if lo == i {
              moments = WindowedMoments(x: x, y: y, start: i)
              continue
            }
            moments.advance(to: lo)
            run = i > 1 && x[i - 1] == x[i - 2] ? run + 1 : 1
            guard moments.count >= 2, run < moments.count, moments.sxx > 0 else { continue }
            let b = moments.sxy / moments.sxx
            beta[i] = b
            if let h = HalfLife.points(beta: b) {
              points[i] = h
              seconds[i] = h * Double(t[i] - t[lo]) / Double(i - lo) / 1e6
            }
          }
        }
      }
    }
    self.beta = beta
    self.points = points
    self.seconds = seconds
  }
}
