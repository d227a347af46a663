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
  /// Whether the legs filled different shares of their orders on the books of their fill
  /// rows (a leg failed, or a book was too thin): a one-legged trade, settled by `partial`.
  public var legged: Bool
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
/// shows that price with another size, or not at all. With `fill = top` a row's book is
/// its top price alone, as deep as any order.
struct BookWalker {
  /// The outcome of one walk.
  struct Walk {
    var filled = 0.0
    var notional = 0.0
    var levels = 0
    /// The price of the last level taken from; `nan` when none was.
    var lastPrice = Double.nan
    /// The lowest and highest prices taken from: an average of them lies between.
    var lowest = Double.infinity, highest = -Double.infinity

    /// `notional / filled` kept between the lowest and highest prices taken (the
    /// division can round a hair outside them: a VWAP of levels at one price is that price).
    var average: Double { min(max(notional / filled, lowest), highest) }
  }

  /// Liquidity taken at one price and not yet restored.
  private struct Taken {
    var price: Double
    /// The level's size in the book it was taken from, and the last row checked.
    var size: Double
    var row: Int
    var quantity: Double
  }

  let legs: [LegRows]
  let fill: FillRule
  /// Per leg and side (`2 × leg + side`).
  private var taken: [[Taken]]
  /// The storage of the walk in progress, kept between walks: a walk copies its side's
  /// `taken` into it and, when it commits, trades it for that side's array, so that walks
  /// allocate nothing once the arrays have grown.
  private var scratch: [Taken] = []

  init(legs: [LegRows], fill: FillRule) {
    self.legs = legs
    self.fill = fill
    taken = Array(repeating: [], count: 2 * legs.count)
  }

  /// Takes `quantity` from leg `k`'s `side` in the book of `row`, best level first, and
  /// with `onward` what is left from the books of the following rows in turn. Unless
  /// `commit`, the walk only measures: nothing is used up.
  /// - Throws: what a streamed leg's stream throws.
  mutating func take(_ k: Int, _ side: BookSide, row: Int, quantity: Double, onward: Bool, commit: Bool) throws -> Walk {
    guard fill == .book else { return try top(k, side, row: row, quantity: quantity, onward: onward) }
    let rows = legs[k]
    let slot = 2 * k + side.rawValue
    var state: [Taken] = []
    swap(&state, &scratch)
    state.removeAll(keepingCapacity: true)
    state.append(contentsOf: taken[slot])
    var walk = Walk()
    var remaining = quantity
    var r = row
    while remaining > 0, try rows.has(r) {
      Self.restore(&state, at: r, rows: rows, side: side)
      for l in rows.levels(r, side) where remaining > 0 {
        let (price, size) = rows.level(l, side)
        let i = state.firstIndex { $0.price == price }
        let available = size - (i.map { state[$0].quantity } ?? 0)
        guard available > 0 else { continue }
        let t = min(available, remaining)
        remaining -= t
        walk.notional += t * price
        walk.levels += 1
        walk.lastPrice = price
        (walk.lowest, walk.highest) = (min(walk.lowest, price), max(walk.highest, price))
        if let i { state[i].quantity += t } else { state.append(Taken(price: price, size: size, row: r, quantity: t)) }
      }
      guard onward else { break }
      r += 1
    }
    walk.filled = quantity - remaining
    if commit { swap(&taken[slot], &state) }
    scratch = state
    return walk
  }

  /// `take` at the top of book: the whole quantity at the first row's price that is
  /// there (a side may be empty), `row` or with `onward` a later one.
  private func top(_ k: Int, _ side: BookSide, row: Int, quantity: Double, onward: Bool) throws -> Walk {
    var walk = Walk()
    var r = row
    while quantity > 0, try legs[k].has(r) {
      let price = legs[k].price(r, side)
      if price.isFinite {
        (walk.filled, walk.notional, walk.levels, walk.lastPrice) = (quantity, quantity * price, 1, price)
        (walk.lowest, walk.highest) = (price, price)
        break
      }
      guard onward else { break }
      r += 1
    }
    return walk
  }

  /// Drops from `state` the levels that a book after the one they were taken from, up to
  /// row `row` (which `rows` has, with every row between), shows with another size or
  /// not at all.
  private static func restore(_ state: inout [Taken], at row: Int, rows: LegRows, side: BookSide) {
    state.removeAll { entry in
      guard entry.row < row else { return false }
      for r in (entry.row + 1)...row {
        guard let l = rows.levels(r, side).first(where: { rows.level($0, side).price == entry.price }), rows.level(l, side).size == entry.size else {
          return true
        }
      }
      return false
    }
    for i in state.indices { state[i].row = max(state[i].row, row) }
  }

  /// Lets each streamed leg `k` drop its rows below `floors[k] - 1` (no later walk
  /// starts below `floors[k]`), the liquidity taken first brought up to the row it keeps,
  /// as the next walk over those rows would bring it. The rows between two trades are
  /// gone through a chunk at a time, never held at once; rows are kept while dropping
  /// them would free less than half of those held.
  /// - Throws: what a streamed leg's stream throws.
  mutating func release(below floors: ArraySlice<Int>) throws {
    for (k, rows) in legs.enumerated() where rows.streams {
      let target = floors[floors.startIndex + k] - 1
      while rows.base < target, try rows.has(rows.base + 1) {
        let upTo = min(target, rows.lastHeld)
        if upTo == target && !rows.worthDropping(below: upTo) { break }
        if fill == .book {
          for side in [BookSide.bid, .ask] { Self.restore(&taken[2 * k + side.rawValue], at: upTo, rows: rows, side: side) }
        }
        rows.drop(below: upTo)
      }
    }
  }
}

