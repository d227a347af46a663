import ArbAnalytics
import ArbCore

/// The parameters of mode `convergence` (`docs/definitions.md`, "Threshold backtest").
public struct ConvergenceParameters: Sendable, Equatable {
  /// Open when the executable premium is at least this, in percent.
  public var entry: Double
  /// Close when the closing premium is at most this, in percent.
  public var exit: Double
  /// Quote currency per leg.
  public var notional: Double
  /// Taker fee per leg, a fraction per fill, in leg order.
  public var fees: [Double]
  /// Slippage per fill, in basis points.
  public var slippageBps: Double = 0
  /// Fills use the as-of quotes this long after the signal (µs).
  public var latency: Int64 = 0
  /// A fill quote older than this at the fill time skips the signal (µs); `nil`: no limit.
  public var maxStale: Int64? = nil
  /// Close at the first valid point at least this long after the entry (µs).
  public var maxHolding: Int64? = nil
  /// No entry until this long after a close (µs).
  public var cooldown: Int64? = nil

  public init(entry: Double, exit: Double, notional: Double, fees: [Double]) {
    self.entry = entry
    self.exit = exit
    self.notional = notional
    self.fees = fees
  }
}

/// Why a trade was closed.
public enum ExitReason: String, Sendable, Equatable {
  /// The closing premium reached `exit`.
  case signal
  /// `maxHolding` elapsed.
  case maxHolding = "max_holding"
  /// Still open at the last valid point: closed at its quotes.
  case endOfData = "end_of_data"
}

/// Why a signal was not acted on.
public enum SkipReason: String, Sendable, CaseIterable {
  /// A leg's quote at the fill time is older than the staleness limit.
  case staleFill = "stale_fill"
  /// A leg's quote at the fill time lacks a side.
  case oneSidedFill = "one_sided_fill"
  /// An entry signal inside the cooldown after a close.
  case cooldown
}

/// One round trip: short the rich leg, long the cheap one, then both closed.
public struct Trade: Sendable, Equatable {
  public var entryTime: Int64
  public var exitTime: Int64
  /// Leg indexes: `rich` is sold at entry, `cheap` bought.
  public var rich: Int
  public var cheap: Int
  /// Executable premium at the entry signal and closing premium at the exit signal, percent.
  public var entryPremium: Double
  public var exitPremium: Double
  /// Fill prices (slippage included).
  public var richSell: Double
  public var richBuy: Double
  public var cheapBuy: Double
  public var cheapSell: Double
  public var richQuantity: Double
  public var cheapQuantity: Double
  public var fees: Double
  /// Net of fees, quote currency.
  public var pnl: Double
  public var exitReason: ExitReason
}

/// Runs the threshold strategy of mode `convergence` over two aligned legs.
///
/// The rules are `docs/definitions.md` literally: a signal on a valid point's quotes,
/// fills on the as-of quotes `latency` later, one position at a time, the exit test
/// from the next valid point after the entry, no entry at the last valid point, and a
/// position still open at the end closed at the last valid point's quotes.
public struct ConvergenceBacktest {
  public let parameters: ConvergenceParameters

  public init(parameters: ConvergenceParameters) {
    self.parameters = parameters
  }

