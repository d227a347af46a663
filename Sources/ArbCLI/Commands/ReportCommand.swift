import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import ArbReport
import ArbResearch
import Foundation

/// `arbkit report SCENARIO.json [--sweep RESULTS.csv] --out DIR`: the research report
/// as one self-contained HTML page and as Markdown with SVG figures beside it.
struct ReportCommand: Command {
  static let name = "report"
  static let abstract = "Write a research report of a scenario (and a sweep): report.html and report.md with SVG charts"
  static let usage = """
    Usage: arbkit report SCENARIO.json [--sweep RESULTS.csv [--pnl-matrix PATH]] --out DIR [options]

    Writes DIR/report.html (one self-contained page: inline SVG and CSS, no script, no
    network) and DIR/report.md (the same content as tables, with links to the SVG
    figures written beside it). Sections: data coverage, premium over time with the
    bands shaded, distribution, bands and episodes, time-of-day heat maps (UTC and
    KST), the sweep (with --sweep: heat map over entry x exit, best cell, robustness,
    top cells), with --pnl-matrix "Is the best threshold real?" (the figures of arbkit
    validate: PBO, deflated Sharpe, walk-forward, bootstrap, and whether the best
    cell survives), the backtest of the scenario (or of the best sweep cell), assumptions.

    Options:
    \(HelpText.options([
      ("--out DIR", "the folder written (created if missing)"),
      ("--sweep PATH", "a sweep CSV from arbkit sweep --out (or arbkit merge), or the output of arbkit sweep --format json; its best cell's values are applied to the scenario for the backtest section"),
      ("--pnl-matrix PATH", "the sweep's period PnL matrix (arbkit sweep --pnl-matrix; needs --sweep): adds the out-of-sample section"),
    ] + ValidationFlags.help(blocks: "16, or the largest even number of periods when fewer", seed: "1") + [
      ("--metric METRIC", "the sweep metric mapped and ranked (default pnl_bps)"),
      ("--set KEY=VALUE", "override a scenario key (repeat), before the sweep's best cell"),
      ("--tz UTC|Asia/Seoul", "time axes in UTC (default) or KST"),
      ("--bad-rows fail|skip", "as in inspect: stop at the first bad row (default) or skip and count (reported by reason)"),
      ("--quarantine PATH", "where skipped raw lines go"),
      ("--sort", "sort rows by time instead of rejecting rows that go backwards"),
      ("--registry PATH", "an exchange registry file instead of the built-in one (fees)"),
    ]))
    """

