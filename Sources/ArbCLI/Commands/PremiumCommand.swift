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
      ("--shard I/N", "of legs that are stores: make shard I of N, the I-th of N runs of whole days, and write its partial result to --out; "
        + "arbkit merge joins the N partials into this command's output, byte for byte"),
      ("--out PATH", "with --shard: the partial result (with --series, each point's quotes too: the merge writes the series)"),
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
  let shard: (index: Int, count: Int, out: String)?
  /// The arguments without `--shard` and `--out`: what every shard of one run shares.
  let sharedArguments: [String]

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: ["--leg", "--series", TableOutput.flag, "--chunk-rows", "--shard", "--out", "--format"] + AnalysisFlags.flags + ExecutionFlags.flags
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
    let shard = try cursor.value("--shard", "I/N with 1 ≤ I ≤ N") { text -> (Int, Int)? in
      let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
      guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (1...count).contains(index) else { return nil }
      return (index, count)
    }
    let out = cursor.value("--out")
    switch (shard, out) {
    case (let (index, count)?, let out?):
      for (flag, given) in [("--size", execution.size != nil), ("--offset", !execution.offsets.isEmpty)] where given {
        throw UsageError("\(flag) cannot be used with --shard: a shard reads only its days")
      }
      self.shard = (index, count, out)
    case (nil, nil): self.shard = nil
    case (_?, nil): throw UsageError("--shard needs --out PATH for the shard's partial result")
    case (nil, _?): throw UsageError("--out is the partial result of --shard; the aligned series is written with --series")
    }
    sharedArguments = Self.removing(["--shard", "--out"], from: arguments)
  }

  /// `arguments` without the flags `names` and their values.
  static func removing(_ names: [String], from arguments: [String]) -> [String] {
    var kept: [String] = []
    var skipNext = false
    for argument in arguments {
      if skipNext {
        skipNext = false
      } else if names.contains(argument) {
        skipNext = true
      } else if !names.contains(where: { argument.hasPrefix($0 + "=") }) {
        kept.append(argument)
      }
    }
    return kept
  }

  /// With `--shard`, `--series` is written by the merge, not by the shard.
  var files: RunFiles { inputs.files(outputs: shard == nil ? [series?.path] : [shard?.out]) }

  /// Streams the legs through the premium and its analysis a chunk at a time: a store
  /// leg is read from its mapped partitions, files in time order as they are parsed,
  /// other sources whole first. With `--size` every leg is read whole, since the sized
  /// premium walks the books in memory.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    if let shard { return try runShard(shard, terminal: terminal) }
    // A file of rates read without #FIELD gives a rate series too: refused here.
    let (opened, progress) = try inputs.open(whole: execution.size != nil, chunkRows: chunkRows, terminal: terminal)
    defer { progress.finish() }
    defer { opened.warn(&terminal) }
    let (alignment, ingest) = (inputs.alignment, inputs.ingest)
    let canonical = try canonical(opened.legs.map(\.instrument))
    try execution.checkOffsets(venues: opened.legs.map(\.instrument.venue))
    let streams = opened.legs.map { leg -> any QuoteStream in
      let micros = execution.offsets.first { $0.venue == leg.instrument.venue }?.micros ?? 0
      return micros == 0 ? leg.stream : ShiftedQuoteStream(leg.stream, by: micros)
    }
    let premium = try PremiumStream(
      legs: streams, options: alignment, chunkPoints: chunkRows, legChunkRows: chunkRows, keepQuotes: series != nil)
    // The values kept for the quantiles stay in memory up to 16 chunks' worth (1 Mi by default).
    let analyzer = PremiumAnalyzer(
      legCount: opened.legs.count, maxPremium: premium.maxPremium, options: bands, spillMemoryLimit: max(1 << 16, 16 * chunkRows))
    var seriesFile = try series.map { try SeriesOutput.premium($0, legCount: opened.legs.count) }
    try premium.forEachChunk { chunk in
      try analyzer.add(chunk)
      try seriesFile?.write(chunk)
    }
    progress.finish()
    let analysis = try analyzer.finish()
    var sized: SizedPremiumStudy? = nil
    if let size = execution.size, let whole = opened.whole {
      let shifted = try execution.shifted(whole)
      try ExecutionFlags.refuseContractBooks(Array(zip(shifted, canonical)))
      sized = try SizedPremiumStudy(
        size: size, premium: try PremiumSeries(legs: shifted, options: alignment), legs: shifted, alignment: alignment, bands: bands)
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
  private func runShard(_ shard: (index: Int, count: Int, out: String), terminal: Terminal) throws -> ExitCode {
    if let file = inputs.legs.first(where: { !$0.isStore }) {
      throw UsageError("--shard splits the days of stores; \(file.paths.joined(separator: ",")) is not one: convert it with arbkit convert … --out STORE")
    }
    let options = inputs.ingest.options
    let sources = try inputs.legs.map { try $0.storeSeries(options: options) }
    if let (k, rate) = sources.enumerated().first(where: { $1.series.field.isRate }).map({ ($0, $1.series.field) }) {
      throw LegInputs.rateLeg(rate, inputs.legs[k].paths[0])
    }
    _ = try canonical(sources.map(\.instrument))
    let window = options.window ?? TimeWindow()
    let timeShard = TimeShard(index: shard.index, count: shard.count, series: sources.map(\.series), window: window)
    var streams: [any QuoteStream] = sources.map { source in
      source.store.stream(source.series, window: timeShard.readWindow(source.series, window: window), columns: .skippingSizesAndOtherClock)
    }
    let total = streams.reduce(0) { $0 + ($1.expectedRows ?? 0) }
    let progress = Progress(total: total, unit: "quotes", show: Progress.onTerminal(terminal), every: 0.2)
    defer { progress.finish() }
    if Progress.onTerminal(terminal) { streams = streams.map { CountingQuoteStream($0, counted: progress.advance) } }
    let premium = try PremiumStream(
      legs: streams, options: inputs.alignment, chunkPoints: chunkRows, legChunkRows: chunkRows, keepQuotes: series != nil, checksOverlap: false)
    let writer = try PremiumPartialWriter(path: shard.out, quoteLegs: series == nil ? 0 : streams.count)
    try writer.write(premium, owned: timeShard.owned)
    let legs = try sources.map { source in
      PremiumPartial.Meta.Leg(
        store: source.store.path, storeChecksum: try PremiumPartial.storeChecksum(source.store.path),
        span: try source.store.span(source.series, window: timeShard.owned(of: window)))
    }
    try writer.commit(
      PremiumPartial.Meta(
        arguments: sharedArguments, shard: timeShard, points: writer.points, validPoints: writer.validPoints,
        quoteLegs: series == nil ? 0 : streams.count, legs: legs))
    return .success
  }
}
