import ArbAnalytics

/// The out-of-sample statistics of `arbkit validate` on a generated period PnL matrix
/// of a year of days × 1,000 cells: CSCV over the 12,870 combinations of 8 of 16
/// blocks, the deflated Sharpe ratio, and 1,000 bootstrap resamples of the best cell.
struct OverfittingMeasurement {
  var periods: Int
  var cells: Int
  var combinations: Int
  /// Seconds per run of `CSCV`, of `DeflatedSharpe` and of `BlockBootstrap`.
  var cscv: [Double], deflated: [Double], bootstrap: [Double]

  static func run(periods: Int = 365, cells: Int = 1000, repeats: Int) -> OverfittingMeasurement {
    // Each cell a small drift of its own plus noise: no cell has a real edge over another.
    var random = Random(seed: 20_230_303)
    let drift = (0..<cells).map { _ in 0.01 * random.normal() }
    let values = (0..<cells).flatMap { n in (0..<periods).map { _ in drift[n] + random.normal() } }
    let matrix = PnLMatrix(periods: periods, cells: cells, values: values)
    var measurement = OverfittingMeasurement(periods: periods, cells: cells, combinations: 0, cscv: [], deflated: [], bootstrap: [])
    for _ in 0..<repeats {
      var cscv: CSCV? = nil
      measurement.cscv.append(timed { cscv = CSCV(matrix: matrix, blocks: 16) })
      measurement.combinations = cscv!.combinations
      measurement.deflated.append(timed { _ = DeflatedSharpe(matrix: matrix) })
      measurement.bootstrap.append(
        timed {
          _ = BlockBootstrap(column: matrix.column(matrix.bestCell), resamples: 1000, blockLength: BlockBootstrap.defaultBlockLength(periods: periods), seed: 1)
        })
    }
    return measurement
  }
}
