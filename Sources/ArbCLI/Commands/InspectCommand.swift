import ArbCore
import ArbIngest

/// `arbkit inspect PATH…`: reads files and prints their row accounting.
struct InspectCommand: Command {
  static let name = "inspect"
  static let abstract = "Read recorded files and print format, row accounting, time range and instruments"
  static let usage = """
    Usage: arbkit inspect PATH… [--format table|csv|json] [ingest options]

    Reads each file (plain or compressed; in one pass keeping no quote when it is a
    CSV or Parquet file in time order) and prints its format, rows read,
    accepted and rejected (read = accepted + rejected), rows collapsed as duplicate
    timestamps, accepted rows outside --from/--to, first and last timestamps, and the series it holds: instrument,
    field (price, mark, index, funding_rate or premium_index; a derivative ticker
    holds several per instrument) and points. A path may end in @FORMAT (a named
    format or a column spec JSON).

    Options:
    \(HelpText.option("--format table|csv|json", "output (default table); json: one object per file, an array for several"))
    \(IngestFlags.help)
    """

  let paths: [LegSpec]
  let format: OutputFormat
  let ingest: IngestFlags

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(arguments, flags: ["--format"] + IngestFlags.flags, switches: IngestFlags.switches)
    try cursor.validate()
    guard !cursor.arguments.isEmpty else { throw UsageError("no file given") }
    ingest = try IngestFlags(cursor)
    format = try OutputFormat.parse(cursor)
    var legs: [LegSpec] = []
    for path in cursor.arguments {
      do { legs.append(ingest.leg(try LegSpec(parsing: path))) } catch { throw UsageError(error.message) }
    }
    paths = legs
  }

  var files: RunFiles { ingest.files(inputs: paths.flatMap(\.files)) }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    var reports: [(IngestReport, [PriceSource])] = []
    for spec in paths {
      for path in spec.paths {
        let single = spec.file(path)
        if let counted = try FileQuoteStream.count(single, options: ingest.options, specOverrides: ingest.specOverrides) {
          reports.append(counted)
        } else {
          let file = try Ingest.read(path: path, options: try single.ingestOptions(ingest.options, specOverrides: ingest.specOverrides))
          reports.append((file.report, file.series.map(\.priceSource)))
        }
      }
    }
    switch format {
    case .json:
      let objects = reports.map { Self.json($0.0, $0.1) }
      terminal.print((objects.count == 1 ? objects[0] : .array(objects)).rendered())
    case .csv:
      terminal.print("file,format,rows_read,rows_accepted,rows_rejected,rows_collapsed,first_ts_us,last_ts_us,venue,market,symbol,field,rows")
      for (report, _) in reports {
        for (instrument, field, rows) in report.instruments {
          terminal.print(
            [
              CSV.field(report.path), report.format, "\(report.rowsRead)", "\(report.rowsAccepted)", "\(report.rowsRejected)",
              "\(report.rowsCollapsed)", report.firstTime.map(String.init) ?? "", report.lastTime.map(String.init) ?? "",
              CSV.field(instrument.venue), instrument.market.rawValue, CSV.field(instrument.symbol), field.rawValue, "\(rows)",
            ].joined(separator: ","))
        }
      }
    case .table:
      for (report, priceSources) in reports { terminal.print(Self.table(report, priceSources) + "\n") }
    }
    for (report, _) in reports { IngestSummary.warn(report, terminal: &terminal) }
    return .success
  }

  /// The report of a file whose series have `priceSources`, as JSON.
  static func json(_ report: IngestReport, _ priceSources: [PriceSource]) -> JSONValue {
    // An order book file also tells the rows it skipped and the instants it left out.
    let book: [(String, JSONValue)] =
      report.format == RecordFormat.tardisIncrementalL2.id
      ? [("rows_before_snapshot", .int(report.rowsBeforeSnapshot)), ("crossed_states", .int(report.crossedStates))] : []
    let counts: [(String, JSONValue)] = [
      ("file", .string(report.path)),
      ("format", .string(report.format)),
      ("rows_read", .int(report.rowsRead)),
      ("rows_accepted", .int(report.rowsAccepted)),
      ("rows_rejected", .int(report.rowsRejected)),
      ("rows_collapsed", .int(report.rowsCollapsed)),
      ("rows_outside_window", .int(report.rowsOutsideWindow)),
    ]
    let rest: [(String, JSONValue)] = [
      ("first_ts_us", .int(report.firstTime)),
      ("last_ts_us", .int(report.lastTime)),
      ("first_ts", report.firstTime.map { .string(TimeText.iso8601($0)) } ?? .null),
      ("last_ts", report.lastTime.map { .string(TimeText.iso8601($0)) } ?? .null),
      (
        "instruments",
        .array(
          zip(report.instruments, priceSources).map { entry, priceSource in
            .object([
              ("venue", .string(entry.instrument.venue)), ("market", .string(entry.instrument.market.rawValue)),
              ("symbol", .string(entry.instrument.symbol)), ("field", .string(entry.field.rawValue)), ("rows", .int(entry.rows)),
              ("price_source", .string(priceSource.rawValue)),
            ])
          })
      ),
      ("rejected", .object(report.rejectedByKind.map { ($0.kind, .int($0.count)) })),
      ("error_records", .int(report.errorRecords)),
      ("error_record_samples", .array(report.errorRecordSamples.map { .string($0.description) })),
      ("skipped_messages", .object(report.skippedByKind.map { ($0.kind, .int($0.count)) })),
      ("quarantine", report.quarantinePath.map(JSONValue.string) ?? .null),
    ]
    return .object(counts + book + rest)
  }

  static func table(_ report: IngestReport, _ priceSources: [PriceSource]) -> String {
    var text = "\(report.path)  (\(report.format))\n"
    text += "  rows read \(report.rowsRead) = accepted \(report.rowsAccepted) + rejected \(report.rowsRejected)"
    text += report.rowsCollapsed > 0 ? "; \(report.rowsCollapsed) collapsed as duplicate timestamps" : ""
    text += report.rowsOutsideWindow > 0 ? "; \(report.rowsOutsideWindow) outside --from/--to\n" : "\n"
    if report.format == RecordFormat.tardisIncrementalL2.id {
      text += "  order book: \(report.rowsBeforeSnapshot) rows before the first snapshot skipped; \(report.crossedStates) crossed instants without a quote\n"
    }
    if let first = report.firstTime, let last = report.lastTime {
      text += "  time \(TimeText.iso8601(first)) .. \(TimeText.iso8601(last))\n"
    }
    // JSON sources: accepted lines that are error responses or hold no series read.
    if report.errorRecords > 0 {
      text += "  error records \(report.errorRecords) (accepted, not read as prices)\n"
      for error in report.errorRecordSamples.prefix(3) { text += "    \(error)\n" }
    }
    if !report.skippedByKind.isEmpty {
      let total = report.skippedByKind.reduce(0) { $0 + $1.count }
      text += "  skipped messages \(total) (accepted, no series read): " + report.skippedByKind.map { "\($0.kind) \($0.count)" }.joined(separator: ", ") + "\n"
    }
    var table = TextTable(["venue", "market", "symbol", "field", "rows", "price"], rightAligned: [4])
    for (entry, priceSource) in zip(report.instruments, priceSources) {
      table.add([
        entry.instrument.venue, entry.instrument.market.rawValue, entry.instrument.symbol, entry.field.rawValue, "\(entry.rows)",
        priceSource.rawValue,
      ])
    }
    return text + table.rendered(indent: "  ")
  }
}

/// Messages about rejected rows (after a run with `--bad-rows skip`) and the report's
/// warnings, printed on stderr.
enum IngestSummary {
  static func warn(_ report: IngestReport, terminal: inout Terminal) {
    for warning in report.warnings { terminal.printError("\(report.path): warning: \(warning)") }
    guard report.rowsRejected > 0 else { return }
    let kinds = report.rejectedByKind.map { "\($0.kind) \($0.count)" }.joined(separator: ", ")
    terminal.printError(
      "\(report.path): warning: \(report.rowsRejected) of \(report.rowsRead) rows rejected (\(kinds)); raw lines in \(report.quarantinePath ?? "-")")
    for error in report.errors.prefix(5) { terminal.printError("  \(error)") }
    if report.errors.count < report.rowsRejected {
      terminal.printError("  … \(report.rowsRejected - min(report.errors.count, 5)) more")
    }
  }
}
