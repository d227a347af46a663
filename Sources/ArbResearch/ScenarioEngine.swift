import ArbBacktest
import ArbCore

/// The engine of a scenario's mode, built from its rules, costs, alignment and each
/// leg's taker fee: what `backtest`, `sweep` and `report` run.
public enum ScenarioEngine: Sendable {
  case convergence(ConvergenceBacktest)
  case carry(CarryBacktest)
  case inventory(InventoryArbitrage)

  /// The engine of `scenario` with the legs' taker fees `fees`; the maker fees of a maker
  /// leg are `costs.maker_fees.VENUE`, else the registry's; the contract size of mode
  /// carry's inverse perp is `legs.1.contract_size`, else the registry's.
  public init(_ scenario: Scenario, fees: [Double], registry: ExchangeRegistry) throws(ScenarioSettingError) {
    switch scenario.strategy {
    case .convergence(let rules):
      var parameters = scenario.convergenceParameters(rules, fees: fees)
      parameters.maker = scenario.maker
      parameters.makerFees = try scenario.legMakerFees(registry: registry)
      self = .convergence(ConvergenceBacktest(parameters: parameters))
    case .carry(let rules):
      let perp = scenario.legs[1]
      var size: Double? = nil
      if perp.market == .inverse {
        let instrument = Instrument(venue: perp.venue, market: perp.market, symbol: perp.symbol)
        guard let known = perp.contractSize ?? (try? registry.resolve(instrument))?.contractSize else {
          throw ScenarioSettingError("no contract size known for \(instrument); set legs.1.contract_size")
        }
        size = known
      }
      self = .carry(CarryBacktest(parameters: scenario.convergenceParameters(rules.threshold, fees: fees), contractSize: size))
    case .inventory(let rules):
      var parameters = InventoryParameters(
        entry: rules.entry, notional: rules.notional, fees: fees,
        base: scenario.legs.map { $0.base ?? 0 }, quote: scenario.legs.map { $0.quote ?? 0 })
      parameters.slippageBps = scenario.slippageBps
      parameters.latencyModels = scenario.legLatency
      parameters.seed = scenario.seed
      parameters.maxStale = scenario.maxStale
      parameters.minSize = rules.minSize
      parameters.capAtBook = scenario.capAtBook
      parameters.rebalance = try rules.rebalance.map { rebalance throws(ScenarioSettingError) in
        var rebalance = rebalance
        (rebalance.baseFees, rebalance.quoteFees) = try scenario.withdrawalFees(rules.assetFees, registry: registry)
        return rebalance
      }
      self = .inventory(InventoryArbitrage(parameters: parameters))
    }
  }

  /// Whether runs of this engine can stream their legs: both legs taking
  /// (`ConvergenceBacktest.streams`; mode inventory always), at any latency, fixed or
  /// drawn; book-walking fills price the trades on one more pass.
  public var streams: Bool {
    switch self {
    case .inventory: true
    case .convergence(let engine): engine.streams
    case .carry(let engine): engine.rules.streams
    }
  }

  /// The rules that decide the round trips of modes convergence and carry.
  public var rules: ConvergenceBacktest? {
    switch self {
    case .convergence(let engine): engine
    case .carry(let engine): engine.rules
    case .inventory: nil
    }
  }
}

extension Scenario {
  /// Each leg's taker fee: `costs.fees.VENUE`, else the registry's for its market.
  public func takerFees(registry: ExchangeRegistry) throws(ScenarioSettingError) -> [Double] {
    try legs.map { leg throws(ScenarioSettingError) -> Double in
      if let fee = fees[leg.venue] { return fee }
      guard let taker = registry.venue(leg.venue)?.markets.first(where: { $0.kind == leg.market })?.taker else {
        throw ScenarioSettingError("no taker fee known for \(leg.venue) \(leg.market.rawValue); set costs.fees.\(leg.venue)")
      }
      return taker
    }
  }

  /// Mode inventory: per leg, the fee of withdrawing its base and its quote asset from
  /// its venue (`rebalance.asset_fees.ASSET`, the registry's canonical base and quote of
  /// the leg; 0 for an asset without a fee).
  ///
  /// - Throws: `ScenarioSettingError` for a fee of an asset no leg holds, or legs whose
  ///   assets the registry cannot tell while fees are set.
  func withdrawalFees(_ fees: [String: Double], registry: ExchangeRegistry) throws(ScenarioSettingError) -> (base: [Double], quote: [Double]) {
    guard !fees.isEmpty else { return ([0, 0], [0, 0]) }
    var assets: [(base: String, quote: String)] = []
    for leg in legs {
      let instrument = Instrument(venue: leg.venue, market: leg.market, symbol: leg.symbol)
      guard let canonical = try? registry.resolve(instrument) else {
        throw ScenarioSettingError("rebalance.asset_fees: the registry cannot tell the assets of \(instrument)")
      }
      assets.append((canonical.base, canonical.quote))
    }
    for asset in fees.keys.sorted() where !assets.contains(where: { $0.base == asset || $0.quote == asset }) {
      let held = Set(assets.flatMap { [$0.base, $0.quote] }).sorted().joined(separator: ", ")
      throw ScenarioSettingError("rebalance.asset_fees.\(asset): no leg holds \(asset) (the legs hold \(held))")
    }
    return (assets.map { fees[$0.base] ?? 0 }, assets.map { fees[$0.quote] ?? 0 })
  }

  /// Each leg's maker fee with a maker leg (`costs.maker_leg`): `costs.maker_fees.VENUE`,
  /// else the registry's for its market; none without one.
  public func legMakerFees(registry: ExchangeRegistry) throws(ScenarioSettingError) -> [Double] {
    guard maker != nil else { return [] }
    return try legs.map { leg throws(ScenarioSettingError) -> Double in
      if let fee = makerFees[leg.venue] { return fee }
      guard let maker = registry.venue(leg.venue)?.markets.first(where: { $0.kind == leg.market })?.maker else {
        throw ScenarioSettingError("no maker fee known for \(leg.venue) \(leg.market.rawValue); set costs.maker_fees.\(leg.venue)")
      }
      return maker
    }
  }

  /// The parameters of the thresholds `rules` with this scenario's costs and alignment.
  func convergenceParameters(_ rules: ThresholdRules, fees: [Double]) -> ConvergenceParameters {
    var parameters = ConvergenceParameters(entry: rules.entry, exit: rules.exit, notional: rules.notional, fees: fees)
    parameters.slippageBps = slippageBps
    parameters.latencyModels = legLatency
    parameters.capAtBook = capAtBook
    parameters.fill = fill
    parameters.partial = partial
    parameters.legFailRate = legFailRate
    parameters.seed = seed
    parameters.maxStale = maxStale
    parameters.maxHolding = rules.maxHolding
    parameters.cooldown = rules.cooldown
    return parameters
  }
}

/// A value the scenario must set because the registry does not know it (a taker fee,
/// a contract size): a usage error naming the key to set.
public struct ScenarioSettingError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
