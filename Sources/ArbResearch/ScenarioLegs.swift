import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest

/// A scenario's legs as its strategy sees them: read from their files, moved by
/// `alignment.offsets`, and the legs of `fx.converts` divided by the FX rate (shared by
/// backtest, sweep and report).
public enum ScenarioLegs {
  /// What the FX conversion did, for the outputs.
  public struct FXSummary: Sendable {
    /// The FX series read (`fx:…:USDKRW`).
    public var series: Instrument
    /// The venue whose legs were converted (`fx.converts`).
    public var converts: String
    /// How old a rate may be (`fx.max_stale`, µs); `nil`: any age.
    public var maxStale: Int64?
    /// Quotes of the converted legs, and those left without a usable rate.
    public var quotes: Int
    public var unusable: Int
    /// An unconverted leg quotes USDT against a rate that is not per USDT: 1 USDT is taken as 1 USD.
    public var usdtAsUSD: Bool

    /// Whether a leg of `legs` not on venue `converts` quotes USDT while the rate
    /// `rate` is not per USDT.
    static func takesUSDTAsUSD(legs: [Instrument], converts: String, rate: Instrument, registry: ExchangeRegistry) -> Bool {
      let quotes = legs.filter { $0.venue != converts }.map { (try? registry.canonical(ofLeg: $0))??.quote }
      return quotes.contains("USDT") && !rate.symbol.uppercased().contains("USDT")
    }
  }

  /// The ingest spec of each leg, in scenario order.
  ///
  /// - Throws: `ScenarioLegError` when a leg's `spec_set` does not give a valid column spec.
  public static func specs(_ scenario: Scenario) throws(ScenarioLegError) -> [LegSpec] {
    var specs: [LegSpec] = []
    for (k, leg) in scenario.legs.enumerated() {
      try checkSpecSet(leg.specSet, format: leg.format, key: "legs.\(k)")
      specs.append(
        LegSpec(
          instrument: Instrument(venue: leg.venue, market: leg.market, symbol: leg.symbol), paths: leg.files, format: leg.format, specSet: leg.specSet))
    }
    return specs
  }

  /// `spec_set` of the scenario object `key` (`legs.0`, `fx`, `funding`) applied to its
  /// `format`: a column spec that decodes, not a named format.
  public static func checkSpecSet(_ specSet: [String], format: String?, key: String) throws(ScenarioLegError) {
    guard !specSet.isEmpty else { return }
    if let format, RecordFormat(id: format) != nil { throw ScenarioLegError(.specSetOnNamedFormat(key: key, format: format)) }
    do {
      _ = try format.map { try ColumnSpec.load(path: $0, overrides: specSet) } ?? ColumnSpec.fromOverrides(specSet)
    } catch let error as SpecError {
      throw ScenarioLegError(.badSpecSet(key: key, detail: error.message))
    } catch {
      throw ScenarioLegError(.badSpecSet(key: key, detail: "\(error)"))
    }
  }

  /// Every file the scenario at `path` reads: itself, its legs' quotes and trades, the funding
  /// and FX files, and the column specs among their formats.
  public static func files(_ scenario: Scenario, path: String) -> [String] {
    var funding: FundingFiles? = nil
    if case .carry(let rules) = scenario.strategy { funding = rules.funding }
    // A format that is a column-spec file is read too.
    let formats = scenario.legs.flatMap { [$0.format, $0.tradesFormat] } + [scenario.fx?.format, funding?.format]
    return [path] + scenario.legs.flatMap { $0.files + $0.trades } + scenario.strategy.files + (scenario.fx?.files ?? [])
      + formats.compactMap { $0 }.filter { $0.hasSuffix(".json") }
  }

