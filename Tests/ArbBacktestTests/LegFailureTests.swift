import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// One-legged trades (`costs.leg_fail_rate`): which leg fails is a seeded draw per entry
// and leg; what follows is the partial rule's, worked out by hand on the books of
// BookFillTests (docs/definitions.md, "Book-walking fills" and "One-legged trades").

@Suite("Leg failures, seeded, settled by the partial rule")
struct LegFailureTests {
  static let rate = 0.5

  /// A seed under which, at `rate`, leg 0 (A, rich) fails at the 10 s entry and no other
  /// leg of the two entries (10 s, 30 s) fails.
  static let seed: UInt64 = {
    func fails(_ seed: UInt64, _ seconds: Int64, _ leg: UInt64) -> Bool {
      SeededDraw.uniform(seed: seed, .legFailure, UInt64(seconds * 1_000_000), leg) < rate
    }
    return (0..<10_000).first { s in fails(s, 10, 0) && !fails(s, 10, 1) && !fails(s, 30, 0) && !fails(s, 30, 1) }!
  }()

  static func parameters(_ partial: PartialRule, fill: FillRule = .book) -> ConvergenceParameters {
    var parameters = BookFillTests.parameters(partial: partial)
    parameters.fill = fill
    parameters.legFailRate = rate
    parameters.seed = seed
    return parameters
  }

  @Test("draws are a function of seed, purpose and identity alone, uniform on [0, 1)")
  func draws() {
    #expect(SeededDraw.uniform(seed: 1, .legFailure, 5, 0) == SeededDraw.uniform(seed: 1, .legFailure, 5, 0))
    #expect(SeededDraw.uniform(seed: 1, .legFailure, 5, 0) != SeededDraw.uniform(seed: 2, .legFailure, 5, 0))
    #expect(SeededDraw.uniform(seed: 1, .legFailure, 5, 0) != SeededDraw.uniform(seed: 1, .legFailure, 5, 1))
    let values = (0..<20_000).map { SeededDraw.uniform(seed: 42, .legFailure, UInt64($0), 0) }
    #expect(values.allSatisfy { (0..<1).contains($0) })
    // Mean 1/2 and share below 0.1 of 1/10, each within 4 standard errors.
    let n = Double(values.count)
    let mean: Double = values.reduce(0, +) / n
    let low = Double(values.filter { $0 < 0.1 }.count) / n
    #expect(abs(mean - 0.5) < 4 * (1.0 / 12 / n).squareRoot())
    #expect(abs(low - 0.1) < 4 * (0.09 / n).squareRoot())
  }

  @Test("fill: A fails, so both legs take its share, 0: nothing is held")
  func failFill() throws {
    let result = try run([BookFillTests.a, BookFillTests.b], Self.parameters(.fill))
    let trade = result.trades[0], x = try #require(trade.execution)
    #expect(x.legged && x.richEntry.filled == 0 && x.cheapEntry.filled == 0)
    #expect(trade.pnl == 0 && trade.fees == 0)
    #expect(result.leggedTrades == 1 && result.leggedPnL == 0)
  }

  @Test("hedge: A's whole order fills on its next book (20 s), the same levels: 1 at 102, 1 at 101")
  func failHedge() throws {
    let result = try run([BookFillTests.a, BookFillTests.b], Self.parameters(.hedge))
    let trade = result.trades[0], x = try #require(trade.execution)
    #expect(x.legged && x.richEntry.filled == 2 && x.richEntry.vwap == 101.5)
    #expect(isClose(trade.pnl, -1.5))
    #expect(result.leggedTrades == 1 && isClose(result.leggedPnL, -1.5))
    #expect(result.trades[1].execution?.legged == false)
  }

  @Test("unwind: B's 2.04 bought at 206.08 / 2.04 is sold back at once into its bid, 99")
  func failUnwind() throws {
    let result = try run([BookFillTests.a, BookFillTests.b], Self.parameters(.unwind))
    let trade = result.trades[0], x = try #require(trade.execution)
    #expect(x.legged && x.richEntry.filled == 0 && isClose(x.unwound, 2.04))
    // 2.04 × 99 − 206.08
    #expect(isClose(x.unwindPnL, -4.12) && isClose(trade.pnl, -4.12))
    #expect(trade.richQuantity == 0 && trade.cheapQuantity == 0)
    #expect(result.leggedTrades == 1 && isClose(result.leggedPnL, -4.12))
  }

  @Test("at the top of book: A fails and sells on its next quote, 100.2 at 20 s (hedge)")
  func failTopHedge() throws {
    var parameters = ConvergenceTests.parameters()
    parameters.partial = .hedge
    parameters.legFailRate = Self.rate
    parameters.seed = Self.seed
    let result = try run([ConvergenceTests.a, ConvergenceTests.b], parameters)
    let trade = try #require(result.trades.first)
    let qA = 10_000 / 100.5, qB = 10_000 / 100.1
    #expect(trade.execution?.legged == true && trade.richSell == 100.2 && trade.cheapBuy == 100.1)
    // Exit at 30 s as without the failure: A bought back at 100.1, B sold at 100.
    let fees = 0.001 * (qA * (100.2 + 100.1) + qB * (100.1 + 100))
    #expect(isClose(trade.pnl, qA * 0.1 - qB * 0.1 - fees))
  }

  @Test("with a rate of 0 nothing fails and the trades are those without the rule")
  func zeroRate() throws {
    var parameters = Self.parameters(.unwind)
    parameters.legFailRate = 0
    #expect(
      try run([BookFillTests.a, BookFillTests.b], parameters).trades
        == (try run([BookFillTests.a, BookFillTests.b], BookFillTests.parameters(partial: .unwind))).trades)
  }
}
