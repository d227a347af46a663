import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import CMallocCount
import Foundation

/// The book-fill backtest measured two ways: `arbkit backtest SCENARIO` as a user runs it
/// (a child process from spawn to exit: read the CSV books, align, decide, walk the
/// books, write the report), and in process the engine alone (`ConvergenceBacktest.run`
/// on legs read and aligned once, untimed), the work the numba loop does.
struct BookFillMeasurement {
  var points: Int
  var validPoints: Int
  var trades: Int
  var pnl: Double
  /// Trades and PnL of `arbkit backtest --format json`.
  var commandTrades: Int
  var commandPnL: Double
  var commandSeconds: [Double]
  var commandPeakBytes: Int
  var engineSeconds: [Double]
  /// Heap allocations of one run's decisions (the pass over every point) and of its
  /// pricing (the book walks of every trade), counted by `CMallocCount`.
  var decideAllocations: Int
  var priceAllocations: Int

  static func run(_ data: BookFillData, arbkit: String, folder: String, repeats: Int) throws -> BookFillMeasurement {
    FileHandle.standardError.write(Data("measuring arbkit backtest (book fills) on \(data.rows) rows × 2 venues\n".utf8))
    let out = "\(folder)/bookfill_\(data.rows).out.json"
    var commandSeconds: [Double] = [], peak = 0
    for _ in 0..<repeats {
      // `spawn` opens it for writing, without creating it.
      guard FileManager.default.createFile(atPath: out, contents: nil) else { throw BenchError("\(out): cannot be created") }
      commandSeconds.append(try timed { peak = max(peak, try spawnMeasuringPeak([arbkit, "backtest", data.scenario, "--format", "json"], stdout: out)) })
    }
    let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
    guard let commandTrades = summary?["trades"] as? Int, let commandPnL = summary?["pnl"] as? Double else {
      throw BenchError("\(out): no trades and pnl in arbkit backtest's output")
    }

    FileHandle.standardError.write(Data("measuring the book-fill engine in process\n".utf8))
    var options = IngestOptions()
    options.keepDepth = true
    let legs = try data.files.map { try Ingest.read(path: $0, options: options).series[0] }
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: BookFillData.maxStale))
    let engine = ConvergenceBacktest(parameters: BookFillData.parameters)
    var result = engine.run(legs: legs, aligned: aligned)  // warm-up: caches and page faults
    var before = arb_allocation_count()
    let decisions = engine.decide(legs: legs, aligned: aligned)
    let decideAllocations = Int(arb_allocation_count() - before)
    before = arb_allocation_count()
    result = engine.price(decisions, legs: legs)
    let priceAllocations = Int(arb_allocation_count() - before)
    let engineSeconds = (0..<repeats).map { _ in timed { result = engine.run(legs: legs, aligned: aligned) } }
    return BookFillMeasurement(
      points: aligned.count, validPoints: aligned.validPoints, trades: result.trades.count, pnl: result.pnl,
      commandTrades: commandTrades, commandPnL: commandPnL, commandSeconds: commandSeconds, commandPeakBytes: peak,
      engineSeconds: engineSeconds, decideAllocations: decideAllocations, priceAllocations: priceAllocations)
  }
}
