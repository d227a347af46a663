// arbkit-bench: ArbKit's throughput next to pandas/polars/numpy doing the same work
// in the same run. Usage: ArbBench [--rows 1000000,5000000] [--format-rows 3000000]
//   [--repeat 5] [--dir bench/data] [--python bench/.venv/bin/python] [--no-peers]
// --rows: premium pipeline sizes (rows per venue), `none` to skip; --format-rows: rows of
// each generated venue file (Binance bookTicker/aggTrades, Bybit trading), 0 to skip;
// --formats: which of them (binance-bookTicker,binance-aggTrades,bybit-trading).
// --only: which parts run (premium,formats,backtest,sweep,bookfill,timeseries,overfitting,parquet; default all); backtest and
// sweep use two venues of --convergence-rows rows each (default 5000000, about 10 M
// clock points) against numba, and vectorbt on --vectorbt-cells cells (default 3).
// --only timeseries: --rolling-points: rolling z-score series length (0 to skip), --window its window in
// points; --matrix SERIESxPOINTS: the correlation matrix size (`none` to skip).
// --only overfitting: CSCV, deflated Sharpe and bootstrap of a 365 × 1000 period PnL matrix (no peers).
// --only parquet: a quotes Parquet file of --parquet-rows rows (default 10000000; snappy and zstd,
// pyarrow-written, 1 M-row groups) read by arbkit inspect, pyarrow and polars, written by
// arbkit convert and pyarrow, run by run in turn.
// --only bookfill: the convergence backtest with costs.fill book on two generated
// book_snapshot_5 files of --book-rows rows each (default 5000000, about 10 M clock
// points), arbkit backtest and its engine in process against a numba loop.
import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
  guard let k = arguments.firstIndex(of: name), k + 1 < arguments.count else { return nil }
  return arguments[k + 1]
}
let sizes = (option("--rows") ?? "1000000,5000000").split(separator: ",").compactMap { Int($0) }
let formatRows = Int(option("--format-rows") ?? "3000000") ?? 3_000_000
let formatKinds =
  try
  (option("--formats")?.split(separator: ",").map { name in
    guard let kind = VenueFileGenerator.Kind(rawValue: String(name)) else { throw BenchError("unknown --formats entry '\(name)'") }
    return kind
  }) ?? VenueFileGenerator.Kind.allCases
let repeats = Int(option("--repeat") ?? "5") ?? 5
let folder = option("--dir") ?? "bench/data"
let python = option("--python") ?? "bench/.venv/bin/python"
let runPeers = !arguments.contains("--no-peers")
let allParts: Set = ["premium", "formats", "backtest", "sweep", "bookfill", "timeseries", "overfitting", "parquet"]
let parts = option("--only").map { Set($0.split(separator: ",").map(String.init)) } ?? allParts
if let unknown = parts.subtracting(allParts).first { throw BenchError("unknown --only part '\(unknown)'") }
let convergenceRows = Int(option("--convergence-rows") ?? "5000000") ?? 5_000_000
let bookRows = Int(option("--book-rows") ?? "5000000") ?? 5_000_000
let vectorbtCells = Int(option("--vectorbt-cells") ?? "3") ?? 3
let rollingPoints = Int(option("--rolling-points") ?? "10000000") ?? 10_000_000
let window = Int(option("--window") ?? "300") ?? 300
let parquetRows = Int(option("--parquet-rows") ?? "10000000") ?? 10_000_000
let matrixShape = (option("--matrix") ?? "64x1000000").split(separator: "x").compactMap { Int($0) }
let arbkit = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit").path

