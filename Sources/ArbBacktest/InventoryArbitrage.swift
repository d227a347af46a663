import ArbAnalytics
import ArbCore

/// The parameters of mode `inventory` (`docs/definitions.md`, "Inventory backtest").
public struct InventoryParameters: Sendable, Equatable {
  /// Trade when the executable premium is at least this, in percent.
  public var entry: Double
  /// Quote currency per trade: the size wanted is `notional / sell price`.
  public var notional: Double
  /// Taker fee per leg, a fraction per fill, in leg order.
  public var fees: [Double]
  /// Starting base and quote balance per leg.
  public var base: [Double]
  public var quote: [Double]
  public var slippageBps: Double = 0
  public var latency: Int64 = 0
  /// Per-leg latency (µs) replacing `latency` for the legs it names.
  public var legLatency: [Int64]? = nil
  /// Per-leg latency distributions (a scenario's `costs.latency`), replacing `latency`
  /// and `legLatency`; drawn from `seed`.
  public var latencyModels: [Latency]? = nil
  public var maxStale: Int64? = nil
  /// Smallest base quantity worth trading; a smaller allowed size is a missed opportunity.
  public var minSize: Double = 0
  /// Cap every trade at the top-of-book sizes of the fill quotes (when the data has them).
  public var capAtBook = false
  /// A transfer that restores the starting split of base and quote, started by the
  /// first opportunity missed for want of inventory; `nil`: never rebalance.
  public var rebalance: Rebalance? = nil
  /// The seed of drawn latencies.
  public var seed: UInt64 = 0

  /// A rebalancing transfer: a fixed cost in quote currency, done after a delay.
  public struct Rebalance: Sendable, Hashable {
    public var cost: Double
    public var delay: Int64
    public init(cost: Double, delay: Int64) {
      self.cost = cost
      self.delay = delay
    }
  }

  /// The latency of each leg.
  var latencies: [Latency] { latencyModels ?? (legLatency ?? Array(repeating: latency, count: fees.count)).map(Latency.fixed) }

  public init(entry: Double, notional: Double, fees: [Double], base: [Double], quote: [Double]) {
    self.entry = entry
    self.notional = notional
    self.fees = fees
    self.base = base
    self.quote = quote
  }
}

/// One immediate round trip: sell on the rich venue and buy on the cheap one at once.
public struct InventoryTrade: Sendable, Equatable {
  public var time: Int64
  public var rich: Int
  public var cheap: Int
  /// Executable premium at the signal, percent.
  public var premium: Double
  /// Fill prices (slippage included) and the base quantity traded on both venues.
  public var sellPrice: Double
  public var buyPrice: Double
  public var quantity: Double
  public var fees: Double
  /// `quantity × (sellPrice − buyPrice) − fees`, quote currency.
  public var pnl: Double
}

/// One completed rebalancing transfer.
public struct RebalanceEvent: Sendable, Equatable {
  public var start: Int64
  public var end: Int64
  public var cost: Double
}

/// Balances after each trade or rebalance: `base[k]`, `quote[k]` per leg.
public struct InventoryState: Sendable, Equatable {
  public var time: Int64
  public var base: [Double]
  public var quote: [Double]
}

/// The result of an inventory backtest.
public struct InventoryRun: Sendable {
  public var trades: [InventoryTrade]
  public var rebalances: [RebalanceEvent]
  /// Opportunities (executable premium ≥ entry) not traded, by reason.
  public var skipped: [(reason: SkipReason, count: Int)]
  /// Starting balances, then the balances after every trade and rebalance.
  public var path: [InventoryState]
  public var firstTime: Int64?
  public var lastTime: Int64?
  public var notional: Double

  /// Trades' PnL at their time and rebalance costs at their completion.
  public var journal: PnLJournal {
    var bookings: [(time: Int64, pnl: Double, isTrade: Bool)] = trades.map { ($0.time, $0.pnl, true) }
    bookings += rebalances.map { ($0.end, -$0.cost, false) }
    // A rebalance completes before the trade at the same point.
    bookings.sort { ($0.time, $0.isTrade ? 1 : 0) < ($1.time, $1.isTrade ? 1 : 0) }
    return PnLJournal(bookings: bookings, firstTime: firstTime, lastTime: lastTime)
  }

  public var pnl: Double { journal.total }
  public var fees: Double { trades.reduce(0) { $0 + $1.fees } }
  public var wins: Int { trades.reduce(0) { $0 + ($1.pnl > 0 ? 1 : 0) } }
  public var rebalanceCost: Double { rebalances.reduce(0) { $0 + $1.cost } }
  /// Opportunities missed for want of base, quote or book size.
  public var missed: Int { skipped.reduce(0) { $0 + ([.noBase, .noQuote, .noBookSize].contains($1.reason) ? $1.count : 0) } }
}

/// Cross-venue spot arbitrage as it is traded with inventory on both venues
/// (`docs/definitions.md`, "Inventory backtest"): every opportunity is an immediate
/// round trip limited by the balances, no position is carried.
public struct InventoryArbitrage: Sendable {
  public let parameters: InventoryParameters

  public init(parameters: InventoryParameters) {
    self.parameters = parameters
  }

