import ArbAnalytics
import ArbCore
import ArbIngest

/// The legs and alignment flags of the commands that work on premiums (`rolling`,
/// `candles`, `correlate`), parsed and checked as `arbkit premium` does.
struct PremiumInputs {
  static let flags = ["--leg", "--max-stale", "--grid"] + IngestFlags.flags
  static let help: [(String, String)] = [
    ("--leg SPEC", "a leg, as for arbkit premium (repeat)"),
    ("--max-stale DURATION", "a point is valid only if every leg it uses quoted within this (5s, 100ms, 2m); default: no limit"),
    ("--grid DURATION", "align on a fixed grid (1s, 1m) instead of the union clock"),
  ]

  let legs: [LegSpec]
  let alignment: AlignmentOptions
  let ingest: IngestFlags

  /// Parses `--leg` (at least `minimum`), `--max-stale`, `--grid` and the ingest flags.
  init(_ cursor: ArgumentCursor, minimum: Int) throws(UsageError) {
    if let stray = cursor.arguments.first { throw UsageError("unexpected argument '\(stray)' (legs are given with --leg)") }
    ingest = try IngestFlags(cursor)
    legs = try PremiumCommand.legs(cursor, ingest: ingest, minimum: minimum)
    alignment = try AnalysisFlags.alignment(cursor)
  }

  /// The files of a run reading these legs and writing `outputs`.
  func files(outputs: [String?]) -> RunFiles { ingest.files(inputs: legs.flatMap(\.paths), outputs: outputs) }

  /// Reads every leg (warnings about rejected rows go to `terminal`).
  func load(_ terminal: inout Terminal) throws -> [QuoteSeries] {
    let loaded = try LoadedLegs.load(legs, options: ingest.options, specOverrides: ingest.specOverrides)
    for leg in loaded { for report in leg.reports { IngestSummary.warn(report, terminal: &terminal) } }
    let series = loaded.map(\.series)
    if let rate = zip(legs, series).first(where: { $1.field.isRate }) { throw PremiumCommand.rateLeg(rate.1.field, rate.0.paths[0]) }
    return series
  }
}

/// Per-row text output of the series commands: CSV rows written to a file in chunks
/// (an `AtomicFile`, in place at `finish`), or collected for stdout.
struct RowWriter {
  private let file: AtomicFile?
  /// A columnar file (a `path` ending `.arrow`, `.feather` or `.parquet`) and its columns'
  /// types: the CSV is collected, then written as the columnar file of its values
  /// (`CSVColumnar`).
  private let columnar: (path: String, types: [ArrowType])?
  private(set) var text = ""

  /// Writes to `path`, or collects the text when `path` is nil; `types` are the CSV
  /// columns' types for a columnar `path`.
  init(path: String?, types: [ArrowType] = []) throws {
    columnar = path.flatMap { ColumnarFile.isColumnar($0) ? ($0, types) : nil }
    file = try columnar == nil ? path.map { try AtomicFile(path: $0) } : nil
  }

  /// Whether the rows go to a columnar file (which holds the CSV's rows, not JSON).
  var isColumnar: Bool { columnar != nil }

  mutating func append(_ line: String) throws {
    text += line
    if file != nil && text.utf8.count > 1 << 20 { try flush() }
  }

  /// Writes what is left and puts the file in place; returns the collected text for stdout.
  mutating func finish() throws -> String? {
    if let columnar {
      try CSVColumnar.write(text, types: columnar.types, to: columnar.path)
      return nil
    }
    guard let file else { return text }
    try flush()
    try file.commit()
    return nil
  }

  private mutating func flush() throws {
    try file?.write(text)
    text.removeAll(keepingCapacity: true)
  }
}
