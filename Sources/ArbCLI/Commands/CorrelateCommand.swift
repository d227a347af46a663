import ArbAnalytics
import ArbCore
import ArbIngest

/// `arbkit correlate --leg … --leg … --leg …`: correlation and covariance matrices of
/// the premiums of every leg over a base leg.
struct CorrelateCommand: Command {
  static let name = "correlate"
  static let abstract = "Correlation and covariance matrices of the premiums of legs over a base leg"
  static let usage = """
    Usage: arbkit correlate --leg SPEC --leg SPEC --leg SPEC… [options]

    Puts the legs on one clock (as arbkit premium: union clock or --grid, as-of
    quotes, --max-stale) and takes at every point the mid premium of each leg over
    the base leg, in percent, where both have a usable quote. Prints the
    correlation and covariance matrices of those series, over the points where all
    are valid (default) or, with --pairwise, each pair over the points where both
    are. The legs are streamed: memory holds a chunk, whatever the length of the
    history. Definitions: docs/definitions.md.

    Options:
    \(HelpText.options(LegInputs.help + [
      ("--base N", "the 1-based leg the premiums are taken over (default 1)"),
      ("--pairwise", "each pair uses the points where both premiums are valid (default: complete case)"),
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it, not with the history"),
      ("--format table|csv|json", "output (default table)"),
    ]))
    \(IngestFlags.help)
    """

  let inputs: LegInputs
  let base: Int
  let missing: CovarianceMatrix.Missing
  let chunkRows: Int
  let format: OutputFormat

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: LegInputs.flags + ["--base", "--chunk-rows", "--format"], switches: IngestFlags.switches + ["--pairwise"])
    try cursor.validate()
    inputs = try LegInputs(cursor, minimum: 3)
    let count = inputs.legs.count
    base = try cursor.value("--base", "a leg number from 1 to \(count)", { Int($0).flatMap { (1...count).contains($0) ? $0 - 1 : nil } }) ?? 0
    missing = cursor.flag("--pairwise") ? .pairwise : .completeCase
    chunkRows = try cursor.chunkRows()
    format = try OutputFormat.parse(cursor)
  }

  var files: RunFiles { inputs.files(outputs: []) }

  /// Streams the legs (as `arbkit premium` does) through the premium panel and the
  /// covariance sums, a chunk of points at a time: memory holds a chunk per leg, whatever
  /// the length of the history.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let (legs, progress) = try inputs.open(chunkRows: chunkRows, terminal: terminal)
    defer { progress.finish() }
    defer { legs.warn(&terminal) }
    let panel = try PremiumPanelStream(
      legs: legs.legs.map(\.stream), base: base, options: inputs.alignment, chunkPoints: chunkRows, legChunkRows: chunkRows)
    var accumulator = CovarianceAccumulator(size: panel.legs.count, missing: missing)
    while let chunk = try panel.next() { accumulator.add(chunk.premiums) }
    progress.finish()
    let matrix = accumulator.matrix
    let names = panel.legs.map { legs.legs[$0].instrument.description }
    let baseName = legs.legs[base].instrument.description
    // Every format prints the figures of the JSON: checked once, before anything is written.
    let checked = try json(matrix, names: names, base: baseName, points: panel.points).checkedFinite()
    switch format {
    case .json: terminal.print(checked.rendered())
    case .csv: terminal.print(csv(matrix, names: names), terminator: "")
    case .table: terminal.print(table(matrix, names: names, base: baseName, points: panel.points))
    }
    if matrix.counts.allSatisfy({ $0 < 2 }) {
      terminal.printError("arbkit: warning: fewer than two usable points: the matrices are undefined (see --max-stale)")
    }
    return .success
  }

  private func cell(_ m: [Double], _ i: Int, _ j: Int, _ n: Int) -> Double? {
    m[i * n + j].isFinite ? m[i * n + j] : nil
  }

  func json(_ m: CovarianceMatrix, names: [String], base: String, points: Int) -> JSONValue {
    let n = m.size
    func matrix(_ values: [Double]) -> JSONValue {
      .array((0..<n).map { i in .array((0..<n).map { j in .number(cell(values, i, j, n)) }) })
    }
    return .object([
      ("base", .string(base)),
      ("series", .array(names.map { .string($0) })),
      ("missing", .string(m.missing.rawValue)),
      ("points", .int(points)),
      ("counts", .array((0..<n).map { i in .array((0..<n).map { j in .int(m.counts[i * n + j]) }) })),
      ("correlation", matrix(m.correlation)),
      ("covariance", matrix(m.covariance)),
    ])
  }

  /// One row per pair: `a,b,count,correlation,covariance` (undefined = empty).
  func csv(_ m: CovarianceMatrix, names: [String]) -> String {
    let n = m.size
    var text = "a,b,count,correlation,covariance\n"
    for i in 0..<n {
      for j in 0..<n {
        text +=
          "\(names[i]),\(names[j]),\(m.counts[i * n + j]),\(NumberText.csv(cell(m.correlation, i, j, n))),\(NumberText.csv(cell(m.covariance, i, j, n)))\n"
      }
    }
    return text
  }

  func table(_ m: CovarianceMatrix, names: [String], base: String, points: Int) -> String {
    let n = m.size
    let missingText = m.missing == .pairwise ? "pairwise (each pair over the points where both are valid)" : "complete case (points where all are valid)"
    var text = "Premiums over \(base), % — \(points) clock points, \(missingText)\n"
    if m.missing == .completeCase { text += "Points used: \(m.counts.first ?? 0)\n" }
    for (title, values, digits) in [("Correlation", m.correlation, 4), ("Covariance, %²", m.covariance, 8)] {
      var table = TextTable(["#"] + (0..<n).map { "\($0 + 1)" })
      for i in 0..<n { table.add(["\(i + 1)"] + (0..<n).map { j in NumberText.fixed(cell(values, i, j, n), digits) }) }
      text += "\n\(title)\n" + table.rendered(indent: "  ") + "\n"
    }
    if m.missing == .pairwise {
      var counts = TextTable(["#"] + (0..<n).map { "\($0 + 1)" })
      for i in 0..<n { counts.add(["\(i + 1)"] + (0..<n).map { j in "\(m.counts[i * n + j])" }) }
      text += "\nPoints per pair\n" + counts.rendered(indent: "  ") + "\n"
    }
    text += "\nSeries\n" + names.enumerated().map { "  \($0 + 1)  \($1)" }.joined(separator: "\n")
    return text
  }
}
