import ArbAnalytics
import ArbCore
import ArbIngest

/// `arbkit premium --leg … --leg …`: aligns legs and reports premium statistics and bands.
struct PremiumCommand: Command {
  static let name = "premium"
  static let abstract = "Align legs and print mid/executable premium statistics, bands and episodes"
  static let usage = """
    Usage: arbkit premium --leg [VENUE:MARKET:SYMBOL=]PATH[,PATH…][#FIELD][@FORMAT] --leg … [options]

    Aligns two or more legs as-of on the union clock of their quotes (or a fixed
    grid) and reports the mid and executable premium in percent: count, mean, sample
    std, min, max, time-weighted mean/std, skew, kurtosis, quantiles, AR(1) half-life,
    and for each band the share of events and of time at or beyond it, episodes,
    their durations and peaks. With more than two legs the figures describe the
    N-leg max premium (highest over lowest mid) and the best executable edge.
    Definitions: docs/definitions.md.

    Options:
    \(HelpText.options([
      ("--leg SPEC", "a leg (repeat, at least two); MARKET is spot, linear, inverse, future or fx; FIELD picks the series of a file with several: price (default), mark or index (funding_rate and premium_index are rates and refused)"),
    ] + AnalysisFlags.help + ExecutionFlags.help + [
      ("--series PATH", "also write the aligned series as CSV: ts_us,valid,mid_pct,exec_pct,direction, then bid_K,ask_K per leg"),
      ("--format table|csv|json", "output (default table)"),
    ]))
    \(IngestFlags.help)
    """

  let legs: [LegSpec]
  let alignment: AlignmentOptions
  let bands: BandOptions
  /// `--size` and `--offset`.
  let execution: ExecutionFlags
  let seriesPath: String?
  let format: OutputFormat
  let ingest: IngestFlags

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: ["--leg", "--series", "--format"] + AnalysisFlags.flags + ExecutionFlags.flags + IngestFlags.flags,
      switches: IngestFlags.switches)
    try cursor.validate()
    if let stray = cursor.arguments.first { throw UsageError("unexpected argument '\(stray)' (legs are given with --leg)") }
    var ingest = try IngestFlags(cursor)
    legs = try Self.legs(cursor, ingest: ingest)
    let analysis = try AnalysisFlags(cursor)
    alignment = analysis.alignment
    bands = analysis.bands
    execution = try ExecutionFlags(cursor, ingest: &ingest)
    self.ingest = ingest
    seriesPath = cursor.value("--series")
    format = try OutputFormat.parse(cursor)
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
      do { _ = try Self.canonical(instrument, registry: ingest.options.registry) } catch { throw UsageError(error.description) }
    }
    return legs
  }

  /// A premium compares prices; between rates (funding, premium index) it means nothing.
  static func rateLeg(_ field: SeriesField, _ path: String) -> UsageError {
    UsageError("leg \(path) is a \(field.rawValue) series, a rate: a premium needs price, mark or index legs")
  }

  /// A leg whose `#FIELD` names a rate: what the file holds is not known yet, only what was asked for.
  static func rateLeg(named spec: LegSpec) -> UsageError {
    let field = spec.field?.rawValue ?? "price"
    return UsageError("the series leg \(spec.paths[0]) asks for with #\(field) is a \(field) series, a rate: a premium needs price, mark or index legs")
  }

  var files: RunFiles { ingest.files(inputs: legs.flatMap(\.paths), outputs: [seriesPath]) }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let loaded = try LoadedLegs.load(legs, options: ingest.options, specOverrides: ingest.specOverrides)
    let series = try execution.shifted(loaded.map(\.series))
    // A file of rates read without #FIELD gives a rate series too.
    if let rate = zip(legs, series).first(where: { $1.field.isRate }) { throw Self.rateLeg(rate.1.field, rate.0.paths[0]) }
    var canonical: [CanonicalInstrument?] = []
    for (leg, spec) in zip(series, legs) {
      do { canonical.append(try Self.canonical(leg.instrument, registry: ingest.options.registry)) } catch {
        throw RegistryError(message: "\(spec.paths[0]): error: \(error)")
      }
    }
    let premium = try PremiumSeries(legs: series, options: alignment)
    let analysis = PremiumAnalysis(premium: premium, options: bands)
    if execution.size != nil { try ExecutionFlags.refuseContractBooks(Array(zip(series, canonical))) }
    let sized = try execution.size.map { try SizedResult(size: $0, premium: premium, legs: series, alignment: alignment, bands: bands) }
    let result = PremiumResult(
      legs: loaded, canonical: canonical, premium: premium, analysis: analysis, alignment: alignment, bands: bands,
      clock: ingest.options.clock, sized: sized, offsets: execution.offsets)
    // Every format prints the figures of the JSON: checked once, before anything is written.
    let json = try result.json.checkedFinite()
    if let seriesPath {
      // The per-point leg quotes are kept only when they are written.
      try SeriesCSV.write(premium: premium, aligned: try AlignedLegs(legs: series, options: alignment), legs: series, to: seriesPath)
    }
    switch format {
    case .json: terminal.print(json.rendered())
    case .csv: terminal.print(result.csv, terminator: "")
    case .table: terminal.print(result.table)
    }
    for leg in loaded { for report in leg.reports { IngestSummary.warn(report, terminal: &terminal) } }
    if premium.validPoints == 0 {
      terminal.printError("arbkit: warning: no valid point: every point had a stale or missing leg (see --max-stale)")
    }
    return .success
  }

  /// The canonical instrument of a leg on a venue the registry knows; `nil` for other
  /// venues, FX series and files that name no symbol.
  static func canonical(_ instrument: Instrument, registry: ExchangeRegistry) throws(ResolveError) -> CanonicalInstrument? {
    guard registry.venue(instrument.venue) != nil, instrument.market != .fx, instrument.symbol != "unknown" else { return nil }
    return try registry.resolve(instrument)
  }
}