Analytics.configure()
// Keep freed memory in the heap between repeated runs, as the peers' allocators
// (polars' jemalloc, numpy's caching) do: the runs then measure the work rather than
// this machine's first-touch page faults (about 2 µs per 4 KiB page in a VM). The
// first run of each stage still pays them and is listed with the others.
@_silgen_name("mallopt") func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
let mallocTrimThreshold: Int32 = -1, mallocMmapThreshold: Int32 = -3  // <malloc.h>
_ = mallopt(mallocMmapThreshold, 1 << 30)
_ = mallopt(mallocTrimThreshold, Int32.max)
try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
var report = BenchReport()
for rows in parts.contains("premium") ? sizes : [] {
  let files = (0..<QuoteGenerator.venues.count).map { "\(folder)/quotes_\(rows)_\(QuoteGenerator.venues[$0].exchange).csv" }
  for (k, file) in files.enumerated() where !FileManager.default.fileExists(atPath: file) {
    FileHandle.standardError.write(Data("generating \(file)\n".utf8))
    try QuoteGenerator(rows: rows, seed: 20_230_301).write(venue: k, to: file)
  }
  FileHandle.standardError.write(Data("measuring arbkit on \(rows) rows × \(files.count) venues\n".utf8))
  let swift = try SwiftMeasurement.run(files: files, repeats: repeats, arbkit: arbkit)
  var peers: [String: Any]? = nil
  if runPeers {
    FileHandle.standardError.write(Data("measuring pandas/polars/numpy (python \(python))\n".utf8))
    peers = try PeerMeasurement.run(python: python, files: files, repeats: repeats)
  }
  report.add(rows: rows, venues: files.count, swift: swift, peers: peers)
}
if formatRows > 0 && parts.contains("formats") {
  let measurements = try formatKinds.map {
    try FormatMeasurement.run($0, rows: formatRows, folder: folder, repeats: repeats)
  }
  var peers: [String: Any]? = nil
  if runPeers {
    FileHandle.standardError.write(Data("measuring polars/pandas/numpy.memmap on the venue files\n".utf8))
    peers = try PeerMeasurement.runFormats(python: python, measurements: measurements, repeats: repeats)
  }
  report.addFormats(measurements, peers: peers)
}
if !parts.isDisjoint(with: ["backtest", "sweep"]) {
  let data = try ConvergenceData(rows: convergenceRows, folder: folder)
  let sweep = parts.contains("sweep") ? try SweepMeasurement.run(data, arbkit: arbkit, folder: folder, repeats: repeats) : nil
  var backtest: BacktestMeasurement? = nil
  if parts.contains("backtest") {
    FileHandle.standardError.write(Data("measuring arbkit backtest on \(data.rows) rows × 2 venues\n".utf8))
    backtest = try BacktestMeasurement.run(data, repeats: repeats)
  }
  var peers: [String: Any]? = nil
  if runPeers {
    FileHandle.standardError.write(Data("measuring numba (and vectorbt) on the same caches\n".utf8))
    peers = try PeerMeasurement.runConvergence(
      python: python, data: data, parts: parts.intersection(["backtest", "sweep"]), repeats: repeats,
      sweepRepeats: min(repeats, 3), vectorbtCells: parts.contains("sweep") ? vectorbtCells : 0)
    do {
      try ConvergenceCheck.verify(backtest: backtest, sweep: sweep, peers: peers!)
    } catch {
      FileHandle.standardError.write(Data("arbkit-bench: FAILED: \(error)\n".utf8))
      exit(1)
    }
  }
  report.addConvergence(data, backtest: backtest, sweep: sweep, peers: peers, repeats: repeats)
}
if parts.contains("bookfill") && bookRows > 0 {
  let data = try BookFillData(rows: bookRows, folder: folder)
  let measurement = try BookFillMeasurement.run(data, arbkit: arbkit, folder: folder, repeats: repeats)
  var peers: [String: Any]? = nil
  if runPeers {
    FileHandle.standardError.write(Data("measuring numba on the same book files\n".utf8))
    peers = try PeerMeasurement.runBookFill(python: python, data: data, repeats: repeats)
    do {
      try ConvergenceCheck.verify(bookFill: measurement, peers: peers!)
    } catch {
      FileHandle.standardError.write(Data("arbkit-bench: FAILED: \(error)\n".utf8))
      exit(1)
    }
  }
  report.addBookFill(data, measurement, peers: peers, repeats: repeats)
}
if parts.contains("timeseries") && rollingPoints > 0 && matrixShape.count == 2 {
  FileHandle.standardError.write(Data("measuring rolling z-score (\(rollingPoints) points) and correlation (\(matrixShape[0]) × \(matrixShape[1]))\n".utf8))
  let measurement = try TimeSeriesMeasurement.run(
    points: rollingPoints, window: window, series: matrixShape[0], seriesPoints: matrixShape[1], folder: folder, repeats: repeats)
  var peers: [String: Any]? = nil
  if runPeers {
    FileHandle.standardError.write(Data("measuring pandas rolling and numpy X @ X.T (OPENBLAS_NUM_THREADS=1)\n".utf8))
    peers = try PeerMeasurement.runTimeSeries(python: python, measurement, repeats: repeats)
  }
  report.addTimeSeries(measurement, peers: peers)
}
if parts.contains("overfitting") {
  FileHandle.standardError.write(Data("measuring CSCV, deflated Sharpe and bootstrap on 365 periods × 1000 cells\n".utf8))
  report.addOverfitting(OverfittingMeasurement.run(repeats: repeats))
}
if parts.contains("parquet") && parquetRows > 0 {
  report.addParquet(
    try ParquetMeasurement.run(rows: parquetRows, folder: folder, python: python, peers: runPeers, arbkit: arbkit, repeats: repeats))
}
print(report.rendered)