  /// The run on whole legs: one `InventoryTrader.step` per valid point, in order.
  public func run(legs: [QuoteSeries], aligned: AlignedLegs) -> InventoryRun {
    precondition(legs.count == 2 && aligned.legCount == 2, "inventory trades exactly two legs")
    var trader = InventoryTrader(parameters: parameters, start: aligned.time.first ?? 0)
    guard let firstValid = aligned.valid.firstIndex(of: true), let lastValid = aligned.valid.lastIndex(of: true) else { return trader.finished }
    let fills = Fills(legs: legs, maxStale: parameters.maxStale, latency: parameters.latencies, seed: parameters.seed, readsSizes: parameters.capAtBook)
    for i in firstValid...lastValid where aligned.valid[i] {
      let signal = aligned.signal(i)
      let a = fills.quote(0, at: signal), b = fills.quote(1, at: signal)
      trader.step(time: signal.time, bids: (a.bid, b.bid), asks: (a.ask, b.ask)) { fills.after(signal) }
    }
    return trader.finished
  }
}

/// An inventory run between two valid points: the balances, the rebalance under way,
/// the skipped signals and what was booked so far. Whole-leg and streamed runs step it
/// through the same valid points and so give the same run.
struct InventoryTrader {
  let parameters: InventoryParameters
  private var run: InventoryRun
  private var state: InventoryState
  private var skipped = SkipCounts()
  /// The start of the rebalance under way.
  private var inFlight: Int64? = nil

  /// A run that starts with the parameters' balances at `start` (the first clock point).
  init(parameters: InventoryParameters, start: Int64) {
    self.parameters = parameters
    state = InventoryState(time: start, base: parameters.base, quote: parameters.quote)
    run = InventoryRun(trades: [], rebalances: [], skipped: [], path: [state], firstTime: nil, lastTime: nil, notional: parameters.notional)
  }

  /// The run so far.
  var finished: InventoryRun {
    var run = run
    run.skipped = skipped.list
    return run
  }

  /// The valid point at `time`, both legs' quotes in force there (`bids.0`, `asks.0` of
  /// leg 0): completes a rebalance due, then trades the signal if the executable premium
  /// reaches `entry`, at the fill quotes `fill` gives (asked only then).
  mutating func step(time t: Int64, bids: (Double, Double), asks: (Double, Double), fill: () -> Result<FillPair, SkipError>) {
    run.firstTime = run.firstTime ?? t
    run.lastTime = t
    // `start + delay` cannot overflow once the legs are checked (`Scenario.checkTimes`); a streamed run checks after.
    if let start = inFlight, let rebalance = parameters.rebalance, t >= IndexedRun.adding(rebalance.delay, to: start) {
      restoreSplit(cost: rebalance.cost)
      state.time = t
      run.rebalances.append(RebalanceEvent(start: start, end: t, cost: rebalance.cost))
      run.path.append(state)
      inFlight = nil
    }
    let forward = (bids.0 / asks.1 - 1) * 100, backward = (bids.1 / asks.0 - 1) * 100
    let exec = max(forward, backward)
    guard exec >= parameters.entry else { return }
    let q: FillPair
    switch fill() {
    case .failure(let skip):
      skipped.add(skip.reason)
      return
    case .success(let quotes): q = quotes
    }
    let s = parameters.slippageBps / 10_000
    let rich = forward >= backward ? 0 : 1, cheap = 1 - rich
    let sell = q[rich].bid * (1 - s), buy = q[cheap].ask * (1 + s)
    // The size: wanted, then what the balances and the books allow, in that order.
    let limits: [(Double, SkipReason?)] = [
      (parameters.notional / sell, nil),
      (state.base[rich], .noBase),
      (state.quote[cheap] / (buy * (1 + parameters.fees[cheap])), .noQuote),
      (parameters.capAtBook && q[rich].bidSize.isFinite ? q[rich].bidSize : .infinity, .noBookSize),
      (parameters.capAtBook && q[cheap].askSize.isFinite ? q[cheap].askSize : .infinity, .noBookSize),
    ]
    let binding = limits.min { $0.0 < $1.0 }!
    let quantity = binding.0
    guard quantity > 0 && quantity >= parameters.minSize else {
      let reason = binding.1 ?? .noBase
      skipped.add(reason)
      if reason != .noBookSize && inFlight == nil && parameters.rebalance != nil { inFlight = t }
      return
    }
    let fees = parameters.fees[rich] * quantity * sell + parameters.fees[cheap] * quantity * buy
    state.base[rich] -= quantity
    state.quote[rich] += quantity * sell * (1 - parameters.fees[rich])
    state.base[cheap] += quantity
    state.quote[cheap] -= quantity * buy * (1 + parameters.fees[cheap])
    state.time = t
    run.trades.append(
      InventoryTrade(
        time: t, rich: rich, cheap: cheap, premium: exec, sellPrice: sell, buyPrice: buy, quantity: quantity, fees: fees,
        pnl: quantity * (sell - buy) - fees))
    run.path.append(state)
  }

  /// Pays `cost` out of the quote, then splits the total base and quote across the
  /// legs in the starting proportions.
  private mutating func restoreSplit(cost: Double) {
    let base = state.base.reduce(0, +), quote = state.quote.reduce(0, +) - cost
    let base0 = parameters.base.reduce(0, +), quote0 = parameters.quote.reduce(0, +)
    for k in state.base.indices {
      state.base[k] = base0 > 0 ? base * parameters.base[k] / base0 : base / Double(state.base.count)
      state.quote[k] = quote0 > 0 ? quote * parameters.quote[k] / quote0 : quote / Double(state.quote.count)
    }
  }
}
