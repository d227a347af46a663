import ArbAnalytics
import ArbCore
import Foundation

/// How a resting order's place in the queue at its price advances (`costs.queue`;
/// `docs/definitions.md`, "Maker leg"), after hftbacktest's queue models.
public enum QueueModel: Sendable, Hashable, CustomStringConvertible {
  /// Only trades at the order's price advance it (hftbacktest's `RiskAdverseQueueModel`
  /// without its clamp to the level's size).
  case riskAverse
  /// Trades advance it, and so does a decrease of the level's size, by the share
  /// hftbacktest's `ProbQueueModel` with `PowerProbQueueFunc(power)` gives.
  case probabilistic(power: Double)

  /// `risk_averse` or `probabilistic:POWER` (POWER positive and finite); `nil` otherwise.
  public init?(parsing text: String) {
    if text == "risk_averse" {
      self = .riskAverse
      return
    }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0] == "probabilistic", let power = Double(parts[1]), power.isFinite, power > 0 else { return nil }
    self = .probabilistic(power: power)
  }

  public var description: String {
    switch self {
    case .riskAverse: "risk_averse"
    case .probabilistic(let power): "probabilistic:\(NumberText.csv(power))"
    }
  }
}

/// The maker leg of mode convergence (`costs.maker_leg`, `costs.queue`, `costs.maker_timeout`).
public struct MakerRule: Sendable, Hashable {
  /// The leg whose entry order rests at its touch.
  public var leg: Int
  public var queue: QueueModel
  /// How long the order rests before it is cancelled (µs); `nil`: until the leg's data ends.
  public var timeout: Int64?

  public init(leg: Int, queue: QueueModel, timeout: Int64? = nil) {
    self.leg = leg
    self.queue = queue
    self.timeout = timeout
  }
}

/// A maker order's fill: where it rested and how long.
public struct MakerFill: Sendable, Equatable {
  public var leg: Int
  /// Its limit price: the touch on its side at placement.
  public var price: Double
  public var placeTime: Int64
  public var fillTime: Int64
  /// The recorded size at its price when it was placed.
  public var queueAhead: Double
}

/// A resting order's queue at its price, moved by the leg's trades and books in time
/// order: what fills it, or nothing before `end`.
struct MakerQueue {
  /// The outcome of one order.
  enum Outcome: Equatable {
    /// Filled at this time (a trade or a book at it).
    case filled(Int64)
    /// Not filled before the end of its rest.
    case cancelled
  }

  let book: QuoteSeries
  /// The leg's trades: price in `bid`, size in `bidSize`.
  let trades: QuoteSeries
  let model: QueueModel

  /// Rests an order that sells (`sells`) or buys at `price`, placed at `placeTime` on the
  /// book of row `row` (the last at or before it) with `queueAhead` ahead of it, until
  /// before `end`. Trades after `placeTime` and books after `row` move it; a trade and a
  /// book at one time: the trade first.
  ///
  /// - Complexity: O(log trades + events until the fill or `end`).
  func rest(sells: Bool, price: Double, placeTime: Int64, row: Int, queueAhead: Double, end: Int64) -> Outcome {
    var front = queueAhead
    var level = queueAhead
    var tradedSince = 0.0
    var t = firstTrade(after: placeTime)
    var r = row + 1
    while true {
      let tradeTime = t < trades.count ? trades.time[t] : .max, bookTime = r < book.count ? book.time[r] : .max
      let now = min(tradeTime, bookTime)
      guard now < end else { return .cancelled }
      if tradeTime <= bookTime {
        let traded = trades.bid[t], size = trades.bidSize[t]
        t += 1
        // A trade through the price took every order at it.
        if sells ? traded > price : traded < price { return .filled(now) }
        guard traded == price else { continue }
        front -= size
        tradedSince += size
        if front < 0 { return .filled(now) }
      } else {
        defer { r += 1 }
        // The other side's touch past the price would have matched the order.
        if sells ? book.bid[r] > price : book.ask[r] < price { return .filled(now) }
        guard case .probabilistic(let power) = model, let size = levelSize(row: r, sells: sells, price: price) else { continue }
        front = Self.advanced(front: front, previous: level, new: size, traded: tradedSince, power: power)
        (level, tradedSince) = (size, 0)
      }
    }
  }

