import Foundation
import TestSupport
import Testing

/// Times at the ends of `Int64` µs, and durations that push normal times past them:
/// every command reports the overflow (65 when the data's times cause it, 64 when a
/// flag or scenario value does) and never traps.
@Suite("Time arithmetic at the ends of the range")
struct TimeRangeCommandTests {
  static let header = "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n"
  /// The first time `iso8601` showed before it was made total, and a time just below
  /// `Int64.max` (which the clock keeps for "no next quote").
  static let lowest: Int64 = -9_223_372_022_400_000_000
  static let highest: Int64 = 9_223_372_036_854_775_806

  /// A native CSV leg of venue `venue` quoting at `times` (ask rising, so premiums vary).
  static func leg(_ folder: TemporaryFolder, _ venue: String, _ times: [Int64]) -> String {
    let rows = times.enumerated().map { k, t in "\(t),\(venue),spot,BTCUSDC,100,\(101 + k),1,1,100\n" }
    return folder.write("\(venue)-\(times[0]).csv", header + rows.joined())
  }

  /// Legs of venues aa, bb (and cc) quoting at `times`.
  static func legs(_ folder: TemporaryFolder, _ times: [Int64], count: Int = 2) -> [String] {
    ["aa", "bb", "cc"].prefix(count).map { leg(folder, $0, times) }
  }

  static let wide = [lowest, highest]
  static let high = [highest - 3_600_000_000, highest]
  static let low = [lowest, lowest + 3_600_000_000]
  /// Times of the year 9892: normal for ISO-8601 text, but 106 000 000 days later is past
  /// `Int64.max` (parsed durations stay below 9.2e18 µs, so no duration does that to
  /// the times of today's recordings).
  static let late: [Int64] = [250_000_000_000_000_000, 250_000_003_600_000_000]

