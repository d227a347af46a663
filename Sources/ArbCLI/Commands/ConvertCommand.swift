import ArbCore
import ArbIngest

/// `arbkit convert INPUT… --out DIR`: reads files once and adds them to a store, or
/// writes their quotes as one normalised table (`--output-format csv|arrow|parquet`).
struct ConvertCommand: Command {
  static let name = "convert"
  static let abstract = "Read recorded files once and add them to a store, partitioned by series and UTC day (or write one quotes table)"
  static let usage = """
    Usage: arbkit convert INPUT… --out DIR [ingest options]
           arbkit convert INPUT… --out FILE [--output-format csv|arrow|parquet] [ingest options]

    Reads each input as inspect does (an INPUT is [VENUE:MARKET:SYMBOL=]PATH[,PATH…]
    [@FORMAT]) and adds every series it holds to the store DIR, one partition per
    series and UTC day: DIR/VENUE/MARKET/SYMBOL/FIELD/YYYY-MM-DD/ holds one raw
    little-endian file per column (time.i64, bid.f64, …) and partition.json;
    DIR/store.json lists the series, their partitions and each source's stamp and
    row accounting. A new DIR is made; an existing store is added to without
    rewriting a partition. An input already in the store, unchanged, is skipped.
    A series and day come from one source: quotes of a series and day the store
    holds from another file are refused (exit 65) unless they are the same. DIR can
    then be given wherever a file is (inspect DIR, premium --leg DIR, with
    --from/--to reading only the days needed); it is memory-mapped instead of
    parsed. Ingest options apply when converting: a store keeps the clock it was
    made with. Opening a store whose source file changed is an error (exit 65); a
    source that is gone is only a warning. Layout: docs/formats.md.

    With --output-format csv, arrow or parquet (or an --out FILE ending .csv, .arrow,
    .feather or .parquet), the price series of every input are written to FILE instead, as
    ArbKit's normalised quotes ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last
    (CSV, Arrow IPC or Parquet, typed), one series after another: a table that pandas,
    polars and DuckDB open, and that every command reads as a leg (CSV and Parquet).

    Options:
    \(HelpText.options([
      ("--out DIR|FILE", "the store to make or add to, or the table file to write (required)"),
      ("--output-format csv|arrow|parquet", "write --out as this table file (default: by its extension; any other name is a store)"),
    ]))
    \(IngestFlags.help(sortSwitch: "--sort", window: false))
    """

  let inputs: [LegSpec]
  let folder: String
  /// The table file format of `--to`, `nil` for a store.
  let table: TableFormat?
  let ingest: IngestFlags

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(arguments, flags: ["--out", TableOutput.flag] + IngestFlags.flags, switches: IngestFlags.switches)
    try cursor.validate()
    guard !cursor.arguments.isEmpty else { throw UsageError("no file given") }
    guard let folder = cursor.value("--out") else { throw UsageError("missing --out DIR") }
    self.folder = folder
    // Without --output-format, a table file's extension names its format; any other name is a store.
    let byName = [".csv", ".arrow", ".feather", ".parquet"].contains { folder.lowercased().hasSuffix($0) } ? TableFormat(path: folder) : nil
    table = try cursor.value(TableOutput.flag, "csv, arrow or parquet", TableFormat.init(rawValue:)) ?? byName
    ingest = try IngestFlags(cursor)
    if ingest.options.window != nil {
      throw UsageError("convert keeps every quote; give --from/--to to the commands that read the store")
    }
    var specs: [LegSpec] = []
    for text in cursor.arguments {
      do { specs.append(ingest.leg(try LegSpec(parsing: text))) } catch { throw UsageError(error.message) }
    }
    inputs = specs
  }

  var files: RunFiles { ingest.files(inputs: inputs.flatMap(\.files), outputs: [table == nil ? nil : folder]) }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    if let table { return try writeTable(table, &terminal) }
    let transaction = try StoreTransaction(path: folder, clock: ingest.options.clock)
    // What the summary says of each file added: its report and its series without their quotes.
    // A file in time order streams into the store; memory holds one chunk of it, or one file
    // read whole at a time, however many are converted.
    var reports: [IngestReport] = []
    var series: [(instrument: Instrument, field: SeriesField, rows: Int, priceSource: PriceSource)] = []
    var unchanged: [String] = []
    for spec in inputs {
      for path in spec.paths {
        if Store.isStore(path: path) { throw UsageError("\(path) is a store, not a source file") }
        guard let (report, priceSources) = try transaction.add(spec.file(path), options: ingest.options, specOverrides: ingest.specOverrides)
        else {
          unchanged.append(path)
          continue
        }
        for ((instrument, field, rows), priceSource) in zip(report.instruments, priceSources) {
          series.append((instrument, field, rows, priceSource))
        }
        reports.append(report)
      }
    }
    try transaction.commit()
    let rows = series.reduce(0) { $0 + $1.rows }
    terminal.print("\(folder): added \(series.count) series, \(rows) rows from \(reports.count) files; \(unchanged.count) already in the store")
    if !series.isEmpty {
      var table = TextTable(["venue", "market", "symbol", "field", "rows", "price"], rightAligned: [4])
      for s in series {
        table.add([s.instrument.venue, s.instrument.market.rawValue, s.instrument.symbol, s.field.rawValue, "\(s.rows)", s.priceSource.rawValue])
      }
      terminal.print(table.rendered(indent: "  "))
    }
    for path in unchanged { terminal.printError("\(path): note: already in \(folder), unchanged; skipped") }
    for report in reports { IngestSummary.warn(report, terminal: &terminal) }
    return .success
  }

  /// Writes the price series of every input to the table file `folder`, one series after
  /// another: each input file is streamed into a temporary store beside it (`SourceSpill`),
  /// whose series are then read back a chunk at a time, so that memory does not grow with
  /// the input (a pipe is read whole). A series of another field (mark, funding rate …) has no column there and
  /// is refused before the file is put in place.
  private func writeTable(_ format: TableFormat, _ terminal: inout Terminal) throws -> ExitCode {
    let table = try QuoteTableFile(path: folder, format: format)
    var reports: [IngestReport] = []
    // The reader splits a table into series by instrument: an instrument's rows must make
    // one series, so a later file of it (the next hour of a recording) continues it only
    // with the same prices and after its last quote.
    var written: [Instrument: (source: PriceSource, last: Int64)] = [:]
    for spec in inputs {
      for path in spec.paths {
        let spill = try SourceSpill(spec.file(path), options: ingest.options, specOverrides: ingest.specOverrides, beside: folder)
        for (k, series) in spill.series.enumerated() {
          guard series.field == .price else {
            throw UsageError("\(path): its \(series.instrument) \(series.field.rawValue) series has no column in a quotes table; convert it to a store")
          }
          if let before = written[series.instrument], before.source != series.priceSource || (series.firstTime ?? .max) <= before.last {
            throw UsageError(
              "\(path): its \(series.instrument) quotes (\(series.priceSource.rawValue) prices) do not continue the \(before.source.rawValue) ones "
                + "before them after their last; a quotes table holds one series an instrument: write them to separate files, or convert them to a store")
          }
          if let last = series.lastTime { written[series.instrument] = (series.priceSource, last) }
          try table.append(spill.stream(k))
        }
        reports.append(spill.report)
      }
    }
    try table.commit()
    terminal.print("\(folder): wrote \(written.count) series, \(table.rows) rows from \(reports.count) files as \(format.rawValue)")
    for report in reports { IngestSummary.warn(report, terminal: &terminal) }
    return .success
  }
}
