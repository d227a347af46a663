import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

/// The `--leg` legs, the alignment flags and the ingest flags of the commands that
/// compare legs (`premium`, `rolling`, `candles`, `correlate`, `profile`): parsed,
/// resolved, read and warned about in one place.
struct LegInputs {
  static let flags = ["--leg", "--max-stale", "--grid"] + IngestFlags.flags
  static let help: [(String, String)] = [
    ("--leg SPEC", "a leg, as for arbkit premium (repeat)"),
    ("--max-stale DURATION", "a point is valid only if every leg it uses quoted within this (5s, 100ms, 2m); default: no limit"),
    ("--grid DURATION", "align on a fixed grid (1s, 1m) instead of the union clock"),
  ]

  let legs: [LegSpec]
  let alignment: AlignmentOptions
  var ingest: IngestFlags

  /// Parses `--leg` (at least `minimum`), `--max-stale`, `--grid` and the ingest flags.
  init(_ cursor: ArgumentCursor, minimum: Int) throws(UsageError) {
    if let stray = cursor.arguments.first { throw UsageError("unexpected argument '\(stray)' (legs are given with --leg)") }
    ingest = try IngestFlags(cursor)
    legs = try Self.legs(cursor, ingest: ingest, minimum: minimum)
    alignment = try AnalysisFlags.alignment(cursor)
  }

  /// The `--leg` specs: at least `minimum`, no rate leg, registry symbols that resolve.
  static func legs(_ cursor: ArgumentCursor, ingest: IngestFlags, minimum: Int = 2) throws(UsageError) -> [LegSpec] {
    var legs: [LegSpec] = []
    for text in cursor.values("--leg") {
      do { legs.append(ingest.leg(try LegSpec(parsing: text))) } catch { throw UsageError(error.message) }
    }
    guard legs.count >= minimum else { throw UsageError("need at least \(minimum) --leg, was \(legs.count)") }
    if let rate = legs.first(where: { $0.field?.isRate == true }) { throw Self.rateLeg(named: rate) }
    for case let instrument? in legs.map(\.instrument) {
      do { _ = try ingest.options.registry.canonical(ofLeg: instrument) } catch { throw UsageError(error.description) }
    }
    return legs
  }

  /// A premium compares prices; between rates (funding, premium index) it means nothing.
  static func rateLeg(_ field: SeriesField, _ path: String) -> UsageError {
    UsageError(ScenarioLegError(.rateSeries(field: field, path: path)).description)
  }

  /// A leg whose `#FIELD` names a rate: what the file holds is not known yet, only what was asked for.
  static func rateLeg(named spec: LegSpec) -> UsageError {
    let field = spec.field?.rawValue ?? "price"
    return UsageError("the series leg \(spec.paths[0]) asks for with #\(field) is a \(field) series, a rate: a premium needs price, mark or index legs")
  }

  /// The files of a run reading these legs and writing `outputs`.
  func files(outputs: [String?] = []) -> RunFiles { ingest.files(inputs: legs.flatMap(\.files), outputs: outputs) }

  /// Opens every leg as a stream of chunks of `chunkRows` quotes (`whole`: each read
  /// whole first), refusing a leg that turns out to hold a rate. On a terminal the
  /// quotes read are shown on stderr as they go (`progress`), with a bar and the time
  /// left when every leg knows its length (a store, a leg read whole).
  func open(sizes: Bool = false, chunkRows: Int, terminal: Terminal) throws -> (legs: StreamedLegs, progress: Progress) {
    var opened = try StreamedLegs.open(legs, ingest: ingest, sizes: sizes, chunkRows: chunkRows)
    if let rate = zip(legs, opened.legs).first(where: { $1.stream.field.isRate }) { throw Self.rateLeg(rate.1.stream.field, rate.0.paths[0]) }
    let progress = opened.counted(on: terminal)
    return (opened, progress)
  }
}
