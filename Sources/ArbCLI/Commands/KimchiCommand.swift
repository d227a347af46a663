import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

/// `arbkit kimchi --krw LEG… --usd LEG (--fx LEG | --fx-market LEG)`: the kimchi premium of
/// KRW markets over a USD or USDT market, the USDT-vs-USD term, and the premium among
/// the KRW venues.
struct KimchiCommand: Command {
  static let name = "kimchi"
  static let abstract = "Kimchi premium of KRW markets over a USD(T) market with an FX rate"
  static let usage = """
    Usage: arbkit kimchi --krw LEG [--krw LEG…] --usd LEG (--fx LEG | --fx-market LEG) [options]

    Aligns each KRW market K with a USD or USDT market U and an FX rate r (KRW per
    USD from an FX file, or the mid of a USDT-KRW market) as-of, and reports the kimchi
    premium (mid_K / (mid_U × r) − 1) × 100 with the statistics and bands of
    arbkit premium. FX rates of business days carry forward as-of over weekends and
    holidays, up to --fx-max-stale. When U is a USDT market and r a USD rate, USDT is
    taken as 1 USD unless a USDT-USD market is given with --usdt-usd; then the USDT term
    (mid_Q − 1) × 100 and the premium with U in USD are reported too. With several
    --krw legs, the premium among the KRW venues is reported as well (as arbkit premium
    over those legs). Definitions: docs/definitions.md.

    Options:
    \(HelpText.options([
      ("--krw LEG", "a KRW market (repeat for several Korean venues)"),
      ("--usd LEG", "the USD or USDT market"),
      ("--fx LEG", "an FX file of KRW per USD (market fx, e.g. an Investing.com USD/KRW export)"),
      ("--fx-market LEG", "a USDT-KRW market used as the rate instead (KRW per USDT)"),
      ("--usdt-usd LEG", "a USDT-USD market (USD per USDT), with --fx and a USDT --usd market"),
      ("--fx-max-stale DURATION", "a point is valid only if the FX rate is at most this old (default 4d, so Friday's rate covers a weekend)"),
    ] + AnalysisFlags.help + [
      ExecutionFlags.offsetHelp,
      ("--series PATH", "also write the premiums as CSV: ts_us, then kimchi_pct_K per --krw leg K (and kimchi_usd_pct_K with --usdt-usd); empty where invalid"),
      TableOutput.help,
    ] + ShardFlags.help(series: "the merge writes --series") + [
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it, not with the history"),
      ("--format table|json", "output (default table)"),
    ]))
    \(IngestFlags.help)
    """

  /// Four days: Friday's rate still holds on Monday before Monday's, and over most holidays.
  static let defaultFXMaxStale: Int64 = 4 * 86_400_000_000

