import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// Mode inventory on hand-built books: sizes, balances, missed opportunities and
// rebalances worked out by hand (exact fractions) from docs/definitions.md.

@Suite("Inventory backtest, hand-worked")
struct InventoryTests {
  // A is 0.9 % over B at 10, 20 and 25 s (sell A at 101, buy B at 100.1); 35 s is flat;
  // at 40 s A is rich again.
  static let a = leg("a", [(0, 100, 100.1), (10, 101, 101.1), (20, 101, 101.1), (25, 101, 101.1), (35, 100, 100.1), (40, 101, 101.1)])
  static let b = leg("b", [(0, 100, 100.1), (10, 100, 100.1), (20, 100, 100.1), (25, 100, 100.1), (35, 100, 100.1), (40, 100, 100.1)])

  static func parameters(quoteB: Double = 2000) -> InventoryParameters {
    InventoryParameters(entry: 0.5, notional: 1000, fees: [0.001, 0.001], base: [15, 15], quote: [2000, quoteB])
  }

  static func run(_ p: InventoryParameters, legs: [QuoteSeries] = [a, b]) throws -> InventoryRun {
    InventoryArbitrage(parameters: p).run(legs: legs, aligned: try AlignedLegs(legs: legs))
  }

  @Test("a full trade, a partial one limited by A's base, then a missed opportunity")
  func runsOutOfBase() throws {
    let run = try Self.run(Self.parameters())
    #expect(run.trades.count == 2)  // 10 s, and 20 s limited by A's base
    let first = run.trades[0], second = run.trades[1]
    // Wanted 1000 / 101 = 9.90099 BTC; A has 15.
    #expect(isClose(first.quantity, 9.900_990_099_009_901, rel: 1e-14))
    #expect(isClose(first.fees, 1.991_089_108_910_891, rel: 1e-12))
    #expect(isClose(first.pnl, 6.919_801_980_198_02, rel: 1e-12))
    #expect(first.rich == 0 && first.cheap == 1 && first.sellPrice == 101 && first.buyPrice == 100.1)
    // A has 15 − 9.90099 = 5.09901 left: the second trade takes all of it.
    #expect(isClose(second.quantity, 5.099_009_900_990_099, rel: 1e-12))
    #expect(isClose(second.pnl, 3.563_698_019_801_98, rel: 1e-12))
    // 25 s and 40 s: A has no base left.
    #expect(run.skipped.map(\.reason) == [.noBase] && run.skipped.map(\.count) == [2])
    #expect(run.missed == 2)
  }

  @Test("balances: base is conserved, the quote gained is the PnL")
  func balances() throws {
    let run = try Self.run(Self.parameters())
    let last = try #require(run.path.last)
    #expect(isClose(last.base.reduce(0, +), 30, rel: 1e-14))
    #expect(isClose(last.base[0], 0, rel: 0, abs: 1e-12))
    #expect(isClose(last.quote[0], 3513.485, rel: 1e-12))
    #expect(isClose(last.quote[1], 496.9985, rel: 1e-12))
    #expect(isClose(last.quote.reduce(0, +) - 4000, run.pnl, rel: 1e-12))
    #expect(isClose(run.pnl, 10.4835, rel: 1e-12))
    #expect(run.path.count == 1 + run.trades.count)
  }

  @Test("a missed opportunity starts a rebalance; it restores the split after its delay, at its cost")
  func rebalance() throws {
    var p = Self.parameters()
    p.rebalance = .init(cost: 5, delay: 10_000_000)
    let run = try Self.run(p)
    #expect(run.rebalances == [RebalanceEvent(start: 25_000_000, end: 35_000_000, cost: 5)])
    #expect(run.skipped.map(\.reason) == [.noBase] && run.skipped.map(\.count) == [1])
    // At 25 s B sends its 15 BTC over its half, A its 1508.24325 quote over its half.
    let leaving = run.path[3]
    #expect(leaving.time == 25_000_000 && isClose(leaving.baseInTransit, 15, rel: 1e-14) && isClose(leaving.quoteInTransit, 1508.243_25, rel: 1e-12))
    // After the rebalance each venue holds 15 BTC and (4000 + 10.4835 − 5) / 2 quote;
    // at 40 s the trade is the first one again.
    let restored = run.path[4]
    #expect(restored.time == 35_000_000 && restored.baseInTransit == 0 && restored.quoteInTransit == 0)
    #expect(isClose(restored.base[0], 15, rel: 1e-14) && isClose(restored.base[1], 15, rel: 1e-14))
    #expect(isClose(restored.quote[0], 2002.741_75, rel: 1e-12) && isClose(restored.quote[1], 2002.741_75, rel: 1e-12))
    #expect(run.trades.count == 3)
    #expect(isClose(run.trades[2].pnl, 6.919_801_980_198_02, rel: 1e-12))
    #expect(isClose(run.pnl, 10.4835 + 6.919_801_980_198_02 - 5, rel: 1e-12))
    #expect(isClose(run.path.last!.quote.reduce(0, +) - 4000, run.pnl, rel: 1e-12))
  }

