import ArbAnalytics
import ArbCore

/// The funding settlements of a perpetual (`docs/definitions.md`, "Carry backtest"):
/// each record of a settlement file is an instant τ with a signed rate, and the perp's
/// notional at τ is valued at the mid of its last two-sided quote at or before τ.
public struct FundingSettlements: Sendable {
  /// Settlement instants, increasing: whole UTC hours of the file, moved by the perp
  /// venue's clock offset.
  public let time: [Int64]
  public let rate: [Double]
  /// p(τ); `nan` before the perp's first two-sided quote (no position is open then).
  public let price: [Double]

  /// No settlements: a run with `strategy.funding: false`.
  public static let none = FundingSettlements(time: [], rate: [], price: [])

  private init(time: [Int64], rate: [Double], price: [Double]) {
    self.time = time
    self.rate = rate
    self.price = price
  }

  /// The settlements in `funding` (a `funding_rate` series of settlement records),
  /// priced on `perp`'s quotes.
  ///
  /// - Parameter clockOffset: the perp venue's clock correction (µs), already added to
  ///   `perp`'s times: it moves the settlement instants too, after the whole-hour check
  ///   on the file's own times, so that funding and quotes stay on one clock.
  /// - Throws: `FundingError` when `funding` is not a funding-rate series or has a
  ///   record off the whole hours (ticker rates, not settlements).
  public init(funding: QuoteSeries, perp: QuoteSeries, clockOffset: Int64 = 0) throws(FundingError) {
    let time = try Self.instants(funding, clockOffset: clockOffset)
    var pricing = SettlementPricing(instants: time)
    perp.time.withUnsafeBufferPointer { times in
      perp.bid.withUnsafeBufferPointer { bid in perp.ask.withUnsafeBufferPointer { ask in pricing.take(time: times, bid: bid, ask: ask) } }
    }
    self.init(time: time, rate: funding.bid, price: pricing.finished())
  }

  /// As `init(funding:perp:clockOffset:)`, the perp read as a stream (from its first
  /// quote, its times already moved by the offset).
  /// - Throws: `FundingError` as the other init, or what the stream throws.
  public init(funding: QuoteSeries, perp: any QuoteStream, clockOffset: Int64 = 0) throws {
    let time = try Self.instants(funding, clockOffset: clockOffset)
    var pricing = SettlementPricing(instants: time)
    while !pricing.done, let chunk = try perp.next(maxRows: 1 << 16) { pricing.take(time: chunk.time, bid: chunk.bid, ask: chunk.ask) }
    self.init(time: time, rate: funding.bid, price: pricing.finished())
  }

  /// The settlement instants of `funding`, moved by `clockOffset`, once checked to be
  /// funding rates on whole hours.
  private static func instants(_ funding: QuoteSeries, clockOffset: Int64) throws(FundingError) -> [Int64] {
    guard funding.field == .fundingRate else {
      throw FundingError("the funding leg holds \(funding.field.rawValue) values, not funding rates (\(funding.instrument))")
    }
    let hour: Int64 = 3_600_000_000
    if let k = funding.time.firstIndex(where: { ($0 % hour + hour) % hour != 0 }) {
      throw FundingError(
        "the funding series of \(funding.instrument) has a record at \(TimeText.iso8601(funding.time[k])), not on a whole hour: "
          + "it holds ticker rates, not settlements; use a settlement file (binance.fundingRate, freqtrade …-funding_rate.json) or strategy.funding false")
    }
    return funding.time.map { $0 + clockOffset }
  }

  /// The settlements τ with `start < τ ≤ end`.
  public func indices(after start: Int64, through end: Int64) -> Range<Int> {
    func firstAfter(_ t: Int64) -> Int {
      var low = 0, high = time.count
      while low < high {
        let mid = (low + high) >> 1
        if time[mid] <= t { low = mid + 1 } else { high = mid }
      }
      return low
    }
    let from = firstAfter(start)
    return from..<max(from, firstAfter(end))
  }
}

/// A funding series that cannot serve as settlements.
public struct FundingError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Mode `carry`: long spot (leg 0), short the perpetual (leg 1) when the basis is at
/// least `entry`, closed when it is at most `exit`, with the funding the short
/// receives or pays (`docs/definitions.md`, "Carry backtest").
///
/// The rules are mode convergence's with the direction fixed (the perp is always the
/// leg sold), so `ConvergenceBacktest.decide` takes the round trips and `price` here
/// values them: spot and linear or inverse perp quantities, fees and funding.
public struct CarryBacktest: Sendable {
  /// Mode convergence's parameters; `sellLeg` is always 1 (the perp).
  public let parameters: ConvergenceParameters
  /// Quote per contract of an inverse perp; `nil`: a linear perp.
  public let contractSize: Double?