  let krw: [LegSpec]
  let usd: LegSpec
  let fx: LegSpec
  let fxIsMarket: Bool
  let usdtUSD: LegSpec?
  let fxMaxStale: Int64
  let analysis: AnalysisFlags
  /// `--offset` (kimchi takes no `--size`).
  let execution: ExecutionFlags
  var format: OutputFormat
  let ingest: IngestFlags
  /// `--series`: where the per-point premiums go.
  let series: TableOutput?
  let chunkRows: Int
  /// `--shard I/N --out PATH`: the shard made, and where its partial result goes.
  let shard: ShardFlags?
  /// The arguments without `--shard` and `--out`: what every shard of one run shares.
  let sharedArguments: [String]

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: ["--krw", "--usd", "--fx", "--fx-market", "--usdt-usd", "--fx-max-stale", "--format", "--offset", "--series", TableOutput.flag, "--chunk-rows"]
        + ShardFlags.flags + AnalysisFlags.flags
        + IngestFlags.flags,
      switches: IngestFlags.switches)
    try cursor.validate()
    if let stray = cursor.arguments.first { throw UsageError("unexpected argument '\(stray)' (legs are given with --krw, --usd, --fx)") }
    let ingest = try IngestFlags(cursor)
    self.ingest = ingest
    func legs(_ flag: String) throws(UsageError) -> [LegSpec] {
      var specs: [LegSpec] = []
      for text in cursor.values(flag) {
        let spec: LegSpec
        do { spec = ingest.leg(try LegSpec(parsing: text)) } catch { throw UsageError(error.message) }
        if spec.field?.isRate == true { throw LegInputs.rateLeg(named: spec) }
        if let instrument = spec.instrument {
          do { _ = try ingest.options.registry.canonical(ofLeg: instrument) } catch { throw UsageError(error.description) }
        }
        specs.append(spec)
      }
      return specs
    }
    func one(_ flag: String) throws(UsageError) -> LegSpec? {
      let specs = try legs(flag)
      if specs.count > 1 { throw UsageError("\(flag) given \(specs.count) times, expected once") }
      return specs.first
    }
    krw = try legs("--krw")
    guard !krw.isEmpty else { throw UsageError("need at least one --krw") }
    guard let usd = try one("--usd") else { throw UsageError("need --usd") }
    self.usd = usd
    let file = try one("--fx"), market = try one("--fx-market")
    switch (file, market) {
    case (let file?, nil): fx = file; fxIsMarket = false
    case (nil, let market?): fx = market; fxIsMarket = true
    default: throw UsageError("give one of --fx (an FX file) and --fx-market (a USDT-KRW market)")
    }
    usdtUSD = try one("--usdt-usd")
    if usdtUSD != nil && fxIsMarket { throw UsageError("--usdt-usd applies with --fx (a USD rate); with --fx-market the rate is already per USDT") }
    fxMaxStale = try cursor.value("--fx-max-stale", "a duration such as 4d or 12h", TimeText.parseDuration) ?? Self.defaultFXMaxStale
    analysis = try AnalysisFlags(cursor)
    execution = try ExecutionFlags(cursor)
    format = try OutputFormat.parse(cursor)
    if format == .csv { throw UsageError("invalid value for '--format', expected table or json, was 'csv'") }
    series = try TableOutput.parse(cursor, flags: ["--series"])[0]
    chunkRows = try cursor.chunkRows()
    shard = try ShardFlags.parse(cursor, refusing: [("--offset", !execution.offsets.isEmpty)])
    sharedArguments = ShardFlags.shared(arguments)
  }

  /// The legs: the KRW markets, the USD market, the FX leg, the USDT-USD market.
  var specs: [LegSpec] { krw + [usd, fx] + (usdtUSD.map { [$0] } ?? []) }

  /// With `--shard`, `--series` is written by the merge, not by the shard.
  var files: RunFiles { ingest.files(inputs: specs.flatMap(\.files), outputs: [shard == nil ? series?.path : shard?.out]) }

  /// Streams each KRW market's legs (one pass per market, re-reading the USD and FX
  /// legs) and the KRW markets together: memory holds a chunk per leg, not the history.
  /// With two or more KRW markets a `--series` file holds their premiums on the union of
  /// their clocks, kept in memory until it is written.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    if let shard { return try runShard(shard, terminal: terminal) }
    let specs = specs
    let first = try StreamedLegs.open(specs, ingest: ingest, chunkRows: chunkRows)
    defer { first.warn(&terminal) }
    let canonical = try checked(first.legs.map { ($0.stream.field, $0.instrument) })
    try execution.checkOffsets(venues: first.legs.map(\.instrument.venue))
    let progress = Progress(total: nil, unit: "quotes", show: Progress.onTerminal(terminal), every: 0.2)
    defer { progress.finish() }
    let passes = LegPasses(
      first, specs: specs, ingest: ingest, chunkRows: chunkRows, offsets: execution.offsets, progress: Progress.onTerminal(terminal) ? progress : nil)
    return try analyse(
      points: { pass in
        try KimchiStudy.align(
          pass, krwCount: krw.count, usdtUSD: usdtUSD != nil, open: passes.open, alignment: analysis.alignment, fxMaxStale: fxMaxStale,
          chunkPoints: chunkRows)
      }, legs: first.legs.map { ($0.stream, $0.instrument) }, micros: passes.micros, canonical: canonical, progress: progress, terminal: &terminal)
  }

  /// The canonical instrument of each leg of `specs`, of the `field` and `instrument` it
  /// was read with.
  /// - Throws: `UsageError` for a rate series, an FX leg of the other kind than its flag
  ///   names, `--usdt-usd` with a USD market not quoted in USDT; `RegistryError`.
  func checked(_ legs: [(field: SeriesField, instrument: Instrument)]) throws -> [CanonicalInstrument?] {
    var canonical: [CanonicalInstrument?] = []
    for (spec, leg) in zip(specs, legs) {
      if leg.field.isRate { throw LegInputs.rateLeg(leg.field, spec.paths[0]) }
      do { canonical.append(try ingest.options.registry.canonical(ofLeg: leg.instrument)) } catch {
        throw RegistryError(message: "\(spec.paths[0]): error: \(error)")
      }
    }
    let fxInstrument = legs[krw.count + 1].instrument
    if fxIsMarket == (fxInstrument.market == .fx) {
      throw UsageError(
        fxIsMarket
          ? "--fx-market \(fx.paths[0]) is an FX file: name it with --fx"
          : "--fx \(fx.paths[0]) is a market (\(fxInstrument.market.rawValue)), not an FX file: name a USDT-KRW market with --fx-market")
    }
    let usdQuote = canonical[krw.count]?.quote
    if usdtUSD != nil && usdQuote != "USDT" {
      throw UsageError("--usdt-usd applies to a USDT market --usd, was \(legs[krw.count].instrument)" + (usdQuote.map { " (quote \($0))" } ?? ""))
    }
    return canonical
  }

  /// Studies the passes `points` gives over `legs` (each read `micros` later than its
  /// times say) and prints the result.
  func analyse(
    points: (KimchiStudy.Pass) throws -> any PremiumPoints, legs: [(stream: any QuoteStream, instrument: Instrument)], micros: [Int64],
    canonical: [CanonicalInstrument?], progress: Progress, terminal: inout Terminal
  ) throws -> ExitCode {
    let roles = krw.map { _ in "krw" } + ["usd", fxIsMarket ? "fx-market" : "fx"] + (usdtUSD == nil ? [] : ["usdt-usd"])
    let names = (1...krw.count).map { "kimchi_pct_\($0)" } + (usdtUSD == nil ? [] : (1...krw.count).map { "kimchi_usd_pct_\($0)" })
    var rows = try series.flatMap { krw.count == 1 ? try PointRowsWriter($0, names: names) : nil }
    var kept: [(premium: [SeriesCSV.Column], inUSD: [SeriesCSV.Column])] = []
    let options = analysis.alignment
    let study = try KimchiStudy(
      names: legs.prefix(krw.count).map(\.stream.instrument.description), usdtUSD: usdtUSD != nil, points: points, bands: analysis.bands,
      fxMaxStale: fxMaxStale, chunkPoints: chunkRows,
      each: { v, chunk in
        let columns = [chunk.premium] + (usdtUSD == nil ? [] : [chunk.kimchiUSD])
        try rows?.append(time: chunk.time, columns: columns.map { PointRowsWriter.Column(values: $0, valid: chunk.valid) })
        guard series != nil && krw.count > 1 else { return }
        if kept.count == v { kept.append(([], [])) }
        kept[v].premium.append(
          SeriesCSV.Column("kimchi_pct_\(v + 1)", PremiumSeries(time: Array(chunk.time), valid: Array(chunk.valid), values: Array(chunk.premium))))
        if usdtUSD != nil {
          kept[v].inUSD.append(
            SeriesCSV.Column("kimchi_usd_pct_\(v + 1)", PremiumSeries(time: Array(chunk.time), valid: Array(chunk.valid), values: Array(chunk.kimchiUSD))))
        }
      })
    progress.finish()
    let (venues, board) = (study.venues, study.board)
    // The legs as read: each KRW market's in its own pass, the others in the first.
    let described = legs.indices.map { k -> (String, LegSummary, CanonicalInstrument?) in
      let (venue, slot) = k < krw.count ? (venues[k], 0) : (venues[0], k - krw.count + 1)
      let summary = LegSummary(
        legs[k].stream, instrument: legs[k].instrument, rows: venue.legRows[slot], firstTime: venue.legFirstTime[slot].map { $0 - micros[k] },
        lastTime: venue.legLastTime[slot].map { $0 - micros[k] })
      return (roles[k], summary, canonical[k])
    }
    let result = KimchiResult(
      legs: described, venues: venues, board: board,
      usdtNote: Self.usdtNote(usdQuote: canonical[krw.count]?.quote, fxIsMarket: fxIsMarket, usdtUSD: usdtUSD != nil),
      fxMaxStale: fxMaxStale, alignment: options, bands: analysis.bands, offsets: execution.offsets)
    // Both formats print the figures of the JSON: checked once, before anything is written.
    let json = try result.json.checkedFinite()
    try rows?.finish()
    if let series, krw.count > 1 {
      try SeriesCSV.write(
        columns: kept.map { SeriesCSV.Column.joined($0.premium) } + kept.compactMap { $0.inUSD.isEmpty ? nil : SeriesCSV.Column.joined($0.inUSD) }, to: series)
    }
    switch format {
    case .json: terminal.print(json.rendered())
    case .table, .csv: terminal.print(result.table)
    }
    if venues.allSatisfy({ $0.validPoints == 0 }) {
      terminal.printError("arbkit: warning: no valid point: every point had a stale or missing leg (see --max-stale, --fx-max-stale)")
    }
    return .success
  }

  /// How USDT relates to USD in the premium: `nil` when no USDT is involved.
  static func usdtNote(usdQuote: String?, fxIsMarket: Bool, usdtUSD: Bool) -> KimchiResult.USDTNote? {
    guard let usdQuote else { return .unknownQuote }
    switch (usdQuote == "USDT", fxIsMarket) {
    case (true, false): return usdtUSD ? .measured : .assumedOne
    case (true, true): return .perUSDT
    case (false, true): return .assumedOne
    case (false, false): return nil
    }
  }
}