  /// The scenario's clock offsets, by venue id.
  public static func offsets(_ scenario: Scenario) -> [(venue: String, micros: Int64)] {
    scenario.offsets.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// `loaded` (the legs as read, in scenario order) with each venue's clock offset added,
  /// then converted by the scenario's FX series (read with `options`).
  ///
  /// - Throws: `TimeError` when an offset or a duration of the scenario moves a time
  ///   out of range (`Scenario.checkTimes`), besides the errors of reading the FX series.
  public static func prepared(_ scenario: Scenario, loaded: [QuoteSeries], options: IngestOptions) throws -> (legs: [QuoteSeries], fx: FXSummary?) {
    try prepared(scenario, loaded: loaded, rate: rate(scenario, options: options), registry: options.registry)
  }

  /// The scenario's FX series (`fx.files`) as read with `options`; `nil` without `fx`.
  public static func rate(_ scenario: Scenario, options: IngestOptions) throws -> QuoteSeries? {
    try rateSpec(scenario)?.load(options: options).series
  }

  /// The ingest spec of the scenario's FX series; `nil` without `fx`.
  ///
  /// - Throws: `ScenarioLegError` when `fx.spec_set` does not give a valid column spec.
  static func rateSpec(_ scenario: Scenario) throws(ScenarioLegError) -> LegSpec? {
    guard let fx = scenario.fx else { return nil }
    try checkSpecSet(fx.specSet, format: fx.format, key: "fx")
    return LegSpec(instrument: nil, paths: fx.files, format: fx.format, specSet: fx.specSet)
  }

  /// The recorded trades of the maker leg (`legs.N.trades`) as read with `options`, each
  /// trade's price in both sides and its size in both sizes, by leg (`nil` for the other
  /// leg); empty without a maker leg.
  public static func trades(_ scenario: Scenario, options: IngestOptions) throws -> [QuoteSeries?] {
    guard let maker = scenario.maker else { return [] }
    var tradeOptions = options
    (tradeOptions.readsTradeSizes, tradeOptions.keepDepth) = (true, false)
    return try scenario.legs.enumerated().map { k, leg in
      guard k == maker.leg else { return nil }
      let spec = LegSpec(instrument: Instrument(venue: leg.venue, market: leg.market, symbol: leg.symbol), paths: leg.trades, format: leg.tradesFormat)
      return try spec.load(options: tradeOptions).series
    }
  }

  /// `trades` (as `trades(_:options:)` reads them) moved by their venues' clock offsets,
  /// for the maker leg of `legs` (prepared): a leg whose quotes have no sizes, or whose
  /// trades are no trades (one price a row) with sizes, is refused.
  public static func preparedTrades(_ scenario: Scenario, trades: [QuoteSeries?], legs: [QuoteSeries]) throws -> [QuoteSeries?] {
    guard let m = scenario.maker?.leg, let tape = trades[m] else { return trades }
    if !legs[m].bidSize.contains(where: \.isFinite) || !legs[m].askSize.contains(where: \.isFinite) {
      throw ScenarioLegError(.noTouchSizes(leg: m, instrument: legs[m].instrument.description))
    }
    if tape.priceSource != .last || tape.bidSize.contains(where: { !$0.isFinite }) {
      throw ScenarioLegError(.noTradeSizes(leg: m, path: scenario.legs[m].trades[0]))
    }
    var moved = trades
    moved[m] = try ClockOffset.shifted([tape], by: offsets(scenario))[0]
    return moved
  }

  /// As `prepared(_:loaded:options:)`, with the FX series already read (`rate`, as
  /// `rate(_:options:)` gives it).
  public static func prepared(
    _ scenario: Scenario, loaded: [QuoteSeries], rate: QuoteSeries?, registry: ExchangeRegistry
  ) throws -> (legs: [QuoteSeries], fx: FXSummary?) {
    var legs = try ClockOffset.shifted(loaded, by: offsets(scenario))
    try scenario.checkTimes(of: legs)
    if scenario.fill == .book, let k = legs.firstIndex(where: { $0.depth == nil }) {
      throw ScenarioLegError(.noDepth(leg: k, instrument: legs[k].instrument.description))
    }
    if let k = legs.indices.first(where: { scenario.legLatency[$0] == .recorded && legs[$0].otherTime.isEmpty }) {
      throw ScenarioLegError(.oneClock(leg: k, instrument: legs[k].instrument.description))
    }
    guard let fx = scenario.fx, let rate else { return (legs, nil) }
    if rate.field.isRate { throw ScenarioLegError(.rateSeries(field: rate.field, path: fx.files[0])) }
    // A quote's rate is as old as its time minus the rate's.
    _ = try TimeArithmetic.bounds(of: legs.map(\.time) + [rate.time])
    var summary = FXSummary(series: rate.instrument, converts: fx.converts, maxStale: fx.maxStale, quotes: 0, unusable: 0, usdtAsUSD: false)
    for k in legs.indices where legs[k].instrument.venue == fx.converts {
      let conversion = FXConversion(legs[k], by: rate, maxStale: fx.maxStale)
      legs[k] = conversion.series
      summary.quotes += conversion.series.count
      summary.unusable += conversion.unusable
    }
    summary.usdtAsUSD = FXSummary.takesUSDTAsUSD(legs: legs.map(\.instrument), converts: fx.converts, rate: rate.instrument, registry: registry)
    return (legs, summary)
  }
}

/// A scenario whose inputs cannot be read as it writes them: a usage error naming the
/// scenario key to change.
public struct ScenarioLegError: Error, Sendable, CustomStringConvertible {
  /// What is wrong, with the scenario key it is wrong in.
  public enum Reason: Sendable, Equatable {
    /// `KEY.spec_set` sets column-spec fields while `KEY.format` names a built-in format.
    case specSetOnNamedFormat(key: String, format: String)
    /// `KEY.spec_set` does not make a column spec (`detail` says why).
    case badSpecSet(key: String, detail: String)
    /// A series read for its prices (the first file at `path`) holds a rate.
    case rateSeries(field: SeriesField, path: String)
    /// `costs.fill` is `book`, and leg `leg`'s source has its top level only.
    case noDepth(leg: Int, instrument: String)
    /// Leg `leg`'s latency is `recorded`, and its source keeps one clock.
    case oneClock(leg: Int, instrument: String)
    /// Leg `leg` is the maker leg, and its quotes have no sizes at the touch.
    case noTouchSizes(leg: Int, instrument: String)
    /// Leg `leg` is the maker leg, and its trades (the first file at `path`) have no sizes.
    case noTradeSizes(leg: Int, path: String)
  }