  let path: String
  let out: String
  let sweepPath: String?
  let metric: String
  let overrides: [String]
  let zone: ReportZone
  let ingest: IngestFlags
  let matrixPath: String?
  let validation: ValidationFlags

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: ["--out", "--sweep", "--pnl-matrix", "--metric", "--set", "--tz", "--bad-rows", "--quarantine", "--registry"] + ValidationFlags.flags,
      switches: ["--sort"] + ValidationFlags.switches)
    try cursor.validate()
    guard cursor.arguments.count == 1, let path = cursor.arguments.first else {
      throw UsageError("expected one scenario file, was \(cursor.arguments.count) arguments")
    }
    guard let out = cursor.value("--out") else { throw UsageError("--out DIR is required") }
    self.path = path
    self.out = out
    sweepPath = cursor.value("--sweep")
    matrixPath = cursor.value("--pnl-matrix")
    validation = try ValidationFlags(cursor)
    if matrixPath != nil && sweepPath == nil { throw UsageError("--pnl-matrix needs --sweep RESULTS.csv, the sweep the matrix belongs to") }
    for flag in ValidationFlags.flags + ValidationFlags.switches where matrixPath == nil && (cursor.value(flag) != nil || cursor.flag(flag)) {
      throw UsageError("\(flag) needs --pnl-matrix PATH")
    }
    if validation.anchored && validation.walkForward == nil { throw UsageError("--anchored needs --walk-forward TRAIN/TEST") }
    metric = try BacktestMetrics.Column.parse(cursor.value("--metric"), flag: "--metric").rawValue
    overrides = cursor.values("--set")
    zone = try cursor.value("--tz", "UTC or Asia/Seoul") { $0 == "UTC" ? ReportZone.utc : $0 == "Asia/Seoul" ? ReportZone.seoul : nil } ?? .utc
    ingest = try IngestFlags(cursor)
    // The scenario is checked before any data is read.
    try ScenarioFile.check(path)
    do { _ = try Scenario.load(path: path, overrides: overrides) } catch { throw UsageError(ScenarioFile.explain(error, path: path)) }
  }

  /// The inputs: the scenario's files (before the sweep's best cell is applied) and
  /// the sweep; the outputs: the page and the Markdown, when the folder exists.
  var files: RunFiles {
    let scenarioFiles = (try? Scenario.load(path: path, overrides: overrides)).map { ScenarioLegs.files($0, path: path) } ?? [path]
    var isFolder: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: out, isDirectory: &isFolder) && isFolder.boolValue
    return ingest.files(inputs: scenarioFiles + [sweepPath, matrixPath].compactMap { $0 })
      .adding(derived: exists ? [out + "/report.html", out + "/report.md"] : [])
  }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    var sweep: SweepResults? = nil
    var cellOverrides: [String] = []
    if let sweepPath {
      try InputFile.check(sweepPath)
      sweep = try SweepResults.read(sweepPath)
      if let meta = try? SweepOutput.Meta.read(sweepPath) { cellOverrides = meta.overrides }
      if let best = sweep!.best(metric) { cellOverrides += sweep!.grid.overrides(best) }
    }
    let outOfSample = try sweep.flatMap { sweep in try matrixPath.map { try outOfSampleEvidence(path: $0, cells: sweep.grid.cellCount) } }
    let scenario: Scenario
    do { scenario = try Scenario.load(path: path, overrides: overrides + cellOverrides) } catch {
      throw UsageError(ScenarioFile.explain(error, path: path) + " (best cell of \(sweepPath ?? "the sweep"))")
    }
    var options = scenario.legOptions(ingest.options)
    options.clock = scenario.clock
    let fees = try scenario.takerFees(registry: options.registry)
    let loaded = try LoadedLegs.load(try ScenarioLegs.specs(scenario), options: options)
    let (series, fx) = try ScenarioLegs.prepared(scenario, loaded: loaded.map(\.series), options: options)
    let alignment = AlignmentOptions(maxStale: scenario.maxStale, grid: scenario.grid)
    let premium = try PremiumSeries(legs: series, options: alignment)
    // The time-of-day section profiles the premium in both zones.
    if let first = premium.time.first, let last = premium.time.last {
      for zone in TimeOfDayProfile.zones { try TimeOfDayProfile.checkRange(first...last, offset: zone.offset) }
    }
    let bands = BandOptions()
    let analysis = PremiumAnalysis(premium: premium, options: bands)
    let aligned = try AlignedLegs(legs: series, options: alignment)
    let outcome = try ScenarioRun.outcome(scenario, fees: fees, legs: series, aligned: aligned, options: options)
    let backtest = ScenarioRun(scenario: scenario, legs: series, fees: fees, aligned: aligned, outcome: outcome, fx: fx)
    // The report prints the figures of these JSON forms: checked once, before anything is written.
    _ = try JSONValue.object([
      ("mid", PremiumResult.json(analysis.mid, oneSided: false)), ("exec", PremiumResult.json(analysis.exec, oneSided: true)),
      ("backtest", try backtest.checkedFinite()),
      // validate's JSON of the same evidence (the grid values are not printed here).
      ("out_of_sample", outOfSample.map { Validation(evidence: $0.evidence, grid: []).json } ?? .null),
    ]).checkedFinite()
    let coverage = zip(zip(loaded, series), scenario.legs).map { legSeries, spec in
      let (leg, shifted) = legSeries
      return LegCoverage(
        series: shifted, files: spec.files, rowsRead: leg.reports.reduce(0) { $0 + $1.rowsRead },
        rowsRejected: leg.reports.reduce(0) { $0 + $1.rowsRejected },
        rejected: Self.rejections(leg.reports), staleLimit: scenario.maxStale)
    }
    var report = ResearchReport(
      scenarioName: (path as NSString).lastPathComponent, scenario: scenario, overrides: overrides + cellOverrides, coverage: coverage, fees: fees,
      premium: premium, analysis: analysis, bands: bands.bands,
      backtest: ResearchReport.Backtest(metrics: backtest.summaryRows, journal: backtest.journal, trades: backtest.roundTrips))
    report.sweep = sweep
    report.sweepName = sweepPath.map { ($0 as NSString).lastPathComponent }
    report.metric = metric
    report.zone = zone
    report.outOfSample = outOfSample
    let document = report.document
    do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
      throw FileError.unreadable(path: out, reason: "cannot create the folder: \(error.localizedDescription)")
    }
    // The page, the Markdown and its figures belong together: all are written, or none.
    var written: [AtomicFile] = []
    for (name, text) in [("report.html", document.html), ("report.md", document.markdown)] + document.figures.map({ ($0.file, $0.svg.rendered) }) {
      let file = try AtomicFile(path: out + "/" + name, named: false)
      try file.write(text)
      written.append(file)
    }
    try FileOutput.commit(written)
    for leg in loaded { for report in leg.reports { IngestSummary.warn(report, terminal: &terminal) } }
    terminal.print("wrote \(out)/report.html and \(out)/report.md with \(document.figures.count) SVG figures")
    return .success
  }

  /// The out-of-sample evidence of the matrix at `path`, which must have `cells` columns,
  /// with the report's defaults: 16 blocks (the largest even number of periods when
  /// fewer), walk-forward windows of a third of the periods for training and a sixth
  /// for testing, 1,000 bootstrap resamples with seed 1.
  func outOfSampleEvidence(path: String, cells: Int) throws -> ResearchReport.OutOfSample {
    let file = try PnLMatrixFile.read(path: path, cells: cells)
    let periods = file.periodStarts.count
    let blocks = validation.blocks ?? max(2, min(16, periods / 2 * 2))
    try ValidationFlags.checkPeriods(periods, blocks: blocks, path: path)
    let matrix = PnLMatrix(periods: periods, cells: file.cells, values: file.values)
    let walk = validation.walkForward ?? (max(1, periods / 3), max(1, periods / 6))
    let evidence = OutOfSampleEvidence(
      matrix: matrix, blocks: blocks, walkForward: (walk.train, walk.test, validation.anchored),
      bootstrap: (validation.resamples ?? 1000, validation.blockLength, validation.seed ?? 1))
    return ResearchReport.OutOfSample(
      evidence: evidence, periodStarts: file.periodStarts, matrixName: (path as NSString).lastPathComponent,
      blocksLowered: validation.blocks == nil && blocks < 16)
  }

  /// Rejections by reason over a leg's files, in order of first appearance.
  static func rejections(_ reports: [IngestReport]) -> [(reason: String, count: Int)] {
    var result: [(reason: String, count: Int)] = []
    for (kind, count) in reports.flatMap(\.rejectedByKind) {
      if let k = result.firstIndex(where: { $0.reason == kind }) { result[k].count += count } else { result.append((kind, count)) }
    }
    return result
  }
}
