import ArbCore

/// How a leg's order fills (`costs.fill`; `docs/definitions.md`, "Book-walking fills").
public enum FillRule: String, Sendable, Hashable, CaseIterable {
  /// At the top-of-book price, whatever the size (capped at it with `capAtBook`).
  case top
  /// Walking the recorded book level by level; the liquidity taken is used up until the
  /// book next updates at its level.
  case book
}

/// What happens to a leg whose book holds less than its order (`costs.partial`).
public enum PartialRule: String, Sendable, Hashable, CaseIterable {
  /// The rest is dropped: both legs take the smaller filled share of their order.
  case fill
  /// The rest fills on the leg's following books, until it is filled.
  case hedge
  /// What the other leg filled beyond the matched share is closed at once on its own book.
  case unwind
}

/// One leg's order walked in its books.
public struct LegFill: Sendable, Equatable {
  /// Base quantity ordered and taken from the books.
  public var requested: Double
  public var filled: Double
  /// Volume-weighted price of the quantity traded, before slippage (the top price when
  /// nothing was taken).
  public var vwap: Double
  /// Levels taken from, over every book walked.
  public var levels: Int
  /// VWAP against the top-of-book price at the fill, in basis points of the top; positive
  /// is worse (a lower sale, a higher purchase).
  public var slippageBps: Double
}

/// The book-walked fills of one round trip (`fill = book`).
public struct Execution: Sendable, Equatable {
  /// The rich leg's sale and the cheap leg's purchase at entry, their closes at exit.
  public var richEntry: LegFill
  public var cheapEntry: LegFill
  public var richExit: LegFill
  public var cheapExit: LegFill
  /// `unwind`: the base quantity one leg filled beyond the matched share and closed at
  /// once, and the PnL of that round trip after its fees (quote; in the trade's PnL).
  public var unwound: Double = 0
  public var unwindPnL: Double = 0

  /// The four fills in order: rich and cheap at entry, rich and cheap at exit.
  public var fills: [LegFill] { [richEntry, cheapEntry, richExit, cheapExit] }
}

/// A side of a book.
enum BookSide: Int {
  case bid = 0
  case ask = 1
}

/// The walks of one run's fills through the legs' books, with the liquidity each walk
/// took: a level's taken quantity is missing from later walks until a book of the leg
/// shows that price with another size, or not at all.
struct BookWalker {
  /// The outcome of one walk.
  struct Walk {
    var filled = 0.0
    var notional = 0.0
    var levels = 0
    /// The price of the last level taken from; `nan` when none was.
    var lastPrice = Double.nan
  }

  /// Liquidity taken at one price and not yet restored.
  private struct Taken {
    var price: Double
    /// The level's size in the book it was taken from, and the last row checked.
    var size: Double
    var row: Int
    var quantity: Double
  }

  let legs: [QuoteSeries]
  /// Per leg and side (`2 × leg + side`).
  private var taken: [[Taken]]

  init(legs: [QuoteSeries]) {
    precondition(legs.allSatisfy { $0.depth?.count == $0.count }, "fill = book needs every leg's book")
    self.legs = legs
    taken = Array(repeating: [], count: 2 * legs.count)
  }

  /// Takes `quantity` from leg `k`'s `side` in the book of `row`, best level first, and
  /// with `onward` what is left from the books of the following rows in turn. Unless
  /// `commit`, the walk only measures: nothing is used up.
  mutating func take(_ k: Int, _ side: BookSide, row: Int, quantity: Double, onward: Bool, commit: Bool) -> Walk {
    let depth = legs[k].depth!
    var state = taken[2 * k + side.rawValue]
    var walk = Walk()
    var remaining = quantity
    var r = row
    while remaining > 0 && r < depth.count {
      Self.restore(&state, at: r, depth: depth, side: side)
      let levels = side == .bid ? depth.bidStart[r]..<depth.bidStart[r + 1] : depth.askStart[r]..<depth.askStart[r + 1]
      for l in levels where remaining > 0 {
        let price = side == .bid ? depth.bidPrice[l] : depth.askPrice[l], size = side == .bid ? depth.bidSize[l] : depth.askSize[l]
        let i = state.firstIndex { $0.price == price }
        let available = size - (i.map { state[$0].quantity } ?? 0)
        guard available > 0 else { continue }
        let t = min(available, remaining)
        remaining -= t
        walk.notional += t * price
        walk.levels += 1
        walk.lastPrice = price
        if let i { state[i].quantity += t } else { state.append(Taken(price: price, size: size, row: r, quantity: t)) }
      }
      guard onward else { break }
      r += 1
    }
    walk.filled = quantity - remaining
    if commit { taken[2 * k + side.rawValue] = state }
    return walk
  }