  public var reason: Reason
  public init(_ reason: Reason) { self.reason = reason }

  public var description: String {
    switch reason {
    case .specSetOnNamedFormat(let key, let format):
      "\(key).spec_set sets column-spec fields, but \(key).format is the named format '\(format)', not a column spec"
    case .badSpecSet(let key, let detail): "\(key).spec_set: \(detail)"
    case .rateSeries(let field, let path): "leg \(path) is a \(field.rawValue) series, a rate: a premium needs price, mark or index legs"
    case .noDepth(let leg, let instrument):
      "legs.\(leg) (\(instrument)): costs.fill book walks the order book, but the leg's source has its top level only; "
        + "use a source with depth (Tardis book_snapshot_5/25, incremental_book_L2, order-book JSON lines) or costs.fill top"
    case .oneClock(let leg, let instrument):
      "legs.\(leg) (\(instrument)): latency recorded reads the receive and the exchange time of each quote, "
        + "but the leg's source keeps one clock; use a source with both (Tardis, cryptofeed) or a latency distribution"
    case .noTouchSizes(let leg, let instrument):
      "legs.\(leg) (\(instrument)): costs.maker_leg queues an order behind the size at the touch, but the leg's source has no sizes; "
        + "use a source with them (Tardis quotes or book snapshots, a book ticker, order-book JSON lines)"
    case .noTradeSizes(let leg, let path):
      "legs.\(leg).trades (\(path)): costs.maker_leg moves its order up the queue by trades and their sizes, but this source gives no trade sizes; "
        + "use tardis.trades, binance.aggTrades, binance.trades, bybit.trading, bybit.spot or parquet.trades with a quantity column"
    }
  }
}

extension Scenario {
  /// The options its legs are read with: `options`, keeping the books behind the quotes
  /// when the scenario walks them (`costs.fill` book) or queues a maker order in them
  /// (`costs.maker_leg`: a level behind the touch).
  public func legOptions(_ options: IngestOptions) -> IngestOptions {
    var options = options
    options.keepDepth = options.keepDepth || fill == .book || maker != nil
    return options
  }
}
