import Foundation

/// The standard normal distribution: its distribution function Φ and its inverse Φ⁻¹.
public enum NormalDistribution {
  /// Φ(x) = P(Z ≤ x) = erfc(−x / √2) / 2, accurate in both tails.
  public static func cdf(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

  /// Φ⁻¹(p): the x with Φ(x) = p, to about 1e-15 relative.
  ///
  /// Acklam's rational approximation (relative error below 1.15e-9), then one Halley
  /// step on Φ(x) − p. The upper half is the mirror of the lower (Φ⁻¹(p) = −Φ⁻¹(1 − p)),
  /// so the step always works on a lower-tail probability, which `erfc` gives to full
  /// precision. Checked against Wichura's AS 241 (`statistics.NormalDist.inv_cdf`).
  ///
  /// - Returns: −∞ for p = 0, +∞ for p = 1, NaN outside [0, 1].
  public static func quantile(_ p: Double) -> Double {
    guard p > 0 && p < 1 else { return p == 0 ? -.infinity : p == 1 ? .infinity : .nan }
    if p > 0.5 { return -lowerQuantile(1 - p) }
    return lowerQuantile(p)
  }

  /// Φ⁻¹(p) for 0 < p ≤ 0.5.
  private static func lowerQuantile(_ p: Double) -> Double {
    let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
    let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01]
    let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
    let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    var x: Double
    if p < 0.02425 {
      let q = (-2 * log(p)).squareRoot()
      x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    } else {
      let q = p - 0.5, r = q * q
      x =
        (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
        / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
    // Halley's step: u = (Φ(x) − p) / φ(x), x ← x − u / (1 + x·u / 2).
    let u = (cdf(x) - p) * (2 * Double.pi).squareRoot() * exp(x * x / 2)
    x -= u / (1 + x * u / 2)
    return x
  }
}