  /// Drops from `state` the levels that a book after the one they were taken from, up to
  /// row `row`, shows with another size or not at all.
  private static func restore(_ state: inout [Taken], at row: Int, depth: BookDepth, side: BookSide) {
    state.removeAll { entry in
      guard entry.row < row else { return false }
      for r in (entry.row + 1)...row {
        let levels = side == .bid ? depth.bidStart[r]..<depth.bidStart[r + 1] : depth.askStart[r]..<depth.askStart[r + 1]
        let prices = side == .bid ? depth.bidPrice : depth.askPrice, sizes = side == .bid ? depth.bidSize : depth.askSize
        guard let l = levels.first(where: { prices[$0] == entry.price }), sizes[l] == entry.size else { return true }
      }
      return false
    }
    for i in state.indices { state[i].row = max(state[i].row, row) }
  }
}

extension ConvergenceBacktest {
  /// Prices decision `d` walking the books (`docs/definitions.md`, "Book-walking fills"):
  /// the quantities are those of the top rule, each leg's order walks its book at its
  /// fill row, a shortfall is settled by `partial`, and the exit closes the quantities
  /// held on the following books as far as needed.
  func bookTrade(_ d: TradeDecision, walker: inout BookWalker) -> Trade {
    let s = parameters.slippageBps / 10_000
    let (richFee, cheapFee) = (parameters.fees[d.rich], parameters.fees[d.cheap])
    let richQuantity = parameters.notional / (d.richBid * (1 - s)), cheapQuantity = parameters.notional / (d.cheapAsk * (1 + s))
    let onward = parameters.partial == .hedge
    // The share of each order the books can fill, then the walks that use it up.
    let richShare = walker.take(d.rich, .bid, row: d.richEntryRow, quantity: richQuantity, onward: onward, commit: false).filled / richQuantity
    let cheapShare = walker.take(d.cheap, .ask, row: d.cheapEntryRow, quantity: cheapQuantity, onward: onward, commit: false).filled / cheapQuantity
    let matched = min(richShare, cheapShare)
    let ordered = parameters.partial == .unwind ? (1.0, 1.0) : (matched, matched)
    let richWalk = walker.take(d.rich, .bid, row: d.richEntryRow, quantity: richQuantity * ordered.0, onward: onward, commit: true)
    let cheapWalk = walker.take(d.cheap, .ask, row: d.cheapEntryRow, quantity: cheapQuantity * ordered.1, onward: onward, commit: true)
    let richEntry = Self.legFill(richWalk, requested: richQuantity, price: Self.averagePrice(richWalk, fallback: d.richBid), top: d.richBid, sells: true)
    let cheapEntry = Self.legFill(
      cheapWalk, requested: cheapQuantity, price: Self.averagePrice(cheapWalk, fallback: d.cheapAsk), top: d.cheapAsk, sells: false)
    let richSell = richEntry.vwap * (1 - s), cheapBuy = cheapEntry.vwap * (1 + s)
    let richHeld = min(richWalk.filled, richQuantity * matched), cheapHeld = min(cheapWalk.filled, cheapQuantity * matched)
    // unwind: the excess of the leg that filled more, closed on the other side of its book.
    var unwound = 0.0, unwindPnL = 0.0, unwindFees = 0.0
    if parameters.partial == .unwind {
      if richWalk.filled > richHeld {
        unwound = richWalk.filled - richHeld
        let back = walker.take(d.rich, .ask, row: d.richEntryRow, quantity: unwound, onward: true, commit: true)
        let buy = Self.closingPrice(back, quantity: unwound, fallback: walker.legs[d.rich].ask[d.richEntryRow]) * (1 + s)
        unwindFees = richFee * unwound * (richSell + buy)
        unwindPnL = unwound * (richSell - buy) - unwindFees
      } else if cheapWalk.filled > cheapHeld {
        unwound = cheapWalk.filled - cheapHeld
        let back = walker.take(d.cheap, .bid, row: d.cheapEntryRow, quantity: unwound, onward: true, commit: true)
        let sell = Self.closingPrice(back, quantity: unwound, fallback: walker.legs[d.cheap].bid[d.cheapEntryRow]) * (1 - s)
        unwindFees = cheapFee * unwound * (cheapBuy + sell)
        unwindPnL = unwound * (sell - cheapBuy) - unwindFees
      }
    }
    // The exit closes what is held, on as many books as it takes.
    let richClose = walker.take(d.rich, .ask, row: d.richExitRow, quantity: richHeld, onward: true, commit: true)
    let cheapClose = walker.take(d.cheap, .bid, row: d.cheapExitRow, quantity: cheapHeld, onward: true, commit: true)
    let richExit = Self.legFill(
      richClose, requested: richHeld, price: Self.closingPrice(richClose, quantity: richHeld, fallback: d.richAsk), top: d.richAsk, sells: false)
    let cheapExit = Self.legFill(
      cheapClose, requested: cheapHeld, price: Self.closingPrice(cheapClose, quantity: cheapHeld, fallback: d.cheapBid), top: d.cheapBid, sells: true)
    let richBuy = richExit.vwap * (1 + s), cheapSell = cheapExit.vwap * (1 - s)
    let fees = richFee * richHeld * (richSell + richBuy) + cheapFee * cheapHeld * (cheapBuy + cheapSell) + unwindFees
    let pnl = richHeld * (richSell - richBuy) + cheapHeld * (cheapSell - cheapBuy) - (fees - unwindFees) + unwindPnL
    return Trade(
      entryTime: d.entryTime, exitTime: d.exitTime, rich: d.rich, cheap: d.cheap, entryPremium: d.entryPremium, exitPremium: d.exitPremium,
      richSell: richSell, richBuy: richBuy, cheapBuy: cheapBuy, cheapSell: cheapSell, richQuantity: richHeld, cheapQuantity: cheapHeld,
      fees: fees, pnl: pnl, exitReason: d.exitReason,
      execution: Execution(
        richEntry: richEntry, cheapEntry: cheapEntry, richExit: richExit, cheapExit: cheapExit, unwound: unwound, unwindPnL: unwindPnL))
  }

  /// A walk as a leg's fill at average price `price`, with its slippage against `top`.
  private static func legFill(_ walk: BookWalker.Walk, requested: Double, price: Double, top: Double, sells: Bool) -> LegFill {
    LegFill(requested: requested, filled: walk.filled, vwap: price, levels: walk.levels, slippageBps: (sells ? top - price : price - top) / top * 10_000)
  }

  /// The VWAP of the quantity a walk took; `fallback` (the top price) when it took none.
  private static func averagePrice(_ walk: BookWalker.Walk, fallback: Double) -> Double {
    walk.filled > 0 ? walk.notional / walk.filled : fallback
  }

  /// The average price of closing `quantity`: the walk's levels, and what the books
  /// after the last one could not take at the last level's price (`fallback`, the top at
  /// the close, when no level was taken).
  private static func closingPrice(_ walk: BookWalker.Walk, quantity: Double, fallback: Double) -> Double {
    guard quantity > 0 else { return fallback }
    let rest = quantity - walk.filled
    return (walk.notional + rest * (walk.lastPrice.isNaN ? fallback : walk.lastPrice)) / quantity
  }
}
