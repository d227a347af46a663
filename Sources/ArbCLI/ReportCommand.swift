import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import ArbReport
import Foundation

/// `arbkit report SCENARIO.json [--sweep RESULTS.csv] --out DIR`: the research report
/// as one self-contained HTML page and as Markdown with SVG figures beside it.
struct ReportCommand: Command {
  static let name = "report"
  static let abstract = "Write a research report of a scenario (and a sweep): report.html and report.md with SVG charts"
  static let usage = """
    Usage: arbkit report SCENARIO.json [--sweep RESULTS.csv] --out DIR [options]

    Writes DIR/report.html (one self-contained page: inline SVG and CSS, no script, no
    network) and DIR/report.md (the same content as tables, with links to the SVG
    figures written beside it). Sections: data coverage, premium over time with the
    bands shaded, distribution, bands and episodes, time-of-day heat maps (UTC and
    KST), the sweep (with --sweep: heat map over entry x exit, best cell, robustness,
    top cells), the backtest of the scenario (or of the best sweep cell), assumptions.

    Options:
    \(HelpText.options([
      ("--out DIR", "the folder written (created if missing)"),
      ("--sweep PATH", "a sweep CSV from arbkit sweep --out (or arbkit merge), or the output of arbkit sweep --format json; its best cell's values are applied to the scenario for the backtest section"),
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

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: ["--out", "--sweep", "--metric", "--set", "--tz", "--bad-rows", "--quarantine", "--registry"], switches: ["--sort"])
    try cursor.validate()
    guard cursor.arguments.count == 1, let path = cursor.arguments.first else {
      throw UsageError("expected one scenario file, was \(cursor.arguments.count) arguments")
    }
    guard let out = cursor.value("--out") else { throw UsageError("--out DIR is required") }
    self.path = path
    self.out = out
    sweepPath = cursor.value("--sweep")
    metric = cursor.value("--metric") ?? "pnl_bps"
    guard SweepCommand.metrics.contains(metric) else {
      let suggestion = ArgumentCursor.closest(metric, among: SweepCommand.metrics)
      throw UsageError("--metric: unknown metric '\(metric)'" + (suggestion.map { ", did you mean '\($0)'?" } ?? ""))
    }
    overrides = cursor.values("--set")
    zone = try cursor.value("--tz", "UTC or Asia/Seoul") { $0 == "UTC" ? ReportZone.utc : $0 == "Asia/Seoul" ? ReportZone.seoul : nil } ?? .utc
    ingest = try IngestFlags(cursor)
    // The scenario is checked before any data is read.
    do { _ = try Scenario.load(path: path, overrides: overrides) } catch { throw UsageError(BacktestCommand.explain(error, path: path)) }
  }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    var sweep: SweepResults? = nil
    var cellOverrides: [String] = []
    if let sweepPath {
      guard let bytes = FileManager.default.contents(atPath: sweepPath) else { throw FileError.missing(path: sweepPath) }
      // `arbkit sweep --format json` output starts with `{`; anything else is the CSV.
      if bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
        sweep = try SweepResults(json: [UInt8](bytes), path: sweepPath)
      } else {
        sweep = try SweepResults(csv: String(decoding: bytes, as: UTF8.self), path: sweepPath)
      }
      if let meta = try? SweepOutput.Meta.read(sweepPath) { cellOverrides = meta.overrides }
      if let best = sweep!.best(metric) { cellOverrides += sweep!.grid.overrides(best) }
    }
    let scenario: Scenario
    do { scenario = try Scenario.load(path: path, overrides: overrides + cellOverrides) } catch {
      throw UsageError(BacktestCommand.explain(error, path: path) + " (best cell of \(sweepPath ?? "the sweep"))")
    }
    var options = ingest.options
    options.clock = scenario.clock
    let fees = try BacktestCommand.fees(scenario, registry: options.registry)
    let loaded = try LoadedLegs.load(try ScenarioLegs.specs(scenario), options: options)
    let (series, fx) = try ScenarioLegs.prepared(scenario, loaded: loaded.map(\.series), options: options)
    let alignment = AlignmentOptions(maxStale: scenario.maxStale, grid: scenario.grid)
    let premium = try PremiumSeries(legs: series, options: alignment)
    let bands = BandOptions()
    let analysis = PremiumAnalysis(premium: premium, options: bands)
    let aligned = try AlignedLegs(legs: series, options: alignment)
    let outcome = try BacktestCommand.outcome(scenario, fees: fees, legs: series, aligned: aligned, options: options)
    let backtest = BacktestReport(scenario: scenario, legs: series, fees: fees, aligned: aligned, outcome: outcome, fx: fx)
    // The report prints the figures of these JSON forms: checked once, before anything is written.
    _ = try JSONValue.object([
      ("mid", PremiumResult.json(analysis.mid, oneSided: false)), ("exec", PremiumResult.json(analysis.exec, oneSided: true)),
      ("backtest", try backtest.checkedFinite()),
    ]).checkedFinite()
    var trades: [Trade] = []
    switch outcome {
    case .convergence(let run), .carry(let run, _): trades = run.trades
    case .inventory: break
    }
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
      backtest: ResearchReport.Backtest(metrics: backtest.summaryRows, journal: backtest.journal, trades: trades))
    report.sweep = sweep
    report.sweepName = sweepPath.map { ($0 as NSString).lastPathComponent }
    report.metric = metric
    report.zone = zone
    let document = report.document
    do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
      throw FileError.unreadable(path: out, reason: "cannot create the folder: \(error.localizedDescription)")
    }
    try FileOutput.write(out + "/report.html", text: document.html)
    try FileOutput.write(out + "/report.md", text: document.markdown)
    for figure in document.figures { try FileOutput.write(out + "/" + figure.file, text: figure.svg.rendered) }
    for leg in loaded { for report in leg.reports { IngestSummary.warn(report, terminal: &terminal) } }
    terminal.print("wrote \(out)/report.html and \(out)/report.md with \(document.figures.count) SVG figures")
    return .success
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
