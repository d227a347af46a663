import Foundation
import TestSupport
import Testing

/// Extreme prices and amounts through every output format of backtest, sweep, premium and
/// kimchi: each run refuses its input (64 a scenario value, 65 data whose figures overflow)
/// or prints only finite numbers, and never traps.
@Suite("Finite numbers in every output")
struct FiniteOutputTests {
  /// The `inf`, `infinity` and `nan` words of `text`, in any case and with any sign.
  static func nonFiniteWords(_ text: String) -> [String] {
    text.split(whereSeparator: { !$0.isLetter }).map { $0.lowercased() }.filter { ["inf", "infinity", "nan"].contains($0) }
  }

  /// Expects a defined outcome of `run` and its `files`: success, or exit 64 or 65 with a
  /// message, and no `inf`/`nan` in any output.
  static func expectFinite(_ run: RunResult, files: [String] = [], _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect([.success, .usage, .dataError].contains(run.code), "\(comment): \(run.errors)", sourceLocation: sourceLocation)
    if run.code == .dataError { #expect(run.errors.contains("is not a finite number"), "\(comment): \(run.errors)", sourceLocation: sourceLocation) }
    #expect(nonFiniteWords(run.output).isEmpty, "\(comment): \(run.output)", sourceLocation: sourceLocation)
    for file in files {
      let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
      #expect(nonFiniteWords(text).isEmpty, "\(comment): \(file): \(text)", sourceLocation: sourceLocation)
    }
  }

  static let header = "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n"

  /// A leg in the native CSV: one quote a second from 1 s, at `prices` in turn (bid = ask).
  @discardableResult
  static func leg(_ folder: TemporaryFolder, _ venue: String, market: String = "spot", symbol: String = "X", _ prices: [Double]) -> String {
    folder.write("\(venue).csv", header + prices.enumerated().map { "\(($0 + 1) * 1_000_000),\(venue),\(market),\(symbol),\($1),\($1),1,1,\n" }.joined())
  }

  /// Leg `aa` alternating `high` and `low` (the premium opens and closes), leg `bb` at `low`.
  static func legs(_ folder: TemporaryFolder, high: Double, low: Double) -> (String, String) {
    (leg(folder, "aa", (0..<6).map { $0 % 2 == 0 ? high : low }), leg(folder, "bb", Array(repeating: low, count: 6)))
  }

  /// A convergence scenario on `legs(high:low:)`, without fees.
  static func scenario(_ folder: TemporaryFolder, high: Double, low: Double) -> String {
    let (a, b) = legs(folder, high: high, low: low)
    return folder.write(
      "scenario.json",
      """
      {
        "legs": [
          { "venue": "aa", "market": "spot", "symbol": "X", "files": ["\(a)"] },
          { "venue": "bb", "market": "spot", "symbol": "X", "files": ["\(b)"] }
        ],
        "strategy": { "mode": "convergence", "entry": 0.5, "exit": 0, "notional": 10000 },
        "costs": { "fees": { "aa": 0, "bb": 0 } }
      }
      """)
  }

  static let extremes: [(high: Double, low: Double)] = [
    (1e170, 1), (1, .leastNonzeroMagnitude), (1e300, 1e-300), (1.7e308, 1), (1e-300, .leastNonzeroMagnitude),
  ]

  @Test("premium: every format of extreme prices is finite or refused", arguments: extremes)
  func premium(c: (high: Double, low: Double)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (a, b) = Self.legs(folder, high: c.high, low: c.low)
    for format in ["table", "csv", "json"] {
      let series = folder.path + "/series-\(format).csv"
      let run = arbkit("premium", "--leg", a, "--leg", b, "--format", format, "--series", series)
      Self.expectFinite(run, files: [series], "premium \(c) \(format)")
    }
  }

  @Test("rolling: every format of extreme prices is finite or refused", arguments: extremes)
  func rolling(c: (high: Double, low: Double)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (a, b) = Self.legs(folder, high: c.high, low: c.low)
    for format in ["table", "csv", "json"] {
      let series = folder.path + "/rolling-\(format).csv"
      let run = arbkit("rolling", "--leg", a, "--leg", b, "--window", "2", "--format", format, "--out", series)
      Self.expectFinite(run, files: [series], "rolling \(c) \(format)")
    }
  }

  @Test("premium: prices 1e170 against 1 overflow the statistics: exit 65 naming the figure")
  func premiumOverflow() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (a, b) = Self.legs(folder, high: 1e170, low: 1)
    for format in ["table", "csv", "json"] {
      let run = arbkit("premium", "--leg", a, "--leg", b, "--format", format)
      #expect(run.code == .dataError && run.output.isEmpty, "\(format): \(run.errors)")
      #expect(run.errors.contains("arbkit: error: mid.std is not a finite number but an overflow"), "\(run.errors)")
    }
  }

  static let kimchiRates: [Double] = [.leastNonzeroMagnitude, 1e-300, 1e300]