  public init(parameters: ConvergenceParameters, contractSize: Double?) {
    var parameters = parameters
    parameters.sellLeg = 1
    self.parameters = parameters
    self.contractSize = contractSize
  }

  /// The engine that decides the round trips.
  public var rules: ConvergenceBacktest { ConvergenceBacktest(parameters: parameters) }

  /// What decides the round trips: the rules' `decisionKey` (the contract size, like the
  /// fees, only prices them).
  public var decisionKey: ConvergenceParameters { parameters.decisionKey }

  /// The trades over `aligned` (legs: spot, perp) with `funding`'s settlements.
  public func run(legs: [QuoteSeries], aligned: AlignedLegs, funding: FundingSettlements) -> BacktestRun {
    price(rules.decide(legs: legs, aligned: aligned), funding: funding)
  }

  /// Prices decided round trips (perp sold, spot bought) with this run's fees,
  /// slippage, notional and contract size, and books the funding of each.
  public func price(_ decisions: ConvergenceDecisions, funding: FundingSettlements) -> BacktestRun {
    let s = parameters.slippageBps / 10_000
    let spotFee = parameters.fees[0], perpFee = parameters.fees[1]
    var payments: [FundingPayment] = []
    var trades: [Trade] = []
    trades.reserveCapacity(decisions.trades.count)
    for d in decisions.trades {
      let perpSell = d.richBid * (1 - s), spotBuy = d.cheapAsk * (1 + s)
      let perpBuy = d.richAsk * (1 + s), spotSell = d.cheapBid * (1 - s)
      let q = parameters.notional / spotBuy
      let spotFees = spotFee * q * (spotBuy + spotSell)
      let perpQuantity: Double, perpPnL: Double, perpFees: Double
      if let size = contractSize {
        // Whole contracts, the coin result sold at the spot exit price.
        perpQuantity = max(1, (q * perpSell / size).rounded(.toNearestOrAwayFromZero))
        perpPnL = perpQuantity * size * (1 / perpBuy - 1 / perpSell) * spotSell
        perpFees = perpFee * perpQuantity * size * (1 / perpSell + 1 / perpBuy) * spotSell
      } else {
        perpQuantity = q
        perpPnL = q * (perpSell - perpBuy)
        perpFees = perpFee * q * (perpSell + perpBuy)
      }
      var received = 0.0
      for j in funding.indices(after: d.entryTime, through: d.exitTime) {
        let amount = contractSize.map { funding.rate[j] * perpQuantity * $0 } ?? funding.rate[j] * q * funding.price[j]
        payments.append(FundingPayment(time: funding.time[j], rate: funding.rate[j], price: funding.price[j], amount: amount, trade: trades.count))
        received += amount
      }
      trades.append(
        Trade(
          entryTime: d.entryTime, exitTime: d.exitTime, rich: d.rich, cheap: d.cheap, entryPremium: d.entryPremium,
          exitPremium: d.exitPremium, richSell: perpSell, richBuy: perpBuy, cheapBuy: spotBuy, cheapSell: spotSell,
          richQuantity: perpQuantity, cheapQuantity: q, fees: spotFees + perpFees,
          pnl: q * (spotSell - spotBuy) - spotFees + perpPnL - perpFees + received, exitReason: d.exitReason, funding: received))
    }
    var run = BacktestRun(
      trades: trades, skipped: decisions.skipped, firstTime: decisions.firstTime, lastTime: decisions.lastTime, notional: parameters.notional)
    run.payments = payments
    return run
  }
}

/// p(τ) of each settlement instant τ: the mid of the perp's last two-sided quote at or
/// before τ (`nan` before the first), from the perp's quotes taken a chunk at a time.
private struct SettlementPricing {
  let instants: [Int64]
  private var price: [Double]
  /// The next instant to price, and the mid in force.
  private var k = 0
  private var mid = Double.nan

  init(instants: [Int64]) {
    self.instants = instants
    price = [Double](repeating: .nan, count: instants.count)
  }

  /// Every instant is priced: later quotes change nothing.
  var done: Bool { k == instants.count }

  /// Takes the next quotes of the perp (after those taken before).
  mutating func take(time: UnsafeBufferPointer<Int64>, bid: UnsafeBufferPointer<Double>, ask: UnsafeBufferPointer<Double>) {
    for j in time.indices {
      while k < instants.count && instants[k] < time[j] {
        price[k] = mid
        k += 1
      }
      if bid[j].isFinite && ask[j].isFinite { mid = (bid[j] + ask[j]) / 2 }
    }
  }

  /// The prices, the instants after the last quote priced at its mid.
  mutating func finished() -> [Double] {
    while k < instants.count {
      price[k] = mid
      k += 1
    }
    return price
  }
}
