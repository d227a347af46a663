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
  let format: OutputFormat
  let ingest: IngestFlags
  /// `--series`: where the per-point premiums go.
  let series: TableOutput?

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments,
      flags: ["--krw", "--usd", "--fx", "--fx-market", "--usdt-usd", "--fx-max-stale", "--format", "--offset", "--series", TableOutput.flag]
        + AnalysisFlags.flags
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
  }

  var files: RunFiles { ingest.files(inputs: (krw + [usd, fx] + [usdtUSD].compactMap { $0 }).flatMap(\.paths), outputs: [series?.path]) }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let specs = krw + [usd, fx] + (usdtUSD.map { [$0] } ?? [])
    let roles = krw.map { _ in "krw" } + ["usd", fxIsMarket ? "fx-market" : "fx"] + (usdtUSD == nil ? [] : ["usdt-usd"])
    let loaded = try LoadedLegs.load(specs, options: ingest.options, specOverrides: ingest.specOverrides)
    let quotes = try execution.shifted(loaded.map(\.series))
    var canonical: [CanonicalInstrument?] = []
    for (spec, leg) in zip(specs, loaded) {
      if leg.series.field.isRate { throw LegInputs.rateLeg(leg.series.field, spec.paths[0]) }
      do { canonical.append(try ingest.options.registry.canonical(ofLeg: leg.series.instrument)) } catch {
        throw RegistryError(message: "\(spec.paths[0]): error: \(error)")
      }
    }
    let fxLeg = quotes[krw.count + 1]
    if fxIsMarket == (fxLeg.instrument.market == .fx) {
      throw UsageError(
        fxIsMarket
          ? "--fx-market \(fx.paths[0]) is an FX file: name it with --fx"
          : "--fx \(fx.paths[0]) is a market (\(fxLeg.instrument.market.rawValue)), not an FX file: name a USDT-KRW market with --fx-market")
    }
    let usdQuote = canonical[krw.count]?.quote
    if usdtUSD != nil && usdQuote != "USDT" {
      throw UsageError("--usdt-usd applies to a USDT market --usd, was \(loaded[krw.count].series.instrument)" + (usdQuote.map { " (quote \($0))" } ?? ""))
    }
    let options = analysis.alignment
    let study = try KimchiStudy(
      krw: Array(quotes[..<krw.count]), usd: quotes[krw.count], fx: fxLeg, usdtUSD: usdtUSD.map { _ in quotes[krw.count + 2] },
      alignment: options, bands: analysis.bands, fxMaxStale: fxMaxStale)
    let (venues, board) = (study.venues, study.board)
    let result = KimchiResult(
      legs: zip(roles, zip(loaded, canonical)).map { ($0, LegSummary($1.0.series), $1.1) }, venues: venues, board: board,
      usdtNote: Self.usdtNote(usdQuote: usdQuote, fxIsMarket: fxIsMarket, usdtUSD: usdtUSD != nil),
      fxMaxStale: fxMaxStale, alignment: options, bands: analysis.bands, offsets: execution.offsets)
    // Both formats print the figures of the JSON: checked once, before anything is written.
    let json = try result.json.checkedFinite()
    if let series {
      let columns =
        venues.indices.map { k in SeriesCSV.Column("kimchi_pct_\(k + 1)", venues[k].series.premium) }
        + venues.indices.compactMap { k in
          venues[k].series.kimchiUSD.map { SeriesCSV.Column("kimchi_usd_pct_\(k + 1)", venues[k].series.premium, $0) }
        }
      try SeriesCSV.write(columns: columns, to: series)
    }
    switch format {
    case .json: terminal.print(json.rendered())
    case .table, .csv: terminal.print(result.table)
    }
    for leg in loaded { for report in leg.reports { IngestSummary.warn(report, terminal: &terminal) } }
    if venues.allSatisfy({ $0.series.premium.validPoints == 0 }) {
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
