import ArbBacktest
import Testing

// The decision key is what a sweep groups cells by: cells whose keys are equal share one
// simulation and differ only in its pricing. A parameter left out of the key would
// silently merge cells that must differ.

@Suite("Decision keys: the parameters a shared simulation may differ in")
struct DecisionKeyTests {
  static let base: ConvergenceParameters = {
    var parameters = ConvergenceParameters(entry: 0.5, exit: 0.1, notional: 1000, fees: [0.001, 0.002])
    parameters.slippageBps = 2
    parameters.latency = 1_000
    parameters.legLatency = [1_000, 2_000]
    parameters.maxStale = 60_000_000
    parameters.maxHolding = 3_600_000_000
    parameters.cooldown = 1_000_000
    parameters.makerFees = [0.0001, 0.0002]
    return parameters
  }()

  /// One change of every stored parameter, by its name.
  static let changes: [String: @Sendable (inout ConvergenceParameters) -> Void] = [
    "entry": { $0.entry += 0.1 },
    "exit": { $0.exit -= 0.1 },
    "notional": { $0.notional *= 2 },
    "fees": { $0.fees[1] = 0.004 },
    "slippageBps": { $0.slippageBps = 5 },
    "latency": { $0.latency = 0 },
    "legLatency": { $0.legLatency = nil },
    "maxStale": { $0.maxStale = nil },
    "capAtBook": { $0.capAtBook.toggle() },
    "maxHolding": { $0.maxHolding = nil },
    "cooldown": { $0.cooldown = 2_000_000 },
    "sellLeg": { $0.sellLeg = 1 },
    "fill": { $0.fill = .book },
    "partial": { $0.partial = .hedge },
    "legFailRate": { $0.legFailRate = 0.1 },
    "seed": { $0.seed = 7 },
    "latencyModels": { $0.latencyModels = [.recorded, .uniform(low: 0, high: 10)] },
    "maker": { $0.maker = MakerRule(leg: 0, queue: .riskAverse) },
    "makerFees": { $0.makerFees[0] = 0 },
  ]

  /// The parameters only `price` reads.
  static let priceOnly: Set<String> = ["notional", "fees", "makerFees", "slippageBps"]

  @Test("every parameter has a change above, so that a new one must be classed as deciding or price-only")
  func everyParameterClassed() {
    let names = Mirror(reflecting: Self.base).children.compactMap(\.label)
    #expect(Set(names) == Set(Self.changes.keys))
    #expect(Self.priceOnly.isSubset(of: names))
  }

  @Test("a change of a deciding parameter splits the key, a change of a price-only one does not", arguments: changes.keys.sorted())
  func split(name: String) throws {
    var changed = Self.base
    let change = try #require(Self.changes[name])
    change(&changed)
    #expect(changed != Self.base, "the change must change the parameters")
    #expect((changed.decisionKey != Self.base.decisionKey) == !Self.priceOnly.contains(name), "\(name)")
  }

  @Test("each part of the maker rule decides: its leg, its queue model and power, its timeout")
  func makerRule() {
    var base = Self.base
    base.maker = MakerRule(leg: 0, queue: .probabilistic(power: 2), timeout: 1_000_000)
    let changes: [MakerRule] = [
      MakerRule(leg: 1, queue: .probabilistic(power: 2), timeout: 1_000_000), MakerRule(leg: 0, queue: .riskAverse, timeout: 1_000_000),
      MakerRule(leg: 0, queue: .probabilistic(power: 3), timeout: 1_000_000), MakerRule(leg: 0, queue: .probabilistic(power: 2), timeout: nil),
    ]
    for rule in changes {
      var changed = base
      changed.maker = rule
      #expect(changed.decisionKey != base.decisionKey)
    }
  }

  @Test("mode carry: the contract size only prices; a carry and a convergence run never share a key")
  func carry() {
    let linear = CarryBacktest(parameters: Self.base, contractSize: nil), inverse = CarryBacktest(parameters: Self.base, contractSize: 100)
    #expect(Set(Mirror(reflecting: linear).children.compactMap(\.label)) == ["parameters", "contractSize"])
    #expect(linear.decisionKey == inverse.decisionKey)
    #expect(linear.decisionKey != ConvergenceBacktest(parameters: Self.base).parameters.decisionKey)
  }
}
