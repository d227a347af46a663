import ArbAnalytics
import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbBacktest

// Hand-built books and trades: every queue position below is worked out by hand from
// docs/definitions.md, "Maker leg".

/// A leg of top-of-book rows `(seconds, bid, ask, bidSize, askSize)`.
func topLeg(_ name: String, _ rows: [(Int64, Double, Double, Double, Double)]) -> QuoteSeries {
  QuoteSeries(
    instrument: Instrument(venue: name, market: .spot, symbol: "BTCUSDT"), priceSource: .book, time: rows.map { $0.0 * second },
    bid: rows.map(\.1), ask: rows.map(\.2), bidSize: rows.map(\.3), askSize: rows.map(\.4))
}

/// A leg's trades `(seconds, price, size)` as the readers give them: the price in both
/// sides, the size in both sizes.
func tradeTape(_ name: String, _ rows: [(Int64, Double, Double)]) -> QuoteSeries {
  QuoteSeries(
    instrument: Instrument(venue: name, market: .spot, symbol: "BTCUSDT"), priceSource: .last, time: rows.map { $0.0 * second },
    bid: rows.map(\.1), ask: rows.map(\.1), bidSize: rows.map(\.2), askSize: rows.map(\.2))
}

@Suite("Maker leg and its queue, hand-worked")
struct MakerFillTests {
  // At 10 s A is rich (bid_A / ask_B − 1 = 102 / 100 − 1 = 2 %): A, the maker, rests a sale
  // at its ask 103 with 4 ahead. A's asks at 103: 4, then 2 at 20 s, 5 at 25 s.
  static let a = topLeg(
    "a", [(0, 100, 101, 5, 5), (10, 102, 103, 1, 4), (20, 102, 103, 1, 2), (25, 102, 103, 1, 5), (50, 101, 101.5, 1, 1)])
  static let b = topLeg("b", [(0, 99, 101, 1, 1), (10, 99, 100, 1, 1), (28, 99.5, 100.5, 1, 1), (42, 100, 101, 1, 1), (50, 101, 101.2, 1, 1)])
  // Traded at 103: 1, 2.5, 0.5, 0.25 (4.25 in all); 102.5 is not the order's price.
  static let aTrades = tradeTape("a", [(12, 103, 1), (15, 102.5, 7), (30, 103, 2.5), (40, 103, 0.5), (45, 103, 0.25)])

  static func parameters(_ queue: QueueModel, timeout: Int64? = nil) -> ConvergenceParameters {
    // N = 1030: the maker sells q_A = 1030 / 103 = 10.
    var parameters = ConvergenceParameters(entry: 1, exit: 0.5, notional: 1030, fees: [0.001, 0.001])
    parameters.makerFees = [0.0002, 0.0005]
    parameters.maker = MakerRule(leg: 0, queue: queue, timeout: timeout)
    return parameters
  }

  static func run(
    _ parameters: ConvergenceParameters, legs: [QuoteSeries] = [a, b], trades: [QuoteSeries?] = [aTrades, nil]
  ) throws
    -> BacktestRun
  {
    let engine = ConvergenceBacktest(parameters: parameters)
    let pass = engine.run(legs: legs, aligned: try AlignedLegs(legs: legs), trades: trades)
    // The first-passage engine takes the same decisions.
    let indexed = engine.price(engine.decide(legs: legs, index: try ConvergenceIndex(legs: legs, options: AlignmentOptions()), trades: trades), legs: legs)
    #expect(pass.trades == indexed.trades)
    #expect(pass.skipped.map(\.reason) == indexed.skipped.map(\.reason) && pass.skipped.map(\.count) == indexed.skipped.map(\.count))
    return pass
  }

