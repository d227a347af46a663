import ArbBacktest
import ArbCore
import ArbIngest

/// A scenario's legs as its strategy sees them: read from their files, then moved by
/// `alignment.offsets` (shared by backtest, sweep and report).
enum ScenarioLegs {
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

  /// `loaded` (the legs as read, in scenario order) with each venue's clock offset added.
  static func prepared(_ scenario: Scenario, loaded: [QuoteSeries]) -> [QuoteSeries] {
    ClockOffset.shifted(loaded, by: offsets(scenario))
  }
}
