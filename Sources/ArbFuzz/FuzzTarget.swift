/// A fuzz target: one parser family (or one group of commands) fed arbitrary bytes, checked for crashes (by the
/// fuzzer), hangs, unbounded allocation and broken invariants (here).
///
/// `arbkit-fuzz` runs one of them under libFuzzer (`make fuzz`); the test suite replays
/// every file of `Tests/FuzzCorpus/<name>/` through the same `run`. A new parser
/// family gets a line in `all` and a seed folder.
public struct FuzzTarget: Sendable {
  /// The name `arbkit-fuzz` takes and the folder of its seed corpus.
  public let name: String
  /// What the inputs are.
  public let summary: String
  /// Feeds one input; returns the invariants it broke (empty: read or cleanly rejected).
  public let run: @Sendable ([UInt8]) -> [String]

  /// Every target, one per parser family.
  public static let all: [FuzzTarget] = [
    FuzzTarget(name: "lines", summary: "a CSV file of a named format, detected from its header", run: IngestFamilies.lines),
    FuzzTarget(name: "columns", summary: "a column spec (JSON), a NUL byte, then the CSV it describes", run: IngestFamilies.columns),
    FuzzTarget(name: "tardis-l2", summary: "a Tardis incremental_book_L2 CSV", run: IngestFamilies.tardisL2),
    FuzzTarget(name: "freqtrade", summary: "a freqtrade OHLCV JSON file", run: IngestFamilies.freqtrade),
    FuzzTarget(name: "rest", summary: "recorded REST snapshots as JSON lines", run: IngestFamilies.rest),
    FuzzTarget(name: "cryptofeed", summary: "a cryptofeed JSON-lines recording", run: IngestFamilies.cryptofeed),
    FuzzTarget(name: "orderbook", summary: "order-book snapshots as JSON lines", run: IngestFamilies.orderBook),
    FuzzTarget(name: "parquet", summary: "a Parquet file, its table told by its column names", run: IngestFamilies.parquet),
    FuzzTarget(name: "compressed", summary: "a gzip, zip or zstd file, inflated to its end", run: IngestFamilies.compressed),
    FuzzTarget(name: "numbers", summary: "one field: decimal (against strtod), integer, scaled and every time form", run: ParserFamilies.numbers),
    FuzzTarget(name: "fields", summary: "a delimiter byte, a quote byte, then one line to split", run: ParserFamilies.fields),
    FuzzTarget(name: "cli-data", summary: "an arbkit data command's words and its small files", run: CommandFamilies.data),
    FuzzTarget(name: "cli-scenario", summary: "a backtest, sweep, merge or report command's words and its files", run: CommandFamilies.scenario),
  ]

  /// The target called `name`.
  public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}
