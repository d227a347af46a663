import Foundation

/// Runs the Python peers (pandas/polars/numpy doing the same work) and returns their JSON.
enum PeerMeasurement {
  /// Runs `bench/peers.py` on the premium pipeline's files.
  static func run(python: String, files: [String], repeats: Int) throws -> [String: Any] {
    try script(python, "bench/peers.py", ["--files"] + files + ["--repeat", "\(repeats)", "--max-stale-us", "5000000"])
  }

  /// Runs `bench/formats.py`: polars/pandas reading each venue file, numpy.memmap
  /// scanning each cache.
  static func runFormats(python: String, measurements: [FormatMeasurement], repeats: Int) throws -> [String: Any] {
    let files = measurements.flatMap { m in [m.plain, m.gzip].flatMap { ["--file", m.kind.rawValue, $0] } }
    let caches = measurements.flatMap { ["--cache", $0.cache] }
    return try script(python, "bench/formats.py", files + caches + ["--repeat", "\(repeats)"])
  }

  /// Runs `bench/backtest.py`: the numba backtest and brute-force sweep (and
  /// vectorbt on `vectorbtCells` cells) on the caches of `data`.
  static func runConvergence(
    python: String, data: ConvergenceData, parts: Set<String>, repeats: Int, sweepRepeats: Int, vectorbtCells: Int
  ) throws -> [String: Any] {
    typealias D = ConvergenceData
    return try script(
      python, "bench/backtest.py",
      ["--legs"] + data.caches + [
        "--repeat", "\(repeats)", "--max-stale-us", "\(D.maxStale)", "--latency-us", "\(D.latency)",
        "--slippage-bps", "\(D.slippageBps)", "--notional", "\(D.notional)", "--fees", D.fees.map { "\($0)" }.joined(separator: ","),
        "--entry", "\(D.entry)", "--exit", "\(D.exit)", "--sweep-entries=" + D.entries.joined(separator: ","),
        "--sweep-exits=" + D.exits.joined(separator: ","), "--sweep-fees=" + D.legTwoFees.joined(separator: ","),
        "--sweep-repeat", "\(sweepRepeats)", "--vectorbt-cells", "\(vectorbtCells)", "--only", parts.sorted().joined(separator: ","),
      ])
  }

  /// Runs `bench/bookfill.py`: the book-fill backtest's rules as a numba loop on the same
  /// book files, read with polars.
  static func runBookFill(python: String, data: BookFillData, repeats: Int) throws -> [String: Any] {
    typealias D = BookFillData
    return try script(
      python, "bench/bookfill.py",
      ["--books"] + data.files + [
        "--repeat", "\(repeats)", "--max-stale-us", "\(D.maxStale)", "--latency-us", "\(D.latency)", "--slippage-bps", "\(D.slippageBps)",
        "--notional", "\(D.notional)", "--fees", D.fees.map { "\($0)" }.joined(separator: ","), "--entry", "\(D.entry)", "--exit", "\(D.exit)",
        "--partial", D.partial.rawValue,
      ])
  }

  /// Runs `bench/peers.py --rolling/--matrix`: pandas rolling mean/std/z and numpy
  /// `X @ X.T` / `corrcoef` on the same generated files, OpenBLAS pinned to one thread
  /// as `Analytics.configure()` pins ArbKit's.
  static func runTimeSeries(python: String, _ m: TimeSeriesMeasurement, repeats: Int) throws -> [String: Any] {
    try script(
      python, "bench/peers.py",
      [
        "--rolling", m.rollingFile, "--window", "\(m.window)", "--matrix", m.matrixFile, "--series", "\(m.series)",
        "--repeat", "\(repeats)",
      ], environment: ["OPENBLAS_NUM_THREADS": "1"])
  }

  /// Runs `bench/parquet.py` with `arguments`: generating the quotes Parquet files, or
  /// pyarrow's and polars' read and pyarrow's write of one.
  static func parquet(python: String, _ arguments: [String]) throws -> [String: Any] {
    try script(python, "bench/parquet.py", arguments)
  }

  /// Runs one script and parses the JSON object it prints.
  private static func script(_ python: String, _ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> [String: Any] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [path] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw BenchError("\(path) failed with status \(process.terminationStatus)")
    }
    return object
  }
}
