import ArbCore

/// The best cells of a sweep by one metric, each with the mean of the metric over the
/// cell and its grid neighbours (`robustness`): a lone spike has a low one, a plateau a
/// high one.
public struct SweepRanking: Sendable {
  public let grid: SweepGrid
  public let metric: BacktestMetrics.Column
  /// The metric of every cell, in cell order (`nil`: undefined for that cell).
  public let values: [Double?]

  public init(grid: SweepGrid, metric: BacktestMetrics.Column, values: [Double?]) {
    self.grid = grid
    self.metric = metric
    self.values = values
  }

  /// The mean of the metric over `cell` and its grid neighbours that define it.
  public func robustness(_ cell: Int) -> Double? {
    SweepResults.mean(([cell] + grid.neighbours(cell)).compactMap { values[$0] })
  }

  /// The cells that define the metric, best first (ties in cell order).
  public var ranked: [Int] {
    values.indices.filter { values[$0] != nil }.sorted { values[$0]! != values[$1]! ? values[$0]! > values[$1]! : $0 < $1 }
  }
}
