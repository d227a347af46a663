import Foundation
import TestSupport
import Testing

/// A scenario's `fx`: the legs of one venue divided by an FX rate before alignment, on a
/// hand-made case and on the shipped Upbit/Binance kimchi scenario.
@Suite("Scenario FX leg (fx)")
struct ScenarioFXTests {
  static let kimchi = Repository.data("scenarios/upbit-binance-kimchi.json")
  static let ccxt = Repository.data("formats/ccxt-ohlcv.json")

  /// Upbit KRW and Binance USDT closes, and a KRW-per-USD rate of 1400 from 00:00 that is
  /// stale after 7 minutes.
  static func scenario(_ folder: TemporaryFolder, fx: String? = nil) -> String {
    let upbit = folder.write(
      "upbit.csv",
      "timestamp,open,high,low,close,volume\n2025-07-25 23:55:00,0,0,0,139000000,1\n2025-07-26 00:00:00,0,0,0,140000000,1\n"
        + "2025-07-26 00:05:00,0,0,0,140700000,1\n2025-07-26 00:10:00,0,0,0,141400000,1\n")
    let binance = folder.write(
      "binance.csv",
      "timestamp,open,high,low,close,volume\n2025-07-26 00:00:00,0,0,0,101000,1\n2025-07-26 00:05:00,0,0,0,100400,1\n2025-07-26 00:10:00,0,0,0,100000,1\n")
    _ = folder.write("usdkrw.csv", "time,rate\n2025-07-26 00:00:00,1400\n")
    _ = folder.write(
      "rate.json", #"{ "kind": "fx", "header": true, "time": { "column": "time", "form": "iso8601", "zone": "UTC" }, "price": "rate", "symbol": "USDKRW" }"#)
    let fxObject = fx ?? #"{ "files": ["usdkrw.csv"], "format": "rate.json", "max_stale": "7m", "converts": "upbit" }"#
    return folder.write(
      "kimchi.json",
      """
      {
        "legs": [
          { "venue": "upbit", "market": "spot", "symbol": "KRW-BTC", "files": ["\(upbit)"], "format": "\(ccxt)" },
          { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["\(binance)"], "format": "\(ccxt)" }
        ],
        "fx": \(fxObject),
        "strategy": { "mode": "convergence", "entry": 0.5, "exit": 0, "notional": 10000 },
        "costs": { "fees": { "upbit": 0, "binance": 0 } }
      }
      """)
  }

  @Test func `converted by hand: a trade at the converted prices, the quote without a fresh rate invalid`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder)
    let trades = folder.path + "/trades.csv"
    let run = arbkit("backtest", path, "--format", "json", "--trades", trades)
    #expect(run.code == .success, "\(run.errors)")
    // 00:00: Upbit 140,000,000 / 1400 = 100,000 < Binance 101,000 (1 %): sell Binance,
    // buy Upbit. 00:05: 140,700,000 / 1400 = 100,500 > 100,400: close. 00:10: the rate
    // is 10 minutes old, Upbit's quote has no price: the point is invalid.
    #expect(run.object["points"] as? Int == 3 && run.object["valid_points"] as? Int == 2)
    let pnl = 10_000 / 101_000 * (101_000 - 100_400) + 10_000 / 100_000 * (100_500 - 100_000.0)
    #expect(isClose(run.object["pnl"] as? Double, pnl, rel: 1e-12))
    let row = try String(contentsOfFile: trades, encoding: .utf8).split(separator: "\n")[1].split(separator: ",")
    #expect(row[2] == "2>1" && isClose(Double(row[5]), 1.0, rel: 1e-12) && isClose(Double(row[6]), (100_400.0 / 100_500 - 1) * 100, rel: 1e-12))
    let fx = try #require(run.object["fx"] as? [String: Any])
    // 23:55 (no rate yet) and 00:10 (stale) of Upbit's four quotes.
    #expect(fx["unusable_quotes"] as? Int == 2 && fx["quotes"] as? Int == 4 && fx["converts"] as? String == "upbit")
    #expect(fx["max_stale_us"] as? Int == 420_000_000 && fx["usdt_as_usd"] as? Bool == true)

