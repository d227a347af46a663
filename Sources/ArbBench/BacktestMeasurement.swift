import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import CMallocCount
import Foundation

/// One convergence backtest over the benchmark legs, in process: the legs opened from
/// their caches and aligned once (untimed), then `ConvergenceBacktest.run` (the plain
/// pass over every point, and pricing) timed `repeats` times after one warm-up run.
struct BacktestMeasurement {
  var points: Int
  var validPoints: Int
  var trades: Int
  var pnl: Double
  var seconds: [Double]
  /// Heap allocations made during one run, counted by the wrappers of malloc and its
  /// kin that only this binary links (`CMallocCount`).
  var allocations: Int
  /// Allocations made by appending the run's trades one by one to an empty array:
  /// the growth of one output array, for comparison.
  var outputAllocations: Int

  static func run(_ data: ConvergenceData, repeats: Int) throws -> BacktestMeasurement {
    let legs = try data.caches.map { try Ingest.read(path: $0).series[0] }
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: ConvergenceData.maxStale))
    var parameters = ConvergenceParameters(
      entry: ConvergenceData.entry, exit: ConvergenceData.exit, notional: ConvergenceData.notional, fees: ConvergenceData.fees)
    parameters.slippageBps = ConvergenceData.slippageBps
    parameters.latency = ConvergenceData.latency
    parameters.maxStale = ConvergenceData.maxStale
    let engine = ConvergenceBacktest(parameters: parameters)
    var result = engine.run(legs: legs, aligned: aligned)  // warm-up: caches and page faults
    let before = arb_allocation_count()
    result = engine.run(legs: legs, aligned: aligned)
    let allocations = Int(arb_allocation_count() - before)
    let seconds = (0..<repeats).map { _ in timed { result = engine.run(legs: legs, aligned: aligned) } }
    return BacktestMeasurement(
      points: aligned.count, validPoints: aligned.validPoints, trades: result.trades.count, pnl: result.pnl,
      seconds: seconds, allocations: allocations, outputAllocations: Self.appendAllocations(result.trades))
  }

  /// Allocations made by appending `trades` one by one to an empty array.
  private static func appendAllocations(_ trades: [Trade]) -> Int {
    let before = arb_allocation_count()
    var copy: [Trade] = []
    for trade in trades { copy.append(trade) }
    withExtendedLifetime(copy) {}
    return Int(arb_allocation_count() - before)
  }
}
