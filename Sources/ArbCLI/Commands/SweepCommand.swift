import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import ArbReport
import ArbResearch
import Dispatch
import Foundation
import Synchronization

/// `arbkit sweep SCENARIO.json --grid KEY=SPEC …`: the backtest over every cell of a
/// parameter grid, on all cores, one CSV row per cell in grid order.
struct SweepCommand: Command {
  static let name = "sweep"
  /// No switch sorts the rows read: a row out of order is an error to fix in the data.
  static let sortSwitch: String? = nil
  static let abstract = "Run a scenario's backtest over a parameter grid: one CSV row per cell, sharding and resume"
  static let usage = """
    Usage: arbkit sweep SCENARIO.json --grid KEY=SPEC [--grid …] [options]

    Runs the scenario's backtest for every cell of the grid (any scenario key is an
    axis; SPEC is a list 0,0.02,0.05 or a range START:STOP:STEP of numbers or
    durations, inclusive of STOP when it lands on the step). Writes CSV: the grid keys
    in the order given, then trades,wins,pnl,pnl_bps,fees,max_drawdown,exposure,
    mean_holding_s,forced_exits,sharpe,funding (mode carry; empty otherwise);
    rows in grid order (first axis slowest), the same bytes for any --jobs. Cells
    that differ only in fees, slippage, notional (or a carry perp's contract size)
    share one simulation. With --out, the ranked cells follow on stdout.
    Cells with top-of-book fills at any latency (every mode) stream
    their legs (a store from its mapped partitions, files as they are read): memory
    grows with --chunk-rows and the number of cells, not with the history; other
    cells (book-walking fills, a maker leg) read their legs whole.
    --format json prints one JSON object instead of the CSV (keys, metrics, and cells:
    one object per cell with the grid values as given and the metrics as numbers or
    null), which arbkit report --sweep reads as well; it needs stdout (no --out).
    An --out or --pnl-matrix named .arrow, .feather or .parquet (or --output-format)
    is written as Arrow IPC or Parquet, typed, whole at the end; the sidecar's fields
    are in its key/value metadata (arbkit.sweep). Such an --out cannot be resumed or
    sharded; arbkit validate and report read it back from Parquet.

    Options:
    \(HelpText.options([
      ("--grid KEY=SPEC", "an axis (repeat); e.g. strategy.entry=0.05:0.30:0.01, costs.latency=0ms,50ms"),
      ("--set KEY=VALUE", "override a scenario key for every cell (repeat)"),
      ("--jobs N", "cells run on N threads (default: the number of cores)"),
      ("--chunk-rows N", "valid points, and quotes per leg, worked on at a time by streamed cells (default 65536)"),
      ("--shard I/N", "run every N-th cell starting at cell I (1 ≤ I ≤ N); join shards with arbkit merge"),
      ("--out PATH", "write the CSV here (and PATH.meta.json), or Arrow IPC / Parquet by its extension; default stdout"),
      ("--resume", "continue an interrupted sweep in --out after its last complete row"),
      ("--pnl-matrix PATH", "write each cell's PnL per period as CSV (Arrow IPC / Parquet by its extension): period_start_us, then one column per cell (its number)"),
      ("--period Nh|Nd", "the periods of --pnl-matrix: whole hours or days, counted from 1970-01-01 00:00 in journal.tz (default 1d)"),
      ("--rank METRIC", "rank cells by this metric (default pnl_bps); robustness = mean over the cell and its grid neighbours"),
      ("--top N", "ranked cells shown (default 10)"),
      ("--quiet", "no progress on stderr"),
      ("--format csv|json", "stdout as CSV rows (default) or one JSON object; --out files are CSV or columnar"),
      TableOutput.help,
      ("--registry PATH", "an exchange registry file instead of the built-in one (fees)"),
    ]))
    """

