import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

/// `arbkit basis --spot LEG --perp LEG [--funding LEG]`: the basis of a perpetual or a
/// dated future, its executable open/close, the annualised basis to expiry, mark and
/// index premiums, and the funding carry of the spot-long/perp-short position.
struct BasisCommand: Command {
  static let name = "basis"
  static let abstract = "Basis of a perpetual or dated future over spot, annualised basis, funding carry"
  static let usage = """
    Usage: arbkit basis (--spot LEG --perp LEG | --spot LEG --future LEG | --perp LEG --future LEG) [options]

    Aligns a derivative with its reference as-of and reports the basis in percent,
    (mid_D / mid_R − 1) × 100: perpetual over spot, dated future over spot (also
    annualised to expiry), or dated future over perpetual (calendar spread). The
    executable basis of the carry trade is reported as open (bid_D / ask_R − 1, sell
    the derivative, buy the reference) and close (ask_D / bid_R − 1). With --funding,
    the funding carry of spot long, perpetual short (a positive rate is received) is
    summed per window, and the basis net of carry. With --mark/--index, the mark over
    index premium and the derivative over each. With --size, open and close at that
    trade size from the books' depth. Statistics and bands as in arbkit premium.
    Every price leg is streamed (the funding rates are read whole); with --size the
    derivative and the reference stream with their sizes (a book snapshot or a
    rebuilt L2 book with its books) on one more pass. Definitions: docs/definitions.md.

    Options:
    \(HelpText.options([
      ("--spot LEG", "the spot leg (any price series: spot, or a venue index with #index)"),
      ("--perp LEG", "the perpetual (linear or inverse)"),
      ("--future LEG", "a dated future; its expiry comes from the symbol through the registry, or --expiry"),
      ("--funding LEG", "funding-rate series of the perpetual (needs --spot and --perp; the field defaults to funding_rate)"),
      ("--mark LEG", "mark-price series of the derivative (the field defaults to mark)"),
      ("--index LEG", "index-price series of the derivative (the field defaults to index)"),
      ("--expiry TIME", "expiry of the future: 2025-03-28 (08:00 UTC) or 2025-03-28T08:00:00Z"),
      ("--window DURATION", "funding carry window on the UTC grid (8h, 1d; default 1d)"),
      ("--funding-interval DURATION", "funding interval of a funding series recorded as the rate in force (a ticker) rather than as settlements: it is sampled every DURATION on the UTC grid (default 8h)"),
    ] + AnalysisFlags.help + [
      ("--size Q", "also open and close at trade size Q (base units) from the books' depth, and the capacity of open at each band; refused for an inverse leg (its book counts contracts); a source with the top level only says so"),
      (ExecutionFlags.offsetHelp.0, ExecutionFlags.offsetHelp.1 + " (a funding series is not moved: its times are settlement instants)"),
      ("--series PATH", "also write the basis as CSV: ts_us,basis_pct,open_pct,close_pct (annualised_pct with an expiry), "
        + "then one column per pair of --mark/--index (mark_over_index_pct, perp_over_mark_pct, …); empty where invalid"),
      TableOutput.help,
    ] + ShardFlags.help(series: "the merge writes --series") + [
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it, not with the history"),
      ("--format table|json", "output (default table)"),
    ]))
    \(IngestFlags.help)
    """

  static let legFlags = ["--spot", "--perp", "--future", "--funding", "--mark", "--index"]