  @Test("a transfer in transit: balances in transit, fees taken in the asset, trades refused meanwhile, time in transit")
  func transferInTransit() throws {
    // 10 s: A 1 % rich, A sells its one BTC to B for 101. 20 s: A rich again, no base:
    // missed, the rebalance starts. 30 s: B 2 % rich, but A's quote is in transit:
    // refused. 40 s: flat; the transfer (due at 35 s) arrives first.
    let a = leg("a", [(0, 100, 100), (10, 101, 101), (20, 101, 101), (30, 100, 100), (40, 100, 100)])
    let b = leg("b", [(0, 100, 100), (10, 100, 100), (20, 100, 100), (30, 102, 102), (40, 100, 100)])
    var p = InventoryParameters(entry: 0.5, notional: 1000, fees: [0, 0], base: [1, 1], quote: [0, 200])
    p.rebalance = .init(cost: 2, delay: .fixed(15_000_000), baseFees: [0.5, 0.25], quoteFees: [1, 3])
    let run = try Self.run(p, legs: [a, b])
    #expect(run.trades.map(\.quantity) == [1] && run.trades.map(\.pnl) == [1])
    // Missed at 20 s for want of base, refused at 30 s for want of quote (in transit).
    #expect(run.skipped.map(\.reason) == [.noBase, .noQuote] && run.skipped.map(\.count) == [1, 1])
    // At 20 s the totals are 2 BTC and 201 quote; leg 0's shares are 1 BTC and 0 quote:
    // B sends 1 BTC, A all its 101 quote. At 40 s A gets 1 − 0.25 (B's BTC fee), B gets
    // 101 − 1 (A's quote fee) and pays the whole cost (leg 1 started with all the quote).
    #expect(
      run.path == [
        InventoryState(time: 0, base: [1, 1], quote: [0, 200]),
        InventoryState(time: 10_000_000, base: [0, 2], quote: [101, 100]),
        InventoryState(time: 20_000_000, base: [0, 1], quote: [0, 100], baseInTransit: 1, quoteInTransit: 101),
        InventoryState(time: 40_000_000, base: [0.75, 1], quote: [0, 198]),
      ])
    // The BTC fee is valued at A's mid at 40 s: 0.25 × 100; the quote fee is 1.
    #expect(run.rebalances == [RebalanceEvent(start: 20_000_000, end: 40_000_000, cost: 2, baseFee: 0.25, quoteFee: 1, feeValue: 26)])
    #expect(run.transferFees == 26 && run.timeInTransit == 20 && run.rebalanceCost == 2)
    // 1 − 2 − 26: the quote fell by 2 (200 → 198) and the base by 0.25 BTC (at 100).
    #expect(run.pnl == -27)
    // A streamed run, chunks of two points, steps through the same states.
    let streamed = try InventoryArbitrage.run(
      [InventoryArbitrage(parameters: p)], open: { k, _ in SeriesQuoteStream([a, b][k]) }, options: AlignmentOptions(), chunkPoints: 2, legChunkRows: 1)
    #expect(streamed.runs[0].path == run.path && streamed.runs[0].rebalances == run.rebalances)
  }

  @Test("a drawn transfer delay is a function of the seed and the start alone")
  func drawnDelay() throws {
    var p = Self.parameters()
    p.rebalance = .init(cost: 5, delay: .uniform(low: 1_000_000, high: 20_000_000))
    // The rebalance starts at 25 s; it ends at the first valid point (35 s or 40 s) at or
    // after 25 s + 1 s + ⌊u × 19 s⌋, u = SeededDraw(seed, transfer 3, 25 s, 0), if any.
    var ends: Set<[Int64]> = []
    for seed: UInt64 in [0, 1, 2, 3, 7, 11, 42] {
      p.seed = seed
      let u = SeededDraw.uniform(seed: seed, .transfer, 25_000_000, 0)
      let due = 25_000_000 + 1_000_000 + Int64((u * 19_000_000).rounded(.down))
      let run = try Self.run(p)
      #expect(run.rebalances.map(\.end) == (due <= 35_000_000 ? [35_000_000] : due <= 40_000_000 ? [40_000_000] : []), "seed \(seed)")
      #expect(try Self.run(p).path == run.path, "the same seed, the same run")
      ends.insert(run.rebalances.map(\.end))
    }
    #expect(ends.count >= 2, "seeds draw different delays")
  }

  @Test("the cheap venue's quote limits the size, fees included")
  func quoteLimited() throws {
    let run = try Self.run(Self.parameters(quoteB: 500))
    // 500 / (100.1 × 1.001) = 4.99001 BTC
    #expect(isClose(run.trades[0].quantity, 4.990_014_980_024_97, rel: 1e-12))
    #expect(isClose(run.trades[0].pnl, 3.487_521_469_539_451, rel: 1e-12))
    #expect(isClose(run.path[1].quote[1], 0, rel: 0, abs: 1e-9))
    #expect(run.skipped.first?.reason == .noQuote)
  }

  @Test("top-of-book size caps the trade; below the minimum size it is missed without a rebalance")
  func bookSize() throws {
    var sized = Self.a
    sized.bidSize = sized.time.map { _ in 2 }
    sized.askSize = sized.time.map { _ in 2 }
    var p = Self.parameters()
    p.capAtBook = true
    let capped = try Self.run(p, legs: [sized, Self.b])
    #expect(capped.trades.map(\.quantity) == [2, 2, 2, 2])
    p.minSize = 3
    p.rebalance = .init(cost: 5, delay: 1)
    let missed = try Self.run(p, legs: [sized, Self.b])
    #expect(missed.trades.isEmpty && missed.rebalances.isEmpty)
    #expect(missed.skipped.map(\.reason) == [.noBookSize] && missed.skipped.map(\.count) == [4])
  }
}
