import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest

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
  static func specs(_ scenario: Scenario) -> [LegSpec] {
    scenario.legs.map { leg in
      LegSpec(instrument: Instrument(venue: leg.venue, market: leg.market, symbol: leg.symbol), paths: leg.files, format: leg.format)
    }
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
    var legs = try ClockOffset.shifted(loaded, by: offsets(scenario))
    try scenario.checkTimes(of: legs)
    guard let fx = scenario.fx else { return (legs, nil) }
    let rate = try LegSpec(instrument: nil, paths: fx.files, format: fx.format).load(options: options).series
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
    let quotes = legs.filter { $0.instrument.venue != fx.converts }.map { (try? PremiumCommand.canonical($0.instrument, registry: options.registry))??.quote }
    summary.usdtAsUSD = quotes.contains("USDT") && !rate.instrument.symbol.uppercased().contains("USDT")
    return (legs, summary)
  }
}
