import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// Hand-built books: every level taken, VWAP, partial fill and used-up level below was
// worked out by hand from docs/definitions.md, "Book-walking fills".

/// One book: bids best first (falling), asks best first (rising), as `(price, size)`.
typealias Book = (bids: [(Double, Double)], asks: [(Double, Double)])

/// A leg whose quote at `seconds` is the top of its book, with the whole book kept.
func bookLeg(_ name: String, _ rows: [(Int64, Book)]) -> QuoteSeries {
  var leg = QuoteSeries(
    instrument: Instrument(venue: name, market: .spot, symbol: "BTCUSDT"), priceSource: .book,
    time: rows.map { $0.0 * 1_000_000 }, bid: rows.map { $0.1.bids[0].0 }, ask: rows.map { $0.1.asks[0].0 },
    bidSize: rows.map { $0.1.bids[0].1 }, askSize: rows.map { $0.1.asks[0].1 })
  var depth = BookDepth()
  for (_, book) in rows {
    for (p, s) in book.bids { depth.appendLevel(bid: true, price: p, size: s) }
    for (p, s) in book.asks { depth.appendLevel(bid: false, price: p, size: s) }
    depth.closeBook()
  }
  leg.depth = depth
  return leg
}

@Suite("Book-walking fills, hand-worked")
struct BookFillTests {
  // Two round trips, A rich: entries at 10 s and 30 s (bid_A / ask_B − 1 = 2 %), exits at
  // 20 s and 40 s (ask_A / bid_B − 1 = 103 / 102.5 − 1 = 0.49 %). The books do not change
  // from 10 s on except B's asks at 101 (1 → 3 at 30 s), so what the first trade took is
  // still missing for the second, but at that level.
  static let aQuiet: Book = ([(100, 10)], [(101, 10)])
  static let aBook: Book = ([(102, 1), (101, 2), (100, 5)], [(103, 1), (104, 10)])
  static let bQuiet: Book = ([(99, 10)], [(101, 10)])
  static let bEntry: Book = ([(99, 10)], [(100, 0.5), (101, 1), (102, 10)])
  static let bExit: Book = ([(102.5, 1), (102, 5)], [(100, 0.5), (101, 1), (102, 10)])
  static let bRefilled: Book = ([(102.5, 1), (102, 5)], [(100, 0.5), (101, 3), (102, 10)])
  static let a = bookLeg("a", [(0, aQuiet), (10, aBook), (20, aBook), (30, aBook), (40, aBook)])
  static let b = bookLeg("b", [(0, bQuiet), (10, bEntry), (20, bExit), (30, bRefilled), (40, bRefilled)])

  static func parameters(entry: Double = 1, exit: Double = 0.5, partial: PartialRule = .fill, fees: Double = 0) -> ConvergenceParameters {
    // N = 204: q_A = 204 / 102 = 2, q_B = 204 / 100 = 2.04.
    var parameters = ConvergenceParameters(entry: entry, exit: exit, notional: 204, fees: [fees, fees])
    parameters.fill = .book
    parameters.partial = partial
    return parameters
  }

  @Test("every level walked, VWAPs and slippage against the top; fees on the VWAPs")
  func walk() throws {
    let result = try run([Self.a, Self.b], Self.parameters(fees: 0.001))
    #expect(result.trades.count == 2)
    let trade = result.trades[0]
    let x = try #require(trade.execution)
    // A sells 2: 1 at 102, 1 at 101. B buys 2.04: 0.5 at 100, 1 at 101, 0.54 at 102.
    #expect(x.richEntry == LegFill(requested: 2, filled: 2, vwap: 101.5, levels: 2, slippageBps: 0.5 / 102 * 10_000))
    #expect(x.cheapEntry.requested == 2.04 && isClose(x.cheapEntry.filled, 2.04) && x.cheapEntry.levels == 3)
    #expect(isClose(x.cheapEntry.vwap, 206.08 / 2.04))
    #expect(isClose(x.cheapEntry.slippageBps, (206.08 / 2.04 - 100) / 100 * 10_000))
    // Exit: A buys 2 back, 1 at 103 and 1 at 104; B sells 2.04, 1 at 102.5 and 1.04 at 102.
    #expect(x.richExit.vwap == 103.5 && x.richExit.levels == 2 && x.richExit.filled == 2)
    #expect(isClose(x.cheapExit.vwap, 208.58 / 2.04) && x.cheapExit.levels == 2)
    #expect(isClose(x.cheapExit.slippageBps, (102.5 - 208.58 / 2.04) / 102.5 * 10_000))
    #expect((trade.richSell, trade.richBuy, trade.richQuantity) == (101.5, 103.5, 2))
    // gross = 2 (101.5 − 103.5) + (208.58 − 206.08) = −1.5; fees = 0.001 (203 + 207 + 206.08 + 208.58).
    #expect(isClose(trade.fees, 0.824_66, rel: 1e-9))
    #expect(isClose(trade.pnl, -1.5 - 0.824_66, rel: 1e-9))
  }