  @Test("kimchi: every format of an extreme FX rate is finite or refused", arguments: kimchiRates)
  func kimchi(rate: Double) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let krw = Self.leg(folder, "upbit", symbol: "KRW-BTC", [1.4e8, 1.41e8, 1.4e8, 1.41e8, 1.4e8, 1.41e8])
    let usd = Self.leg(folder, "bitstamp", symbol: "btcusd", Array(repeating: 1e5, count: 6))
    let fx = Self.leg(folder, "fx", market: "fx", symbol: "USDKRW", Array(repeating: rate, count: 6))
    for format in ["table", "json"] {
      let series = folder.path + "/kimchi-\(format).csv"
      let run = arbkit("kimchi", "--krw", krw, "--usd", usd, "--fx", fx, "--format", format, "--series", series)
      Self.expectFinite(run, files: [series], "kimchi \(rate) \(format)")
      if rate == .leastNonzeroMagnitude { #expect(run.code == .dataError, "\(run.errors)") }
    }
  }

  @Test("backtest and report: the table, the JSON, every CSV and the report of extreme prices are finite or refused", arguments: extremes)
  func backtest(c: (high: Double, low: Double)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder, high: c.high, low: c.low)
    for format in ["table", "json"] {
      let files = ["trades", "equity"].map { folder.path + "/\($0)-\(format).csv" }
      let run = arbkit("backtest", path, "--format", format, "--trades", files[0], "--equity", files[1])
      Self.expectFinite(run, files: files, "backtest \(c) \(format)")
    }
    let report = arbkit("report", path, "--out", folder.path + "/report")
    Self.expectFinite(report, files: ["report.md", "report.html"].map { folder.path + "/report/" + $0 }, "report \(c)")
  }

  @Test("backtest: prices of 5e-324 give quantities that overflow: exit 65, nothing written")
  func backtestOverflow() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder, high: 1, low: .leastNonzeroMagnitude)
    let trades = folder.path + "/trades.csv"
    let run = arbkit("backtest", path, "--trades", trades)
    #expect(run.code == .dataError && run.errors.contains("is not a finite number"), "\(run.errors)")
    #expect(!FileManager.default.fileExists(atPath: trades))
  }

  @Test("sweep: CSV, JSON and --out with the ranking of extreme prices are finite, the overflowed figures empty and counted", arguments: extremes)
  func sweep(c: (high: Double, low: Double)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder, high: c.high, low: c.low)
    let grid = ["--grid", "strategy.entry=0.5,1", "--grid", "strategy.notional=1000:3000:1000", "--quiet"]
    Self.expectFinite(arbkit(["sweep", path] + grid), "sweep \(c) csv")
    Self.expectFinite(arbkit(["sweep", path] + grid + ["--format", "json"]), "sweep \(c) json")
    let out = folder.path + "/sweep.csv"
    let run = arbkit(["sweep", path] + grid + ["--out", out])
    Self.expectFinite(run, files: [out], "sweep \(c) --out")
    #expect(run.code == .success && run.output.contains("Top"), "\(run.errors)")
  }

  @Test("sweep: cells whose pnl overflows leave it empty and say how many")
  func sweepOverflowCounted() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder, high: 1, low: .leastNonzeroMagnitude)
    let run = arbkit("sweep", path, "--grid", "strategy.entry=0.5,1", "--quiet", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.errors.contains("arbkit: warning: figures that are not finite numbers"), "\(run.errors)")
    #expect(run.errors.contains("pnl (2 cells)"), "\(run.errors)")
    let cells = try #require(run.object["cells"] as? [[String: Any]])
    #expect(cells.count == 2 && cells.allSatisfy { $0["pnl"] is NSNull })
  }

  @Test("board, correlate, profile and candles: every format of extreme prices is finite or refused", arguments: extremes)
  func analysisCommands(c: (high: Double, low: Double)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (a, b) = Self.legs(folder, high: c.high, low: c.low)
    let third = Self.leg(folder, "cc", (0..<6).map { $0 % 3 == 0 ? c.high : c.low })
    for format in ["table", "csv", "json"] {
      Self.expectFinite(arbkit("board", a, b, "--format", format), "board \(c) \(format)")
      Self.expectFinite(arbkit("correlate", "--leg", a, "--leg", b, "--leg", third, "--format", format), "correlate \(c) \(format)")
      Self.expectFinite(arbkit("profile", "--leg", a, "--leg", b, "--format", format), "profile \(c) \(format)")
    }
    for source in ["mid", "premium"] {
      for format in ["csv", "json"] {
        let out = folder.path + "/candles-\(source)-\(format)"
        let legs = source == "mid" ? ["--leg", a] : ["--leg", a, "--leg", b]
        let run = arbkit(["candles"] + legs + ["--every", "2s", "--format", format, "--out", out])
        Self.expectFinite(run, files: [out], "candles \(c) \(source) \(format)")
      }
    }
  }

  @Test("basis: every format of extreme prices is finite or refused", arguments: extremes)
  func basis(c: (high: Double, low: Double)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let spot = Self.leg(folder, "binance", symbol: "BTCUSDT", Array(repeating: c.low, count: 6))
    let perp = Self.leg(folder, "bybit", market: "linear", symbol: "BTCUSDT", (0..<6).map { $0 % 2 == 0 ? c.high : c.low })
    for format in ["table", "json"] {
      let series = folder.path + "/basis-\(format).csv"
      let run = arbkit("basis", "--spot", spot, "--perp", perp, "--format", format, "--series", series)
      Self.expectFinite(run, files: [series], "basis \(c) \(format)")
    }
  }
}
