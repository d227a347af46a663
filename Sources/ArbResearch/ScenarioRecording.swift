import ArbBacktest
import ArbCore
import ArbIngest

/// A scenario's inputs as read, before clock offsets, FX conversion and alignment: what
/// one backtest runs on (`ScenarioRun`). The lookahead check reads them once
/// and cuts them in memory.
public struct ScenarioRecording: Sendable {
  /// The legs, in scenario order.
  public var legs: [QuoteSeries]
  /// The FX series (`fx.files`); `nil` without `fx`.
  public var rate: QuoteSeries?
  /// Mode carry: the funding records (`funding.files`); `nil` with `strategy.funding` false.
  public var funding: QuoteSeries?
  /// The maker leg's trades (`legs.N.trades`) by leg, `ScenarioLegs.trades`; empty without a maker leg.
  public var trades: [QuoteSeries?]

  /// The inputs as given: the legs in scenario order, the FX series, the funding records
  /// and the maker leg's trades.
  public init(legs: [QuoteSeries], rate: QuoteSeries? = nil, funding: QuoteSeries? = nil, trades: [QuoteSeries?] = []) {
    self.legs = legs
    self.rate = rate
    self.funding = funding
    self.trades = trades
  }

  /// Reads every input of `scenario` with `options` (the legs with their books when the
  /// scenario walks them).
  public static func load(_ scenario: Scenario, options: IngestOptions) throws -> ScenarioRecording {
    let legs = try LoadedLegs.load(try ScenarioLegs.specs(scenario), options: scenario.legOptions(options)).map(\.series)
    let funding = try ScenarioRun.fundingSeries(scenario, options: options)
    return ScenarioRecording(
      legs: legs, rate: try ScenarioLegs.rate(scenario, options: options), funding: funding,
      trades: try ScenarioLegs.trades(scenario, options: scenario.legOptions(options)))
  }

  /// The recording as if it had stopped at `cut` (µs, on the scenario's corrected clock):
  /// every row of every leg, of the FX series and of the funding records at or after it
  /// removed. A leg's rows are on its venue's own clock, so they are cut at `cut` minus
  /// the venue's offset (`alignment.offsets`); the funding records at `cut` minus the
  /// perp venue's; the FX series, which no offset moves, at `cut`; a leg's trades as the
  /// leg. Rows are in time order, as read.
  public func truncated(before cut: Int64, scenario: Scenario) -> ScenarioRecording {
    let offset = { (venue: String) in scenario.offsets[venue] ?? 0 }
    return ScenarioRecording(
      legs: legs.map { $0.prefix(before: cut, offset: offset($0.instrument.venue)) },
      rate: rate?.prefix(before: cut, offset: 0),
      funding: funding?.prefix(before: cut, offset: offset(scenario.legs[1].venue)),
      trades: trades.map { tape in tape.map { $0.prefix(before: cut, offset: offset($0.instrument.venue)) } })
  }
}

extension QuoteSeries {
  /// The rows whose time plus `offset` is before `cut` (rows in time order).
  func prefix(before cut: Int64, offset: Int64) -> QuoteSeries {
    let n = time.firstIndex { $0 + offset >= cut } ?? count
    var kept = self
    kept.time = Array(time.prefix(n))
    kept.otherTime = Array(otherTime.prefix(n))
    kept.bid = Array(bid.prefix(n))
    kept.ask = Array(ask.prefix(n))
    kept.bidSize = Array(bidSize.prefix(n))
    kept.askSize = Array(askSize.prefix(n))
    kept.fundingInterval = Array(fundingInterval.prefix(n))
    kept.depth = depth?.selecting(Array(0..<n))
    return kept
  }
}