  let spot: LegSpec?
  let perp: LegSpec?
  let future: LegSpec?
  let funding: LegSpec?
  let mark: LegSpec?
  let index: LegSpec?
  let expiry: Int64?
  let window: Int64
  let fundingInterval: Int64
  let analysis: AnalysisFlags
  /// `--size` and `--offset`.
  let execution: ExecutionFlags
  var format: OutputFormat
  let ingest: IngestFlags
  /// `--series`: where the per-point basis goes.
  let series: TableOutput?
  let chunkRows: Int
  /// `--shard I/N --out PATH`: the shard made, and where its partial result goes.
  let shard: ShardFlags?
  /// The arguments without `--shard` and `--out`: what every shard of one run shares.
  let sharedArguments: [String]

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: Self.legFlags + ["--expiry", "--window", "--funding-interval", "--format", "--series", TableOutput.flag, "--chunk-rows"] + ShardFlags.flags
        + AnalysisFlags.flags + ExecutionFlags.flags
        + IngestFlags.flags,
      switches: IngestFlags.switches)
    try cursor.validate()
    if let stray = cursor.arguments.first { throw UsageError("unexpected argument '\(stray)' (legs are given with --spot, --perp, --future)") }
    var ingest = try IngestFlags(cursor)
    execution = try ExecutionFlags(cursor, ingest: &ingest)
    self.ingest = ingest
    /// The leg of `flag`; `field` is the default of a leg naming none (`nil`: the
    /// file's price series, or its only one).
    func leg(_ flag: String, field: SeriesField?) throws(UsageError) -> LegSpec? {
      let texts = cursor.values(flag)
      guard let text = texts.last else { return nil }
      if texts.count > 1 { throw UsageError("\(flag) given \(texts.count) times, expected once") }
      var spec: LegSpec
      do { spec = ingest.leg(try LegSpec(parsing: text)) } catch { throw UsageError(error.message) }
      spec.field = spec.field ?? field
      if let named = spec.field, named.isRate != (field == .fundingRate) || named == .premiumIndex {
        throw UsageError(
          "\(flag) \(spec.paths[0]) is a \(named.rawValue) series, expected "
            + (field == .fundingRate ? "a funding_rate series" : "a price, mark or index series"))
      }
      if let instrument = spec.instrument {
        do { _ = try ingest.options.registry.canonical(ofLeg: instrument) } catch { throw UsageError(error.description) }
      }
      return spec
    }
    spot = try leg("--spot", field: nil)
    perp = try leg("--perp", field: nil)
    future = try leg("--future", field: nil)
    funding = try leg("--funding", field: .fundingRate)
    mark = try leg("--mark", field: .mark)
    index = try leg("--index", field: .index)
    let given = [spot, perp, future].compactMap { $0 }.count
    guard given == 2 else {
      throw UsageError("give two of --spot, --perp, --future (spot–perp, spot–future or perp–future), was \(given)")
    }
    if funding != nil && (spot == nil || perp == nil) {
      throw UsageError("--funding needs --spot and --perp (the carry of spot long, perpetual short)")
    }
    expiry = try cursor.value("--expiry", "a date such as 2025-03-28 or a time such as 2025-03-28T08:00:00Z", Self.parseExpiry)
    if expiry != nil && future == nil { throw UsageError("--expiry needs --future") }
    window = try cursor.value("--window", "a positive duration such as 8h or 1d", AnalysisFlags.positiveDuration) ?? 86_400_000_000
    fundingInterval =
      try cursor.value("--funding-interval", "a positive duration such as 8h", AnalysisFlags.positiveDuration)
      ?? FundingEvents.defaultInterval
    analysis = try AnalysisFlags(cursor)
    format = try OutputFormat.parse(cursor)
    if format == .csv { throw UsageError("invalid value for '--format', expected table or json, was 'csv'") }
    self.series = try TableOutput.parse(cursor, flags: ["--series"])[0]
    chunkRows = try cursor.chunkRows()
    shard = try ShardFlags.parse(cursor, refusing: [("--size", execution.size != nil), ("--offset", !execution.offsets.isEmpty)])
    sharedArguments = ShardFlags.shared(arguments)
  }

  /// `YYYY-MM-DD` (at 08:00 UTC) or an ISO-8601 time.
  static func parseExpiry(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { p -> Int64? in
      guard let base = p.baseAddress else { return nil }
      if let day = TimeParser.parse(base, p.count, form: .date, defaultOffset: 0), bytes.count == 10 {
        return day + 8 * 3_600_000_000
      }
      return TimeParser.parse(base, p.count, form: .iso8601, defaultOffset: 0)
    }
  }

  /// With `--shard`, `--series` is written by the merge, not by the shard.
  var files: RunFiles {
    ingest.files(inputs: [spot, perp, future, funding, mark, index].compactMap { $0 }.flatMap(\.files), outputs: [shard == nil ? series?.path : shard?.out])
  }

  /// The price legs present, by role (`derivative`, `reference`, `mark`, `index`), in
  /// the order of `slots`.
  var present: [(role: String, spec: LegSpec)] {
    let roles: [(String, LegSpec?)] = [
      ("derivative", future ?? perp), ("reference", future == nil || spot != nil ? spot : perp), ("mark", mark), ("index", index),
    ]
    return roles.compactMap { role, spec in spec.map { (role, $0) } }
  }

  /// The study's leg of each price leg present.
  var slots: [BasisStudy.Leg] { [.derivative, .reference] + [mark.map { _ in .mark }, index.map { _ in .index }].compactMap { $0 } }

  /// Streams every price leg: the basis of the derivative over the reference a chunk at
  /// a time, each reference premium on a pass of its own, the perpetual once more for its
  /// mid at the funding events; the funding rates are read whole. With `--size` the
  /// streams carry their sizes, and a pass over the derivative and the reference walks
  /// each point's books: the order book behind a leg's quote, or its top level.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    if let shard { return try runShard(shard, terminal: terminal) }
    let present = present
    let fundingLeg = try funding.map { spec in try LoadedLegs.load([spec], options: ingest.options, specOverrides: ingest.specOverrides)[0] }
    let first = try StreamedLegs.open(present.map(\.spec), ingest: ingest, sizes: execution.size != nil, chunkRows: chunkRows)
    defer {
      first.warn(&terminal)
      for report in fundingLeg?.reports ?? [] { IngestSummary.warn(report, terminal: &terminal) }
    }
    let progress = Progress(total: nil, unit: "quotes", show: Progress.onTerminal(terminal), every: 0.2)
    defer { progress.finish() }
    let canonical = try checked(
      present.indices.map { (first.legs[$0].stream.field, first.legs[$0].instrument) } + (fundingLeg.map { [($0.series.field, $0.series.instrument)] } ?? []))
    // Offsets move the price legs; funding times are settlement instants.
    try execution.checkOffsets(venues: first.legs.map(\.instrument.venue))
    if execution.size != nil { try ExecutionFlags.refuseContractBooks([(first.legs[0].instrument, canonical[0]), (first.legs[1].instrument, canonical[1])]) }
    let passes = LegPasses(
      first, specs: present.map(\.spec), ingest: ingest, sizes: execution.size != nil, chunkRows: chunkRows, offsets: execution.offsets,
      progress: Progress.onTerminal(terminal) ? progress : nil)
    let slots = slots
    let open = { (leg: BasisStudy.Leg) in try passes.open(slots.firstIndex(of: leg)!) }
    return try analyse(
      points: { try BasisStudy.align($0, open: open, alignment: analysis.alignment, chunkPoints: chunkRows) },
      mids: { try FundingCarry.mids(try open(.derivative), asOf: $0) }, legs: first.legs.map { ($0.stream, $0.instrument) }, micros: passes.micros,
      canonical: canonical, funding: fundingLeg?.series, progress: progress, terminal: &terminal
    ) {
      try execution.size.map { size in
        let points = try PremiumStream(
          legs: [try open(.derivative), try open(.reference)], options: analysis.alignment, chunkPoints: chunkRows, legChunkRows: chunkRows,
          keepUsableQuotes: true, keepSizes: true)
        let analyzer = SizedBasisAnalyzer(quantity: size, options: analysis.bands, spillMemoryLimit: max(1 << 16, 16 * chunkRows))
        try points.forEachChunk { try analyzer.add($0) }
        let depth = (0..<2).map { k in
          LegDepth(deepest: points.legDeepest[k], priceSource: first.legs[k].stream.priceSource, hasSizes: points.legHasSizes[k])
        }
        return SizedBasisStudy(summary: try analyzer.finish(), depth: depth)
      }
    }
  }

  /// The canonical instrument of each leg (the price legs present, then the funding
  /// rates) of the `field` and `instrument` it was read with.
  /// - Throws: `UsageError` for a leg whose field is not its role's; `RegistryError`.
  func checked(_ legs: [(field: SeriesField, instrument: Instrument)]) throws -> [CanonicalInstrument?] {
    let specs = present + (funding.map { [("funding", $0)] } ?? [])
    return try zip(specs, legs).map { named, leg in
      let (role, spec) = named
      // A file read without #FIELD may hold another field than the one named by default.
      if leg.field.isRate != (role == "funding") || leg.field == .premiumIndex {
        throw UsageError(
          "\(spec.paths[0]) holds a \(leg.field.rawValue) series, not what --\(role == "derivative" ? (future != nil ? "future" : "perp") : role) needs")
      }
      do { return try ingest.options.registry.canonical(ofLeg: leg.instrument) } catch {
        throw RegistryError(message: "\(spec.paths[0]): error: \(error)")
      }
    }
  }

  /// Studies the passes `points` gives over the price `legs` (each read `micros` later
  /// than its times say), with the perpetual's `mids` at funding events and the
  /// `funding` rates, and prints the result; `sized` is the study at `--size`.
  func analyse(
    points: (BasisStudy.Pass) throws -> any PremiumPoints, mids: ([Int64]) throws -> [Double], legs: [(stream: any QuoteStream, instrument: Instrument)],
    micros: [Int64], canonical: [CanonicalInstrument?], funding fundingSeries: QuoteSeries?, progress: Progress, terminal: inout Terminal,
    sized: () throws -> SizedBasisStudy?
  ) throws -> ExitCode {
    let present = present
    var expiry = self.expiry
    if future != nil && expiry == nil {
      guard let day = canonical[0]?.expiry else { throw UsageError("no expiry known for \(legs[0].instrument): name it with --expiry") }
      expiry = BasisSeries.expiry(day)
    }
    let slots = slots
    let options = analysis.alignment
    let pairNames =
      (mark != nil && index != nil ? ["mark_over_index_pct"] : [])
      + slots.dropFirst(2).map { "\(future != nil ? "future" : "perp")_over_\($0 == .mark ? "mark" : "index")_pct" }
    // Without reference columns the series file has the basis's own points: written as they come;
    // with them, the columns are kept until the file of their union clock is written.
    var rows = try series.flatMap { output in
      pairNames.isEmpty ? try PointRowsWriter(output, names: ["basis_pct", "open_pct", "close_pct"] + (expiry != nil ? ["annualised_pct"] : [])) : nil
    }
    let keep = series != nil && !pairNames.isEmpty
    var kept: [[SeriesCSV.Column]] = Array(repeating: [], count: 4 + pairNames.count)
    let study = try BasisStudy(
      points: points, mids: mids, priced: Array(slots.dropFirst(2)), derivative: legs[0].instrument, derivativeName: future != nil ? "future" : "perp",
      canonical: canonical[0], expiry: expiry, bands: analysis.bands, chunkPoints: chunkRows,
      funding: fundingSeries.map { BasisStudy.Funding(rates: $0, tickerInterval: fundingInterval, window: window) },
      each: { chunk in
        let columns = [(chunk.basis, chunk.valid), (chunk.open, chunk.valid), (chunk.close, chunk.valid), (chunk.annualised, chunk.beforeExpiry)]
        try rows?.append(time: chunk.time, columns: columns.map { PointRowsWriter.Column(values: $0.0, valid: $0.1) })
        guard keep else { return }
        for (k, (name, (values, valid))) in zip(["basis_pct", "open_pct", "close_pct", "annualised_pct"], columns).enumerated() where !values.isEmpty {
          kept[k].append(SeriesCSV.Column(name, PremiumSeries(time: Array(chunk.time), valid: Array(valid), values: Array(values))))
        }
      },
      eachReference: { r, chunk in
        guard keep else { return }
        kept[4 + r].append(SeriesCSV.Column(pairNames[r], PremiumSeries(time: Array(chunk.time), valid: Array(chunk.valid), values: Array(chunk.mid))))
      })
    progress.finish()
    let sized = try sized()
    // The legs as read: the price legs by their first pass (on their own clocks), the funding rates whole.
    var described = present.indices.map { k -> (String, LegSummary, CanonicalInstrument?) in
      let read = study.reads[slots[k]]!
      return (
        present[k].role,
        LegSummary(
          legs[k].stream, instrument: legs[k].instrument, rows: read.rows, firstTime: read.firstTime.map { $0 - micros[k] },
          lastTime: read.lastTime.map { $0 - micros[k] }),
        canonical[k]
      )
    }
    if let fundingSeries { described.insert(("funding", LegSummary(fundingSeries), canonical[present.count]), at: 2) }
    let result = BasisResult(
      legs: described, kind: future == nil ? "spot-perp" : spot == nil ? "perp-future" : "spot-future", study: study,
      carryUnit: Self.carryUnit(canonical[0], instrument: legs[0].instrument), alignment: options, bands: analysis.bands, sized: sized,
      offsets: execution.offsets)
    // Every format prints the figures of the JSON: checked once, before anything is written.
    let json = try result.json.checkedFinite()
    try rows?.finish()
    if let series, keep { try SeriesCSV.write(columns: kept.filter { !$0.isEmpty }.map(SeriesCSV.Column.joined), to: series) }
    switch format {
    case .json: terminal.print(json.rendered())
    case .table, .csv: terminal.print(result.table)
    }
    if study.validPoints == 0 {
      terminal.printError("arbkit: warning: no valid point: every point had a stale or missing leg (see --max-stale)")
    }
    return .success
  }

  /// What the per-contract carry is counted in: `USDT per XRP` (linear), `BTC per
  /// contract of 100 USD` (inverse); `nil` for an inverse contract of unknown size.
  static func carryUnit(_ canonical: CanonicalInstrument?, instrument: Instrument) -> String? {
    guard let canonical else { return instrument.market == .inverse ? nil : "quote per unit of base" }
    if canonical.kind.isInverse {
      return canonical.contractSize.map { "\(canonical.base) per contract of \(JSONValue.format($0)) \(canonical.quote)" }
    }
    return "\(canonical.quote) per \(canonical.base)"
  }
}
