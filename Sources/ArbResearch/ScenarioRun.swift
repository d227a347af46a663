import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest

/// One run of a scenario's strategy on its recording: the legs as the strategy saw them,
/// the size of their alignment and the outcome (shared by backtest, sweep and report).
public struct ScenarioRun {
  /// The run of the scenario's mode.
  public enum Outcome {
    case convergence(BacktestRun)
    case inventory(InventoryRun)
    /// Mode carry: the run and the funding settlements it was priced with.
    case carry(BacktestRun, FundingSettlements)
  }

  /// How the round trips of modes convergence and carry are found.
  public enum Engine: String, Sendable, CaseIterable {
    /// A pass over every aligned point (what `backtest` runs).
    case pass
    /// First-passage queries on a `ConvergenceIndex` (what `sweep` runs); mode
    /// inventory has no other engine than the pass.
    case firstPassage = "first_passage"
  }

  /// A leg of the run: what its results name and say of it.
  public struct Leg: Sendable {
    public var instrument: Instrument
    public var priceSource: PriceSource
    /// Its quotes.
    public var count: Int

    public init(instrument: Instrument, priceSource: PriceSource, count: Int) {
      self.instrument = instrument
      self.priceSource = priceSource
      self.count = count
    }

    /// The leg of `series`.
    public init(_ series: QuoteSeries) { self.init(instrument: series.instrument, priceSource: series.priceSource, count: series.count) }

    /// The legs of a streamed run, named as the scenario names them.
    static func streamed<Run>(_ result: StreamedResult<Run>, instruments: [Instrument]) -> [Leg] {
      instruments.indices.map { Leg(instrument: instruments[$0], priceSource: result.priceSources[$0], count: result.legRows[$0]) }
    }
  }

  public let scenario: Scenario
  /// The legs, in scenario order.
  public let legs: [Leg]
  /// Each leg's taker fee.
  public let fees: [Double]
  /// Clock points of the aligned legs, and the valid ones.
  public let points: Int
  public let validPoints: Int
  public let outcome: Outcome
  /// The scenario's FX conversion (`fx`), if any.
  public let fx: ScenarioLegs.FXSummary?

  /// A run whose outcome was found elsewhere (a sweep's shared decisions).
  public init(
    scenario: Scenario, legs: [Leg], fees: [Double], points: Int, validPoints: Int, outcome: Outcome, fx: ScenarioLegs.FXSummary? = nil
  ) {
    self.scenario = scenario
    self.legs = legs
    self.fees = fees
    self.points = points
    self.validPoints = validPoints
    self.outcome = outcome
    self.fx = fx
  }

  /// A run on `aligned`.
  public init(scenario: Scenario, legs: [QuoteSeries], fees: [Double], aligned: AlignedLegs, outcome: Outcome, fx: ScenarioLegs.FXSummary? = nil) {
    self.init(scenario: scenario, legs: legs.map(Leg.init), fees: fees, points: aligned.count, validPoints: aligned.validPoints, outcome: outcome, fx: fx)
  }

  /// The backtest of `recording` by `engine`: its legs moved by the clock offsets and
  /// converted by the FX series, aligned, and the scenario's mode run on them.
  public init(
    _ scenario: Scenario, fees: [Double], recording: ScenarioRecording, registry: ExchangeRegistry, engine: Engine = .pass
  ) throws {
    let (series, fx) = try ScenarioLegs.prepared(scenario, loaded: recording.legs, rate: recording.rate, registry: registry)
    let trades = try ScenarioLegs.preparedTrades(scenario, trades: recording.trades, legs: series)
    let alignment = AlignmentOptions(maxStale: scenario.maxStale, grid: scenario.grid)
    guard engine == .firstPassage, scenario.strategy.mode != .inventory else {
      let aligned = try AlignedLegs(legs: series, options: alignment)
      let outcome = try Self.outcome(
        scenario, fees: fees, legs: series, aligned: aligned, funding: recording.funding, trades: trades, registry: registry)
      self.init(scenario: scenario, legs: series, fees: fees, aligned: aligned, outcome: outcome, fx: fx)
      return
    }
    let outcome: Outcome
    let index: ConvergenceIndex
    switch try ScenarioEngine(scenario, fees: fees, registry: registry) {
    case .carry(let carry):
      index = try ConvergenceIndex(legs: series, options: alignment, sellLeg: 1)
      let settlements = try Self.settlements(scenario, funding: recording.funding, perp: series[1])
      outcome = .carry(carry.price(carry.rules.decide(legs: series, index: index), funding: settlements), settlements)
    case .convergence(let convergence):
      index = try ConvergenceIndex(legs: series, options: alignment)
      outcome = .convergence(convergence.price(convergence.decide(legs: series, index: index, trades: trades), legs: series))
    case .inventory:
      preconditionFailure("mode inventory has no engine but the pass")
    }
    self.init(
      scenario: scenario, legs: series.map(Leg.init), fees: fees, points: index.clockPoints, validPoints: index.validPoints, outcome: outcome, fx: fx)
  }