  /// The trades and skipped signals over `aligned` (built from exactly `legs`).
  ///
  /// - Complexity: O(points + quotes passed over by latency); no allocation per point.
  public func run(legs: [QuoteSeries], aligned: AlignedLegs) -> BacktestRun {
    precondition(legs.count == 2 && aligned.legCount == 2, "convergence trades exactly two legs")
    var trades: [Trade] = []
    var skipped = [Int](repeating: 0, count: SkipReason.allCases.count)
    guard let lastValid = aligned.valid.lastIndex(of: true), let firstValid = aligned.valid.firstIndex(of: true) else {
      return BacktestRun(trades: [], skipped: [], firstTime: nil, lastTime: nil, notional: parameters.notional)
    }
    let s = parameters.slippageBps / 10_000
    var open: Trade? = nil
    var entryPoint = -1
    var cooldownUntil = Int64.min
    for i in firstValid...lastValid where aligned.valid[i] {
      let t = aligned.time[i]
      let bid0 = legs[0].bid[Int(aligned.state(leg: 0, point: i))], ask0 = legs[0].ask[Int(aligned.state(leg: 0, point: i))]
      let bid1 = legs[1].bid[Int(aligned.state(leg: 1, point: i))], ask1 = legs[1].ask[Int(aligned.state(leg: 1, point: i))]
      if var trade = open {
        let bid = (bid0, bid1), ask = (ask0, ask1)
        guard i > entryPoint else { continue }
        let closing = (pick(ask, trade.rich) / pick(bid, trade.cheap) - 1) * 100
        let held = parameters.maxHolding.map { t - trade.entryTime >= $0 } ?? false
        if closing <= parameters.exit || held {
          guard let fill = fillQuotes(legs, aligned, point: i, at: t + parameters.latency, skipped: &skipped) else { continue }
          trade.exitPremium = closing
          close(&trade, bid: fill.bid, ask: fill.ask, s: s, time: t, reason: closing <= parameters.exit ? .signal : .maxHolding)
          trades.append(trade)
          open = nil
          cooldownUntil = parameters.cooldown.map { t + $0 } ?? .min
        }
        continue
      }
      if i == lastValid { break }
      let forward = (bid0 / ask1 - 1) * 100, backward = (bid1 / ask0 - 1) * 100
      let exec = max(forward, backward)
      guard exec >= parameters.entry else { continue }
      if t < cooldownUntil {
        skipped[SkipReason.allCases.firstIndex(of: .cooldown)!] += 1
        continue
      }
      guard let fill = fillQuotes(legs, aligned, point: i, at: t + parameters.latency, skipped: &skipped) else { continue }
      let rich = forward >= backward ? 0 : 1, cheap = 1 - rich
      let richSell = pick(fill.bid, rich) * (1 - s), cheapBuy = pick(fill.ask, cheap) * (1 + s)
      let richQuantity = parameters.notional / richSell, cheapQuantity = parameters.notional / cheapBuy
      open = Trade(
        entryTime: t, exitTime: t, rich: rich, cheap: cheap, entryPremium: exec, exitPremium: .nan,
        richSell: richSell, richBuy: .nan, cheapBuy: cheapBuy, cheapSell: .nan,
        richQuantity: richQuantity, cheapQuantity: cheapQuantity,
        fees: parameters.fees[rich] * richQuantity * richSell + parameters.fees[cheap] * cheapQuantity * cheapBuy,
        pnl: 0, exitReason: .signal)
      entryPoint = i
    }
    if var trade = open {
      // Still open: closed at the last valid point's own quotes.
      let quote = { (k: Int) in (legs[k].bid[Int(aligned.state(leg: k, point: lastValid))], legs[k].ask[Int(aligned.state(leg: k, point: lastValid))]) }
      let (bid0, ask0) = quote(0), (bid1, ask1) = quote(1)
      trade.exitPremium = (pick((ask0, ask1), trade.rich) / pick((bid0, bid1), trade.cheap) - 1) * 100
      close(&trade, bid: (bid0, bid1), ask: (ask0, ask1), s: s, time: aligned.time[lastValid], reason: .endOfData)
      trades.append(trade)
    }
    let reasons = SkipReason.allCases.enumerated().compactMap { k, reason in skipped[k] > 0 ? (reason, skipped[k]) : nil }
    return BacktestRun(
      trades: trades, skipped: reasons, firstTime: aligned.time[firstValid], lastTime: aligned.time[lastValid],
      notional: parameters.notional)
  }

  /// Fills the closing legs of `trade` at these quotes and books its PnL.
  private func close(_ trade: inout Trade, bid: (Double, Double), ask: (Double, Double), s: Double, time: Int64, reason: ExitReason) {
    trade.richBuy = pick(ask, trade.rich) * (1 + s)
    trade.cheapSell = pick(bid, trade.cheap) * (1 - s)
    trade.fees +=
      parameters.fees[trade.rich] * trade.richQuantity * trade.richBuy + parameters.fees[trade.cheap] * trade.cheapQuantity * trade.cheapSell
    trade.pnl =
      trade.richQuantity * (trade.richSell - trade.richBuy) + trade.cheapQuantity * (trade.cheapSell - trade.cheapBuy) - trade.fees
    trade.exitTime = time
    trade.exitReason = reason
  }

  /// Both legs' as-of quotes at `time` (≥ the point's time), or `nil` with the reason
  /// counted when a quote is too old or lacks a side.
  private func fillQuotes(
    _ legs: [QuoteSeries], _ aligned: AlignedLegs, point: Int, at time: Int64, skipped: inout [Int]
  ) -> (bid: (Double, Double), ask: (Double, Double))? {
    var bid = (Double.nan, Double.nan), ask = (Double.nan, Double.nan)
    for k in 0..<2 {
      let leg = legs[k]
      var j = Int(aligned.state(leg: k, point: point))
      while j + 1 < leg.count && leg.time[j + 1] <= time { j += 1 }
      if let limit = parameters.maxStale, time - leg.time[j] > limit {
        skipped[SkipReason.allCases.firstIndex(of: .staleFill)!] += 1
        return nil
      }
      guard leg.bid[j].isFinite, leg.ask[j].isFinite else {
        skipped[SkipReason.allCases.firstIndex(of: .oneSidedFill)!] += 1
        return nil
      }
      if k == 0 { (bid.0, ask.0) = (leg.bid[j], leg.ask[j]) } else { (bid.1, ask.1) = (leg.bid[j], leg.ask[j]) }
    }
    return (bid, ask)
  }

  @inline(__always)
  private func pick(_ pair: (Double, Double), _ k: Int) -> Double { k == 0 ? pair.0 : pair.1 }
}