  @Test("risk_averse: the queue of 4 ahead shrinks by trades at 103 alone; the order fills at the trade that takes the traded volume past 4")
  func riskAverse() throws {
    // Ahead: 4 − 1 (12 s) = 3; the book's 2 at 20 s does not move it; − 2.5 (30 s) = 0.5;
    // − 0.5 (40 s) = 0, not yet past; − 0.25 (45 s) = −0.25: filled at 45 s.
    let result = try Self.run(Self.parameters(.riskAverse))
    let trade = try #require(result.trades.first)
    #expect(result.trades.count == 1)
    #expect(trade.maker == MakerFill(leg: 0, price: 103, placeTime: 10 * second, fillTime: 45 * second, queueAhead: 4))
    // B buys as a taker at its ask in force at 45 s (101 from 42 s); the exit at 50 s:
    // 101.5 / 101 − 1 = 0.495 % ≤ 0.5.
    #expect((trade.entryTime, trade.exitTime) == (45 * second, 50 * second))
    #expect((trade.richSell, trade.cheapBuy, trade.richBuy, trade.cheapSell) == (103, 101, 101.5, 101))
    let qB = 1030.0 / 101
    #expect(trade.richQuantity == 10 && trade.cheapQuantity == qB)
    // The maker's entry pays A's maker fee 0.0002; the three taker fills 0.001.
    let fees = 0.0002 * 10 * 103 + 0.001 * 10 * 101.5 + 0.001 * qB * 101 + 0.001 * qB * 101
    #expect(isClose(trade.fees, fees))
    #expect(isClose(trade.pnl, 10 * (103 - 101.5) + qB * (101 - 101) - fees))
  }

  @Test("probabilistic:2: the cancel at 20 s is ahead of the order with probability 1 − p, and it fills at 30 s")
  func probabilistic() throws {
    // 12 s: traded 1, ahead 3 (back 1). 20 s: the level 4 → 2, 1 of it traded: 1 cancelled;
    // p = 1² / (1² + 3²) = 0.1; ahead = min(3 − 0.9 × 1 + min(1 − 0.1 × 1, 0), 2) = min(2.1, 2) = 2.
    #expect(MakerQueue.advanced(front: 3, previous: 4, new: 2, traded: 1, power: 2) == 2)
    // 25 s: the level grows to 5: ahead stays 2. 30 s: 2.5 traded at 103, ahead −0.5: filled.
    #expect(MakerQueue.advanced(front: 2, previous: 2, new: 5, traded: 0, power: 2) == 2)
    let result = try Self.run(Self.parameters(.probabilistic(power: 2)))
    let trade = try #require(result.trades.first)
    #expect(trade.maker == MakerFill(leg: 0, price: 103, placeTime: 10 * second, fillTime: 30 * second, queueAhead: 4))
    // B's ask at 30 s is 100.5 (from 28 s).
    #expect((trade.entryTime, trade.richSell, trade.cheapBuy) == (30 * second, 103, 100.5))
  }

  @Test("the power model's share in a case not clamped by the level: the formula itself")
  func powerShare() {
    // front 3, back 5, 2 cancelled, n = 3: p = 125 / (125 + 27); ahead = 3 − (1 − p) × 2.
    let p = 125.0 / 152
    #expect(isClose(MakerQueue.advanced(front: 3, previous: 8, new: 6, traded: 0, power: 3), 3 - (1 - p) * 2))
    // More cancelled than is behind: the rest comes out of the front, min(back − p chg, 0).
    let q = 1.0 / (1 + 8)
    #expect(isClose(MakerQueue.advanced(front: 2, previous: 3, new: 0.5, traded: 0, power: 3), min(2 - (1 - q) * 2.5 + min(1 - q * 2.5, 0), 0.5)))
  }

  @Test("a maker leg's run reads its legs whole: it never streams")
  func neverStreams() {
    var taker = Self.parameters(.riskAverse)
    taker.maker = nil
    #expect(ConvergenceBacktest(parameters: taker).streams && !ConvergenceBacktest(parameters: Self.parameters(.riskAverse)).streams)
  }

  @Test("a placement quote without a size at its touch places no order (no_book_size); the next signal's does")
  func noSizeAtTheTouch() throws {
    var a = Self.a
    a.askSize[1] = .nan
    // At 20 s (still 2 %) the order rests at 103 with 2 ahead; 2.5 traded at 30 s fills it.
    let result = try Self.run(Self.parameters(.riskAverse), legs: [a, Self.b])
    #expect(result.skipped.map(\.reason) == [.noBookSize] && result.skipped.map(\.count) == [1])
    #expect(result.trades.map(\.maker) == [MakerFill(leg: 0, price: 103, placeTime: 20 * second, fillTime: 30 * second, queueAhead: 2)])
  }

