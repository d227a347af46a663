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

  /// A rebalancing transfer: a fixed cost in quote currency, the withdrawal fees of the
  /// assets moved, and a delay (fixed or drawn per rebalance from `seed`).
  public struct Rebalance: Sendable, Hashable {
    public var cost: Double
    public var delay: Latency
    /// Per leg: the fee of withdrawing its base (in base) and its quote (in quote) from
    /// that leg's venue.
    public var baseFees: [Double]
    public var quoteFees: [Double]
    public init(cost: Double, delay: Latency, baseFees: [Double] = [0, 0], quoteFees: [Double] = [0, 0]) {
      self.cost = cost
      self.delay = delay
      self.baseFees = baseFees
      self.quoteFees = quoteFees
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
  /// The withdrawal fees taken, in base and in quote, and both valued in quote (the base
  /// fee at the receiving leg's mid at `end`).
  public var baseFee: Double = 0
  public var quoteFee: Double = 0
  public var feeValue: Double = 0
}

/// Balances after each trade or rebalance: `base[k]`, `quote[k]` per leg, and the base
/// and quote of a rebalance under way, in transit between the venues.
public struct InventoryState: Sendable, Equatable {
  public var time: Int64
  public var base: [Double]
  public var quote: [Double]
  public var baseInTransit: Double = 0
  public var quoteInTransit: Double = 0
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
    bookings += rebalances.map { ($0.end, -($0.cost + $0.feeValue), false) }
    // A rebalance completes before the trade at the same point.
    bookings.sort { ($0.time, $0.isTrade ? 1 : 0) < ($1.time, $1.isTrade ? 1 : 0) }
    return PnLJournal(bookings: bookings, firstTime: firstTime, lastTime: lastTime)
  }

  public var pnl: Double { journal.total }
  public var fees: Double { trades.reduce(0) { $0 + $1.fees } }
  public var wins: Int { trades.reduce(0) { $0 + ($1.pnl > 0 ? 1 : 0) } }
  public var rebalanceCost: Double { rebalances.reduce(0) { $0 + $1.cost } }
  /// The withdrawal fees of the rebalances, valued in quote.
  public var transferFees: Double { rebalances.reduce(0) { $0 + $1.feeValue } }
  /// Seconds the rebalances' capital spent in transit, summed over completed rebalances.
  public var timeInTransit: Double { Double(rebalances.reduce(0) { $0 + ($1.end - $1.start) }) / 1e6 }
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
  /// The rebalance under way: its start, when it is due, and each asset's transfer (the
  /// leg it leaves; the amount is in the state's `…InTransit`).
  private var inFlight: (start: Int64, due: Int64, baseFrom: Int, quoteFrom: Int)? = nil

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
    if let transfer = inFlight, let rebalance = parameters.rebalance, t >= transfer.due {
      run.rebalances.append(complete(transfer, rebalance, time: t, mids: ((bids.0 + asks.0) / 2, (bids.1 + asks.1) / 2)))
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
      if reason != .noBookSize && inFlight == nil, let rebalance = parameters.rebalance {
        start(rebalance, time: t)
        run.path.append(state)
      }
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

  /// Starts a rebalance at `time`: each asset's excess over its starting share of the
  /// total leaves the venue that holds it and is in transit until the drawn delay ends.
  private mutating func start(_ rebalance: InventoryParameters.Rebalance, time t: Int64) {
    let base = state.base[0] - Self.share(of: state.base, parameters.base)
    let quote = state.quote[0] - Self.share(of: state.quote, parameters.quote)
    let (baseFrom, quoteFrom) = (base >= 0 ? 0 : 1, quote >= 0 ? 0 : 1)
    state.base[baseFrom] -= abs(base)
    state.quote[quoteFrom] -= abs(quote)
    (state.baseInTransit, state.quoteInTransit) = (abs(base), abs(quote))
    state.time = t
    let delay = rebalance.delay.delay(seed: parameters.seed, .transfer, time: t, leg: 0, recorded: 0)
    // `t + delay` cannot overflow once the legs are checked (`Scenario.checkTimes`); a streamed run checks after.
    inFlight = (t, IndexedRun.adding(delay, to: t), baseFrom, quoteFrom)
  }

  /// Completes the rebalance `transfer` at `time`: each asset arrives less its
  /// withdrawal fee (at most the amount), and `cost` is paid out of the quote in the
  /// starting proportions; the base fee is valued at the receiving leg's mid of `mids`.
  private mutating func complete(
    _ transfer: (start: Int64, due: Int64, baseFrom: Int, quoteFrom: Int), _ rebalance: InventoryParameters.Rebalance, time t: Int64,
    mids: (Double, Double)
  ) -> RebalanceEvent {
    let baseFee = state.baseInTransit > 0 ? min(rebalance.baseFees[transfer.baseFrom], state.baseInTransit) : 0
    let quoteFee = state.quoteInTransit > 0 ? min(rebalance.quoteFees[transfer.quoteFrom], state.quoteInTransit) : 0
    state.base[1 - transfer.baseFrom] += state.baseInTransit - baseFee
    state.quote[1 - transfer.quoteFrom] += state.quoteInTransit - quoteFee
    (state.baseInTransit, state.quoteInTransit) = (0, 0)
    let quote0 = parameters.quote.reduce(0, +)
    for k in state.quote.indices { state.quote[k] -= quote0 > 0 ? rebalance.cost * parameters.quote[k] / quote0 : rebalance.cost / 2 }
    state.time = t
    let mid = transfer.baseFrom == 0 ? mids.1 : mids.0
    return RebalanceEvent(
      start: transfer.start, end: t, cost: rebalance.cost, baseFee: baseFee, quoteFee: quoteFee, feeValue: quoteFee + baseFee * mid)
  }

  /// Leg 0's starting share of the total of `balances`: `total × start₀ / Σ start`
  /// (half the total when the start is all 0).
  private static func share(of balances: [Double], _ start: [Double]) -> Double {
    let total = balances.reduce(0, +), total0 = start.reduce(0, +)
    return total0 > 0 ? total * start[0] / total0 : total / 2
  }
}
