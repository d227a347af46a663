/// The period PnL of every cell of a sweep: a T × N matrix (periods × cells) stored
/// column-major, so that cell n's T periods are `values[n·T ..< (n + 1)·T]`.
///
/// The overfitting statistics (`CSCV`, `DeflatedSharpe`, `WalkForward`,
/// `BlockBootstrap`) are pure functions of it; `docs/definitions.md` ("Out of sample")
/// defines each of them.
public struct PnLMatrix: Sendable, Equatable {
  /// T, the rows.
  public let periods: Int
  /// N, the columns.
  public let cells: Int
  /// Column-major values, `periods × cells` of them.
  public let values: [Double]

  public init(periods: Int, cells: Int, values: [Double]) {
    precondition(periods >= 1 && cells >= 1 && values.count == periods * cells, "PnLMatrix: \(values.count) values for \(periods) × \(cells)")
    self.periods = periods
    self.cells = cells
    self.values = values
  }

  /// Cell `cell`'s PnL in every period.
  public func column(_ cell: Int) -> ArraySlice<Double> { values[cell * periods..<(cell + 1) * periods] }

  /// Cell `cell`'s PnL in the periods `rows`.
  public func column(_ cell: Int, rows: Range<Int>) -> ArraySlice<Double> { values[cell * periods + rows.lowerBound..<cell * periods + rows.upperBound] }

  /// The Sharpe ratio S(all rows, n) of every cell.
  public var sharpeRatios: [Double] { (0..<cells).map { PeriodSharpe.of(column($0)) } }

  /// The cell with the highest Sharpe ratio over all rows (ties: the lowest number).
  public var bestCell: Int { PeriodSharpe.best(sharpeRatios) }

  /// The first row of each of `blocks` blocks, then T: block b holds rows
  /// ⌊b·T/S⌋ ..< ⌊(b+1)·T/S⌋, so no row is dropped.
  public func blockBounds(_ blocks: Int) -> [Int] { (0...blocks).map { $0 * periods / blocks } }
}

/// The Sharpe ratio of period PnL as the overfitting statistics use it: mean / sample
/// standard deviation (ddof 1), per period (not annualised). Rows that are all equal
/// (one row included) have std 0, and then the ratio is +∞ for a positive mean, −∞
/// for a negative one and 0 for a zero mean, so a cell that never trades ranks in the
/// middle rather than at the top. Equality is tested exactly, not through a std that
/// rounding leaves a hair above 0.
public enum PeriodSharpe {
  /// S of `values` (at least one), two-pass.
  public static func of<Values: Collection<Double>>(_ values: Values) -> Double {
    precondition(!values.isEmpty, "PeriodSharpe.of: no rows")
    let first = values.first!
    if values.allSatisfy({ $0 == first }) { return ratio(mean: first, variance: 0) }
    let count = Double(values.count)
    let mean = values.reduce(0, +) / count
    let m2 = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
    return ratio(mean: mean, variance: m2 / (count - 1))
  }

  /// mean / √variance, with the rule for a variance of 0.
  @inline(__always)
  static func ratio(mean: Double, variance: Double) -> Double {
    guard variance > 0 else { return mean > 0 ? .infinity : mean < 0 ? -.infinity : 0 }
    return mean / variance.squareRoot()
  }

  /// The relative difference within which two ratios are tied: ratios that are equal
  /// in exact arithmetic differ in their last digits by the order of summation (one
  /// trade in a window gives 1/√k whatever its size), and must rank as ties.
  public static let tieTolerance = 1e-9

  /// Whether `a` and `b` are tied: equal (also as the same infinity), or within
  /// `tieTolerance` of each other relative to the larger magnitude.
  @inline(__always)
  public static func tied(_ a: Double, _ b: Double) -> Bool {
    a == b || (a.isFinite && b.isFinite && abs(a - b) <= tieTolerance * max(abs(a), abs(b)))
  }

  /// Whether `a` ranks above `b`: greater, and not tied with it.
  @inline(__always)
  public static func above(_ a: Double, _ b: Double) -> Bool { a > b && !tied(a, b) }

  /// The index of the highest ratio (ties: the lowest index).
  public static func best(_ ratios: [Double]) -> Int {
    var best = 0
    for n in ratios.indices where above(ratios[n], ratios[best]) { best = n }
    return best
  }

  /// The average rank (1 lowest … count highest, ties averaged) of `score` among
  /// `ratios`, which hold it.
  public static func averageRank(of score: Double, among ratios: [Double]) -> Double {
    var below = 0, equal = 0
    for value in ratios {
      if tied(value, score) { equal += 1 } else if value < score { below += 1 }
    }
    return Double(below) + Double(equal + 1) / 2
  }
}
