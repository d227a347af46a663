import ArbBacktest

/// A scenario's strategy: its mode, each with the rules it reads (`strategy.*`, and
/// `funding.*` or `rebalance.*`).
public enum Strategy: Sendable, Hashable {
  case convergence(ThresholdRules)
  case inventory(InventoryRules)
  case carry(CarryRules)

  /// A mode, as `strategy.mode` names it.
  public enum Mode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case convergence, inventory, carry
    public var description: String { rawValue }
  }

  public var mode: Mode {
    switch self {
    case .convergence: .convergence
    case .inventory: .inventory
    case .carry: .carry
    }
  }

  /// Open at an executable premium (or basis) at least this, in percent.
  public var entry: Double {
    switch self {
    case .convergence(let rules): rules.entry
    case .inventory(let rules): rules.entry
    case .carry(let rules): rules.threshold.entry
    }
  }

  /// The thresholds of modes convergence and carry; `nil` in mode inventory.
  public var threshold: ThresholdRules? {
    switch self {
    case .convergence(let rules): rules
    case .carry(let rules): rules.threshold
    case .inventory: nil
    }
  }

  /// The files the rules name besides the legs' (mode carry's funding settlements).
  public var files: [String] {
    if case .carry(let rules) = self { rules.funding.files } else { [] }
  }

  /// What the notional is spent on, as the summary says it: `per leg`, `per trade`, `on spot`.
  public var notionalScope: String {
    switch self {
    case .convergence: "per leg"
    case .inventory: "per trade"
    case .carry: "on spot"
    }
  }

  /// Quote currency per leg and trade; the base of every figure in basis points.
  public var notional: Double {
    get {
      switch self {
      case .convergence(let rules): rules.notional
      case .inventory(let rules): rules.notional
      case .carry(let rules): rules.threshold.notional
      }
    }
    set {
      switch self {
      case .convergence(var rules):
        rules.notional = newValue
        self = .convergence(rules)
      case .inventory(var rules):
        rules.notional = newValue
        self = .inventory(rules)
      case .carry(var rules):
        rules.threshold.notional = newValue
        self = .carry(rules)
      }
    }
  }
}

/// The rules of a position held from an entry threshold to an exit threshold (modes
/// convergence and carry).
public struct ThresholdRules: Sendable, Hashable {
  public var entry: Double
  public var exit: Double
  public var notional: Double
  /// Close at the first valid point at least this long after the entry (µs).
  public var maxHolding: Int64?
  /// No entry until this long after a close (µs).
  public var cooldown: Int64?

  public init(entry: Double, exit: Double, notional: Double, maxHolding: Int64? = nil, cooldown: Int64? = nil) {
    self.entry = entry
    self.exit = exit
    self.notional = notional
    self.maxHolding = maxHolding
    self.cooldown = cooldown
  }
}

/// Mode inventory: immediate round trips on the balances of both venues.
public struct InventoryRules: Sendable, Hashable {
  public var entry: Double
  public var notional: Double
  /// The smallest base quantity worth trading.
  public var minSize: Double
  /// The transfer that refills a venue (`rebalance.cost`, `rebalance.delay`; its
  /// withdrawal fees set by the engine from `assetFees`); `nil`: never.
  public var rebalance: InventoryParameters.Rebalance?
  /// The withdrawal fee per asset, in that asset (`rebalance.asset_fees.ASSET`).
  public var assetFees: [String: Double]

  public init(
    entry: Double, notional: Double, minSize: Double = 0, rebalance: InventoryParameters.Rebalance? = nil, assetFees: [String: Double] = [:]
  ) {
    self.entry = entry
    self.notional = notional
    self.minSize = minSize
    self.rebalance = rebalance
    self.assetFees = assetFees
  }
}

/// Mode carry: spot bought and the perp sold on the thresholds, with the perp's funding.
public struct CarryRules: Sendable, Hashable {
  public var threshold: ThresholdRules
  /// Book the perp's funding settlements (`strategy.funding`).
  public var booksFunding: Bool
  /// The settlement files (`funding.*`), read when `booksFunding`.
  public var funding: FundingFiles

  public init(threshold: ThresholdRules, booksFunding: Bool, funding: FundingFiles) {
    self.threshold = threshold
    self.booksFunding = booksFunding
    self.funding = funding
  }
}

/// A perp's funding-rate settlements: files, format and column-spec assignments.
public struct FundingFiles: Sendable, Hashable {
  /// Resolved like the legs' files.
  public var files: [String]
  public var format: String?
  /// Column-spec assignments applied to `format`, as a leg's `spec_set`.
  public var specSet: [String]

  public init(files: [String] = [], format: String? = nil, specSet: [String] = []) {
    self.files = files
    self.format = format
    self.specSet = specSet
  }
}
