import ArbCore
import ArbIngest

/// `arbkit convert INPUT… --out DIR`: reads files once and writes them as a columnar cache.
struct ConvertCommand: Command {
  static let name = "convert"
  static let abstract = "Read recorded files once and write a columnar cache that every command opens instantly"
  static let usage = """
    Usage: arbkit convert INPUT… --out DIR [ingest options]

    Reads each input as inspect does (an INPUT is [VENUE:MARKET:SYMBOL=]PATH[,PATH…]
    [@FORMAT]) and writes every series it holds to DIR: one raw little-endian file
    per column (time.i64, bid.f64, …) and manifest.json with the schema, row counts,
    time range, each source's row accounting and checksum. DIR can then be given
    wherever a file is (inspect DIR, premium --leg DIR); it is memory-mapped instead
    of parsed. Ingest options apply here, when converting: a cache keeps the clock
    it was converted with. Opening a cache whose source file changed is an error
    (exit 65); a source that is gone is only a warning. An earlier cache in DIR is
    replaced; another existing folder is not. Layout: docs/formats.md.

    Options:
    \(HelpText.option("--out DIR", "the cache folder to write (required)"))
    \(IngestFlags.help)
    """

  let inputs: [LegSpec]
  let folder: String
  let ingest: IngestFlags

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(arguments, flags: ["--out"] + IngestFlags.flags, switches: IngestFlags.switches)
    try cursor.validate()
    guard !cursor.arguments.isEmpty else { throw UsageError("no file given") }
    guard let folder = cursor.value("--out") else { throw UsageError("missing --out DIR") }
    self.folder = folder
    ingest = try IngestFlags(cursor)
    var specs: [LegSpec] = []
    for text in cursor.arguments {
      do { specs.append(ingest.leg(try LegSpec(parsing: text))) } catch { throw UsageError(error.message) }
    }
    inputs = specs
  }

  var files: RunFiles { ingest.files(inputs: inputs.flatMap(\.paths)) }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    try ColumnarStore.checkTarget(folder)
    var files: [IngestedFile] = []
    for spec in inputs {
      let options = try spec.ingestOptions(ingest.options, specOverrides: ingest.specOverrides)
      for path in spec.paths {
        let file = try Ingest.read(path: path, options: options)
        guard file.report.format != ColumnarStore.reportFormat else {
          throw UsageError("\(path) is already a columnar cache")
        }
        files.append(file)
      }
    }
    try ColumnarStore.write(files, to: folder)
    let series = files.flatMap(\.series)
    let rows = series.reduce(0) { $0 + $1.count }
    terminal.print("wrote \(folder): \(series.count) series, \(rows) rows, \(series.reduce(0) { $0 + $1.columnBytes }) column bytes from \(files.count) files")
    var table = TextTable(["venue", "market", "symbol", "field", "rows", "price"], rightAligned: [4])
    for s in series {
      table.add([s.instrument.venue, s.instrument.market.rawValue, s.instrument.symbol, s.field.rawValue, "\(s.count)", s.priceSource.rawValue])
    }
    terminal.print(table.rendered(indent: "  "))
    for file in files { IngestSummary.warn(file.report, terminal: &terminal) }
    return .success
  }
}