  @Test("probabilistic with the leg's book: the level at 103 seen behind a better ask, then gone from inside the levels shown")
  func levelsBehindTheTouch() throws {
    let rows: [(Int64, Book)] = [
      (0, ([(100, 5)], [(101, 5)])), (10, ([(102, 1)], [(103, 4), (104, 10)])),
      (20, ([(102, 1)], [(102.5, 1), (103, 1), (104, 10)])), (25, ([(102, 1)], [(102.5, 1), (104, 10)])), (50, ([(101, 1)], [(101.5, 1)])),
    ]
    // 20 s: 103 falls 4 → 1, nothing traded, nothing behind (prob 0): ahead 4 − 3 = 1.
    // 25 s: 103 is gone from between 102.5 and 104: ahead min(1 − 1, 0) = 0. The 0.1 at 30 s fills it.
    let book = bookLeg("a", rows), tape = tradeTape("a", [(30, 103, 0.1)])
    let result = try Self.run(Self.parameters(.probabilistic(power: 2)), legs: [book, Self.b], trades: [tape, nil])
    #expect(result.trades.map(\.maker) == [MakerFill(leg: 0, price: 103, placeTime: 10 * second, fillTime: 30 * second, queueAhead: 4)])
    // On the top of book alone the level behind 102.5 is not seen: ahead stays 4, no fill.
    var top = book
    top.depth = nil
    let unseen = try Self.run(Self.parameters(.probabilistic(power: 2)), legs: [top, Self.b], trades: [tape, nil])
    #expect(unseen.trades.isEmpty && unseen.skipped.map(\.reason) == [.makerCancelled])
  }

  @Test("maker_timeout: an order that has not filled by then is cancelled, and no trade happens")
  func timeout() throws {
    // Placed at 10 s, cancelled at 40 s: the trades at 40 s and after come too late.
    let cancelled = try Self.run(Self.parameters(.riskAverse, timeout: 30 * second))
    #expect(cancelled.trades.isEmpty)
    #expect(cancelled.skipped.map(\.reason) == [.makerCancelled] && cancelled.skipped.map(\.count) == [1])
    // 36 s: until 46 s, the fill at 45 s comes in time.
    #expect(try Self.run(Self.parameters(.riskAverse, timeout: 36 * second)).trades.count == 1)
  }

  @Test("an order that fills after the last valid point opens a round trip closed at once at the end of the data")
  func fillAfterTheEnd() throws {
    // The last 0.25 at 55 s instead of 45 s: past both legs' last quotes (50 s).
    var late = Self.aTrades
    late.time[4] = 55 * second
    let result = try Self.run(Self.parameters(.riskAverse), trades: [late, nil])
    let trade = try #require(result.trades.first)
    #expect(result.trades.count == 1 && trade.maker?.fillTime == 55 * second)
    #expect((trade.entryTime, trade.exitTime, trade.exitReason) == (55 * second, 55 * second, .endOfData))
    // B buys at its ask in force at 55 s (101.2); both close on the quotes of 50 s.
    #expect((trade.richSell, trade.cheapBuy, trade.richBuy, trade.cheapSell) == (103, 101.2, 101.5, 101))
    // Without that trade the order never fills: cancelled when the data ends.
    late.time.removeLast()
    late.bid.removeLast()
    late.ask.removeLast()
    late.bidSize.removeLast()
    late.askSize.removeLast()
    let cancelled = try Self.run(Self.parameters(.riskAverse), trades: [late, nil])
    #expect(cancelled.trades.isEmpty && cancelled.skipped.map(\.reason) == [.makerCancelled])
  }

  @Test("crossed through: a trade beyond the price, or the other side's touch past it, fills the order at once")
  func crossedThrough() throws {
    var through = Self.aTrades
    through.time[0] = 11 * second
    through.bid[0] = 103.5
    #expect(try Self.run(Self.parameters(.riskAverse), trades: [through, nil]).trades.first?.maker?.fillTime == 11 * second)
    // A's bid at 20 s at 103.5, above the order's 103.
    var crossed = Self.a
    crossed.bid[2] = 103.5
    let result = try Self.run(Self.parameters(.riskAverse), legs: [crossed, Self.b])
    #expect(result.trades.first?.maker?.fillTime == 20 * second)
  }

