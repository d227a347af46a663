import Foundation

/// The deflated Sharpe ratio of the best cell (Bailey & López de Prado, "The deflated
/// Sharpe ratio", J. Portfolio Management 2014), as `docs/definitions.md` defines it.
///
/// SR = S(all rows, n*) of the best cell n* (ties: the lowest number), per period. The
/// cells whose all-rows Sharpe ratio is finite give V = their sample variance (ddof 1)
/// and N' = their count; SR0 = √V · ((1 − γ) Φ⁻¹(1 − 1/N') + γ Φ⁻¹(1 − 1/(N' e))) with
/// γ the Euler–Mascheroni constant. With g3 = m3 / m2^1.5 and g4 = m4 / m2² (central
/// moments with divisor T, kurtosis not excess) of n*'s column,
/// DSR = Φ((SR − SR0) · √(T − 1) / √(1 − g3·SR + (g4 − 1)/4 · SR²)).
public struct DeflatedSharpe: Sendable, Equatable {
  /// γ, the Euler–Mascheroni constant.
  public static let eulerGamma = 0.5772156649015329
  /// e, the base of the natural logarithm.
  static let e = 2.718281828459045

  /// n*.
  public let bestCell: Int
  /// SR; ±∞ when n*'s column is all one positive or negative value.
  public let sharpe: Double
  /// N', the cells with a finite Sharpe ratio.
  public let trials: Int
  /// V; `nil` when N' < 2.
  public let variance: Double?
  /// SR0, the expected best Sharpe ratio of N' trials without skill; `nil` when N' < 2.
  public let expectedMaximum: Double?
  /// g3 and g4 of n*'s column; `nil` when it is all one value (m2 = 0).
  public let skewness: Double?, kurtosis: Double?
  /// DSR; `nil` when SR0 is, when SR, g3 or g4 is not finite, or when the radicand
  /// 1 − g3·SR + (g4 − 1)/4 · SR² is not positive.
  public let deflated: Double?

  /// - Complexity: O(T·N).
  public init(matrix: PnLMatrix) {
    let ratios = matrix.sharpeRatios
    bestCell = PeriodSharpe.best(ratios)
    sharpe = ratios[bestCell]
    let finite = ratios.filter(\.isFinite)
    trials = finite.count
    if trials >= 2 {
      let count = Double(trials)
      let mean = finite.reduce(0, +) / count
      let v = finite.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (count - 1)
      let gamma = Self.eulerGamma
      variance = v
      expectedMaximum =
        v.squareRoot()
        * ((1 - gamma) * NormalDistribution.quantile(1 - 1 / count) + gamma * NormalDistribution.quantile(1 - 1 / (count * Self.e)))
    } else {
      (variance, expectedMaximum) = (nil, nil)
    }
    let column = matrix.column(bestCell)
    let periods = Double(matrix.periods)
    let mean = column.reduce(0, +) / periods
    func moment(_ power: Double) -> Double { column.reduce(0) { $0 + pow($1 - mean, power) } / periods }
    let m2 = moment(2)
    if m2 > 0 && column.contains(where: { $0 != column.first! }) {
      skewness = moment(3) / pow(m2, 1.5)
      kurtosis = moment(4) / (m2 * m2)
    } else {
      (skewness, kurtosis) = (nil, nil)
    }
    guard let sr0 = expectedMaximum, let g3 = skewness, let g4 = kurtosis, sharpe.isFinite else {
      deflated = nil
      return
    }
    let radicand = 1 - g3 * sharpe + (g4 - 1) / 4 * sharpe * sharpe
    let z = (sharpe - sr0) * (periods - 1).squareRoot() / radicand.squareRoot()
    deflated = radicand > 0 && z.isFinite ? NormalDistribution.cdf(z) : nil
  }
}
