import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import ArbResearch
import Foundation

/// `arbkit backtest SCENARIO.json`: runs a scenario's threshold strategy on its legs.
struct BacktestCommand: Command {
  static let name = "backtest"
  static let abstract = "Run a scenario's threshold strategy with fees, slippage and latency; print trades and metrics"
  static let usage = """
    Usage: arbkit backtest SCENARIO.json [--set KEY=VALUE]… [options]

    Reads the scenario's legs, aligns them as-of and runs its strategy. Mode
    convergence: open on the executable premium ≥ entry, short the rich leg and long
    the cheap one; close when the closing premium ≤ exit. Mode inventory: on the
    executable premium ≥ entry, sell on the rich venue and buy on the cheap one at
    once, as far as each venue's balances allow; missed opportunities and
    rebalances are reported. Mode carry: buy spot (leg 1) and sell the perp (leg
    2) when the basis bid_P / ask_S − 1 ≥ entry, close when ask_P / bid_S − 1 ≤
    exit, with the perp's funding settlements received or paid meanwhile. Fills
    use the as-of quotes `costs.latency` after the signal, with slippage and each
    venue's taker fee (the registry's, or costs.fees.VENUE). Rules and metrics: docs/definitions.md; scenario keys:
    Data/scenarios/README.md. Runs with taker fills at any latency (every mode)
    stream their legs (a store from its mapped partitions, files as they are
    read), --chunk-rows valid points at a time, book-walking fills on one more pass
    over the legs' books: memory does not grow with the history, also in
    --lookahead-check's reruns; runs with a maker leg read the legs whole.

    Options:
    \(HelpText.options([
      ("--set KEY=VALUE", "override a scenario key (repeat): strategy.entry=0.12, costs.latency=50ms, legs.0.files=a.csv,b.csv"),
      ("--trades PATH", "write the ledger as CSV (convergence: entry_ts_us,exit_ts_us,direction,rich,cheap,entry_premium,exit_premium,pnl,pnl_bps,fees; inventory: ts_us,direction,rich,cheap,premium,sell_price,buy_price,quantity,pnl,pnl_bps,fees); "
        + "a PATH ending .arrow or .feather, here and for --equity, --funding and --inventory: an Arrow IPC file of the same columns, typed; .parquet: a Parquet file"),
      ("--equity PATH", "write the equity curve as CSV: ts_us,equity (cumulative PnL at each exit and funding settlement)"),
      ("--funding PATH", "mode carry: write the funding settlements paid or received as CSV: ts_us,trade,rate,price,amount"),
      ("--inventory PATH", "mode inventory: write the balances after each trade and each start and end of a rebalance as CSV: "
        + "ts_us,base_1,quote_1,base_2,quote_2,base_in_transit,quote_in_transit"),
      TableOutput.help,
      ("--tz UTC|Asia/Seoul", "the days of the PnL journal and the Sharpe ratio (same as --set journal.tz=…)"),
      ("--lookahead-check", "rerun on the data cut at evenly spaced times; exit 1 when a trade decided before a cut differs (docs/cli.md)"),
      ("--cuts N", "with --lookahead-check: the number of cuts (default 20)"),
      ("--chunk-rows N", "valid points, and quotes per leg, worked on at a time by a streamed run (default 65536)"),
      ("--format table|json", "output (default table)"),
      ("--bad-rows fail|skip", "as in inspect: stop at the first bad row (default) or skip and count"),
      ("--quarantine PATH", "where skipped raw lines go"),
      ("--sort", "sort rows by time instead of rejecting rows that go backwards"),
      ("--registry PATH", "an exchange registry file instead of the built-in one (fees)"),
    ]))
    """

