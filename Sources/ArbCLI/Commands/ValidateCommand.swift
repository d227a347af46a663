import ArbAnalytics
import ArbCore
import ArbIngest
import ArbReport
import ArbResearch
import Foundation

/// `arbkit validate SWEEP.csv --pnl-matrix PATH`: how much of a sweep's best cell
/// survives out of sample, from its period PnL matrix alone (CSCV probability of
/// backtest overfitting, deflated Sharpe ratio, walk-forward, block bootstrap).
struct ValidateCommand: Command {
  static let name = "validate"
  static let abstract = "Out-of-sample evidence for a sweep's best cell: PBO, deflated Sharpe, walk-forward, bootstrap"
  static let usage = """
    Usage: arbkit validate SWEEP.csv --pnl-matrix PATH [options]

    Reads the period PnL matrix of a sweep (arbkit sweep --pnl-matrix: a header
    period_start_us,0,1,…,N-1, one row per period, one column per cell in grid
    order) and computes from it alone: the CSCV probability of backtest overfitting
    over the combinations of half the blocks, the deflated Sharpe ratio of the cell
    with the best Sharpe ratio over all periods, and, when asked, walk-forward
    windows and a stationary block bootstrap of the best cell's period PnL. SWEEP.csv
    (arbkit sweep --out or arbkit merge, or arbkit sweep --format json) gives the
    number of cells, which the matrix must match, and the best cell's grid values.
    Sharpe ratios are per period, not annualised; in the table '-' marks a figure
    that is undefined or unbounded (null in JSON). Definitions: docs/definitions.md.

    Options:
    \(HelpText.options([
      ("--pnl-matrix PATH", "the period PnL matrix of the sweep (required)"),
    ] + ValidationFlags.help(blocks: "16", seed: "0") + [
      ("--format table|json", "output (default table)"),
    ]))
    """

  let sweepPath: String
  let matrixPath: String
  let blocks: Int
  let walkForward: (train: Int, test: Int)?
  let anchored: Bool
  let resamples: Int?
  let seed: UInt64
  let blockLength: Int?
  let format: OutputFormat

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: ["--pnl-matrix", "--format"] + ValidationFlags.flags, switches: ValidationFlags.switches)
    try cursor.validate()
    guard cursor.arguments.count == 1, let sweepPath = cursor.arguments.first else {
      throw UsageError("expected one sweep file, was \(cursor.arguments.count) arguments")
    }
    guard let matrixPath = cursor.value("--pnl-matrix") else { throw UsageError("--pnl-matrix PATH is required") }
    self.sweepPath = sweepPath
    self.matrixPath = matrixPath
    let flags = try ValidationFlags(cursor)
    blocks = flags.blocks ?? 16
    (walkForward, anchored, resamples, blockLength) = (flags.walkForward, flags.anchored, flags.resamples, flags.blockLength)
    seed = flags.seed ?? 0
    if anchored && walkForward == nil { throw UsageError("--anchored needs --walk-forward TRAIN/TEST") }
    for flag in ["--seed", "--block-length"] where resamples == nil && cursor.value(flag) != nil {
      throw UsageError("\(flag) needs --bootstrap B")
    }
    format = try cursor.value("--format", "table or json") { $0 == "csv" ? nil : OutputFormat(rawValue: $0) } ?? .table
  }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let sweep = try SweepResults.read(sweepPath)
    let file = try PnLMatrixFile.read(path: matrixPath, cells: sweep.grid.cellCount)
    let periods = file.periodStarts.count
    try ValidationFlags.checkPeriods(periods, blocks: blocks, path: matrixPath)
    let matrix = PnLMatrix(periods: periods, cells: file.cells, values: file.values)
    let evidence = OutOfSampleEvidence(
      matrix: matrix, blocks: blocks, walkForward: walkForward.map { ($0.train, $0.test, anchored) },
      bootstrap: resamples.map { ($0, blockLength, seed) })
    let result = Validation(evidence: evidence, grid: zip(sweep.grid.axes, sweep.grid.coordinates(matrix.bestCell)).map { ($0.key, $0.values[$1]) })
    // Every format prints the figures of the JSON: checked once, before anything is written.
    let json = try result.json.checkedFinite()
    switch format {
    case .json: terminal.print(json.rendered())
    // `--format csv` is refused when parsing.
    case .table, .csv: terminal.print(result.table)
    }
    return .success
  }
}

/// The figures of one `arbkit validate` run, and their JSON and table forms.
struct Validation {
  let evidence: OutOfSampleEvidence
  /// The best cell's grid values, by key in grid order.
  let grid: [(key: String, value: String)]

  /// A Sharpe ratio, `null` when unbounded (rows all one value).
  private static func bounded(_ value: Double?) -> JSONValue { .number(value.flatMap { $0.isFinite ? $0 : nil }) }

