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
      TableOutput.help,
    ] + ShardFlags.help(series: "with --series, each point's quotes too: the merge writes the series") + [
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it, not with the history"),
      ("--format table|csv|json", "output (default table)"),
    ]))
    \(IngestFlags.help)
    """

  let inputs: LegInputs
  let bands: BandOptions
  /// `--size` and `--offset`.
  let execution: ExecutionFlags
  let series: TableOutput?
  let chunkRows: Int
  var format: OutputFormat
  /// `--shard I/N --out PATH`: the shard made, and where its partial result goes.
  let shard: ShardFlags?
  /// The arguments without `--shard` and `--out`: what every shard of one run shares.
  let sharedArguments: [String]

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: ["--leg", "--series", TableOutput.flag, "--chunk-rows", "--format"] + ShardFlags.flags + AnalysisFlags.flags + ExecutionFlags.flags
        + IngestFlags.flags,
      switches: IngestFlags.switches)
    try cursor.validate()
    var inputs = try LegInputs(cursor, minimum: 2)
    bands = try AnalysisFlags.bands(cursor)
    execution = try ExecutionFlags(cursor, ingest: &inputs.ingest)
    self.inputs = inputs
    series = try TableOutput.parse(cursor, flags: ["--series"])[0]
    chunkRows = try cursor.chunkRows()
    format = try OutputFormat.parse(cursor)
    shard = try ShardFlags.parse(cursor, refusing: [("--size", execution.size != nil), ("--offset", !execution.offsets.isEmpty)])
    sharedArguments = ShardFlags.shared(arguments)
  }

  /// With `--shard`, `--series` is written by the merge, not by the shard.
  var files: RunFiles { inputs.files(outputs: shard == nil ? [series?.path] : [shard?.out]) }

  /// Streams the legs through the premium and its analysis a chunk at a time: a store
  /// leg is read from its mapped partitions, files in time order as they are parsed,
  /// other sources whole first. With `--size` the streams carry their sizes, and the
  /// sized premium walks each point's books as the points go by: the order book behind a
  /// leg's quote (a book snapshot or a rebuilt L2 book streams with its books), or its top level.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    if let shard { return try runShard(shard, terminal: terminal) }
    // A file of rates read without #FIELD gives a rate series too: refused here.
    let (opened, progress) = try inputs.open(sizes: execution.size != nil, chunkRows: chunkRows, terminal: terminal)
    defer { progress.finish() }
    defer { opened.warn(&terminal) }
    let (alignment, ingest) = (inputs.alignment, inputs.ingest)
    let canonical = try canonical(opened.legs.map(\.instrument))
    try execution.checkOffsets(venues: opened.legs.map(\.instrument.venue))
    if execution.size != nil { try ExecutionFlags.refuseContractBooks(Array(zip(opened.legs.map(\.instrument), canonical))) }
    let streams = opened.legs.map { leg -> any QuoteStream in
      let micros = execution.offsets.first { $0.venue == leg.instrument.venue }?.micros ?? 0
      return micros == 0 ? leg.stream : ShiftedQuoteStream(leg.stream, by: micros)
    }
    let premium = try PremiumStream(
      legs: streams, options: alignment, chunkPoints: chunkRows, legChunkRows: chunkRows, keepQuotes: series != nil,
      keepUsableQuotes: execution.size != nil, keepSizes: execution.size != nil)
    // The values kept for the quantiles stay in memory up to 16 chunks' worth (1 Mi by default).
    let analyzer = PremiumAnalyzer(
      legCount: opened.legs.count, maxPremium: premium.maxPremium, options: bands, spillMemoryLimit: max(1 << 16, 16 * chunkRows))
    let sizedAnalyzer = execution.size.map { size in
      SizedPremiumAnalyzer(quantity: size, legCount: opened.legs.count, options: bands, spillMemoryLimit: max(1 << 16, 16 * chunkRows))
    }
    var seriesFile = try series.map { try SeriesOutput.premium($0, legCount: opened.legs.count) }
    try premium.forEachChunk { chunk in
      try analyzer.add(chunk)
      try sizedAnalyzer?.add(chunk)
      try seriesFile?.write(chunk)
    }
    progress.finish()
    let analysis = try analyzer.finish()
    let sized = try sizedAnalyzer.map { sizedAnalyzer in
      SizedPremiumStudy(
        summary: try sizedAnalyzer.finish(),
        depth: opened.legs.indices.map { k in
          LegDepth(deepest: premium.legDeepest[k], priceSource: streams[k].priceSource, hasSizes: premium.legHasSizes[k])
        })
    }
    let described = opened.legs.indices.map { k in
      var leg = LegSummary(
        streams[k], instrument: opened.legs[k].instrument, rows: premium.legRows[k], firstTime: premium.legFirstTime[k],
        lastTime: premium.legLastTime[k])
      leg.reports = opened.legs[k].reports
      return leg
    }
    let result = PremiumResult(
      legs: described, canonical: canonical, points: premium.points, validPoints: premium.validPoints, analysis: analysis,
      alignment: alignment, bands: bands, clock: ingest.options.clock, sized: sized, offsets: execution.offsets)
    try report(result, terminal: &terminal) { try seriesFile?.commit() }
    return .success
  }

  /// The canonical instrument of each leg, when its venue is in the registry.
  func canonical(_ instruments: [Instrument]) throws -> [CanonicalInstrument?] {
    try zip(instruments, inputs.legs).map { instrument, spec in
      do { return try inputs.ingest.options.registry.canonical(ofLeg: instrument) } catch {
        throw RegistryError(message: "\(spec.paths[0]): error: \(error)")
      }
    }
  }

  /// Prints `result` in `format`, checked finite first; `commit` puts the outputs in
  /// place once the figures are known to print.
  func report(_ result: PremiumResult, terminal: inout Terminal, commit: () throws -> Void = {}) throws {
    // Every format prints the figures of the JSON: checked once, before anything is written.
    let json = try result.json.checkedFinite()
    try commit()
    switch format {
    case .json: terminal.print(json.rendered())
    case .csv: terminal.print(result.csv, terminator: "")
    case .table: terminal.print(result.table)
    }
    if result.validPoints == 0 {
      terminal.printError("arbkit: warning: no valid point: every point had a stale or missing leg (see --max-stale)")
    }
  }

  /// Makes shard `index` of `count`: the points of its days, from legs that are stores
  /// read from the last day before them (for the quotes in force), written to `out`.
  private func runShard(_ shard: ShardFlags, terminal: Terminal) throws -> ExitCode {
    let legs = try ShardLegs(
      inputs.legs, dayLegs: inputs.legs.count, flags: shard, options: inputs.ingest.options, reads: inputs.legs.map { _ in 1 }, terminal: terminal)
    defer { legs.progress.finish() }
    if let (k, rate) = legs.sources.enumerated().first(where: { $1.series.field.isRate }).map({ ($0, $1.series.field) }) {
      throw LegInputs.rateLeg(rate, inputs.legs[k].paths[0])
    }
    _ = try canonical(legs.sources.map(\.instrument))
    let premium = try PremiumStream(
      legs: legs.sources.indices.map(legs.open), options: inputs.alignment, chunkPoints: chunkRows, legChunkRows: chunkRows,
      keepQuotes: series != nil, checksOverlap: false)
    let writer = try PremiumPartialWriter(path: shard.out)
    try writer.write(premium, owned: legs.shard.owned, quotes: series != nil)
    try writer.commit(
      PremiumPartial.Meta(command: Self.name, arguments: sharedArguments, shard: legs.shard, legs: try legs.metaLegs(), sections: writer.sections))
    return .success
  }
}
