import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

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
      ("--series PATH", "also write the aligned series as CSV: ts_us,valid,mid_pct,exec_pct,direction, then bid_K,ask_K per leg; "
        + "a PATH ending .arrow or .feather: an Arrow IPC file of the same columns, typed; .parquet: a Parquet file"),
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it, not with the history"),
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
  let chunkRows: Int
  let format: OutputFormat
  let ingest: IngestFlags

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: ["--leg", "--series", "--chunk-rows", "--format"] + AnalysisFlags.flags + ExecutionFlags.flags + IngestFlags.flags,
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
    chunkRows = try cursor.value("--chunk-rows", "a positive number of rows", { Int($0).flatMap { $0 > 0 ? $0 : nil } }) ?? 1 << 16
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

  var files: RunFiles { ingest.files(inputs: legs.flatMap(\.paths), outputs: [seriesPath]) }

  /// Streams the legs through the premium and its analysis a chunk at a time: a store
  /// leg is read from its mapped partitions, files in time order as they are parsed,
  /// other sources whole first. With `--size` every leg is read whole, since the sized
  /// premium walks the books in memory.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let inputs = try StreamedLegs.open(legs, ingest: ingest, whole: execution.size != nil, chunkRows: chunkRows)
    // A file of rates read without #FIELD gives a rate series too.
    if let rate = zip(legs, inputs.legs).first(where: { $1.stream.field.isRate }) { throw Self.rateLeg(rate.1.stream.field, rate.0.paths[0]) }
    var canonical: [CanonicalInstrument?] = []
    for (leg, spec) in zip(inputs.legs, legs) {
      do { canonical.append(try ingest.options.registry.canonical(ofLeg: leg.instrument)) } catch {
        throw RegistryError(message: "\(spec.paths[0]): error: \(error)")
      }
    }
    try execution.checkOffsets(venues: inputs.legs.map(\.instrument.venue))
    let streams = inputs.legs.map { leg -> any QuoteStream in
      let micros = execution.offsets.first { $0.venue == leg.instrument.venue }?.micros ?? 0
      return micros == 0 ? leg.stream : ShiftedQuoteStream(leg.stream, by: micros)
    }
    let premium = try PremiumStream(
      legs: streams, options: alignment, chunkPoints: chunkRows, legChunkRows: chunkRows, keepQuotes: seriesPath != nil)
    // The values kept for the quantiles stay in memory up to 16 chunks' worth (1 Mi by default).
    let analyzer = PremiumAnalyzer(
      legCount: legs.count, maxPremium: premium.maxPremium, options: bands, spillMemoryLimit: max(1 << 16, 16 * chunkRows))
    var series = try seriesPath.map { try SeriesOutput.premium(path: $0, legCount: legs.count) }
    while let chunk = try premium.next() {
      try analyzer.add(chunk)
      try series?.write(chunk)
    }
    let analysis = try analyzer.finish()
    var sized: SizedResult? = nil
    if let size = execution.size, let whole = inputs.whole {
      let shifted = try execution.shifted(whole)
      try ExecutionFlags.refuseContractBooks(Array(zip(shifted, canonical)))
      sized = try SizedResult(size: size, premium: try PremiumSeries(legs: shifted, options: alignment), legs: shifted, alignment: alignment, bands: bands)
    }
    let described = inputs.legs.indices.map { k in
      PremiumResult.Leg(
        instrument: inputs.legs[k].instrument, field: streams[k].field, priceSource: streams[k].priceSource, rows: premium.legRows[k],
        firstTime: premium.legFirstTime[k], lastTime: premium.legLastTime[k], reports: inputs.legs[k].reports)
    }
    let result = PremiumResult(
      legs: described, canonical: canonical, points: premium.points, validPoints: premium.validPoints, analysis: analysis,
      alignment: alignment, bands: bands, clock: ingest.options.clock, sized: sized, offsets: execution.offsets)
    // Every format prints the figures of the JSON: checked once, before anything is written.
    let json = try result.json.checkedFinite()
    try series?.commit()
    switch format {
    case .json: terminal.print(json.rendered())
    case .csv: terminal.print(result.csv, terminator: "")
    case .table: terminal.print(result.table)
    }
    for leg in inputs.legs { for report in leg.reports { IngestSummary.warn(report, terminal: &terminal) } }
    if premium.validPoints == 0 {
      terminal.printError("arbkit: warning: no valid point: every point had a stale or missing leg (see --max-stale)")
    }
    return .success
  }
}
