/// Lo–MacKinlay variance ratio of a series (`docs/definitions.md`, "Variance ratio").
///
/// On the increments `r_t = x_t − x_{t−1}` (t = 1…n) of the valid values `x_0…x_n`,
/// with `μ = (x_n − x_0) / n`: `σ²_1 = Σ (r_t − μ)² / (n − 1)`,
/// `σ²_q = Σ_{t=q..n} (x_t − x_{t−q} − qμ)² / m` with `m = q (n − q + 1)(1 − q/n)`, and
/// `VR(q) = σ²_q / σ²_1`. A random walk gives VR ≈ 1, a mean-reverting series VR < 1,
/// a trending one VR > 1. `z = (VR − 1) / √(2(2q − 1)(q − 1) / (3qn))` is its
/// statistic under i.i.d. increments (asymptotically standard normal).
public struct VarianceRatio: Sendable, Equatable {
  public var q: Int
  public var ratio: Double
  public var z: Double

  /// `VR(q)` of `values`; `nil` unless q ≥ 2, n > q increments and σ²_1 > 0. The sums
  /// are those of `VarianceRatioAccumulator` over one chunk.
  public init?(values: [Double], q: Int) {
    var accumulator = VarianceRatioAccumulator(q: q)
    values.withUnsafeBufferPointer { accumulator.add($0) }
    guard let ratio = accumulator.ratio else { return nil }
    self = ratio
  }

  /// The ratio of the sums `s1 = Σ (r_t − μ)²` and `sq = Σ (x_t − x_{t−q} − qμ)²` over `n`
  /// increments; `nil` when `s1` is 0. Sums that overflowed give a ratio that is not a
  /// number (refused where it is printed), never an undefined one.
  init?(q: Int, n: Int, s1: Double, sq: Double) {
    guard s1 != 0 else { return nil }
    let count = Double(n), lag = Double(q)
    let m = lag * (count - lag + 1) * (1 - lag / count)
    self.q = q
    ratio = s1.isFinite && sq.isFinite ? (sq / m) / (s1 / (count - 1)) : .nan
    z = (ratio - 1) / (2 * (2 * lag - 1) * (lag - 1) / (3 * lag * count)).squareRoot()
  }
}
