import Foundation

/// `arbkit sweep` over the benchmark scenario, as a user runs it: a child process that
/// opens the two caches, aligns them, builds the first-passage index, runs one
/// simulation per (entry, exit) and prices it for each fee, and writes one CSV row per
/// cell. Timed from spawn to exit; peak memory as GNU time reports it (`spawnMeasuringPeak`).
struct SweepMeasurement {
  struct Run {
    var cells: Int
    var jobs: Int
    var seconds: [Double]
    var peakMemoryBytes: Int
  }

  var runs: [Run]
  /// Trades and PnL of every cell of the full grid, in grid order.
  var trades: [Int]
  var pnl: [Double]

  static func run(_ data: ConvergenceData, arbkit: String, folder: String, repeats: Int) throws -> SweepMeasurement {
    let out = "\(folder)/sweep_\(data.rows).csv"
    func sweep(entries: Int, jobs: Int, grid: [String]? = nil) throws -> (seconds: Double, peak: Int) {
      let arguments = [arbkit, "sweep", data.scenario] + (grid ?? data.grid(entries: entries)) + ["--jobs", "\(jobs)", "--quiet", "--out", out]
      var peak = 0
      let seconds = try timed { peak = try spawnMeasuringPeak(arguments, stdout: "/dev/null") }
      return (seconds, peak)
    }
    var runs: [Run] = []
    let small = try sweep(entries: 2, jobs: 2)
    for jobs in [1, 2] {
      FileHandle.standardError.write(Data("measuring arbkit sweep, 1000 cells, --jobs \(jobs)\n".utf8))
      var seconds: [Double] = [], peak = 0
      for _ in 0..<repeats {
        let one = try sweep(entries: ConvergenceData.entries.count, jobs: jobs)
        seconds.append(one.seconds)
        peak = max(peak, one.peak)
      }
      runs.append(Run(cells: 1000, jobs: jobs, seconds: seconds, peakMemoryBytes: peak))
    }
    runs.append(Run(cells: 2 * ConvergenceData.exits.count * ConvergenceData.legTwoFees.count, jobs: 2, seconds: [small.seconds], peakMemoryBytes: small.peak))
    // One cell: what every sweep pays once (start, open the caches, align, index) plus one simulation.
    var one: [Double] = [], onePeak = 0
    for _ in 0..<repeats {
      let run = try sweep(entries: 1, jobs: 1, grid: ["--grid", "strategy.entry=\(ConvergenceData.entry)"])
      one.append(run.seconds)
      onePeak = max(onePeak, run.peak)
    }
    runs.append(Run(cells: 1, jobs: 1, seconds: one, peakMemoryBytes: onePeak))
    // The last full run's rows: columns entry, exit, fee, trades, wins, pnl, …
    _ = try sweep(entries: ConvergenceData.entries.count, jobs: 2)
    let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").dropFirst().map {
      $0.split(separator: ",", omittingEmptySubsequences: false)
    }
    return SweepMeasurement(runs: runs, trades: rows.map { Int($0[3]) ?? -1 }, pnl: rows.map { Double($0[5]) ?? .nan })
  }
}
