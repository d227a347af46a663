#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbAnalytics
import ArbCore
import ArbIngest
import Foundation

/// Medians of ArbKit's stages on the benchmark files, and the peak memory of a full
/// `arbkit premium` run in a child process.
struct SwiftMeasurement {
  var bytes: Int
  var rows: Int
  var points: Int
  var validPoints: Int
  var ingest: [Double]
  var alignPremium: [Double]
  /// The same statistics the numpy peer computes: one series, moments, quantiles, bands.
  var statistics: [Double]
  /// Everything `arbkit premium` reports (mid and exec, bands, half-life).
  var fullAnalysis: [Double]
  var peakMemoryBytes: Int
  var columnBytes: Int
  var check: [String: Double]

  static func run(files: [String], repeats: Int, arbkit: String) throws -> SwiftMeasurement {
    let peak = try peakMemory(arbkit: arbkit, files: files)
    let bytes = files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
    var ingest: [Double] = [], align: [Double] = [], stats: [Double] = [], full: [Double] = []
    var legs: [QuoteSeries] = []
    var premium: PremiumSeries? = nil
    var check: [String: Double] = [:]
    let legSpecs = try files.map { try LegSpec(parsing: $0) }
    for _ in 0..<repeats {
      legs = []
      ingest.append(try timed { legs = try LoadedLegs.load(legSpecs, options: IngestOptions()).map(\.series) })
      align.append(try timed { premium = try PremiumSeries(legs: legs, options: AlignmentOptions(maxStale: 5_000_000)) })
      let p = premium!
      stats.append(
        timed {
          // One series, as the numpy peer: moments, quantiles, bands (and half-life).
          let side = [Int8](repeating: 1, count: p.count)  // the max premium has one sign
          let summary = SeriesSummary(premium: p, column: p.mid, side: side, oneSided: true)
          let s = summary.statistics, band = summary.bands[1]
          check = [
            "count": Double(s.count), "mean": s.mean ?? .nan, "std": s.std ?? .nan, "q50": s.quantiles[3],
            "share_events_0.1": band.shareEvents ?? .nan, "episodes_0.1": Double(band.episodes),
          ]
        })
      full.append(timed { _ = PremiumAnalysis(premium: p) })
    }
    return SwiftMeasurement(
      bytes: bytes, rows: legs.reduce(0) { $0 + $1.count }, points: premium!.count, validPoints: premium!.validPoints,
      ingest: ingest, alignPremium: align, statistics: stats, fullAnalysis: full, peakMemoryBytes: peak,
      columnBytes: legs.reduce(0) { $0 + $1.columnBytes }, check: check)
  }

  /// Peak resident memory of `arbkit premium` over the files.
  static func peakMemory(arbkit: String, files: [String]) throws -> Int {
    try spawnMeasuringPeak([arbkit, "premium", "--max-stale", "5s", "--format", "json"] + files.flatMap { ["--leg", $0] }, stdout: "/dev/null")
  }
}

/// Runs `arguments` under GNU time (`/usr/bin/time`) and returns the command's peak
/// resident memory in bytes. A child spawned by this process directly would report at
/// least this process's own peak: Linux carries the parent's high-water mark into the
/// child's `ru_maxrss` at exec. time forks the command from its own small process.
func spawnMeasuringPeak(_ arguments: [String], stdout: String) throws -> Int {
  let file = NSTemporaryDirectory() + "/arbkit-bench-peak-\(getpid())"
  defer { unlink(file) }
  _ = try spawn(["/usr/bin/time", "-f", "%M", "-o", file] + arguments, stdout: stdout)
  let text = try String(contentsOfFile: file, encoding: .utf8)
  guard let kilobytes = text.split(separator: "\n").last.flatMap({ Int($0) }) else { throw BenchError("no peak memory from /usr/bin/time: '\(text)'") }
  return kilobytes * 1024
}

/// Runs `arguments` (the program's path first) with stdout to `stdout`, waits for it
/// and returns its resource usage. `posix_spawn`, not Foundation's `Process`, whose
/// start costs tens of milliseconds.
func spawn(_ arguments: [String], stdout: String) throws -> rusage {
  var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  defer { for pointer in argv { free(pointer) } }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY, 0)
  defer { posix_spawn_file_actions_destroy(&actions) }
  var pid: pid_t = 0
  guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else { throw BenchError("cannot start \(arguments[0])") }
  var status: Int32 = 0
  var usage = rusage()
  guard wait4(pid, &status, 0, &usage) == pid, status == 0 else { throw BenchError("\(arguments[0]) failed (status \(status))") }
  return usage
}

func timed(_ body: () throws -> Void) rethrows -> Double {
  var start = timespec(), end = timespec()
  clock_gettime(CLOCK_MONOTONIC, &start)
  try body()
  clock_gettime(CLOCK_MONOTONIC, &end)
  return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let n = sorted.count
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
}
