#if canImport(Glibc)
@preconcurrency import Glibc
#endif
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
    var legs: [LegSpec] = []
    for text in cursor.values("--leg") {
      do { legs.append(ingest.leg(try LegSpec(parsing: text))) } catch { throw UsageError(error.message) }
    }
    guard legs.count >= minimum else { throw UsageError("need at least \(minimum) --leg, was \(legs.count)") }
    if let rate = legs.first(where: { $0.field?.isRate == true }) { throw PremiumCommand.rateLeg(rate.field!, rate.paths[0]) }
    for case let instrument? in legs.map(\.instrument) {
      do { _ = try PremiumCommand.canonical(instrument, registry: ingest.options.registry) } catch { throw UsageError(error.description) }
    }
    self.legs = legs
    let maxStale = try cursor.value("--max-stale", "a duration such as 5s or 100ms", TimeText.parseDuration)
    let grid = try cursor.value("--grid", "a positive duration such as 1s", { TimeText.parseDuration($0).flatMap { $0 > 0 ? $0 : nil } })
    alignment = AlignmentOptions(maxStale: maxStale, grid: grid)
  }

  /// Reads every leg (warnings about rejected rows go to `terminal`).
  func load(_ terminal: inout Terminal) throws -> [QuoteSeries] {
    let loaded = try LoadedLegs.load(legs, options: ingest.options, specOverrides: ingest.specOverrides)
    for leg in loaded { for report in leg.reports { IngestSummary.warn(report, terminal: &terminal) } }
    let series = loaded.map(\.series)
    if let rate = zip(legs, series).first(where: { $1.field.isRate }) { throw PremiumCommand.rateLeg(rate.1.field, rate.0.paths[0]) }
    return series
  }
}

/// Per-row text output of the series commands: CSV rows written to a file in chunks,
/// or collected for stdout.
struct RowWriter {
  private let fd: Int32?
  private let path: String
  private(set) var text = ""

  /// Writes to `path`, or collects the text when `path` is nil.
  init(path: String?) throws {
    self.path = path ?? "-"
    guard let path else {
      fd = nil
      return
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw FileError.unreadable(path: path, reason: "cannot write: \(String(cString: strerror(errno)))") }
    self.fd = fd
  }

  mutating func append(_ line: String) throws {
    text += line
    if fd != nil && text.utf8.count > 1 << 20 { try flush() }
  }

  /// Writes what is left and closes the file; returns the collected text for stdout.
  mutating func finish() throws -> String? {
    guard let fd else { return text }
    try flush()
    close(fd)
    return nil
  }

  private mutating func flush() throws {
    guard let fd else { return }
    try text.withUTF8 { try FileOutput.writeAll(fd, UnsafeRawBufferPointer($0), path: path) }
    text.removeAll(keepingCapacity: true)
  }
}