extension ConvergenceBacktest {
  /// Prices decision `d` walking the books (`docs/definitions.md`, "Book-walking fills"):
  /// the quantities are those of the top rule, each leg's order walks its book at its
  /// fill row, a shortfall is settled by `partial`, and the exit closes the quantities
  /// held on the following books as far as needed.
  func bookTrade(_ d: TradeDecision, walker: inout BookWalker) throws -> Trade {
    let s = parameters.slippageBps / 10_000
    let (richFee, cheapFee) = (parameters.fees[d.rich], parameters.fees[d.cheap])
    let richQuantity = parameters.notional / (d.richBid * (1 - s)), cheapQuantity = parameters.notional / (d.cheapAsk * (1 + s))
    // A leg that fails (`legFailRate`) fills nothing on the book of its fill row.
    let richFails = legFails(d, leg: d.rich), cheapFails = legFails(d, leg: d.cheap)
    func share(_ k: Int, _ side: BookSide, row: Int, _ quantity: Double, onward: Bool) throws -> Double {
      try walker.take(k, side, row: row, quantity: quantity, onward: onward, commit: false).filled / quantity
    }
    let atRow = (
      rich: richFails ? 0 : try share(d.rich, .bid, row: d.richEntryRow, richQuantity, onward: false),
      cheap: cheapFails ? 0 : try share(d.cheap, .ask, row: d.cheapEntryRow, cheapQuantity, onward: false)
    )
    // hedge: a leg's rest (all of it when it failed) fills on its following books.
    let richStart = d.richEntryRow + (richFails ? 1 : 0), cheapStart = d.cheapEntryRow + (cheapFails ? 1 : 0)
    let onward = parameters.partial == .hedge
    let matched =
      onward
      ? min(try share(d.rich, .bid, row: richStart, richQuantity, onward: true), try share(d.cheap, .ask, row: cheapStart, cheapQuantity, onward: true))
      : min(atRow.rich, atRow.cheap)
    // unwind: each leg takes what its book holds; the others: both legs take the matched share.
    let ordered = parameters.partial == .unwind ? atRow : (matched, matched)
    let richWalk = try walker.take(d.rich, .bid, row: richStart, quantity: richQuantity * ordered.0, onward: onward, commit: true)
    let cheapWalk = try walker.take(d.cheap, .ask, row: cheapStart, quantity: cheapQuantity * ordered.1, onward: onward, commit: true)
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
        let back = try walker.take(d.rich, .ask, row: d.richEntryRow, quantity: unwound, onward: true, commit: true)
        let buy = Self.closingPrice(back, quantity: unwound, fallback: try walker.legs[d.rich].quote(d.richEntryRow, .ask)) * (1 + s)
        unwindFees = richFee * unwound * (richSell + buy)
        unwindPnL = unwound * (richSell - buy) - unwindFees
      } else if cheapWalk.filled > cheapHeld {
        unwound = cheapWalk.filled - cheapHeld
        let back = try walker.take(d.cheap, .bid, row: d.cheapEntryRow, quantity: unwound, onward: true, commit: true)
        let sell = Self.closingPrice(back, quantity: unwound, fallback: try walker.legs[d.cheap].quote(d.cheapEntryRow, .bid)) * (1 - s)
        unwindFees = cheapFee * unwound * (cheapBuy + sell)
        unwindPnL = unwound * (sell - cheapBuy) - unwindFees
      }
    }
    // The exit closes what is held, on as many books as it takes.
    let richClose = try walker.take(d.rich, .ask, row: d.richExitRow, quantity: richHeld, onward: true, commit: true)
    let cheapClose = try walker.take(d.cheap, .bid, row: d.cheapExitRow, quantity: cheapHeld, onward: true, commit: true)
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
        richEntry: richEntry, cheapEntry: cheapEntry, richExit: richExit, cheapExit: cheapExit, legged: atRow.rich != atRow.cheap,
        unwound: unwound, unwindPnL: unwindPnL))
  }

  /// Whether leg `leg` of the entry of `d` fails: a draw below `legFailRate`, the same for
  /// the same seed, entry time and leg in any run.
  private func legFails(_ d: TradeDecision, leg: Int) -> Bool {
    parameters.legFailRate > 0 && SeededDraw.uniform(seed: parameters.seed, .legFailure, UInt64(bitPattern: d.entryTime), UInt64(leg)) < parameters.legFailRate
  }

  /// A walk as a leg's fill at average price `price`, with its slippage against `top`.
  private static func legFill(_ walk: BookWalker.Walk, requested: Double, price: Double, top: Double, sells: Bool) -> LegFill {
    LegFill(requested: requested, filled: walk.filled, vwap: price, levels: walk.levels, slippageBps: (sells ? top - price : price - top) / top * 10_000)
  }

  /// The VWAP of the quantity a walk took; `fallback` (the top price) when it took none.
  private static func averagePrice(_ walk: BookWalker.Walk, fallback: Double) -> Double {
    // One level: its price exactly (no rounding through the notional).
    walk.levels == 1 ? walk.lastPrice : walk.filled > 0 ? walk.average : fallback
  }

  /// The average price of closing `quantity`: the walk's levels, and what the books
  /// after the last one could not take at the last level's price (`fallback`, the top at
  /// the close, when no level was taken).
  private static func closingPrice(_ walk: BookWalker.Walk, quantity: Double, fallback: Double) -> Double {
    guard quantity > 0 else { return fallback }
    let rest = quantity - walk.filled
    if walk.levels == 1 && rest == 0 { return walk.lastPrice }
    let restPrice = walk.lastPrice.isNaN ? fallback : walk.lastPrice
    // Between the prices the quantity is closed at (rounding kept inside them).
    return min(max((walk.notional + rest * restPrice) / quantity, min(walk.lowest, restPrice)), max(walk.highest, restPrice))
  }
}