  @Test("a buying maker rests at its bid: B, the cheap leg, bids 99 with 1 ahead")
  func buyingMaker() throws {
    var parameters = Self.parameters(.riskAverse)
    parameters.maker = MakerRule(leg: 1, queue: .riskAverse)
    let bTrades = tradeTape("b", [(11, 99, 0.5), (13, 99, 0.5), (14, 99, 0.1)])
    let result = try Self.run(parameters, trades: [nil, bTrades])
    let trade = try #require(result.trades.first)
    // 1 − 0.5 − 0.5 = 0, then −0.1 at 14 s; A sells as a taker at its bid then (102).
    #expect(trade.maker == MakerFill(leg: 1, price: 99, placeTime: 10 * second, fillTime: 14 * second, queueAhead: 1))
    #expect((trade.richSell, trade.cheapBuy, trade.richBuy, trade.cheapSell) == (102, 99, 101.5, 101))
    #expect(
      isClose(
        trade.fees, 0.001 * trade.richQuantity * (102 + trade.richBuy) + 0.0005 * trade.cheapQuantity * 99 + 0.001 * trade.cheapQuantity * trade.cheapSell))
  }

  @Test("against a slow queue: random books and trades, every order's fill time as an event list gives it", arguments: [1, 2, 3] as [UInt64])
  func slowReference(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    for _ in 0..<200 {
      let n = 30
      var rows: [(Int64, Double, Double, Double, Double)] = []
      var time: Int64 = 0
      for _ in 0..<n {
        time += Int64(1 + random.next() % 3)
        let bid = 100 + Double(random.next() % 3), ask = bid + 1 + Double(random.next() % 2)
        rows.append((time, bid, ask, Double(1 + random.next() % 5), Double(1 + random.next() % 5)))
      }
      var trades: [(Int64, Double, Double)] = []
      time = 0
      for _ in 0..<40 {
        time += Int64(random.next() % 3)
        trades.append((time, 100 + Double(random.next() % 5), Double(random.next() % 4) * 0.5))
      }
      let book = topLeg("a", rows), tape = tradeTape("a", trades)
      let row = Int(random.next() % 10), sells = random.next() % 2 == 0
      let price = sells ? book.ask[row] : book.bid[row], ahead = sells ? book.askSize[row] : book.bidSize[row]
      let end = book.time[row] + Int64(random.next() % 60) * second
      for model in [QueueModel.riskAverse, .probabilistic(power: 2)] {
        let queue = MakerQueue(book: book, trades: tape, model: model)
        let fast = queue.rest(sells: sells, price: price, placeTime: book.time[row], row: row, queueAhead: ahead, end: end)
        #expect(fast == Self.slowRest(book, tape, model, sells: sells, price: price, row: row, ahead: ahead, end: end))
      }
    }
  }

  /// The rules written as one sorted list of events: trades (first at a time) and books.
  static func slowRest(
    _ book: QuoteSeries, _ tape: QuoteSeries, _ model: QueueModel, sells: Bool, price: Double, row: Int, ahead: Double, end: Int64
  )
    -> MakerQueue.Outcome
  {
    var events: [(time: Int64, isBook: Bool, k: Int)] = []
    for k in tape.time.indices where tape.time[k] > book.time[row] { events.append((tape.time[k], false, k)) }
    for r in book.time.indices where r > row { events.append((book.time[r], true, r)) }
    events.sort { ($0.time, $0.isBook ? 1 : 0, $0.k) < ($1.time, $1.isBook ? 1 : 0, $1.k) }
    var (front, level, traded) = (ahead, ahead, 0.0)
    for event in events where event.time < end {
      if !event.isBook {
        let (p, size) = (tape.bid[event.k], tape.bidSize[event.k])
        if (sells && p > price) || (!sells && p < price) { return .filled(event.time) }
        if p == price {
          front -= size
          traded += size
          if front < 0 { return .filled(event.time) }
        }
        continue
      }
      let r = event.k
      if (sells && book.bid[r] > price) || (!sells && book.ask[r] < price) { return .filled(event.time) }
      guard case .probabilistic(let n) = model else { continue }
      let touch = sells ? book.ask[r] : book.bid[r]
      // Top of book only: the size at the price is known when the touch is there, 0 when it is past it.
      let size: Double? = touch == price ? (sells ? book.askSize[r] : book.bidSize[r]) : ((sells ? touch > price : touch < price) ? 0 : nil)
      guard let size else { continue }
      let change = level - size - traded
      if change < 0 {
        front = min(front, size)
      } else {
        let back = level - front
        var p = pow(back, n) / (pow(back, n) + pow(front, n))
        if !p.isFinite { p = 1 }
        front = min(front - (1 - p) * change + min(back - p * change, 0), size)
      }
      (level, traded) = (size, 0)
    }
    return .cancelled
  }
}
