import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

/// Book-walking fills priced on the legs read again as streams
/// (`price(_:streams:chunkRows:)`), against the walk on the whole legs: random books
/// whose levels often keep their size from book to book (so that used-up liquidity
/// lasts), every partial rule, failed legs, chunks down to one quote.
@Suite("Book-walking fills on streamed legs")
struct StreamedBookFillTests {
  /// A random walk of `count` prices in tenths, the legs' common mid.
  static func walk(_ rng: inout SplitMix64, count: Int) -> [Int] {
    var tenths = 1_000
    return (0..<count).map { _ in
      tenths += rng.int(-3...3)
      return tenths
    }
  }

  /// A leg of books about the mid `walk` (a tenth or two off it), 1 to 4 levels a side a
  /// tenth apart; a level's size changes one time in three.
  static func leg(_ rng: inout SplitMix64, _ name: String, walk: [Int]) -> QuoteSeries {
    var time: [Int64] = [], bid: [Double] = [], ask: [Double] = [], bidSize: [Double] = [], askSize: [Double] = []
    var depth = BookDepth()
    var t: Int64 = Int64(rng.int(0...3))
    var sizes = (0..<8).map { _ in Double(rng.int(1...6)) / 4 }
    for mid in walk {
      t += Int64(rng.int(1...2))
      let tenths = mid + rng.int(-2...2)
      for j in sizes.indices where rng.int(1...3) == 1 { sizes[j] = Double(rng.int(1...6)) / 4 }
      let best = (bid: Double(tenths - rng.int(0...2)) / 10, ask: Double(tenths + 1 + rng.int(0...2)) / 10)
      let levels = (bids: rng.int(1...4), asks: rng.int(1...4))
      for l in 0..<levels.bids { depth.appendLevel(bid: true, price: best.bid - Double(l) / 10, size: sizes[l]) }
      for l in 0..<levels.asks { depth.appendLevel(bid: false, price: best.ask + Double(l) / 10, size: sizes[4 + l]) }
      depth.closeBook()
      time.append(t * 1_000_000)
      bid.append(best.bid)
      ask.append(best.ask)
      bidSize.append(sizes[0])
      askSize.append(sizes[4])
    }
    var series = QuoteSeries(
      instrument: Instrument(venue: name, market: .spot, symbol: "BTCUSDT"), priceSource: .book, time: time, bid: bid, ask: ask,
      bidSize: bidSize, askSize: askSize)
    series.depth = depth
    return series
  }

  static let rules: [(fill: FillRule, partial: PartialRule, failRate: Double)] = [
    (.book, .fill, 0), (.book, .hedge, 0), (.book, .unwind, 0), (.book, .fill, 0.3), (.book, .hedge, 0.3), (.book, .unwind, 0.3),
    (.top, .hedge, 0.3), (.top, .unwind, 0.4),
  ]

  @Test("the streamed walk prices every trade as the whole legs do", arguments: rules.indices)
  func streamedEqualsWhole(index: Int) throws {
    let rule = Self.rules[index]
    var rng = SplitMix64(seed: UInt64(900 + index))
    for round in 0..<4 {
      let walk = Self.walk(&rng, count: 600)
      let legs = [Self.leg(&rng, "a", walk: walk), Self.leg(&rng, "b", walk: walk)]
      var parameters = ConvergenceParameters(entry: 0.05, exit: 0.0, notional: 300 * Double(1 + round), fees: [0.0004, 0.0002])
      (parameters.fill, parameters.partial, parameters.legFailRate, parameters.seed) = (rule.fill, rule.partial, rule.failRate, UInt64(round))
      parameters.latency = Int64(round) * 1_500_000
      let backtest = ConvergenceBacktest(parameters: parameters)
      let decisions = backtest.decide(legs: legs, aligned: try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: 20_000_000)))
      #expect(decisions.trades.count > 20, "round \(round): trades to walk")
      let whole = backtest.price(decisions, legs: legs)
      if rule.fill == .book { #expect(whole.trades.contains { $0.execution!.legged || $0.execution!.richEntry.levels > 1 }, "round \(round)") }
      for chunkRows in [1, 2, 7, 64, 1 << 16] {
        let streamed = try backtest.price(decisions, streams: legs.map(SeriesQuoteStream.init), chunkRows: chunkRows)
        #expect(streamed.trades == whole.trades, "round \(round), chunk \(chunkRows)")
      }
    }
  }

  @Test func `a streamed leg holds the rows between its walks, not the rows before them`() throws {
    // One trade near the start and one near the end of long legs: pricing the second drops
    // the rows in between, a chunk at a time.
    var rng = SplitMix64(seed: 77)
    let walk = Self.walk(&rng, count: 5_000)
    let legs = [Self.leg(&rng, "a", walk: walk), Self.leg(&rng, "b", walk: walk)]
    let rows = legs.map { LegRows(streaming: SeriesQuoteStream($0), chunkRows: 16) }
    var walker = BookWalker(legs: rows, fill: .book)
    _ = try walker.take(0, .bid, row: 10, quantity: 1, onward: true, commit: true)
    #expect(rows[0].lastHeld < 100)
    try walker.release(below: [4_990, 4_990])
    #expect(rows[0].base >= 4_900 && rows[0].lastHeld < 4_990 + 16)
    #expect(rows[1].base >= 4_900)
    let late = try walker.take(0, .bid, row: 4_990, quantity: 1, onward: false, commit: true)
    var whole = BookWalker(legs: legs.map(LegRows.init), fill: .book)
    _ = try whole.take(0, .bid, row: 10, quantity: 1, onward: true, commit: true)
    let wholeLate = try whole.take(0, .bid, row: 4_990, quantity: 1, onward: false, commit: true)
    #expect(late.filled == wholeLate.filled && late.notional == wholeLate.notional && late.levels == wholeLate.levels)
  }
}
