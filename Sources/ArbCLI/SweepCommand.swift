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
    --format json prints one JSON object instead of the CSV (keys, metrics, and cells:
    one object per cell with the grid values as given and the metrics as numbers or
    null), which arbkit report --sweep reads as well; it needs stdout (no --out).

    Options:
    \(HelpText.options([
      ("--grid KEY=SPEC", "an axis (repeat); e.g. strategy.entry=0.05:0.30:0.01, costs.latency=0ms,50ms"),
      ("--set KEY=VALUE", "override a scenario key for every cell (repeat)"),
      ("--jobs N", "cells run on N threads (default: the number of cores)"),
      ("--shard I/N", "run every N-th cell starting at cell I (1 ≤ I ≤ N); join shards with arbkit merge"),
      ("--out PATH", "write the CSV here (and PATH.meta.json); default stdout"),
      ("--resume", "continue an interrupted sweep in --out after its last complete row"),
      ("--pnl-matrix PATH", "write each cell's PnL per period as CSV: period_start_us, then one column per cell (its number)"),
      ("--period Nh|Nd", "the periods of --pnl-matrix: whole hours or days, counted from 1970-01-01 00:00 in journal.tz (default 1d)"),
      ("--rank METRIC", "rank cells by this metric (default pnl_bps); robustness = mean over the cell and its grid neighbours"),
      ("--top N", "ranked cells shown (default 10)"),
      ("--quiet", "no progress on stderr"),
      ("--format csv|json", "stdout as CSV rows (default) or one JSON object; --out files are CSV"),
      ("--registry PATH", "an exchange registry file instead of the built-in one (fees)"),
    ]))
    """

  static let metrics = ["trades", "wins", "pnl", "pnl_bps", "fees", "max_drawdown", "exposure", "mean_holding_s", "forced_exits", "sharpe", "funding"]

  let path: String
  let grid: SweepGrid
  let overrides: [String]
  let jobs: Int
  let shard: (index: Int, count: Int)
  let out: String?
  let resume: Bool
  /// `--pnl-matrix PATH` and its `--period`.
  let matrix: (path: String, period: SweepPnLMatrix.Period)?
  let rank: String
  let top: Int
  let quiet: Bool
  let json: Bool
  let ingest: IngestFlags
  /// The scenario of each cell this run computes, in cell order.
  let cells: [(cell: Int, scenario: Scenario)]

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: ["--grid", "--set", "--jobs", "--shard", "--out", "--pnl-matrix", "--period", "--rank", "--top", "--format", "--registry"],
      switches: ["--resume", "--quiet"])
    try cursor.validate()
    guard cursor.arguments.count == 1, let path = cursor.arguments.first else {
      throw UsageError("expected one scenario file, was \(cursor.arguments.count) arguments")
    }
    self.path = path
    do { grid = try SweepGrid(parsing: cursor.values("--grid")) } catch { throw UsageError(error.message) }
    overrides = cursor.values("--set")
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
    out = cursor.value("--out")
    resume = cursor.flag("--resume")
    if resume && out == nil { throw UsageError("--resume needs --out") }
    let period = try cursor.value("--period", "a positive whole number of hours or days (6h, 1d, 2d)", SweepPnLMatrix.Period.init)
    matrix = cursor.value("--pnl-matrix").map { ($0, period ?? .day) }
    if let matrix, matrix.path == out || matrix.path == out.map({ $0 + ".meta.json" }) {
      throw UsageError("--pnl-matrix: \(matrix.path) is also the sweep's --out file or its sidecar")
    }
    if period != nil && matrix == nil { throw UsageError("--period needs --pnl-matrix") }
    rank = cursor.value("--rank") ?? "pnl_bps"
    guard Self.metrics.contains(rank) else {
      let suggestion = ArgumentCursor.closest(rank, among: Self.metrics)
      throw UsageError("--rank: unknown metric '\(rank)'" + (suggestion.map { ", did you mean '\($0)'?" } ?? ""))
    }
    top = try cursor.value("--top", "a positive number", { Int($0).flatMap { $0 > 0 ? $0 : nil } }) ?? 10
    quiet = cursor.flag("--quiet")
    json = try cursor.value("--format", "csv or json") { ["csv": false, "json": true][$0] } ?? false
    if json && out != nil { throw UsageError("--format json prints to stdout; --out files are CSV (arbkit report --sweep reads both)") }
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
    return ingest.files(inputs: inputs, outputs: [out, matrix?.path]).adding(derived: out.map { [$0 + ".meta.json", $0 + ".lock"] } ?? [])
  }

  /// The sidecar of this run.
  func meta() throws -> SweepOutput.Meta {
    guard let bytes = FileManager.default.contents(atPath: path) else { throw FileError.missing(path: path) }
    let checksum = String(bytes.withUnsafeBytes { XXHash64.hash($0) }, radix: 16)
    return SweepOutput.Meta(
      scenarioChecksum: String(repeating: "0", count: 16 - checksum.count) + checksum, grid: grid.specs, overrides: overrides,
      shard: "\(shard.index)/\(shard.count)",
      cells: cells.count, totalCells: grid.cellCount, pnlMatrix: matrix?.path, period: matrix?.period.text)
  }

  var header: String { (grid.axes.map(\.key) + Self.metrics).map(CSV.field).joined(separator: ",") }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    var output = try out.map {
      try SweepOutput(path: $0, header: header, meta: try meta(), resume: resume, metrics: Self.metrics.count) { row in gridFields(cells[row].cell) }
    }
    defer { output?.close() }
    let skip = output?.rowsDone ?? 0
    if out == nil && !json { terminal.print(header) }
    // The matrix needs every cell's periods: a resumed sweep runs its rows on disk again for them.
    let rerun = matrix == nil ? 0 : skip
    let plan = try SweepPlan(cells: Array(cells.dropFirst(skip - rerun)), options: ingest.options, period: matrix?.period.length)
    let progress = Progress(total: cells.count, done: skip, show: !quiet && terminal.passthrough && isatty(STDERR_FILENO) == 1)
    var rows: [String] = []
    var values: [Double?] = []
    var cellObjects: [JSONValue] = []
    var overflowed: [String: Int] = [:]
    var columns: [SweepPnLMatrix.Column] = []
    var rerunLeft = rerun
    try plan.run(jobs: jobs) { all throws in
      // Rows arrive in cell order, a contiguous batch at a time.
      columns += all.compactMap(\.column)
      let batch = all.dropFirst(rerunLeft)
      rerunLeft -= all.count - batch.count
      guard !batch.isEmpty else { return }
      let text = batch.map { row in gridFields(row.cell) + "," + row.row + "\n" }.joined()
      if output != nil { try output!.append(text) } else if !json { terminal.print(text, terminator: "") }
      if json { cellObjects += batch.map(jsonCell) }
      rows += batch.map(\.row)
      values += batch.map { $0.metrics[rank] ?? nil }
      for row in batch { for metric in row.overflowed { overflowed[metric, default: 0] += 1 } }
      progress.advance(batch.count)
    }
    progress.finish()
    if let matrix {
      let file = try AtomicFile(path: matrix.path)
      try file.write(try SweepPnLMatrix.text(columns, length: matrix.period.length, offset: cells.first?.scenario.timeZoneOffset ?? 0))
      try file.commit()
    }
    if !overflowed.isEmpty {
      let counts = Self.metrics.compactMap { metric in overflowed[metric].map { "\(metric) (\($0) cells)" } }.joined(separator: ", ")
      terminal.printError("arbkit: warning: figures that are not finite numbers (an overflow on extreme prices or amounts) are left empty: \(counts)")
    }
    if json {
      let keys = grid.axes.map(\.key)
      terminal.print(
        JSONValue.object([
          ("keys", .array(keys.map(JSONValue.string))), ("metrics", .array(Self.metrics.map(JSONValue.string))), ("cells", .array(cellObjects)),
        ]).rendered())
    }
    if out != nil && skip == 0 && shard.count == 1 {
      terminal.print(SweepRanking(grid: grid, metric: rank, values: values, top: top).table)
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
    return .object(axes + Self.metrics.map { ($0, JSONValue.number(row.metrics[$0] ?? nil)) })
  }
}

/// One computed cell: its CSV metrics and their values.
struct SweepRow {
  var cell: Int
  var row: String
  /// A figure that is not a finite number is `nil` (empty in `row`) and named in `overflowed`.
  var metrics: [String: Double?]
  var overflowed: [String]
  /// The cell's column of the PnL matrix, when the sweep writes one.
  var column: SweepPnLMatrix.Column?
}

/// The work of a sweep: legs loaded once per distinct set of files, alignment (and
/// the first-passage index) once per distinct clock and staleness, and one
/// convergence or carry simulation per distinct set of rules, found by first-passage
/// queries and priced for every cell that shares it.
struct SweepPlan {
  /// One cell: its scenario, each leg's taker fee and the engine that runs it.
  struct Cell {
    var cell: Int
    var scenario: Scenario
    var fees: [Double]
    var engine: ScenarioEngine
  }

  /// Cells with equal keys share one simulation: the same prepared data, and engines
  /// that decide the same round trips (`decisionKey`: every parameter but the
  /// price-only ones). Inventory cells never share.
  enum SimulationKey: Hashable {
    case convergence(data: Int, rules: ConvergenceParameters)
    case carry(data: Int, rules: ConvergenceParameters)
    case inventory(cell: Int)
  }

  /// A leg as read: its source and the clock that orders its rows.
  private struct LegKey: Hashable {
    var leg: Scenario.Leg
    var clock: Clock
    /// Read with its books (`costs.fill` book).
    var depth: Bool
  }

  struct Group {
    var cells: [Cell]
    var data: Int
    /// The scenario mode of every cell of the group.
    var mode: Strategy.Mode
  }

  /// Legs and what is built on them once for every cell.
  struct Prepared {
    var legs: [QuoteSeries]
    /// The scenario's alignment (staleness, grid).
    var alignment: ArbAnalytics.AlignmentOptions
    /// The aligned legs, for mode inventory.
    var aligned: AlignedLegs?
    /// The first-passage index of mode convergence and of mode carry (perp sold): each
    /// aligns the legs itself, keeping only the valid points.
    var index: ConvergenceIndex?
    var carryIndex: ConvergenceIndex?
    /// Mode carry: the perp's funding settlements.
    var funding: FundingSettlements
  }

  let groups: [Group]
  let data: [Prepared]
  let cellOrder: [Int]
  /// The period of the PnL matrix (µs), when the sweep writes one.
  let period: Int64?

  init(cells: [(cell: Int, scenario: Scenario)], options: IngestOptions, period: Int64? = nil) throws {
    self.period = period
    var dataIndexes: [Scenario: Int] = [:]
    var data: [Prepared] = []
    var loaded: [LegKey: QuoteSeries] = [:]
    var groupIndexes: [SimulationKey: Int] = [:]
    var groups: [Group] = []
    // Only cap_at_book reads the book sizes, and recorded latency the other clock.
    let readsSizes = cells.contains { $0.scenario.capAtBook || $0.scenario.readsBothClocks }
    for (cell, scenario) in cells {
      let dataKey = scenario.preparationKey
      var dataIndex = dataIndexes[dataKey]
      if dataIndex == nil {
        var legOptions = scenario.legOptions(options)
        legOptions.clock = scenario.clock
        legOptions.storeColumns = readsSizes ? .all : .skippingSizesAndOtherClock
        // The legs not read yet (on this clock), side by side.
        let specs = try ScenarioLegs.specs(scenario)
        let legKeys = dataKey.legs.map { LegKey(leg: $0, clock: scenario.clock, depth: legOptions.keepDepth) }
        let missing = legKeys.indices.filter { k in loaded[legKeys[k]] == nil && legKeys.firstIndex(of: legKeys[k]) == k }
        for (k, leg) in zip(missing, try LoadedLegs.load(missing.map { specs[$0] }, options: legOptions)) { loaded[legKeys[k]] = leg.series }
        let loadedLegs = legKeys.map { loaded[$0]! }
        let legs = try ScenarioLegs.prepared(scenario, loaded: loadedLegs, options: legOptions).legs
        // None outside mode carry.
        let settlements = try ScenarioRun.settlements(scenario, perp: legs[1], options: legOptions)
        data.append(Prepared(legs: legs, alignment: AlignmentOptions(maxStale: scenario.maxStale, grid: scenario.grid), funding: settlements))
        dataIndex = data.count - 1
        dataIndexes[dataKey] = dataIndex
      }
      let prepared = data[dataIndex!]
      // Cells sharing the legs may differ in latency, cooldown, holding or zone.
      try scenario.checkTimes(of: prepared.legs)
      switch scenario.strategy.mode {
      case .inventory where prepared.aligned == nil:
        data[dataIndex!].aligned = try AlignedLegs(legs: prepared.legs, options: prepared.alignment)
      case .carry where prepared.carryIndex == nil:
        data[dataIndex!].carryIndex = try ConvergenceIndex(legs: prepared.legs, options: prepared.alignment, sellLeg: 1)
      case .convergence where prepared.index == nil:
        data[dataIndex!].index = try ConvergenceIndex(legs: prepared.legs, options: prepared.alignment)
      default: break
      }
      let fees = try scenario.takerFees(registry: options.registry)
      let engine = try ScenarioEngine(scenario, fees: fees, registry: options.registry)
      let key: SimulationKey =
        switch engine {
        case .inventory: .inventory(cell: cell)
        case .carry(let carry): .carry(data: dataIndex!, rules: carry.decisionKey)
        case .convergence(let convergence): .convergence(data: dataIndex!, rules: convergence.parameters.decisionKey)
        }
      let run = Cell(cell: cell, scenario: scenario, fees: fees, engine: engine)
      if let g = groupIndexes[key] {
        groups[g].cells.append(run)
      } else {
        groupIndexes[key] = groups.count
        groups.append(Group(cells: [run], data: dataIndex!, mode: scenario.strategy.mode))
      }
    }
    self.groups = groups
    self.data = data
    cellOrder = cells.map(\.cell)
  }

  /// Computes every group on `jobs` threads and hands finished rows to `deliver` in
  /// cell order (on the calling thread).
  func run(jobs: Int, deliver: ([SweepRow]) throws -> Void) throws {
    let batches = batched(jobs: jobs)
    let state = Mutex<(next: Int, finished: [Int: SweepRow], error: (any Error)?)>((0, [:], nil))
    let ready = DispatchSemaphore(value: 0)
    let workers = min(jobs, max(batches.count, 1))
    let queue = DispatchQueue(label: "arbkit.sweep", attributes: .concurrent)
    for _ in 0..<workers {
      queue.async {
        while true {
          let g: Int? = state.withLock { s in
            guard s.error == nil, s.next < batches.count else { return nil }
            s.next += 1
            return s.next - 1
          }
          guard let g else { break }
          do {
            let rows = try compute(batches[g].map { groups[$0] })
            state.withLock { s in for row in rows { s.finished[row.cell] = row } }
          } catch {
            state.withLock { s in s.error = s.error ?? error }
          }
          ready.signal()
        }
      }
    }
    var delivered = 0
    var batchesDone = 0
    while batchesDone < batches.count {
      ready.wait()
      batchesDone += 1
      let (batch, failure) = state.withLock { s -> ([SweepRow], (any Error)?) in
        var batch: [SweepRow] = []
        while delivered + batch.count < cellOrder.count, let row = s.finished.removeValue(forKey: cellOrder[delivered + batch.count]) {
          batch.append(row)
        }
        return (batch, s.error)
      }
      if let failure {
        queue.sync(flags: .barrier) {}
        throw failure
      }
      delivered += batch.count
      if !batch.isEmpty { try deliver(batch) }
    }
  }

  /// The groups in batches that one worker decides together (`ConvergenceBacktest.decide`
  /// of several runs reads the data once per batch): consecutive groups on the same
  /// data and mode, at most 16, and a multiple of `jobs` batches of about equal size so
  /// that every worker stays busy.
  private func batched(jobs: Int) -> [[Int]] {
    let workers = max(jobs, 1)
    let count = workers * ((groups.count + 16 * workers - 1) / (16 * workers))
    let size = max(1, (groups.count + count - 1) / max(count, 1))
    var batches: [[Int]] = []
    for g in groups.indices {
      if let last = batches.last?.last, batches[batches.count - 1].count < size, groups[last].data == groups[g].data,
        groups[last].mode == groups[g].mode, groups[g].mode != .inventory
      {
        batches[batches.count - 1].append(g)
      } else {
        batches.append([g])
      }
    }
    return batches
  }

  /// The rows of a batch of groups: one simulation per group (convergence, carry; the
  /// batch's simulations side by side), priced per cell.
  private func compute(_ batch: [Group]) throws -> [SweepRow] {
    let prepared = data[batch[0].data]
    // The rules of each group's first cell: its other cells differ only in pricing.
    let rules = batch.compactMap { $0.cells[0].engine.rules }
    let decisions: [ConvergenceDecisions?]
    switch batch[0].mode {
    case .inventory: decisions = batch.map { _ in nil }
    case .carry: decisions = ConvergenceBacktest.decide(rules, legs: prepared.legs, index: prepared.carryIndex!)
    case .convergence: decisions = ConvergenceBacktest.decide(rules, legs: prepared.legs, index: prepared.index!)
    }
    return zip(batch, decisions).flatMap { group, decisions in rows(group, decisions: decisions, prepared: prepared) }
  }

  /// The rows of one group's cells, each pricing the group's `decisions` (inventory:
  /// each cell run in full).
  private func rows(_ group: Group, decisions: ConvergenceDecisions?, prepared: Prepared) -> [SweepRow] {
    let legs = prepared.legs
    return group.cells.map { cell in
      let outcome: ScenarioRun.Outcome
      let points: (count: Int, valid: Int)
      switch cell.engine {
      case .inventory(let engine):
        let aligned = prepared.aligned!
        outcome = .inventory(engine.run(legs: legs, aligned: aligned))
        points = (aligned.count, aligned.validPoints)
      case .carry(let engine):
        outcome = .carry(engine.price(decisions!, funding: prepared.funding), prepared.funding)
        points = (prepared.carryIndex!.clockPoints, prepared.carryIndex!.validPoints)
      case .convergence(let engine):
        outcome = .convergence(engine.price(decisions!, legs: legs))
        points = (prepared.index!.clockPoints, prepared.index!.validPoints)
      }
      let report = ScenarioRun(
        scenario: cell.scenario, legs: legs, fees: cell.fees, points: points.count, validPoints: points.valid, outcome: outcome)
      let journal = report.journal
      var metrics = Dictionary(uniqueKeysWithValues: report.metrics(journal: journal).map { ($0.0, $0.1) })
      let overflowed = SweepCommand.metrics.filter { metrics[$0]?.firstNonFinite() != nil }
      for key in overflowed { metrics[key] = .null }
      let row = SweepCommand.metrics.map { key -> String in
        switch metrics[key] {
        case .int(let value): String(value)
        case .number(let value): NumberText.csv(value)
        default: ""
        }
      }.joined(separator: ",")
      let values = metrics.mapValues { value -> Double? in
        switch value {
        case .int(let v): Double(v)
        case .number(let v): v
        default: nil
        }
      }
      let column = period.map { SweepPnLMatrix.Column(cell: cell.cell, journal: journal, length: $0, offset: cell.scenario.timeZoneOffset) }
      return SweepRow(cell: cell.cell, row: row, metrics: values, overflowed: overflowed, column: column)
    }
  }
}

extension Scenario {
  /// What the prepared legs of a sweep depend on: the legs' sources (their balances and
  /// contract size cleared), clock, alignment, offsets, FX, and mode carry's funding
  /// files when it books funding, with every other field reset. Cells with equal keys
  /// share their legs, their alignment and their first-passage indexes; a new field is
  /// part of the key unless it is reset here.
  var preparationKey: Scenario {
    var key = self
    key.description = nil
    for k in key.legs.indices {
      key.legs[k].base = nil
      key.legs[k].quote = nil
      key.legs[k].contractSize = nil
    }
    let none = ThresholdRules(entry: 0, exit: 0, notional: 0)
    if case .carry(let rules) = strategy, rules.booksFunding {
      key.strategy = .carry(CarryRules(threshold: none, booksFunding: true, funding: rules.funding))
    } else {
      key.strategy = .convergence(none)
    }
    (key.capAtBook, key.fees, key.slippageBps, key.latency, key.venueLatency, key.timeZone) = (false, [:], 0, 0, [:], "UTC")
    // The fill rule stays: `book` reads the legs with their books.
    (key.partial, key.legFailRate, key.seed) = (.fill, 0, 0)
    return key
  }
}

/// Cells done, rate and time left on stderr, redrawn in place (only on a terminal).
final class Progress: @unchecked Sendable {
  private let total: Int
  private var done: Int
  private let show: Bool
  /// Monotonic nanoseconds; tests inject a clock.
  private let now: () -> UInt64
  private let start: UInt64
  private let startDone: Int
  /// Where lines go (stderr); tests collect them.
  private let write: (String) -> Void

  init(
    total: Int, done: Int, show: Bool, now: @escaping () -> UInt64 = { DispatchTime.now().uptimeNanoseconds },
    write: @escaping (String) -> Void = { text in
      var terminal = Terminal(passthrough: true)
      terminal.printError(text, terminator: "")
    }
  ) {
    self.total = total
    self.done = done
    self.show = show
    self.now = now
    self.write = write
    start = now()
    startDone = done
  }

  func advance(_ count: Int) {
    done += count
    guard show else { return }
    write(Self.line(done: done, total: total, doneHere: done - startDone, seconds: Double(now() - start) / 1e9))
  }

  func finish() {
    guard show else { return }
    write("\n")
  }

  /// The line after `done` of `total` cells, `doneHere` of them by this run in
  /// `seconds` (the rows a resumed sweep found on disk do not count towards the rate):
  /// a 30-character bar, the rate in cells per second and the time left at that rate
  /// (`-` until a rate is known).
  static func line(done: Int, total: Int, doneHere: Int, seconds: Double) -> String {
    let rate = seconds > 0 ? Double(doneHere) / seconds : 0
    let eta = rate > 0 ? Double(total - done) / rate : nil
    let width = 30
    let filled = total > 0 ? width * done / total : width
    let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    return "\r[\(bar)] \(done)/\(total) cells, \(NumberText.fixed(rate, 1))/s, ETA \(eta.map { NumberText.fixed($0, 0) + " s" } ?? "-")"
  }
}

/// The best cells by one metric, each with the mean of the metric over the cell and
/// its grid neighbours (`robustness`): a lone spike has a low one, a plateau a high one.
struct SweepRanking {
  let grid: SweepGrid
  let metric: String
  /// The metric of every cell, in cell order (`nil`: undefined for that cell).
  let values: [Double?]
  let top: Int

  func robustness(_ cell: Int) -> Double? {
    SweepResults.mean(([cell] + grid.neighbours(cell)).compactMap { values[$0] })
  }

  var table: String {
    let ranked = values.indices.filter { values[$0] != nil }.sorted { values[$0]! != values[$1]! ? values[$0]! > values[$1]! : $0 < $1 }
    var table = TextTable(["rank"] + grid.axes.map(\.key) + [metric, "robustness"], rightAligned: Set(0...(grid.axes.count + 2)))
    for (k, cell) in ranked.prefix(top).enumerated() {
      let here = grid.coordinates(cell)
      table.add(
        ["\(k + 1)"] + grid.axes.indices.map { grid.axes[$0].values[here[$0]] } + [NumberText.fixed(values[cell], 4), NumberText.fixed(robustness(cell), 4)])
    }
    return "Top \(min(top, ranked.count)) of \(values.count) cells by \(metric) (robustness: mean over the cell and its grid neighbours)\n"
      + table.rendered(indent: "  ")
  }
}
