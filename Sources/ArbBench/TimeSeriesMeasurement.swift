import ArbAnalytics
import Foundation

/// Rolling z-score over one long series and the correlation matrix of many series,
/// on generated data written as raw little-endian float64 files that the Python peers
/// (`bench/peers.py --rolling/--matrix`) read with `numpy.fromfile`.
struct TimeSeriesMeasurement {
  var points: Int
  var window: Int
  var series: Int
  var seriesPoints: Int
  var rollingFile: String
  var matrixFile: String
  /// `RollingStatistics` (mean, std, z at every point), seconds per run.
  var rolling: [Double]
  /// `CovarianceMatrix(matrix:)`, complete case (centring in place, one dsyrk,
  /// correlations), seconds per run.
  var matrix: [Double]
  /// Figures the peers must reproduce.
  var check: [String: Double]

  static func run(points: Int, window: Int, series: Int, seriesPoints: Int, folder: String, repeats: Int) throws -> TimeSeriesMeasurement {
    let rollingFile = "\(folder)/rolling_\(points).f64", matrixFile = "\(folder)/matrix_\(series)x\(seriesPoints).f64"
    // A mean-reverting premium (AR(1), φ = 0.999) around 0.05 %.
    var random = Random(seed: 20_230_302)
    var x = [Double](repeating: 0, count: points)
    var level = 0.05
    for k in 0..<points {
      level = 0.05 + 0.999 * (level - 0.05) + 0.002 * random.normal()
      x[k] = level
    }
    try write(x, to: rollingFile)
    let time = (0..<points).map { Int64($0) * 100_000 }
    var check: [String: Double] = [:]
    var rollingRuns: [Double] = []
    for _ in 0..<repeats {
      var result: RollingStatistics? = nil
      rollingRuns.append(timed { result = RollingStatistics(values: x, time: time, window: .points(window)) })
      check["z_last"] = result!.z[points - 1]
      check["std_last"] = result!.std[points - 1]
    }
    x = []
    // Premium-like series: a common factor, a factor shared by every other series,
    // noise; stored series after series as one row-major matrix (as numpy holds X).
    let common = (0..<seriesPoints).map { _ in random.normal() }
    let shared = (0..<seriesPoints).map { _ in random.normal() }
    var matrix = [Double](repeating: 0, count: series * seriesPoints)
    for k in 0..<series {
      let loading = 0.2 + 0.6 * Double(k) / Double(max(series - 1, 1))
      for t in 0..<seriesPoints {
        matrix[k * seriesPoints + t] = 0.01 * Double(k) + loading * common[t] + (k % 2 == 0 ? 0.5 * shared[t] : 0) + random.normal()
      }
    }
    try write(matrix, to: matrixFile)
    var matrixRuns: [Double] = []
    for _ in 0..<repeats {
      // A fresh copy per run, made (and its pages touched) before the clock starts: the
      // matrix is centred in place.
      var work: [Double]? = matrix.withUnsafeBufferPointer { Array($0) }
      var result: CovarianceMatrix? = nil
      matrixRuns.append(timed { result = CovarianceMatrix(matrix: work.take()!, series: series, missing: .completeCase) })
      check["corr_0_1"] = result!.correlation[1]
      check["corr_0_last"] = result!.correlation[series - 1]
    }
    return TimeSeriesMeasurement(
      points: points, window: window, series: series, seriesPoints: seriesPoints, rollingFile: rollingFile,
      matrixFile: matrixFile, rolling: rollingRuns, matrix: matrixRuns, check: check)
  }

  private static func write(_ values: [Double], to path: String) throws {
    try values.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
  }
}
