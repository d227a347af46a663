import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import ArbResearch

/// A scenario's legs as its strategy sees them: read from their files, moved by
/// `alignment.offsets`, and the legs of `fx.converts` divided by the FX rate (shared by
/// backtest, sweep and report).
enum ScenarioLegs {
  /// What the FX conversion did, for the outputs.
  struct FXSummary {
    /// The FX series read (`fx:…:USDKRW`).
    var series: Instrument
    var converts: String
    var maxStale: Int64?
    /// Quotes of the converted legs, and those left without a usable rate.
    var quotes: Int
    var unusable: Int
    /// An unconverted leg quotes USDT against a rate that is not per USDT: 1 USDT is taken as 1 USD.
    var usdtAsUSD: Bool
  }

  /// The ingest spec of each leg, in scenario order.
  ///
  /// - Throws: `UsageError` when a leg's `spec_set` does not give a valid column spec.
  static func specs(_ scenario: Scenario) throws(UsageError) -> [LegSpec] {
    var specs: [LegSpec] = []
    for (k, leg) in scenario.legs.enumerated() {
      try checkSpecSet(leg.specSet, format: leg.format, key: "legs.\(k)")
      specs.append(LegSpec(
        instrument: Instrument(venue: leg.venue, market: leg.market, symbol: leg.symbol), paths: leg.files, format: leg.format, specSet: leg.specSet))
    }
    return specs
  }

  /// `spec_set` of the scenario object `key` (`legs.0`, `fx`, `funding`) applied to its
  /// `format`: a column spec that decodes, not a named format.
  static func checkSpecSet(_ specSet: [String], format: String?, key: String) throws(UsageError) {
    guard !specSet.isEmpty else { return }
    if let format, RecordFormat(id: format) != nil {
      throw UsageError("\(key).spec_set sets column-spec fields, but \(key).format is the named format '\(format)', not a column spec")
    }
    do {
      _ = try format.map { try ColumnSpec.load(path: $0, overrides: specSet) } ?? ColumnSpec.fromOverrides(specSet)
    } catch let error as SpecError {
      throw UsageError("\(key).spec_set: \(error.message)")
    } catch {
      throw UsageError("\(key).spec_set: \(error)")
    }
  }

  /// Every file the scenario at `path` reads: itself, its legs', funding and FX files.
  static func files(_ scenario: Scenario, path: String) -> [String] {
    [path] + scenario.legs.flatMap(\.files) + scenario.strategy.files + (scenario.fx?.files ?? [])
  }

  /// Refuses a scenario file that cannot be read with its own exit code (66: missing or
  /// not a file; 74: unreadable) before it is parsed.
  static func checkFile(_ path: String) throws(UsageError) {
    do throws(FileError) { try InputFile.check(path) } catch { throw UsageError(file: error) }
  }

  /// The scenario's clock offsets, by venue id.
  static func offsets(_ scenario: Scenario) -> [(venue: String, micros: Int64)] {
    scenario.offsets.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// `loaded` (the legs as read, in scenario order) with each venue's clock offset added,
  /// then converted by the scenario's FX series (read with `options`).
  ///
  /// - Throws: `TimeError` when an offset or a duration of the scenario moves a time
  ///   out of range (`Scenario.checkTimes`), besides the errors of reading the FX series.
  static func prepared(_ scenario: Scenario, loaded: [QuoteSeries], options: IngestOptions) throws -> (legs: [QuoteSeries], fx: FXSummary?) {
    try prepared(scenario, loaded: loaded, rate: rate(scenario, options: options), registry: options.registry)
  }

  /// The scenario's FX series (`fx.files`) as read with `options`; `nil` without `fx`.
  static func rate(_ scenario: Scenario, options: IngestOptions) throws -> QuoteSeries? {
    guard let fx = scenario.fx else { return nil }
    try checkSpecSet(fx.specSet, format: fx.format, key: "fx")
    return try LegSpec(instrument: nil, paths: fx.files, format: fx.format, specSet: fx.specSet).load(options: options).series
  }

  /// As `prepared(_:loaded:options:)`, with the FX series already read (`rate`, as
  /// `rate(_:options:)` gives it).
  static func prepared(
    _ scenario: Scenario, loaded: [QuoteSeries], rate: QuoteSeries?, registry: ExchangeRegistry
  ) throws -> (legs: [QuoteSeries], fx: FXSummary?) {
    var legs = try ClockOffset.shifted(loaded, by: offsets(scenario))
    try scenario.checkTimes(of: legs)
    guard let fx = scenario.fx, let rate else { return (legs, nil) }
    if rate.field.isRate { throw PremiumCommand.rateLeg(rate.field, fx.files[0]) }
    // A quote's rate is as old as its time minus the rate's.
    _ = try TimeArithmetic.bounds(of: legs.map(\.time) + [rate.time])
    var summary = FXSummary(series: rate.instrument, converts: fx.converts, maxStale: fx.maxStale, quotes: 0, unusable: 0, usdtAsUSD: false)
    for k in legs.indices where legs[k].instrument.venue == fx.converts {
      let conversion = FXConversion(legs[k], by: rate, maxStale: fx.maxStale)
      legs[k] = conversion.series
      summary.quotes += conversion.series.count
      summary.unusable += conversion.unusable
    }
    let quotes = legs.filter { $0.instrument.venue != fx.converts }.map { (try? PremiumCommand.canonical($0.instrument, registry: registry))??.quote }
    summary.usdtAsUSD = quotes.contains("USDT") && !rate.instrument.symbol.uppercased().contains("USDT")
    return (legs, summary)
  }
}