    let unlimited = arbkit("backtest", path, "--format", "json", "--set", "fx.max_stale=none")
    #expect(unlimited.object["valid_points"] as? Int == 3 && (unlimited.object["fx"] as? [String: Any])?["unusable_quotes"] as? Int == 1)
    let table = arbkit("backtest", path)
    #expect(table.output.contains("FX: upbit prices divided by USDKRW, the rate in force (at most 7m old); 2 of 4 quotes without a usable rate"))
    #expect(table.output.contains("Note: USDT is taken as 1 USD"))
  }

  /// `timestamp → close` of a ccxt candle file, read without the ingest (µs).
  static func closes(_ name: String) throws -> [Int64: Double] {
    let text = try String(contentsOfFile: Repository.data("samples/kimchi-5m/" + name), encoding: .utf8)
    var out: [Int64: Double] = [:]
    for line in text.split(whereSeparator: \.isNewline).dropFirst() {
      let f = line.split(separator: ",")
      let parts = f[0].split(whereSeparator: { "- :".contains($0) }).map { Int($0)! }
      var components = DateComponents()
      (components.year, components.month, components.day, components.hour, components.minute) = (parts[0], parts[1], parts[2], parts[3], parts[4])
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = TimeZone(identifier: "UTC")!
      out[Int64(calendar.date(from: components)!.timeIntervalSince1970) * 1_000_000] = Double(f[4])!
    }
    return out
  }

  @Test func `the shipped kimchi scenario: trades where the independently converted premium says`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let trades = folder.path + "/trades.csv"
    let run = arbkit("backtest", Self.kimchi, "--format", "json", "--trades", trades)
    #expect(run.code == .success, "\(run.errors)")
    #expect(allNumbersFinite(run.object))
    // Independently: on every 5-minute point from Upbit's first candle to 5 minutes
    // after its last (max_stale 5m), Binance over Upbit / USDKRW in force (Friday's
    // rate on Saturday), opened at ≥ 1.5 and closed at ≤ 1.25 (the premium never turns).
    // The scenario stamps each close at its candle's end (spec_set time.shift=5m) and
    // each day's rate at the end of its day (time.shift=1d): a point at t (a candle
    // open in the file) is traded at t + 5m, with the rate of a day before t + 5m's.
    let upbit = try Self.closes("upbit_BTC_KRW_5m_2025-07-26.csv"), binance = try Self.closes("binance_BTC_USDT_5m_2025-07-26.csv")
    let fx = try KimchiCommandTests.closes("USD_KRW_daily.csv")
    let step = Int64(300_000_000)
    let first = upbit.keys.min()!, last = upbit.keys.max()! + step
    var premium: [(time: Int64, value: Double)] = []
    for t in stride(from: first, through: last, by: Int(step)) {
      let u = upbit[min(t, last - step)]!, b = binance[t]!
      let day = Int((t + step) / 86_400_000_000)
      let rate = fx[(day - 5...day - 1).reversed().first { fx[$0] != nil }!]!
      premium.append((t + step, (b / (u / rate) - 1) * 100))
    }
    #expect(run.object["valid_points"] as? Int == premium.count)
    var expected: [(entry: Int64, exit: Int64, premium: Double)] = []
    var open: (Int64, Double)? = nil
    for (k, point) in premium.enumerated() {
      if let (entry, value) = open {
        if point.value <= 1.25 || k == premium.count - 1 { expected.append((entry, point.time, value)); open = nil }
      } else if point.value >= 1.5 && k < premium.count - 1 {
        open = (point.time, point.value)
      }
    }
    #expect(premium.allSatisfy { $0.value > 0 })
    let rows = try String(contentsOfFile: trades, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    #expect(rows.count == expected.count && expected.count == 3)
    for (row, trade) in zip(rows, expected) {
      #expect(Int64(row[0]) == trade.entry && Int64(row[1]) == trade.exit && row[2] == "2>1")
      #expect(isClose(Double(row[5]), trade.premium, rel: 1e-12), "\(row[5]) vs \(trade.premium)")
    }
    let note = try #require(run.object["fx"] as? [String: Any])
    #expect(note["series"] as? String == "fx:fx:USDKRW" && note["unusable_quotes"] as? Int == 0 && note["usdt_as_usd"] as? Bool == true)
    let report = arbkit("report", Self.kimchi, "--out", folder.path + "/report")
    #expect(report.code == .success, "\(report.errors)")
    let markdown = try String(contentsOfFile: folder.path + "/report/report.md", encoding: .utf8)
    #expect(markdown.contains(#"FX source | USD\_KRW\_daily.csv: the upbit prices divided by the rate in force, at most 4d old (fx)"#))
    // Without conversion Upbit's KRW prices are no USD prices: the scenario says so by
    // needing the fx key, and a scenario without one reports fx null.
    #expect(arbkit("backtest", Repository.data("scenarios/binanceus-kraken-btcusdc.json"), "--format", "json").object["fx"] is NSNull)
  }

  @Test func `sweep over fx.max_stale: each row is the backtest of its cell`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let out = folder.path + "/sweep.csv"
    // 1d: Friday's rate, stamped at the end of its day (Saturday 00:00), is too old after
    // Sunday 00:00, so only Saturday's points keep a rate.
    let run = arbkit("sweep", Self.kimchi, "--grid", "fx.max_stale=1d,4d", "--grid", "strategy.entry=1.45,1.5", "--quiet", "--out", out)
    #expect(run.code == .success, "\(run.errors)")
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    let trades = try #require(lines[0].firstIndex(of: "trades")), pnl = try #require(lines[0].firstIndex(of: "pnl"))
    var counts: [String: Int] = [:]
    for row in lines.dropFirst() {
      let plain = arbkit("backtest", Self.kimchi, "--format", "json", "--set", "fx.max_stale=\(row[0])", "--set", "strategy.entry=\(row[1])")
      #expect(plain.object["trades"] as? Int == Int(row[trades]), "\(row[0...1])")
      #expect(isClose(plain.object["pnl"] as? Double, Double(row[pnl]), rel: 1e-14), "\(row[0...1])")
      counts[row[0]] = plain.object["valid_points"] as? Int
    }
    // 1d: the 62 Saturday candles (opened 18:50 to 23:55, closed 18:55 to 00:00) keep it.
    #expect(counts["4d"] == 201 && counts["1d"] == 62)
  }

  static let mistakes: [(fx: String?, sets: [String], message: String)] = [
    (nil, ["--set", "fx.files=missing.csv"], "fx: no such file"),
    (nil, ["--set", "fx.converts=okx"], "fx.converts names venue 'okx', which has no leg (legs are on binance, upbit)"),
    (nil, ["--set", "fx.max_stale=soon"], "fx.max_stale expects a duration"),
    (nil, ["--set", "fx.rate=1400"], "unknown key 'fx.rate'"),
    (#"{ "files": ["usdkrw.csv"] }"#, [], "fx needs files and converts"),
    (nil, ["--set", "legs.1.venue=upbit"], "fx.converts: every leg is on upbit"),
  ]

  @Test("fx mistakes stop before any data is read", arguments: mistakes)
  func mistake(c: (fx: String?, sets: [String], message: String)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    expectScenarioCommandsRefuse(Self.scenario(folder, fx: c.fx), c.sets, in: folder, c.message)
  }
}