  @Test("liquidity used up: the second trade finds what the first took still missing, until a level changes")
  func depletion() throws {
    let result = try run([Self.a, Self.b], Self.parameters())
    let first = try #require(result.trades.first), next = try #require(result.trades.last)
    #expect(result.trades.count == 2 && first.exitTime == 20_000_000 && next.entryTime == 30_000_000)
    let x = try #require(next.execution)
    // A's bids are unchanged: 102 is gone, 1 of 101's 2 is left, then 100. A sells 1 at 101, 1 at 100.
    #expect(x.richEntry == LegFill(requested: 2, filled: 2, vwap: 100.5, levels: 2, slippageBps: 1.5 / 102 * 10_000))
    // B's 100 level is unchanged (used up); its 101 level changed size (1 → 3): all 3 are there again.
    #expect(isClose(x.cheapEntry.filled, 2.04) && x.cheapEntry.vwap == 101 && x.cheapEntry.levels == 1)
    // Exit: A's 103 is gone (the first exit took it): 2 at 104. B's 102.5 is gone: 2.04 at 102.
    #expect(x.richExit.vwap == 104 && x.richExit.levels == 1)
    #expect(x.cheapExit.vwap == 102 && x.cheapExit.levels == 1)
    // 2 (100.5 − 104) + 2.04 (102 − 101) = −7 + 2.04.
    #expect(isClose(next.pnl, -4.96))
    #expect(isClose(first.pnl, -1.5))
  }

  // One round trip on a book too thin on B: A's bids hold 3 (1 at 102, 2 at 101), B's
  // asks 1 at 100 only, so B fills 1 of its 2.04; the next book of B asks 100.5.
  static let thinA = bookLeg("a", [(0, aQuiet), (10, ([(102, 1), (101, 2)], [(103, 5)])), (20, ([(102, 1), (101, 2)], [(103, 5)]))])
  static let thinB = bookLeg("b", [(0, bQuiet), (10, ([(99, 10)], [(100, 1)])), (20, ([(101, 5)], [(100.5, 5)]))])

  static func thin(_ partial: PartialRule) throws -> Trade {
    // Entry 2 % at 10 s; closing premium 103 / 101 − 1 = 1.98 % at 20 s.
    let result = try run([Self.thinA, Self.thinB], Self.parameters(entry: 1.5, exit: 1.99, partial: partial))
    #expect(result.trades.count == 1)
    return try #require(result.trades.first)
  }

  @Test("partial fill: both legs take the smaller share, 1 / 2.04 of their order")
  func partialFill() throws {
    let trade = try Self.thin(.fill)
    let x = try #require(trade.execution)
    let share = 1 / 2.04
    #expect(isClose(x.richEntry.filled, 2 * share) && x.richEntry.vwap == 102 && x.richEntry.levels == 1 && x.richEntry.requested == 2)
    #expect(x.cheapEntry.filled == 1 && x.cheapEntry.vwap == 100 && x.cheapEntry.requested == 2.04)
    #expect(isClose(trade.richQuantity, 2 * share) && trade.cheapQuantity == 1)
    // 2/2.04 (102 − 103) + 1 (101 − 100)
    #expect(isClose(trade.pnl, 1 - 2 * share))
    #expect(x.unwound == 0)
  }

  @Test("partial hedge: B's rest (1.04) fills on its next book at 100.5, A fills in full")
  func partialHedge() throws {
    let trade = try Self.thin(.hedge)
    let x = try #require(trade.execution)
    #expect(x.richEntry.filled == 2 && x.richEntry.vwap == 101.5)
    #expect(isClose(x.cheapEntry.filled, 2.04) && x.cheapEntry.levels == 2)
    #expect(isClose(x.cheapEntry.vwap, (100 + 1.04 * 100.5) / 2.04))
    // 2 (101.5 − 103) + 2.04 × 101 − (100 + 104.52)
    #expect(isClose(trade.pnl, -3 + 206.04 - 204.52))
  }

  @Test("partial unwind: A's fill beyond the matched share is bought back at once at its ask")
  func partialUnwind() throws {
    let trade = try Self.thin(.unwind)
    let x = try #require(trade.execution)
    let held = 2 / 2.04
    // A sold all 2 (VWAP 101.5); 2 − 2/2.04 of it is bought back at 103.
    #expect(x.richEntry.filled == 2 && x.richEntry.vwap == 101.5)
    #expect(isClose(x.unwound, 2 - held))
    #expect(isClose(x.unwindPnL, (2 - held) * (101.5 - 103)))
    #expect(isClose(trade.richQuantity, held) && trade.cheapQuantity == 1)
    // Every unit A sold loses 1.5 (bought back at 103 now or at the exit): −3; B makes 1.
    #expect(isClose(trade.pnl, -2))
  }

  @Test("a book as deep as needed at its top fills as fill = top does", arguments: [0.0, 10.0])
  func deepTopEqualsTop(slippageBps: Double) throws {
    let deep = [ConvergenceTests.a, ConvergenceTests.b].map { leg in
      bookLeg(leg.instrument.venue, leg.time.indices.map { (leg.time[$0] / 1_000_000, ([(leg.bid[$0], 1e9)], [(leg.ask[$0], 1e9)])) })
    }
    var top = ConvergenceTests.parameters()
    top.slippageBps = slippageBps
    var book = top
    book.fill = .book
    let expected = try run(deep, top).trades, walked = try run(deep, book).trades
    #expect(walked.count == expected.count && !expected.isEmpty)
    for (w, e) in zip(walked, expected) {
      #expect(isClose(w.pnl, e.pnl) && isClose(w.fees, e.fees) && w.richSell == e.richSell && w.cheapBuy == e.cheapBuy)
      #expect(isClose(w.richQuantity, e.richQuantity) && isClose(w.cheapQuantity, e.cheapQuantity))
    }
  }

  @Test("the first-passage engine prices book fills as the pass does")
  func indexedEqualsPass() throws {
    for partial in PartialRule.allCases {
      let engine = ConvergenceBacktest(parameters: Self.parameters(partial: partial))
      let legs = [Self.a, Self.b]
      let index = try ConvergenceIndex(legs: legs, options: AlignmentOptions())
      let indexed = engine.price(engine.decide(legs: legs, index: index), legs: legs)
      #expect(indexed.trades == (try run(legs, engine.parameters)).trades)
    }
  }
}