  let path: String
  let grid: SweepGrid
  let overrides: [String]
  let jobs: Int
  let chunkRows: Int
  let shard: (index: Int, count: Int)
  let out: TableOutput?
  let resume: Bool
  /// `--pnl-matrix PATH` and its `--period`.
  let matrix: (output: TableOutput, period: SweepPnLMatrix.Period)?
  let rank: BacktestMetrics.Column
  let top: Int
  let quiet: Bool
  let json: Bool
  let ingest: IngestFlags
  /// The scenario of each cell this run computes, in cell order.
  let cells: [(cell: Int, scenario: Scenario)]

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: [
        "--grid", "--set", "--jobs", "--chunk-rows", "--shard", "--out", "--pnl-matrix", "--period", "--rank", "--top", "--format", "--registry",
        TableOutput.flag,
      ],
      switches: ["--resume", "--quiet"])
    try cursor.validate()
    guard cursor.arguments.count == 1, let path = cursor.arguments.first else {
      throw UsageError("expected one scenario file, was \(cursor.arguments.count) arguments")
    }
    self.path = path
    do { grid = try SweepGrid(parsing: cursor.values("--grid")) } catch { throw UsageError(error.flagMessage) }
    overrides = cursor.values("--set")
    chunkRows = try cursor.chunkRows(atLeast: 2)
    let requestedJobs =
      try cursor.value("--jobs", "a positive number of threads", { Int($0).flatMap { $0 > 0 ? $0 : nil } })
      ?? ProcessInfo.processInfo.activeProcessorCount
    shard =
      try cursor.value("--shard", "I/N with 1 ≤ I ≤ N") { text -> (Int, Int)? in
        let parts = text.split(separator: "/").compactMap { Int($0) }
        return parts.count == 2 && parts[1] >= 1 && (1...parts[1]).contains(parts[0]) ? (parts[0], parts[1]) : nil
      } ?? (1, 1)
    guard shard.count <= grid.cellCount else {
      throw UsageError("--shard \(shard.index)/\(shard.count): N must be at most the grid's \(grid.cellCount) cells")
    }
    let outputs = try TableOutput.parse(cursor, flags: ["--out", "--pnl-matrix"])
    out = outputs[0]
    resume = cursor.flag("--resume")
    if resume && out == nil { throw UsageError("--resume needs --out") }
    if resume, let out, out.format != .csv {
      throw UsageError("--resume: \(out.path) is \(out.format.rawValue), written whole at the end of a run: there is nothing to resume (resume a CSV --out)")
    }
    let period = try cursor.value("--period", "a positive whole number of hours or days (6h, 1d, 2d)", SweepPnLMatrix.Period.init)
    matrix = outputs[1].map { ($0, period ?? .day) }
    if shard.count > 1, let columnar = [out, matrix?.output].compactMap({ $0 }).first(where: { $0.format != .csv }) {
      throw UsageError("--shard: \(columnar.path) is \(columnar.format.rawValue); arbkit merge joins CSV shards (write them as CSV)")
    }
    if let matrix, matrix.output.path == out?.path || matrix.output.path == out.map({ $0.path + ".meta.json" }) {
      throw UsageError("--pnl-matrix: \(matrix.output.path) is also the sweep's --out file or its sidecar")
    }
    if period != nil && matrix == nil { throw UsageError("--period needs --pnl-matrix") }
    rank = try BacktestMetrics.Column.parse(cursor.value("--rank"), flag: "--rank")
    top = try cursor.value("--top", "a positive number", { Int($0).flatMap { $0 > 0 ? $0 : nil } }) ?? 10
    quiet = cursor.flag("--quiet")
    json = try cursor.value("--format", "csv or json") { ["csv": false, "json": true][$0] } ?? false
    if json && out != nil { throw UsageError("--format json prints to stdout; --out files are CSV or columnar (arbkit report --sweep reads them)") }
    ingest = try IngestFlags(cursor)
    // Every cell's scenario is checked before any data is read.
    let document: [String: JSONTree]
    try ScenarioFile.check(path)
    do { document = try Scenario.document(path: path) } catch { throw UsageError(ScenarioFile.explain(error, path: path)) }
    cells = try Self.scenarios(path: path, document: document, overrides: overrides, grid: grid, shard: shard, jobs: requestedJobs)
    if matrix != nil, let zone = cells.first?.scenario.timeZone, let other = cells.first(where: { $0.scenario.timeZone != zone }) {
      throw UsageError("--pnl-matrix: the cells' periods need one journal.tz, was \(zone) and \(other.scenario.timeZone) (cell \(other.cell))")
    }
    // More threads than cells would have nothing to do.
    jobs = min(requestedJobs, max(cells.count, 1))
  }

  /// The scenario of every cell of `shard`, in order, checked in contiguous chunks on
  /// `jobs` threads; the first bad cell (in order) is the error.
  private static func scenarios(
    path: String, document: [String: JSONTree], overrides: [String], grid: SweepGrid, shard: (index: Int, count: Int), jobs: Int
  ) throws(UsageError) -> [(cell: Int, scenario: Scenario)] {
    let chosen = Array(stride(from: shard.index - 1, to: grid.cellCount, by: shard.count))
    let chunks = max(1, min(jobs, chosen.count / 64))
    return try concurrently(chunks) { c throws(UsageError) in
      var cells: [(cell: Int, scenario: Scenario)] = []
      for cell in chosen[chosen.count * c / chunks..<chosen.count * (c + 1) / chunks] {
        do throws(ScenarioError) {
          cells.append((cell, try Scenario.load(path: path, document: document, overrides: overrides + grid.overrides(cell))))
        } catch {
          throw UsageError(ScenarioFile.explain(error, path: path) + " (cell " + grid.overrides(cell).joined(separator: " ") + ")")
        }
      }
      return cells
    }.flatMap { $0 }
  }

  var files: RunFiles {
    var inputs: [String] = []
    var seen: Set<String> = []
    for (_, scenario) in cells {
      for file in ScenarioLegs.files(scenario, path: path) where seen.insert(file).inserted { inputs.append(file) }
    }
    return ingest.files(inputs: inputs, outputs: [out?.path, matrix?.output.path]).adding(derived: csvOut.map { [$0 + ".meta.json", $0 + ".lock"] } ?? [])
  }

  /// The sidecar of this run.
  func meta() throws -> SweepOutput.Meta {
    SweepOutput.Meta(
      scenarioChecksum: try ScenarioFile.checksum(path), grid: grid.specs, overrides: overrides,
      shard: "\(shard.index)/\(shard.count)",
      cells: cells.count, totalCells: grid.cellCount, pnlMatrix: matrix?.output.path, period: matrix?.period.text)
  }

  /// `--out` when it is a CSV file, written row by row with its sidecar.
  private var csvOut: String? { out.flatMap { $0.format == .csv ? $0.path : nil } }

  /// The key/value metadata of the columnar files: the scenario's checksum, and the sidecar's JSON.
  private func columnarMetadata() throws -> [(String, String)] {
    let meta = try meta()
    return [("arbkit.scenario_checksum", meta.scenarioChecksum), (SweepOutput.Meta.metadataKey, try meta.json())]
  }

  /// The types of a columnar `--out`'s columns: a grid axis int64 when its values are all
  /// whole numbers, double when all are numbers, else strings; the counts int64, the other
  /// metrics double.
  private var columnTypes: [ArrowType] {
    grid.axes.map { axis -> ArrowType in
      if axis.values.allSatisfy({ Int64($0) != nil }) { return .int64 }
      return axis.values.allSatisfy({ Double($0)?.isFinite == true }) ? .float64 : .utf8
    } + BacktestMetrics.Column.sweepColumns.map { $0.isCount ? .int64 : .float64 }
  }

  var header: String { (grid.axes.map(\.key) + BacktestMetrics.Column.names).map(CSV.field).joined(separator: ",") }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    var output: SweepOutput?
    do {
      output = try csvOut.map {
        try SweepOutput(path: $0, header: header, meta: try meta(), resume: resume, metrics: BacktestMetrics.Column.sweepColumns.count) { row in
          gridFields(cells[row].cell)
        }
      }
    } catch let error as SweepFileError {
      throw UsageError("--resume: \(error); remove it or drop --resume")
    }
    defer { output?.close() }
    let skip = output?.rowsDone ?? 0
    if out == nil && !json { terminal.print(header) }
    // The matrix needs every cell's periods: a resumed sweep runs its rows on disk again for them.
    let rerun = matrix == nil ? 0 : skip
    let plan: SweepPlan
    // Streamed legs are read while the plan is made: their quotes are the first progress.
    let reading = Progress(total: nil, unit: "quotes", show: Progress.onTerminal(terminal, quiet: quiet), every: 0.2)
    do {
      plan = try SweepPlan(
        cells: Array(cells.dropFirst(skip - rerun)), options: ingest.options, period: matrix?.period.length, stream: true, chunkPoints: chunkRows,
        jobs: jobs, counted: reading.concurrentAdvance)
      reading.finish()
    } catch {
      reading.finish()
      // Refused before any cell ran (a cell's legs cannot serve its rules): a new output is removed again.
      if skip == 0 && !resume { output?.discard() }
      throw error
    }
    let progress = Progress(total: cells.count, done: skip, show: Progress.onTerminal(terminal, quiet: quiet))
    var values: [Double?] = []
    var cellObjects: [JSONValue] = []
    var overflowed: [BacktestMetrics.Column: Int] = [:]
    var columns: [SweepPnLMatrix.Column] = []
    var rerunLeft = rerun
    // A columnar --out's rows, as the CSV would hold them, until the end of the run.
    var table = out != nil && csvOut == nil ? header + "\n" : nil
    try plan.run(jobs: jobs) { all throws in
      // Rows arrive in cell order, a contiguous batch at a time.
      columns += all.compactMap(\.column)
      let batch = all.dropFirst(rerunLeft)
      rerunLeft -= all.count - batch.count
      guard !batch.isEmpty else { return }
      let text = batch.map { row in gridFields(row.cell) + "," + row.csvFields + "\n" }.joined()
      if output != nil {
        try output!.append(text)
      } else if table != nil {
        table! += text
      } else if !json {
        terminal.print(text, terminator: "")
      }
      if json { cellObjects += batch.map(jsonCell) }
      values += batch.map { $0.value(rank) }
      for row in batch { for metric in row.overflowed { overflowed[metric, default: 0] += 1 } }
      progress.advance(batch.count)
    }
    progress.finish()
    if let matrix {
      let text = try SweepPnLMatrix.text(columns, length: matrix.period.length, offset: cells.first?.scenario.timeZoneOffset ?? 0)
      if matrix.output.format == .csv {
        let file = try AtomicFile(path: matrix.output.path)
        try file.write(text)
        try file.commit()
      } else {
        let types = [ArrowType.timestampMicros] + [ArrowType](repeating: .float64, count: columns.count)
        try CSVColumnar.write(text, types: types, to: matrix.output, metadata: try columnarMetadata())
      }
    }
    if let out, let table { try CSVColumnar.write(table, types: columnTypes, to: out, metadata: try columnarMetadata()) }
    if !overflowed.isEmpty {
      let counts = BacktestMetrics.Column.sweepColumns.compactMap { metric in overflowed[metric].map { "\(metric.rawValue) (\($0) cells)" } }.joined(
        separator: ", ")
      terminal.printError("arbkit: warning: figures that are not finite numbers (an overflow on extreme prices or amounts) are left empty: \(counts)")
    }
    if json {
      let keys = grid.axes.map(\.key)
      terminal.print(
        JSONValue.object([
          ("keys", .array(keys.map(JSONValue.string))), ("metrics", .array(BacktestMetrics.Column.names.map(JSONValue.string))), ("cells", .array(cellObjects)),
        ]).rendered())
    }
    if out != nil && skip == 0 && shard.count == 1 {
      terminal.print(SweepRanking(grid: grid, metric: rank, values: values).table(top: top))
    }
    return .success
  }

  /// The grid values of `cell` as CSV fields, joined.
  private func gridFields(_ cell: Int) -> String {
    zip(grid.axes, grid.coordinates(cell)).map { CSV.field($0.values[$1]) }.joined(separator: ",")
  }

  /// One cell of `--format json`: its grid values as given, then every metric.
  private func jsonCell(_ row: SweepRow) -> JSONValue {
    let axes = zip(grid.axes, grid.coordinates(row.cell)).map { ($0.key, JSONValue.string($0.values[$1])) }
    return .object(axes + BacktestMetrics.Column.sweepColumns.map { ($0.rawValue, JSONValue.number(row.value($0))) })
  }
}

