/// Walk-forward validation, as `docs/definitions.md` defines it: window k = 0, 1, …
/// trains on rows [k·TEST, k·TEST + TRAIN) (anchored: [0, k·TEST + TRAIN)) and tests
/// on [k·TEST + TRAIN, k·TEST + TRAIN + TEST), for every window whose test rows all
/// exist. The best cell on the train rows by Sharpe ratio (ties: the lowest number)
/// is scored by the sum of its test rows.
public struct WalkForward: Sendable, Equatable {
  /// One train/test window; rows are half-open ranges of period indices.
  public struct Window: Sendable, Equatable {
    public let train: Range<Int>, test: Range<Int>
    /// The best cell on the train rows.
    public let bestCell: Int
    /// Its Sharpe ratio on the train rows (±∞ when they are all one value).
    public let trainSharpe: Double
    /// The sum of its test rows.
    public let testPnL: Double
  }

  /// TRAIN and TEST, in periods, and whether train windows start at row 0.
  public let train: Int, test: Int, anchored: Bool
  public let windows: [Window]
  /// The sum of the windows' test PnL; `nil` without a window.
  public let outOfSamplePnL: Double?
  /// The Sharpe ratio of the concatenated test rows of the chosen cells; `nil` without a window.
  public let outOfSampleSharpe: Double?
  /// The sum over the same test rows of the cell that is best over all rows; `nil` without a window.
  public let inSamplePnL: Double?

  /// - Precondition: `train` and `test` at least 1.
  /// - Complexity: O(windows · TRAIN · N).
  public init(matrix: PnLMatrix, train: Int, test: Int, anchored: Bool) {
    precondition(train >= 1 && test >= 1, "WalkForward: train \(train), test \(test)")
    (self.train, self.test, self.anchored) = (train, test, anchored)
    var windows: [Window] = []
    // `start`, the first test row, advances by TEST; the bounds are checked before any
    // sum that could overflow.
    var start = train
    while train <= matrix.periods && test <= matrix.periods && start <= matrix.periods - test {
      let trainRows = (anchored ? 0 : start - train)..<start
      let ratios = (0..<matrix.cells).map { PeriodSharpe.of(matrix.column($0, rows: trainRows)) }
      let best = PeriodSharpe.best(ratios)
      let testRows = start..<start + test
      let testPnL = matrix.column(best, rows: testRows).reduce(0, +)
      windows.append(Window(train: trainRows, test: testRows, bestCell: best, trainSharpe: ratios[best], testPnL: testPnL))
      start += test
    }
    self.windows = windows
    guard let first = windows.first, let last = windows.last else {
      (outOfSamplePnL, outOfSampleSharpe, inSamplePnL) = (nil, nil, nil)
      return
    }
    outOfSamplePnL = windows.reduce(0) { $0 + $1.testPnL }
    outOfSampleSharpe = PeriodSharpe.of(windows.flatMap { window in matrix.column(window.bestCell, rows: window.test) })
    inSamplePnL = matrix.column(matrix.bestCell, rows: first.test.lowerBound..<last.test.upperBound).reduce(0, +)
  }
}
