import Foundation
import TestSupport
import Testing

/// `spec_set` of a scenario's legs, `fx` and `funding`: column-spec assignments such as
/// `time.shift=5m`, so that a candle's close, stamped at the candle's open by ccxt and
/// Investing.com, is stamped at its end and no fill sees it before it was known.
@Suite("Scenario spec_set")
struct ScenarioSpecSetTests {
  /// 2025-01-01 00:00 UTC and five minutes, in µs.
  static let t0: Int64 = 1_735_689_600_000_000, step: Int64 = 300_000_000

  /// Two legs of 5-minute ccxt candles (close stamped at the open): binance closes at
  /// 100 throughout, okx at 101 in the first candle, then 100.
  static func scenario(_ folder: TemporaryFolder, specSet: String?) -> String {
    func candles(_ closes: [Double]) -> String {
      "timestamp,open,high,low,close,volume\n"
        + closes.enumerated().map { k, close in "2025-01-01 00:\(String(format: "%02d", 5 * k)):00,\(close),\(close),\(close),\(close),1\n" }.joined()
    }
    _ = folder.write("binance.csv", candles([100, 100, 100]))
    _ = folder.write("okx.csv", candles([101, 100, 100]))
    let format = Repository.data("formats/ccxt-ohlcv.json")
    let set = specSet.map { ", \"spec_set\": [\"\($0)\"]" } ?? ""
    return folder.write(
      "candles.json",
      """
      { "legs": [ { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["binance.csv"], "format": "\(format)"\(set) },
                  { "venue": "okx", "market": "spot", "symbol": "BTC-USDT", "files": ["okx.csv"], "format": "\(format)"\(set) } ],
        "strategy": { "mode": "convergence", "entry": 0.5, "exit": 0, "notional": 1000 },
        "costs": { "fees": { "binance": 0, "okx": 0 } } }
      """)
  }

  /// Entry and exit times of the trades of `backtest --trades`.
  static func trades(_ path: String, in folder: TemporaryFolder, _ extra: [String] = []) throws -> [(entry: Int64, exit: Int64)] {
    let out = folder.path + "/trades.csv"
    let run = arbkit(["backtest", path, "--trades", out] + extra)
    #expect(run.code == .success, "\(run.errors)")
    return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
      let fields = line.split(separator: ",")
      return (Int64(fields[0])!, Int64(fields[1])!)
    }
  }

  @Test("time.shift=5m stamps each close at its candle's end: the fill no longer sees it at the open")
  func shiftMovesFills() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // As recorded: the 1 % premium of the first candle is traded at 00:00, before its
    // close (00:05) was known.
    let asRecorded = try Self.trades(Self.scenario(folder, specSet: nil), in: folder)
    #expect(asRecorded.map(\.entry) == [Self.t0] && asRecorded.map(\.exit) == [Self.t0 + Self.step])
    // Shifted: every time moves by 5 minutes; the entry is at the first candle's end.
    let shifted = try Self.trades(Self.scenario(folder, specSet: "time.shift=5m"), in: folder)
    #expect(shifted.map(\.entry) == [Self.t0 + Self.step] && shifted.map(\.exit) == [Self.t0 + 2 * Self.step])
    // The same from the shell, on the scenario without spec_set.
    let set = try Self.trades(
      Self.scenario(folder, specSet: nil), in: folder, ["--set", "legs.0.spec_set=time.shift=5m", "--set", "legs.1.spec_set=time.shift=5m"])
    #expect(set.map(\.entry) == shifted.map(\.entry))
  }

  @Test("the shipped kimchi scenario stamps candle closes at their end and the daily rate after its day")
  func shippedKimchi() throws {
    let text = try String(contentsOfFile: Repository.data("scenarios/upbit-binance-kimchi.json"), encoding: .utf8)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    let legs = try #require(object["legs"] as? [[String: Any]])
    #expect(legs.map { $0["spec_set"] as? [String] } == [["time.shift=5m"], ["time.shift=5m"]])
    #expect((object["fx"] as? [String: Any])?["spec_set"] as? [String] == ["time.shift=1d"])
  }

  static let mistakes: [(set: String, message: String)] = [
    ("legs.0.spec_set=time.shift=soon", "legs.0.spec_set: invalid time.shift, expected a duration such as 1m, was 'soon'"),
    ("legs.1.spec_set=time", "legs.1.spec_set: override 'time' is not KEY=VALUE"),
  ]

  @Test("a spec_set that gives no valid column spec is a scenario error (exit 64)", arguments: mistakes)
  func mistake(c: (set: String, message: String)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    expectScenarioCommandsRefuse(Self.scenario(folder, specSet: nil), ["--set", c.set], in: folder, c.message)
  }

  @Test("spec_set on a named format is refused: it has no column spec")
  func namedFormat() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    expectScenarioCommandsRefuse(
      Self.scenario(folder, specSet: nil), ["--set", "legs.0.format=tardis.quotes", "--set", "legs.0.spec_set=time.shift=1m"], in: folder,
      "legs.0.spec_set sets column-spec fields, but legs.0.format is the named format 'tardis.quotes', not a column spec")
  }
}