extension SweepRanking {
  /// The `top` best cells as `arbkit sweep --out` prints them after the run.
  func table(top: Int) -> String {
    let ranked = ranked
    var table = TextTable(["rank"] + grid.axes.map(\.key) + [metric.rawValue, "robustness"], rightAligned: Set(0...(grid.axes.count + 2)))
    for (k, cell) in ranked.prefix(top).enumerated() {
      let here = grid.coordinates(cell)
      table.add(
        ["\(k + 1)"] + grid.axes.indices.map { grid.axes[$0].values[here[$0]] } + [NumberText.fixed(values[cell], 4), NumberText.fixed(robustness(cell), 4)])
    }
    return "Top \(min(top, ranked.count)) of \(values.count) cells by \(metric.rawValue) (robustness: mean over the cell and its grid neighbours)\n"
      + table.rendered(indent: "  ")
  }
}

extension SweepGridError {
  /// The message as `arbkit sweep` prints it, naming the flag that gave the axis.
  var flagMessage: String {
    switch reason {
    case .notKeySpec(let text): "--grid '\(text)' is not KEY=SPEC"
    case .repeatedKey(let key): "--grid names \(key) twice"
    case .noAxis: "no --grid axis"
    case .tooManyCells: description
    case .axis(let key, let problem): "--grid \(key): \(problem)"
    }
  }
}

extension BacktestMetrics.Column {
  /// The metric a flag names (`--rank`, `--metric`); `pnl_bps` when the flag is absent.
  ///
  /// - Throws: `UsageError` for a name that is no metric, with the closest one.
  static func parse(_ name: String?, flag: String) throws(UsageError) -> Self {
    guard let name else { return .pnlBps }
    guard let column = Self(name: name), sweepColumns.contains(column) else {
      let suggestion = ArgumentCursor.closest(name, among: names)
      throw UsageError("\(flag): unknown metric '\(name)'" + (suggestion.map { ", did you mean '\($0)'?" } ?? ""))
    }
    return column
  }
}