  /// Whether `init(streaming:…)` runs `scenario`: both legs taking, at any latency, with
  /// fills at the top or walking the books (`ScenarioEngine.streams`).
  public static func streams(_ scenario: Scenario, fees: [Double], registry: ExchangeRegistry) throws -> Bool {
    try ScenarioEngine(scenario, fees: fees, registry: registry).streams
  }

  /// The backtest of `scenario` (which `streams`) on its legs read with `options` as
  /// streams, `chunkPoints` valid points at a time (`ScenarioStreams.decide`, mode
  /// inventory `ScenarioStreams.run`; mode carry prices its funding settlements on one
  /// more pass over the perp): the outcome of the run on whole legs, in memory that does
  /// not grow with the history; `counted` is told the quotes read as they are.
  public init(
    streaming scenario: Scenario, fees: [Double], options: IngestOptions, chunkPoints: Int, counted: (@Sendable (Int) -> Void)? = nil
  ) throws {
    let engine = try ScenarioEngine(scenario, fees: fees, registry: options.registry)
    let legOptions = Self.streamedLegOptions(scenario, options)
    let streams = try ScenarioStreams(scenario, options: legOptions, chunkRows: chunkPoints, counted: counted)
    self = try Self.streamed(scenario, fees: fees, engine: engine, streams: streams, options: legOptions, chunkPoints: chunkPoints).run
  }

  /// The options a streamed run reads its legs with: the scenario's leg options and clock.
  static func streamedLegOptions(_ scenario: Scenario, _ options: IngestOptions) -> IngestOptions {
    var legOptions = scenario.legOptions(options)
    legOptions.clock = scenario.clock
    return legOptions
  }

  /// What a streamed run saw of its legs besides its outcome: each leg's first and last
  /// time on the corrected clock (`nil` for a leg with no quote), and the longest latency
  /// a fill can have (µs; a `recorded` leg's from its quotes).
  struct StreamedSight {
    var legTimes: [ClosedRange<Int64>?]
    var latencyBound: Int64
  }

  /// The run of `engine` (which streams) on `streams`, and what it saw of them; mode
  /// carry reads its funding records with `options`, those at or after `fundingCut` (on
  /// the perp venue's corrected clock) left out when it is set.
  static func streamed(
    _ scenario: Scenario, fees: [Double], engine: ScenarioEngine, streams: ScenarioStreams, options: IngestOptions, chunkPoints: Int,
    fundingCut: Int64? = nil
  ) throws -> (run: ScenarioRun, sight: StreamedSight) {
    precondition(engine.streams, "a streamed backtest has taker fills")
    let alignment = AlignmentOptions(maxStale: scenario.maxStale, grid: scenario.grid)
    func sight<Run>(_ result: StreamedResult<Run>) -> StreamedSight {
      StreamedSight(legTimes: result.legTimes, latencyBound: scenario.latencyBound { result.longestRecordedDelays[$0] })
    }
    if case .inventory(let inventory) = engine {
      let result = try streams.run([inventory], checking: [scenario], alignment: alignment, chunkPoints: chunkPoints, jobs: 1)
      let run = ScenarioRun(
        scenario: scenario, legs: Leg.streamed(result, instruments: streams.instruments), fees: fees, points: result.clockPoints,
        validPoints: result.validPoints, outcome: .inventory(result.runs[0]), fx: streams.fxSummary)
      return (run, sight(result))
    }
    let rules = engine.rules!
    let result = try streams.decide([rules], checking: [scenario], alignment: alignment, chunkPoints: chunkPoints, jobs: 1)
    let outcome: Outcome
    switch engine {
    case .carry(let carry):
      let settlements = try Self.settlements(scenario, streams: streams, options: options, fundingCut: fundingCut)
      outcome = .carry(carry.price(result.runs[0], funding: settlements), settlements)
    default:
      // Book-walking fills: one more pass over the legs, with their books.
      let legs = rules.parameters.walksFills ? try (0..<2).map { try streams.open($0, allColumns: true, counting: false, books: true) } : []
      outcome = .convergence(try rules.price(result.runs[0], streams: legs, chunkRows: chunkPoints))
    }
    let run = ScenarioRun(
      scenario: scenario, legs: Leg.streamed(result, instruments: streams.instruments), fees: fees, points: result.clockPoints,
      validPoints: result.validPoints, outcome: outcome, fx: streams.fxSummary)
    return (run, sight(result))
  }