  /// hftbacktest's `ProbQueueModel.depth` with `PowerProbQueueFunc`: the level went from
  /// `previous` to `new` with `traded` traded at it since; the decrease not traded,
  /// `chg = previous − new − traded`, was cancelled, ahead with probability `1 − p`,
  /// `p = back^n / (back^n + front^n)`, `back = previous − front` (not finite: 1).
  static func advanced(front: Double, previous: Double, new: Double, traded: Double, power: Double) -> Double {
    let change = previous - new - traded
    guard change >= 0 else { return min(front, new) }
    let back = previous - front
    let f = { (x: Double) in pow(x, power) }
    var p = f(back) / (f(back) + f(front))
    if !p.isFinite { p = 1 }
    return min(front - (1 - p) * change + min(back - p * change, 0), new)
  }

  /// The size at `price` on the order's side in book row `r`: a level it shows, 0 when
  /// the price is better than that side's best (the level is gone), else unknown (`nil`:
  /// beyond the levels the row shows).
  private func levelSize(row r: Int, sells: Bool, price: Double) -> Double? {
    let touch = sells ? book.ask[r] : book.bid[r]
    guard touch.isFinite else { return nil }
    if sells ? touch > price : touch < price { return 0 }
    if touch == price { return sells ? book.askSize[r] : book.bidSize[r] }
    guard let depth = book.depth else { return nil }
    let levels = sells ? depth.askStart[r]..<depth.askStart[r + 1] : depth.bidStart[r]..<depth.bidStart[r + 1]
    let prices = sells ? depth.askPrice : depth.bidPrice, sizes = sells ? depth.askSize : depth.bidSize
    if let l = levels.first(where: { prices[$0] == price }) { return sizes[l] }
    // Inside the levels shown but not among them: empty.
    guard let last = levels.last, sells ? prices[last] > price : prices[last] < price else { return nil }
    return 0
  }

  /// The first trade strictly after `time` (trades in time order).
  private func firstTrade(after time: Int64) -> Int {
    var low = 0, high = trades.count
    while low < high {
      let mid = (low + high) >> 1
      if trades.time[mid] <= time { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

/// A maker entry that is not taken: why, and the time the run looks for signals after.
struct MakerSkip: Error {
  var reason: SkipReason
  var until: Int64
}

extension Fills {
  /// The entry after `signal` of a run with maker leg `rule.leg` (sold when it is `rich`),
  /// on `quotes`, both legs' fill quotes: the maker's order rests at the touch on its side
  /// of its quote (the ask when it sells, the bid when it buys) from its fill time, until
  /// it fills or its timeout passes (without one, until the leg's data ends: no end in
  /// time, `Int64.max`); the other leg then fills as a taker on its quote its latency
  /// after the maker's fill. The quotes returned hold the maker's price on its side and
  /// the taker's new quote.
  func makerEntry(
    _ signal: SignalPoint, quotes: FillPair, rich: Int, rule: MakerRule
  ) -> Result<
    (quotes: FillPair, fill: MakerFill), MakerSkip
  > {
    let m = rule.leg, sells = m == rich
    let placed = quotes[m], placeTime = fillTime(m, signal: signal)
    let price = sells ? placed.ask : placed.bid
    let ahead = sells ? legs[m].askSize[placed.row] : legs[m].bidSize[placed.row]
    // No queue without the size at the touch: the order is not placed.
    guard ahead.isFinite else { return .failure(MakerSkip(reason: .noBookSize, until: placeTime)) }
    let end = rule.timeout.map { IndexedRun.adding($0, to: placeTime) } ?? .max
    let queue = MakerQueue(book: legs[m], trades: trades[m]!, model: rule.queue)
    guard case .filled(let time) = queue.rest(sells: sells, price: price, placeTime: placeTime, row: placed.row, queueAhead: ahead, end: end)
    else { return .failure(MakerSkip(reason: .makerCancelled, until: end)) }
    // From the rows in force at the signal: the taker's fill time is later.
    guard case .success(let taker) = fill(1 - m, signal: SignalPoint(time: time, states: signal.states)) else {
      return .failure(MakerSkip(reason: .makerUnhedged, until: time))
    }
    var filled = quotes
    filled[1 - m] = taker
    if sells { filled[m].bid = price } else { filled[m].ask = price }
    return .success((filled, MakerFill(leg: m, price: price, placeTime: placeTime, fillTime: time, queueAhead: ahead)))
  }
}
