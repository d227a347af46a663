import ArbCLI
import Foundation
import Testing
import TestSupport

/// `--offset VENUE=±DURATION`: a venue's times move before alignment, so the as-of
/// matching changes exactly as the shifted times say.
@Suite("Clock offsets (--offset)")
struct OffsetFlagTests {
  static let ms: Int64 = 1000
  static let t0: Int64 = 1_700_000_000_000_000

  /// Tardis quotes of one venue at `times` (ms after t0); the bid of row k is 100 + k.
  static func write(_ folder: TemporaryFolder, _ venue: String, _ times: [Int64]) -> String {
    var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    for (k, t) in times.enumerated() {
      let ts = t0 + t * ms
      text += "\(venue),BTCUSDT,\(ts),\(ts),1,\(101 + k),\(100 + k),1\n"
    }
    return folder.write("\(venue).csv", text)
  }

  /// `ts_us` and each leg's bid of every row of a `--series` file.
  static func series(_ path: String) throws -> [(time: Int64, bid1: Double, bid2: Double)] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
      let f = line.split(separator: ",", omittingEmptySubsequences: false)
      return (Int64(f[0])!, Double(f[5])!, Double(f[7])!)
    }
  }

  @Test(
    "an offset moves a venue's quotes on the union clock, and the as-of match with them",
    arguments: [
      // binance at 0, 100, 200 ms; bybit at 50, 150 ms (bids 100, 101, 102 and 100, 101).
      ("", [(50, 100.0, 100.0), (100, 101, 100), (150, 101, 101), (200, 102, 101)]),
      // bybit +60 ms: at 110, 210 → clock from 110; at 200 bybit's quote in force is still the one moved to 110.
      ("bybit=+60ms", [(110, 101, 100), (200, 102, 100), (210, 102, 101)]),
      // bybit +50 ms lands exactly on binance's times: a quote at t is in force at t.
      ("bybit=+50ms", [(100, 101, 100), (200, 102, 101)]),
      // binance −60 ms: at −60, 40, 140 → clock from 50.
      ("binance=-60ms", [(50, 101, 100), (140, 102, 100), (150, 102, 101)]),
    ] as [(String, [(Int64, Double, Double)])])
  func asOf(c: (offset: String, expected: [(Int64, Double, Double)])) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let a = Self.write(folder, "binance", [0, 100, 200]), b = Self.write(folder, "bybit-spot", [50, 150])
    let seriesPath = folder.path + "/series.csv"
    var arguments = ["premium", "--leg", a, "--leg", b, "--series", seriesPath, "--format", "json"]
    if !c.offset.isEmpty { arguments += ["--offset", c.offset] }
    let run = arbkit(arguments)
    #expect(run.code == .success, "\(run.errors)")
    let rows = try Self.series(seriesPath)
    #expect(rows.map(\.time) == c.expected.map { Self.t0 + $0.0 * Self.ms })
    #expect(rows.map(\.bid1) == c.expected.map(\.1) && rows.map(\.bid2) == c.expected.map(\.2))
    let offsets = try #require(run.object["offsets_us"] as? [String: Any])
    #expect(offsets.count == (c.offset.isEmpty ? 0 : 1))
  }

  @Test("board: the offset applies to every leg of the venue; bad offsets are usage errors")
  func board() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    _ = Self.write(folder, "binance", [0, 100, 200])
    _ = Self.write(folder, "bybit-spot", [50, 150])
    let plain = arbkit("board", folder.path, "--format", "json")
    let moved = arbkit("board", folder.path, "--offset", "bybit=+50ms", "--format", "json")
    let points = { (run: RunResult) in ((run.object["instruments"] as? [[String: Any]])?.first?["points"] as? Int) }
    // Clock from the second venue's first quote: 50, 100, 150, 200 ms; moved: 100, 200 ms.
    #expect(points(plain) == 4 && points(moved) == 2)
    #expect((moved.object["offsets_us"] as? [String: Any])?["bybit"] as? Int == 50_000)
    let unknown = arbkit("board", folder.path, "--offset", "okx=+1s")
    #expect(unknown.code == .usage && unknown.errors.contains("--offset names venue 'okx', which has no leg (legs are on binance, bybit)"))
    for bad in ["bybit", "bybit=", "bybit=fast", "=1s"] {
      #expect(arbkit("board", folder.path, "--offset", bad).errors.contains("invalid value for '--offset'"), "\(bad)")
    }
    #expect(arbkit("board", folder.path, "--offset", "bybit=1s", "--offset", "bybit=2s").errors.contains("names venue 'bybit' twice"))
  }
}