  /// Mode carry on streamed legs: the perp's funding settlements (as
  /// `settlements(_:perp:options:)` gives them on the whole perp), priced on one more
  /// pass over the perp's stream; with `fundingCut`, the records at or after it (on the
  /// perp venue's corrected clock) are left out, as a cut recording leaves them out.
  static func settlements(_ scenario: Scenario, streams: ScenarioStreams, options: IngestOptions, fundingCut: Int64? = nil) throws -> FundingSettlements {
    let offset = scenario.offsets[scenario.legs[1].venue] ?? 0
    guard var funding = try fundingSeries(scenario, options: options) else { return .none }
    if let fundingCut { funding = funding.prefix(before: fundingCut, offset: offset) }
    do { return try FundingSettlements(funding: funding, perp: streams.open(1, allColumns: false), clockOffset: offset) } catch let error as FundingError {
      throw FundingError("funding.files: \(error.message)")
    }
  }

  /// The run's PnL journal.
  public var journal: PnLJournal {
    switch outcome {
    case .convergence(let run), .carry(let run, _): run.journal
    case .inventory(let run): run.journal
    }
  }

  /// The run of the scenario's mode on aligned legs (mode carry reads its funding
  /// settlements with `options`).
  public static func outcome(
    _ scenario: Scenario, fees: [Double], legs: [QuoteSeries], aligned: AlignedLegs, options: IngestOptions
  ) throws -> Outcome {
    let funding = try fundingSeries(scenario, options: options)
    let trades = try ScenarioLegs.preparedTrades(scenario, trades: ScenarioLegs.trades(scenario, options: options), legs: legs)
    return try outcome(scenario, fees: fees, legs: legs, aligned: aligned, funding: funding, trades: trades, registry: options.registry)
  }

  /// The run of the scenario's mode on aligned legs (mode carry: with the settlements
  /// of `funding`; a maker leg: on its `trades`, as `ScenarioLegs.preparedTrades` gives them).
  public static func outcome(
    _ scenario: Scenario, fees: [Double], legs: [QuoteSeries], aligned: AlignedLegs, funding: QuoteSeries?, trades: [QuoteSeries?] = [],
    registry: ExchangeRegistry
  ) throws -> Outcome {
    switch try ScenarioEngine(scenario, fees: fees, registry: registry) {
    case .inventory(let engine):
      return .inventory(engine.run(legs: legs, aligned: aligned))
    case .carry(let engine):
      let settlements = try settlements(scenario, funding: funding, perp: legs[1])
      return .carry(engine.run(legs: legs, aligned: aligned, funding: settlements), settlements)
    case .convergence(let engine):
      return .convergence(engine.run(legs: legs, aligned: aligned, trades: trades))
    }
  }

  /// Mode carry: the perp's funding settlements from `funding.files` (none with
  /// `strategy.funding` false), moved by the perp venue's clock offset and valued on the
  /// perp's quotes (already moved).
  public static func settlements(_ scenario: Scenario, perp: QuoteSeries, options: IngestOptions) throws -> FundingSettlements {
    try settlements(scenario, funding: fundingSeries(scenario, options: options), perp: perp)
  }

  /// Mode carry: the funding records of `funding.files` as read with `options`; `nil`
  /// in the other modes and with `strategy.funding` false.
  public static func fundingSeries(_ scenario: Scenario, options: IngestOptions) throws -> QuoteSeries? {
    guard case .carry(let rules) = scenario.strategy, rules.booksFunding else { return nil }
    let leg = scenario.legs[1], funding = rules.funding
    let spec = LegSpec(
      instrument: Instrument(venue: leg.venue, market: leg.market, symbol: leg.symbol), paths: funding.files,
      format: funding.format, field: .fundingRate, specSet: funding.specSet)
    try ScenarioLegs.checkSpecSet(funding.specSet, format: funding.format, key: "funding")
    return try spec.load(options: options).series
  }

  /// The settlements of `funding` (as `fundingSeries` reads it; `nil`: none), moved by
  /// the perp venue's clock offset and valued on `perp`.
  public static func settlements(_ scenario: Scenario, funding: QuoteSeries?, perp: QuoteSeries) throws(FundingError) -> FundingSettlements {
    guard let funding else { return .none }
    let offset = scenario.offsets[scenario.legs[1].venue] ?? 0
    do { return try FundingSettlements(funding: funding, perp: perp, clockOffset: offset) } catch { throw FundingError("funding.files: \(error.message)") }
  }
}