  @Test func `premium and correlate on legs spanning more than a duration exit 65, the board notes it`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.legs(folder, Self.wide, count: 3)
    let message = "times span from \(Self.lowest) µs to \(Self.highest) µs, longer than a duration can hold"
    let runs = [arbkit("premium", "--leg", legs[0], "--leg", legs[1]), arbkit("correlate", "--leg", legs[0], "--leg", legs[1], "--leg", legs[2])]
    for run in runs {
      #expect(run.code == .dataError, "\(run.errors)")
      #expect(run.errors.contains(message), "\(run.errors)")
    }
    // The board reports an instrument it cannot align in its notes, as for legs that never overlap.
    let board = arbkit("board", Self.leg(folder, "binanceus", Self.wide), Self.leg(folder, "kraken", Self.wide))
    #expect(board.code == .success, "\(board.errors)")
    #expect(board.output.contains("BTC/USDC spot: " + message), "\(board.output)")
  }

  @Test func `a grid near the last time steps to its end`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.legs(folder, Self.high)
    let run = arbkit("premium", "--leg", legs[0], "--leg", legs[1], "--grid", "1h", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    // 294247-01-10T02:00 and 03:00: the next hour is past Int64.max.
    #expect(run.object["points"] as? Int == 2)
  }

  @Test func `a grid of more points than the limit exits 64 before allocating`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let day: Int64 = 86_400_000_000
    let legs = Self.legs(folder, [1_600_000_000_000_000, 1_600_000_000_000_000 + 3 * 365 * day])
    let run = arbkit("premium", "--leg", legs[0], "--leg", legs[1], "--grid", "1s")
    #expect(run.code == .usage)
    #expect(run.errors.contains("a grid of 1s from 2020-09-13T12:26:40Z to 2023-09-13T12:26:40Z has 94608001 points, more than the limit of 20000000"))
    #expect(run.errors.contains("use a coarser grid or a shorter range of data"))
    let fine = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--grid", "1us")
    #expect(fine.code == .usage)
    #expect(fine.errors.contains("a grid of 1us from 2023-03-01T00:01:00Z to 2023-03-22T00:00:00Z has 1814340000001 points"), "\(fine.errors)")
  }

  @Test func `an offset past the last time exits 65, one too long for normal data 64`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.legs(folder, Self.high)
    let data = arbkit("premium", "--leg", legs[0], "--leg", legs[1], "--offset", "bb=+1d")
    #expect(data.code == .dataError)
    #expect(data.errors.contains("clock offset +1d from time \(Self.high[0]) µs leaves the range of times"), "\(data.errors)")
    let late = Self.legs(folder, Self.late)
    let setting = arbkit("premium", "--leg", late[0], "--leg", late[1], "--offset", "bb=+106000000d")
    #expect(setting.code == .usage)
    #expect(setting.errors.contains("clock offset +106000000d from time \(Self.late[0]) µs leaves the range of times"), "\(setting.errors)")
  }

  @Test(arguments: ["UTC", "Asia/Seoul"])
  func `candles and profile near the last time exit 65`(zone: String) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.legs(folder, Self.high)
    let candles = arbkit("candles", "--leg", legs[0], "--leg", legs[1], "--every", "1h", "--tz", zone)
    #expect(candles.code == .dataError, "\(candles.errors)")
    #expect(candles.errors.contains("candle bucket"), "\(candles.errors)")
    let profile = arbkit("profile", "--leg", legs[0], "--leg", legs[1], "--tz", zone)
    #expect(profile.code == .dataError, "\(profile.errors)")
    #expect(profile.errors.contains("hour in the time zone"), "\(profile.errors)")
  }

  @Test func `rolling over a time window before the first time exits 65`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.legs(folder, Self.low)
    let run = arbkit("rolling", "--leg", legs[0], "--leg", legs[1], "--window", "1d")
    #expect(run.code == .dataError, "\(run.errors)")
    #expect(run.errors.contains("rolling window -1d from time \(Self.lowest) µs leaves the range of times"), "\(run.errors)")
  }

  @Test func `a quote at Int64.max is refused, not dropped from the series`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.legs(folder, [Self.highest, .max])
    let run = arbkit("premium", "--leg", legs[0], "--leg", legs[1], "--series", folder.path + "/series.csv")
    #expect(run.code == .dataError)
    #expect(run.errors.contains("a quote at 9223372036854775807 µs (Int64.max)"), "\(run.errors)")
  }

  @Test func `inspect shows any Int64 time`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("min.csv", Self.header + "-9223372036854775808,kraken,spot,BTCUSDC,100,101,1,1,100\n")
    let run = arbkit("inspect", path, "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.output.contains("-290308-12-21T19:59:05.224192Z"), "\(run.output)")
  }

  /// A convergence scenario on `legs` with `extra` keys in `costs`, `strategy` and `journal`.
  static func scenario(_ folder: TemporaryFolder, _ legs: [String], costs: String = "", strategy: String = "", journal: String = "") -> String {
    folder.write(
      "scenario.json",
      """
      {
        "legs": [
          { "venue": "aa", "market": "spot", "symbol": "BTCUSDC", "files": ["\(legs[0])"] },
          { "venue": "bb", "market": "spot", "symbol": "BTCUSDC", "files": ["\(legs[1])"] }
        ],
        "strategy": { "mode": "convergence", "entry": 0.5, "exit": 0, "notional": 10000\(strategy) },
        "costs": { "fees": { "aa": 0, "bb": 0 }\(costs) },
        "journal": { "tz": "\(journal.isEmpty ? "UTC" : journal)" }
      }
      """)
  }

  static let scenarioCases: [(costs: String, strategy: String, journal: String, message: String)] = [
    (", \"latency\": \"1d\"", "", "", "fill latency +1d from time"),
    (", \"venue_latency\": { \"bb\": \"1d\" }", "", "", "fill latency +1d from time"),
    ("", ", \"cooldown\": \"1d\"", "", "cooldown +1d from time"),
    ("", ", \"max_holding\": \"1d\"", "", "max holding +1d from time"),
    ("", "", "Asia/Seoul", "journal day +9h from time"),
  ]

  @Test("backtest, sweep and report near the last time exit 65", arguments: scenarioCases)
  func scenarioNearTheEnd(c: (costs: String, strategy: String, journal: String, message: String)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder, Self.legs(folder, Self.high), costs: c.costs, strategy: c.strategy, journal: c.journal)
    for command in ["backtest", "sweep", "report"] {
      var arguments = [command, path]
      if command == "sweep" { arguments += ["--grid", "strategy.entry=0.5,0.6", "--quiet", "--out", folder.path + "/sweep.csv"] }
      if command == "report" { arguments += ["--out", folder.path + "/report"] }
      let run = arbkit(arguments)
      #expect(run.code == .dataError, "\(command): \(run.errors)")
      #expect(run.errors.contains(c.message), "\(command): \(run.errors)")
    }
  }

  @Test func `a report near the last time exits 65 (time-of-day hours)`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder, Self.legs(folder, Self.high))
    let run = arbkit("report", path, "--out", folder.path + "/report")
    #expect(run.code == .dataError, "\(run.errors)")
    #expect(run.errors.contains("hour in the time zone"), "\(run.errors)")
  }

  @Test func `a latency or cooldown too long for the data's years exits 64`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder, Self.legs(folder, Self.late))
    for (key, message) in [("strategy.cooldown", "cooldown +106000000d"), ("costs.latency", "fill latency +106000000d")] {
      let run = arbkit("backtest", path, "--set", key + "=106000000d")
      #expect(run.code == .usage, "\(run.errors)")
      #expect(run.errors.contains(message + " from time \(Self.late[1]) µs leaves the range of times"), "\(run.errors)")
    }
  }

  @Test func `a sweep checks every cell's durations, not only the first's`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let day: Int64 = 86_400_000_000
    let path = Self.scenario(folder, Self.legs(folder, [Int64.max - 3 * day, Int64.max - 2 * day]))
    let run = arbkit("sweep", path, "--grid", "costs.latency=1s,3d", "--quiet", "--out", folder.path + "/sweep.csv")
    #expect(run.code == .dataError, "\(run.errors)")
    #expect(run.errors.contains("fill latency +3d from time \(Int64.max - 2 * day) µs"), "\(run.errors)")
  }

  @Test(arguments: ["2025-03-28T08:00:00+25:00", "2025-03-28T08:00:00+99:99", "2025-03-28T08:00:00-15:00"])
  func `an expiry with a zone offset no zone has is a usage error`(expiry: String) {
    expectUsageError(["basis", "--spot", DemoPair.binance, "--future", DemoPair.kraken, "--expiry", expiry], "invalid value for '--expiry'")
  }

  @Test func `a backtest whose journal would cover more than a million days exits 65`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let day: Int64 = 86_400_000_000
    let path = Self.scenario(folder, Self.legs(folder, [0, 1_000_000 * day]))
    let run = arbkit("backtest", path)
    #expect(run.code == .dataError, "\(run.errors)")
    #expect(run.errors.contains("cover 1000001 days, more than the limit of 1000000 days of a daily journal"), "\(run.errors)")
  }
}