  let path: String
  let scenario: Scenario
  /// `--trades`, `--equity`, `--inventory`, `--funding`, in the order of the ledgers `run` writes.
  let outputs: [TableOutput?]
  /// `--set` and `--tz`, as given: a columnar ledger's metadata names them.
  let overrides: [String]
  let format: OutputFormat
  let ingest: IngestFlags
  /// With `--lookahead-check`: the number of cuts (`--cuts`, default 20).
  let cuts: Int?
  /// Valid points per chunk of a streamed run.
  let chunkRows: Int

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: [
        "--set", "--tz", "--trades", "--equity", "--inventory", "--funding", TableOutput.flag, "--format", "--bad-rows", "--quarantine", "--registry", "--cuts",
        "--chunk-rows",
      ],
      switches: ["--sort", "--lookahead-check"])
    try cursor.validate()
    guard cursor.arguments.count == 1, let path = cursor.arguments.first else {
      throw UsageError("expected one scenario file, was \(cursor.arguments.count) arguments")
    }
    self.path = path
    try ScenarioFile.check(path)
    overrides = cursor.values("--set") + (cursor.value("--tz").map { ["journal.tz=" + $0] } ?? [])
    do { scenario = try Scenario.load(path: path, overrides: overrides) } catch { throw UsageError(ScenarioFile.explain(error, path: path)) }
    outputs = try TableOutput.parse(cursor, flags: Self.ledgerFlags)
    format = try OutputFormat.parse(cursor)
    guard format != .csv else { throw UsageError("--format csv is not a backtest output; use --trades PATH for the ledger") }
    ingest = try IngestFlags(cursor)
    cuts = try LookaheadCheck.cuts(cursor)
    chunkRows = try cursor.chunkRows(atLeast: 2)
    if cuts != nil, let ledger = zip(Self.ledgerFlags, outputs).first(where: { $0.1 != nil }) {
      throw UsageError("--lookahead-check writes no ledger, was \(ledger.0) \(ledger.1!.path)")
    }
  }

  static let ledgerFlags = ["--trades", "--equity", "--inventory", "--funding"]

  var files: RunFiles { ingest.files(inputs: ScenarioLegs.files(scenario, path: path), outputs: outputs.map { $0?.path }) }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    var options = ingest.options
    options.clock = scenario.clock
    let fees = try scenario.takerFees(registry: options.registry)
    let streams = try ScenarioRun.streams(scenario, fees: fees, registry: options.registry)
    if let cuts {
      let check: LookaheadCheck
      do {
        if streams {
          check = try LookaheadCheck.run(streaming: scenario, cuts: cuts, fees: fees, options: options, chunkPoints: chunkRows)
        } else {
          let recording = try ScenarioRecording.load(scenario, options: options)
          // The reruns of the check run concurrently: they capture these, not the command.
          let (scenario, registry) = (scenario, options.registry)
          check = try LookaheadCheck.run(scenario, cuts: cuts, recording: recording) { data, engine in
            try ScenarioRun(scenario, fees: fees, recording: data, registry: registry, engine: engine)
          }
        }
      } catch let error as LookaheadCutsError {
        throw UsageError("--cuts \(error.cuts) needs data spanning more than \(error.cuts) µs, the legs quote together for \(error.span) µs")
      }
      terminal.print(format == .json ? check.json.rendered() : check.table)
      return check.differences.isEmpty ? .success : .failure
    }
    if streams {
      let reading = Progress(total: nil, unit: "quotes", show: Progress.onTerminal(terminal), every: 0.2)
      defer { reading.finish() }
      let report = try ScenarioRun(streaming: scenario, fees: fees, options: options, chunkPoints: chunkRows, counted: reading.concurrentAdvance)
      reading.finish()
      return try write(report, &terminal)
    }
    let recording = try ScenarioRecording.load(scenario, options: options)
    return try write(try ScenarioRun(scenario, fees: fees, recording: recording, registry: options.registry), &terminal)
  }

  /// Writes the ledgers asked for and prints the run.
  private func write(_ report: ScenarioRun, _ terminal: inout Terminal) throws -> ExitCode {
    let json = try report.checkedFinite()
    // The ledgers belong together: all are written, or none.
    var written: [AtomicFile] = []
    let ledgers: [KeyPath<ScenarioRun, CSVTable>] = [\.ledger, \.equity, \.inventory, \.funding]
    // A columnar ledger names the run it comes from.
    let metadata = [("arbkit.scenario_checksum", try ScenarioFile.checksum(path)), ("arbkit.overrides", overrides.joined(separator: "\n"))]
    for (output, ledger) in zip(outputs, ledgers) {
      guard let output else { continue }
      written.append(try report[keyPath: ledger].file(output, metadata: output.format == .csv ? [] : metadata))
    }
    try FileOutput.commit(written)
    terminal.print(format == .json ? json.rendered() : report.table)
    return .success
  }
}
