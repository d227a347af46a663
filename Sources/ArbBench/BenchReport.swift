import Foundation

/// The side-by-side table printed at the end of a benchmark run.
struct BenchReport {
  private var text = ""

  mutating func add(rows: Int, venues: Int, swift: SwiftMeasurement, peers: [String: Any]?) {
    let mb = Double(swift.bytes) / 1e6
    text += "\n\(rows) rows × \(venues) venues: \(format(mb, 1)) MB of Tardis quotes CSV, \(swift.rows) rows, "
    text += "\(swift.points) clock points (\(swift.validPoints) valid)\n"
    text += "medians of the runs; ratio = arbkit speed / peer speed\n\n"
    func peerMedian(_ library: String, _ key: String) -> Double? {
      ((peers?[library] as? [String: Any])?[key] as? [String: Any])?["median"] as? Double
    }
    var rowsOut: [[String]] = []
    func add(_ stage: String, unit: String, amount: Double, arbkit: Double, _ others: [(String, Double?)]) {
      var row = [stage, unit, format(amount / arbkit / 1e6, 1)]
      for (_, seconds) in others {
        if let seconds { row += [format(amount / seconds / 1e6, 1), format(seconds / arbkit, 1) + "×"] } else { row += ["-", "-"] }
      }
      rowsOut.append(row)
    }
    let ingest = median(swift.ingest), align = median(swift.alignPremium), stats = median(swift.statistics)
    add(
      "ingest", unit: "MB/s", amount: Double(swift.bytes), arbkit: ingest,
      [("polars", peerMedian("polars", "ingest_s")), ("pandas", peerMedian("pandas", "ingest_s"))])
    add(
      "ingest", unit: "M rows/s", amount: Double(swift.rows), arbkit: ingest,
      [("polars", peerMedian("polars", "ingest_s")), ("pandas", peerMedian("pandas", "ingest_s"))])
    add(
      "align + premium", unit: "M events/s", amount: Double(swift.points), arbkit: align,
      [("polars", peerMedian("polars", "align_premium_s")), ("pandas", peerMedian("pandas", "align_premium_s"))])
    add(
      "statistics", unit: "M events/s", amount: Double(swift.validPoints), arbkit: stats,
      [("numpy", peerMedian("numpy", "stats_s")), ("", nil)])
    let headers = ["stage", "unit", "arbkit", "polars/numpy", "ratio", "pandas", "ratio"]
    var widths = headers.map(\.count)
    for row in rowsOut { for (k, cell) in row.enumerated() { widths[k] = max(widths[k], cell.count) } }
    for row in [headers] + rowsOut {
      text +=
        row.enumerated().map { k, cell in
          k < 2 ? cell.padding(toLength: widths[k], withPad: " ", startingAt: 0) : String(repeating: " ", count: widths[k] - cell.count) + cell
        }.joined(separator: "  ") + "\n"
    }
    text += "\nfull premium analysis (mid + exec, bands, half-life): \(format(Double(swift.points) / median(swift.fullAnalysis) / 1e6, 1)) M events/s\n"
    text +=
      "peak memory of `arbkit premium`: \(format(Double(swift.peakMemoryBytes) / 1e6, 0)) MB; kept columns \(format(Double(swift.columnBytes) / 1e6, 0)) MB "
    text += "(\(format(Double(swift.peakMemoryBytes) / Double(swift.columnBytes), 2))×)\n"
    text += "arbkit runs (s): ingest \(list(swift.ingest)), align+premium \(list(swift.alignPremium)), statistics \(list(swift.statistics))\n"
    if let check = peers?["check"] as? [String: Any] {
      let keys = ["count", "mean", "std", "q50", "share_events_0.1", "episodes_0.1"]
      let agree = keys.allSatisfy { key in
        guard let a = swift.check[key], let b = check[key] as? Double ?? (check[key] as? Int).map(Double.init) else { return false }
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1)
      }
      text += "results agree with the peers (count, mean, std, median, share ≥ 0.1 %, episodes): \(agree ? "yes" : "NO")\n"
      if !agree { text += "  arbkit \(swift.check)\n  peers  \(keys.map { "\($0): \(check[$0] ?? "-")" })\n" }
    }
    if let versions = peers?["versions"] as? [String: Any] {
      text += "peers: " + versions.keys.sorted().map { "\($0) \(versions[$0]!)" }.joined(separator: ", ") + "\n"
    }
  }

  /// Venue files read by arbkit, polars and pandas; caches scanned by arbkit, numpy and cat.
  mutating func addFormats(_ measurements: [FormatMeasurement], peers: [String: Any]?) {
    let files = (peers?["files"] as? [[String: Any]]) ?? []
    let scans = (peers?["memmap"] as? [[String: Any]]) ?? []
    func peer(_ path: String, _ key: String) -> Double? {
      (files.first { $0["path"] as? String == path }?[key] as? [String: Any])?["median"] as? Double
    }
    text += "\nvenue files: ingest into columns (medians; ratio = arbkit speed / peer speed)\n\n"
    var rows: [[String]] = []
    for m in measurements {
      for (path, bytes, runs) in [(m.plain, m.plainBytes, m.ingestPlain), (m.gzip, m.gzipBytes, m.ingestGzip)] {
        let arbkit = median(runs), mb = Double(bytes) / 1e6
        var row = [
          path.split(separator: "/").last.map(String.init) ?? path, format(mb, 0), "\(m.fileRows)", format(Double(m.fileRows) / arbkit / 1e6, 1),
          format(arbkit, 3),
        ]
        for key in ["polars_s", "pandas_s"] {
          if let seconds = peer(path, key) { row += [format(seconds, 3), format(seconds / arbkit, 2) + "×"] } else { row += ["-", "-"] }
        }
        rows.append(row)
      }
    }
    text += table(["file", "MB", "rows", "arbkit M rows/s", "arbkit s", "polars s", "ratio", "pandas s", "ratio"], rows)
    text += "\ncolumnar cache: open + full scan of every column (medians; time ratios, below 1× is faster)\n\n"
    rows = []
    var agree = true
    for m in measurements {
      let arbkit = median(m.openScan), cat = median(m.cat)
      let scan = scans.first { $0["path"] as? String == m.cache }
      let numpy = (scan?["scan_s"] as? [String: Any])?["median"] as? Double
      if let sum = scan?["sum"] as? NSNumber, sum.uint64Value != m.scanSum { agree = false }
      rows.append([
        m.kind.rawValue, "\(m.seriesRows)", format(Double(m.cacheBytes) / 1e6, 0), format(arbkit * 1e3, 1), format(cat * 1e3, 1),
        numpy.map { format($0 * 1e3, 1) } ?? "-", format(arbkit / cat, 2) + "×", numpy.map { format(arbkit / $0, 2) + "×" } ?? "-",
      ])
    }
    text += table(["cache", "rows", "MB", "arbkit ms", "cat ms", "numpy.memmap ms", "arbkit ÷ cat time", "arbkit ÷ numpy time"], rows)
    if !scans.isEmpty { text += "column sums agree with numpy.memmap: \(agree ? "yes" : "NO")\n" }
    text +=
      "arbkit: Ingest.read (a plain file on two threads), cache: Ingest.read of the folder (mmap + copy into arrays) and a pass over every word; cat: /bin/cat of the column files to /dev/null, started with posix_spawn, timed to its exit\n"
  }

  /// The backtest and sweep next to numba (and vectorbt), after their results were
  /// checked equal (`ConvergenceCheck`).
  mutating func addConvergence(
    _ data: ConvergenceData, backtest: BacktestMeasurement?, sweep: SweepMeasurement?, peers: [String: Any]?, repeats: Int
  ) {
    func seconds(_ key: String) -> [Double]? { ((peers?[key] as? [String: Any])?["seconds"] as? [String: Any])?["runs"] as? [Double] }
    let points = backtest?.points ?? (peers?["points"] as? Int) ?? 0
    let valid = backtest?.validPoints ?? (peers?["valid_points"] as? Int) ?? 0
    text += "\nconvergence backtest and sweep: \(data.rows) rows × 2 venues, \(points) clock points (\(valid) valid), "
    text += "the same column files for every side\nmedians of \(repeats) runs; ratio = peer time / arbkit time\n\n"
    var rows: [[String]] = []
    let numbaBacktest = seconds("backtest").map(median), numbaSweep = seconds("sweep").map(median)
    if let backtest {
      let arbkit = median(backtest.seconds)
      rows.append([
        "backtest, 1 run (\(backtest.trades) trades)", format(arbkit, 3), numbaBacktest.map { format($0, 3) } ?? "-",
        numbaBacktest.map { format($0 / arbkit, 2) + "×" } ?? "-", "-", "-",
      ])
    }
    let vectorbt = peers?["vectorbt"] as? [String: Any]
    let vectorbtCell = (vectorbt?["cell_seconds"] as? [Double]).flatMap { $0.isEmpty ? nil : median($0) }
    // A sweep from the cache files to the results on both sides: numpy's open and
    // align, then the brute-force loop.
    let numbaSetup = seconds("setup").map(median)
    let numbaWhole = numbaSweep.flatMap { loop in numbaSetup.map { loop + $0 } }
    for run in sweep?.runs ?? [] where run.cells == 1000 {
      let arbkit = median(run.seconds), vbt = vectorbtCell.map { $0 * Double(run.cells) }
      rows.append([
        "sweep, \(run.cells) cells, arbkit --jobs \(run.jobs)", format(arbkit, 3), numbaWhole.map { format($0, 2) } ?? "-",
        numbaWhole.map { format($0 / arbkit, 0) + "×" } ?? "-", vbt.map { format($0, 0) } ?? "-", vbt.map { format($0 / arbkit, 0) + "×" } ?? "-",
      ])
    }
    text += table(["work", "arbkit s", "numba s", "ratio", "vectorbt s", "ratio"], rows)
    if let numbaSweep, let numbaSetup, let best = sweep?.runs.filter({ $0.cells == 1000 }).map({ median($0.seconds) }).min() {
      text += "numba sweep = open and align in numpy \(format(numbaSetup, 2)) s + brute-force loop \(format(numbaSweep, 2)) s; "
      text += "the loop alone over arbkit's whole sweep: \(format(numbaSweep / best, 0))×\n"
      if let one = sweep?.runs.first(where: { $0.cells == 1 }).map({ median($0.seconds) }), best > one {
        // What each cell past the first costs: the sweep less a one-cell sweep (start,
        // open, align, index), against the loop's time per cell.
        let arbkitCell = (best - one) / 999, numbaCell = numbaSweep / 1000
        text += "per cell past the first: arbkit \(format(arbkitCell * 1e3, 3)) ms ((sweep − 1-cell sweep) / 999), "
        text += "numba \(format(numbaCell * 1e3, 1)) ms (loop / 1000): \(format(numbaCell / arbkitCell, 0))×\n"
      }
    }
    if let backtest {
      text +=
        "arbkit backtest: ConvergenceBacktest.run in process (plain pass over every point + pricing), on legs opened and aligned once (untimed); runs (s) \(list(backtest.seconds))\n"
      text += "heap allocations in one run: \(backtest.allocations) for \(backtest.points) points and \(backtest.trades) trades "
      text +=
        "(appending \(backtest.trades) trades to an empty array alone makes \(backtest.outputAllocations)), counted by malloc/calloc/realloc/memalign wrappers linked into arbkit-bench\n"
    }
    if let sweep {
      text += "arbkit sweep: the CLI from spawn to exit (open the caches, align, index, 200 simulations, 1000 rows priced and written); "
      text += "runs (s) " + sweep.runs.filter { $0.cells == 1000 }.map { "--jobs \($0.jobs): \(list($0.seconds))" }.joined(separator: "; ") + "\n"
      if let one = sweep.runs.first(where: { $0.cells == 1 }) {
        text +=
          "arbkit sweep of 1 cell (start, open the caches, align, index, one simulation): \(format(median(one.seconds), 3)) s, runs \(list(one.seconds))\n"
      }
      text +=
        "peak memory of arbkit sweep: "
        + sweep.runs.sorted { ($0.cells, $0.jobs) < ($1.cells, $1.jobs) }.map {
          "\($0.cells) cells (--jobs \($0.jobs)) \(format(Double($0.peakMemoryBytes) / 1e6, 0)) MB"
        }.joined(separator: ", ") + "\n"
    }
    if let peers {
      if let setup = seconds("setup") { text += "numpy open (np.fromfile) and align (union1d, searchsorted): runs (s) \(list(setup))\n" }
      text += "numba: @njit single-threaded, timed after a warm-up call (JIT compile excluded: \(format(peers["compile_s"] as? Double ?? .nan, 2)) s"
      if let compile = peers["sweep_compile_s"] as? Double { text += ", brute-force sweep \(format(compile, 2)) s" }
      text += "); the brute-force sweep runs every cell in full"
      if let runs = seconds("sweep") { text += "; sweep runs (s) \(list(runs))" }
      text += "\n"
      if let vectorbt {
        if let error = vectorbt["error"] as? String {
          text += "vectorbt: \(error)\n"
        } else if let cells = vectorbt["cells"] as? [[Any]] {
          text += "vectorbt \(vectorbt["version"] ?? "?"): Portfolio.from_signals, the closest equivalent (bench/backtest.py, vectorbt_cell); "
          text += "\(cells.count) cells timed (s) \(list(vectorbt["cell_seconds"] as? [Double] ?? [])), scaled to 1000 cells\n"
          if let sweep {
            text +=
              "  vectorbt vs the exact rules (trades, PnL): "
              + cells.enumerated().map { k, cell in
                "\(cell[0])/\(sweep.trades[k]), \(format(cell[1] as? Double ?? .nan, 1))/\(format(sweep.pnl[k], 1))"
              }.joined(separator: "; ") + "\n"
          }
        }
      }
      if let versions = peers["versions"] as? [String: Any] {
        text += "peers: " + versions.keys.sorted().map { "\($0) \(versions[$0]!)" }.joined(separator: ", ") + "\n"
      }
    }
  }

  /// The book-fill backtest next to numba, after their results were checked equal.
  mutating func addBookFill(_ data: BookFillData, _ m: BookFillMeasurement, peers: [String: Any]?, repeats: Int) {
    func seconds(_ key: String) -> [Double]? { ((peers?[key] as? [String: Any])?["seconds"] as? [String: Any])?["runs"] as? [Double] }
    text += "\nbook-fill backtest (costs.fill book, costs.partial \(BookFillData.partial.rawValue)): \(data.rows) book_snapshot_5 rows × 2 venues, "
    text += "\(m.points) clock points (\(m.validPoints) valid), \(m.trades) trades\nmedians of \(repeats) runs; ratio = numba time / arbkit time\n\n"
    let engine = median(m.engineSeconds), command = median(m.commandSeconds)
    let loop = seconds("bookfill").map(median), setup = seconds("setup").map(median)
    let whole = loop.flatMap { loop in setup.map { loop + $0 } }
    text += table(
      ["work", "arbkit s", "numba s", "ratio"],
      [
        ["the backtest on loaded, aligned books", format(engine, 4), loop.map { format($0, 4) } ?? "-", loop.map { format($0 / engine, 2) + "×" } ?? "-"],
        ["from the CSV files to the result", format(command, 3), whole.map { format($0, 3) } ?? "-", whole.map { format($0 / command, 2) + "×" } ?? "-"],
      ])
    text +=
      "arbkit engine: ConvergenceBacktest.run in process (decide over every point, then the book walks of every trade) on legs read and aligned once (untimed); runs (s) \(list(m.engineSeconds))\n"
    text +=
      "arbkit backtest SCENARIO --format json from spawn to exit (read both CSV files with their books, align, run, report); runs (s) \(list(m.commandSeconds)); "
    text += "peak memory \(format(Double(m.commandPeakBytes) / 1e6, 0)) MB\n"
    text += "heap allocations in one run: \(m.decideAllocations) deciding over \(m.points) points, \(m.priceAllocations) pricing \(m.trades) trades, "
    text += "counted by malloc/calloc/realloc/memalign wrappers linked into arbkit-bench\n"
    if let peers {
      if let runs = seconds("setup") { text += "numba side, untimed in its loop: polars read_csv of both files and numpy align; runs (s) \(list(runs))\n" }
      text += "numba: @njit single-threaded, the same rules (bench/bookfill.py), used-up levels in arrays allocated once per run, "
      text +=
        "timed after a warm-up call (JIT compile excluded: \(format(peers["compile_s"] as? Double ?? .nan, 2)) s); runs (s) \(list(seconds("bookfill") ?? []))\n"
      text += "trades and PnL agree (arbkit backtest, engine, numba): yes, \(m.trades) trades, PnL \(format(m.pnl, 4))\n"
      if let versions = peers["versions"] as? [String: Any] {
        text += "peers: " + versions.keys.sorted().map { "\($0) \(versions[$0]!)" }.joined(separator: ", ") + "\n"
      }
    }
  }

  /// Rolling z-score against pandas, the correlation matrix against numpy.
  mutating func addTimeSeries(_ m: TimeSeriesMeasurement, peers: [String: Any]?) {
    func peer(_ section: String, _ key: String) -> Double? {
      ((peers?[section] as? [String: Any])?[key] as? [String: Any])?["median"] as? Double
    }
    text += "\ntime series (medians; ratio = peer time / arbkit time, above 1× arbkit is faster)\n\n"
    let rolling = median(m.rolling), matrix = median(m.matrix)
    var rows: [[String]] = []
    func add(_ stage: String, _ arbkit: Double, _ name: String, _ seconds: Double?) {
      rows.append([stage, format(arbkit, 3), name, seconds.map { format($0, 3) } ?? "-", seconds.map { format($0 / arbkit, 2) + "×" } ?? "-"])
    }
    let rollingStage = "rolling mean/std/z, \(m.points) points, window \(m.window)"
    add(rollingStage, rolling, "pandas rolling(W).mean()/.std()", peer("rolling", "pandas_s"))
    let matrixStage = "correlation \(m.series) × \(m.seriesPoints)"
    add(matrixStage, matrix, "numpy X @ X.T", peer("matrix", "numpy_xxt_s"))
    add(matrixStage, matrix, "numpy corrcoef(X)", peer("matrix", "numpy_corrcoef_s"))
    text += table(["stage", "arbkit s", "peer", "peer s", "ratio"], rows)
    text += "arbkit runs (s): rolling \(list(m.rolling)), correlation \(list(m.matrix))\n"
    text +=
      "arbkit: RollingStatistics (windowed Welford, mean/std/z per point); CovarianceMatrix(matrix:) complete case (one pass centring in place, one dsyrk, correlations). "
    text += "BLAS on one thread on both sides (Analytics.configure(); OPENBLAS_NUM_THREADS=1 for numpy)\n"
    if let check = peers?["check"] as? [String: Any] {
      let keys = ["z_last", "std_last", "corr_0_1", "corr_0_last"]
      let agree = keys.allSatisfy { key in
        guard let a = m.check[key], let b = check[key] as? Double else { return false }
        return abs(a - b) <= 1e-8 * max(abs(a), abs(b), 1)
      }
      text += "results agree with the peers (last z and std, two correlations): \(agree ? "yes" : "NO")\n"
      if !agree { text += "  arbkit \(m.check)\n  peers  \(check)\n" }
    }
    if let versions = peers?["versions"] as? [String: Any] {
      text += "peers: " + versions.keys.sorted().map { "\($0) \(versions[$0]!)" }.joined(separator: ", ")
      text += ", OPENBLAS_NUM_THREADS=\(peers?["openblas_num_threads"] ?? "-")\n"
    }
  }

  mutating func addOverfitting(_ m: OverfittingMeasurement) {
    text += "\nout-of-sample statistics (arbkit validate) on \(m.periods) periods × \(m.cells) cells (medians)\n\n"
    text += table(
      ["stage", "arbkit s"],
      [
        ["CSCV, \(m.combinations) combinations of 8 of 16 blocks", format(median(m.cscv), 3)],
        ["deflated Sharpe", format(median(m.deflated), 3)],
        ["bootstrap, 1000 resamples of the best cell", format(median(m.bootstrap), 3)],
      ])
    text += "arbkit runs (s): CSCV \(list(m.cscv)), deflated Sharpe \(list(m.deflated)), bootstrap \(list(m.bootstrap))\n"
  }

  /// The quotes Parquet files read and written by arbkit, pyarrow and polars.
  mutating func addParquet(_ measurements: [ParquetMeasurement]) {
    text += "\nParquet: a pyarrow-written quotes file read into columns and written (medians of interleaved runs; ratio = arbkit time / peer time)\n\n"
    var rows: [[String]] = []
    for m in measurements {
      let inspect = median(m.inspect), convert = median(m.convert)
      func peer(_ runs: [Double]) -> (String, String) {
        runs.isEmpty ? ("-", "-") : (format(median(runs), 3), format(inspect / median(runs), 2) + "×")
      }
      let (pyarrow, pyarrowRatio) = peer(m.pyarrowRead), (polars, polarsRatio) = peer(m.polarsRead)
      // arbkit's write: convert (read + write) less inspect (read).
      let write = convert - inspect
      var row: [String] = [m.codec, format(Double(m.bytes) / 1e6, 0), format(inspect, 3), pyarrow, pyarrowRatio, polars, polarsRatio]
      row += [format(convert, 3), format(write, 3)]
      if m.pyarrowWrite.isEmpty {
        row += ["-", "-"]
      } else {
        let peerWrite = median(m.pyarrowWrite)
        row += [format(peerWrite, 3), format(write / peerWrite, 2) + "×"]
      }
      rows.append(row)
    }
    text += table(
      [
        "codec", "MB", "arbkit read s", "pyarrow s", "ratio", "polars s", "ratio", "arbkit convert s", "arbkit write s", "pyarrow write s",
        "ratio",
      ], rows)
    for m in measurements {
      text += "\(m.file): inspect \(list(m.inspect)); convert \(list(m.convert)); pyarrow read \(list(m.pyarrowRead)); "
      text += "polars read \(list(m.polarsRead)); pyarrow write \(list(m.pyarrowWrite))\n"
    }
    if let versions = measurements.first?.versions, !versions.isEmpty {
      text += "peers: " + versions.keys.sorted().map { "\($0) \(versions[$0]!)" }.joined(separator: ", ") + "\n"
    }
    text +=
      "arbkit read: `arbkit inspect FILE --format json`; convert: `arbkit convert FILE --out X.parquet` (zstd), its write = convert - read; whole processes from spawn to exit. pyarrow: `pq.read_table`, `pq.write_table(compression='zstd')`; polars: `pl.read_parquet`; in process\n"
  }

  private func table(_ headers: [String], _ rows: [[String]]) -> String {
    var widths = headers.map(\.count)
    for row in rows { for (k, cell) in row.enumerated() { widths[k] = max(widths[k], cell.count) } }
    return ([headers] + rows).map { row in
      row.enumerated().map { k, cell in
        k == 0 ? cell.padding(toLength: widths[k], withPad: " ", startingAt: 0) : String(repeating: " ", count: widths[k] - cell.count) + cell
      }.joined(separator: "  ")
    }.joined(separator: "\n") + "\n"
  }

  var rendered: String { text }

  private func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
  private func list(_ values: [Double]) -> String { values.map { format($0, 3) }.joined(separator: " ") }
}