  var json: JSONValue {
    let (matrix, cscv, deflated) = (evidence.matrix, evidence.cscv, evidence.deflated)
    var members: [(String, JSONValue)] = [
      ("cells", .int(matrix.cells)), ("periods", .int(matrix.periods)), ("metric", .string("sharpe")),
      ("best_cell", .int(deflated.bestCell)), ("best_cell_values", .object(grid.map { ($0.key, .string($0.value)) })),
      ("best_sharpe", Self.bounded(deflated.sharpe)),
      ("pbo", .number(cscv.pbo)), ("blocks", .int(cscv.blocks)), ("combinations", .int(cscv.combinations)),
      ("logits", .array(cscv.logits.map { .number($0) })),
      ("sr0", .number(deflated.expectedMaximum)), ("deflated_sharpe", .number(deflated.deflated)), ("trials", .int(deflated.trials)),
      ("sharpe_variance", .number(deflated.variance)), ("skewness", .number(deflated.skewness)), ("kurtosis", .number(deflated.kurtosis)),
    ]
    if let walk = evidence.walkForward {
      members.append(
        (
          "walk_forward",
          .object([
            ("train", .int(walk.train)), ("test", .int(walk.test)), ("anchored", .bool(walk.anchored)),
            (
              "windows",
              .array(
                walk.windows.map { window in
                  .object([
                    ("train_from", .int(window.train.lowerBound)), ("train_to", .int(window.train.upperBound)),
                    ("test_from", .int(window.test.lowerBound)), ("test_to", .int(window.test.upperBound)),
                    ("best_cell", .int(window.bestCell)), ("train_sharpe", Self.bounded(window.trainSharpe)), ("test_pnl", .number(window.testPnL)),
                  ])
                })
            ),
            ("oos_pnl", .number(walk.outOfSamplePnL)), ("oos_sharpe", Self.bounded(walk.outOfSampleSharpe)), ("in_sample_pnl", .number(walk.inSamplePnL)),
          ])
        ))
    } else {
      members.append(("walk_forward", .null))
    }
    if let bootstrap = evidence.bootstrap {
      let pnl = bootstrap.pnlQuantiles, sharpe = bootstrap.sharpeQuantiles
      members.append(
        (
          "bootstrap",
          .object([
            ("resamples", .int(bootstrap.resamples)), ("block_length", .int(bootstrap.blockLength)), ("seed", .int(Int64(bootstrap.seed))),
            ("pnl_q2_5", .number(pnl[0])), ("pnl_q50", .number(pnl[1])), ("pnl_q97_5", .number(pnl[2])),
            ("sharpe_q2_5", .number(sharpe[0])), ("sharpe_q50", .number(sharpe[1])), ("sharpe_q97_5", .number(sharpe[2])),
            ("share_pnl_le_0", .number(bootstrap.sharePnLAtMostZero)),
          ])
        ))
    } else {
      members.append(("bootstrap", .null))
    }
    return .object(members)
  }

  private static func sharpe(_ value: Double?) -> String { NumberText.fixed(value.flatMap { $0.isFinite ? $0 : nil }, 4) }

  var table: String {
    let (matrix, cscv, deflated) = (evidence.matrix, evidence.cscv, evidence.deflated)
    let spread = Quantiles.compute(cscv.logits, probabilities: [0, 0.5, 1])!
    var text = """
      \(matrix.cells) cells over \(matrix.periods) periods, ranked by the Sharpe ratio of period PnL (per period)
      Best cell: \(deflated.bestCell) (\(grid.map { $0.key + "=" + $0.value }.joined(separator: " "))), Sharpe \(Self.sharpe(deflated.sharpe))
      CSCV: PBO \(NumberText.fixed(cscv.pbo, 4)) over \(cscv.combinations) combinations of \(cscv.blocks / 2) of \(cscv.blocks) blocks \
      (logits: min \(NumberText.fixed(spread[0], 4)), median \(NumberText.fixed(spread[1], 4)), max \(NumberText.fixed(spread[2], 4)))
      Deflated Sharpe: \(NumberText.fixed(deflated.deflated, 4)) (SR0 \(NumberText.fixed(deflated.expectedMaximum, 4)) from \(deflated.trials) cells \
      with a finite Sharpe ratio, skewness \(NumberText.fixed(deflated.skewness, 4)), kurtosis \(NumberText.fixed(deflated.kurtosis, 4)))
      """
    if let walk = evidence.walkForward {
      text += "\n\nWalk-forward \(walk.train)/\(walk.test)\(walk.anchored ? " anchored" : ""): \(walk.windows.count) windows, "
      text += "out-of-sample PnL \(NumberText.fixed(walk.outOfSamplePnL, 4)) (Sharpe \(Self.sharpe(walk.outOfSampleSharpe))), "
      text += "the all-periods best cell \(NumberText.fixed(walk.inSamplePnL, 4)) over the same periods\n"
      if walk.windows.isEmpty { text += "  no window fits: TRAIN + TEST is more than the \(matrix.periods) periods" }
      var windows = TextTable(["train", "test", "best cell", "train Sharpe", "test PnL"])
      for window in walk.windows {
        windows.add([
          "\(window.train.lowerBound)..<\(window.train.upperBound)", "\(window.test.lowerBound)..<\(window.test.upperBound)", "\(window.bestCell)",
          Self.sharpe(window.trainSharpe), NumberText.fixed(window.testPnL, 4),
        ])
      }
      if !walk.windows.isEmpty { text += windows.rendered(indent: "  ") }
    }
    if let bootstrap = evidence.bootstrap {
      let pnl = bootstrap.pnlQuantiles.map { NumberText.fixed($0, 4) }, sharpe = bootstrap.sharpeQuantiles.map { NumberText.fixed($0, 4) }
      text += "\n\nBootstrap: \(bootstrap.resamples) resamples, mean block \(bootstrap.blockLength) periods, seed \(bootstrap.seed)\n"
      text += "  total PnL 2.5/50/97.5 %: \(pnl.joined(separator: " / "))\n"
      text += "  Sharpe 2.5/50/97.5 %:    \(sharpe.joined(separator: " / "))\n"
      text += "  resamples with total PnL ≤ 0: \(NumberText.percent(bootstrap.sharePnLAtMostZero))"
    }
    return text
  }
}
