import Foundation
import TestSupport
import Testing

/// `alignment.offsets` of a scenario: a venue's quote times move before alignment, so
/// the quotes a signal fills at change exactly as the moved times say, in backtest,
/// sweep and report alike.
@Suite("Scenario clock offsets (alignment.offsets)")
struct ScenarioOffsetTests {
  static let ms: Int64 = 1000
  static let t0: Int64 = 1_700_000_000_000_000

  /// Tardis quotes of one venue: (ms after t0, bid, ask).
  static func quotes(_ folder: TemporaryFolder, _ venue: String, _ rows: [(Int64, Double, Double)]) -> String {
    var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    for (t, bid, ask) in rows {
      let ts = t0 + t * ms
      text += "\(venue),BTCUSDT,\(ts),\(ts),1,\(ask),\(bid),1\n"
    }
    return folder.write("\(venue).csv", text)
  }

  /// binance turns rich at 10 ms; bybit's ask rises from 99.1 to 99.6 at 70 ms; the
  /// signal at 10 ms fills 50 ms later. No fees, no slippage, 10 000 per leg.
  static func scenario(_ folder: TemporaryFolder, offsets: String = "") -> String {
    let binance = quotes(folder, "binance", [(0, 99, 99.1), (10, 100, 100.1), (500, 99.3, 99.4)])
    let bybit = quotes(folder, "bybit-spot", [(0, 99, 99.1), (70, 99.5, 99.6)])
    let alignment = offsets.isEmpty ? "" : ", \"offsets\": {\(offsets)}"
    return folder.write(
      "offsets.json",
      """
      {
        "legs": [
          { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["\(binance)"], "format": "tardis.quotes" },
          { "venue": "bybit", "market": "spot", "symbol": "BTCUSDT", "files": ["\(bybit)"], "format": "tardis.quotes" }
        ],
        "alignment": { "clock": "local"\(alignment) },
        "strategy": { "mode": "convergence", "entry": 0.5, "exit": 0, "notional": 10000 },
        "costs": { "fees": { "binance": 0, "bybit": 0 }, "latency": "50ms" }
      }
      """)
  }

  /// Hand computation: short binance at its bid 100 (q = 100), long bybit at the ask in
  /// force at 60 ms; at the end buy binance back at 99.4 and sell bybit at 99.5.
  static func pnl(bybitAsk: Double) -> Double { 100 * (100 - 99.4) + 10_000 / bybitAsk * (99.5 - bybitAsk) }

  @Test(
    "an offset changes the quote a signal fills at",
    arguments: [
      // No offset: at 60 ms bybit's quote in force is the one of 0 ms (ask 99.1).
      ("", 99.1),
      // bybit −20 ms: its second quote moves to 50 ms, in force at the 60 ms fill.
      ("\"bybit\": \"-20ms\"", 99.6),
      // bybit +5 ms: at 75 ms, still after the fill.
      ("\"bybit\": \"+5ms\"", 99.1),
      // binance +15 ms: the signal moves to 25 ms, the fill to 75 ms, after bybit's 70 ms.
      ("\"binance\": \"+15ms\"", 99.6),
    ] as [(String, Double)])
  func fills(c: (offsets: String, bybitAsk: Double)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let trades = folder.path + "/trades.csv"
    let run = arbkit("backtest", Self.scenario(folder, offsets: c.offsets), "--format", "json", "--trades", trades)
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.object["trades"] as? Int == 1)
    #expect(isClose(run.object["pnl"] as? Double, Self.pnl(bybitAsk: c.bybitAsk), rel: 1e-12), "\(run.object["pnl"] ?? "")")
    let row = try String(contentsOfFile: trades, encoding: .utf8).split(separator: "\n")[1].split(separator: ",")
    #expect(row[2] == "1>2")
    let shift: Int64 = c.offsets.contains("binance") ? 15 : 0
    #expect(Int64(row[0]) == Self.t0 + (10 + shift) * Self.ms)
    let offsets = try #require(run.object["offsets_us"] as? [String: Any])
    #expect(offsets.count == (c.offsets.isEmpty ? 0 : 1))
  }

  @Test("--set alignment.offsets.VENUE overrides the file; the table says so")
  func override() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder, offsets: "\"bybit\": \"+5ms\"")
    let run = arbkit("backtest", path, "--format", "json", "--set", "alignment.offsets.bybit=-20ms")
    #expect(run.code == .success, "\(run.errors)")
    #expect(isClose(run.object["pnl"] as? Double, Self.pnl(bybitAsk: 99.6), rel: 1e-12))
    #expect((run.object["offsets_us"] as? [String: Any])?["bybit"] as? Int == -20_000)
    let table = arbkit("backtest", path, "--set", "alignment.offsets.binance=+30ms")
    #expect(table.output.contains("Clock offsets (added before alignment): binance +30ms, bybit +5ms"), "\(table.output)")
  }

  @Test(
    "an offset for a venue with no leg, or no signed duration, stops before any data is read",
    arguments: [
      (["--set", "alignment.offsets.okx=+1s"], "unknown key 'alignment.offsets.okx' (no leg trades on okx)"),
      (["--set", "alignment.offsets.bybt=+1s"], "did you mean 'alignment.offsets.bybit'?"),
      (["--set", "alignment.offsets.bybit=soon"], "alignment.offsets.bybit expects a signed duration such as +35ms or -1s, was 'soon'"),
      (["--set", "alignment.offsets.bybit=+"], "alignment.offsets.bybit expects a signed duration"),
    ])
  func mistakes(c: (arguments: [String], message: String)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder)
    // Unreadable data: only a check made before reading can give the scenario's error.
    _ = folder.write("binance.csv", "not a quote file\n")
    expectScenarioCommandsRefuse(path, c.arguments, in: folder, c.message)
  }

  @Test("sweep over offsets: each row is the backtest of its offset; report reads the offset")
  func sweepAndReport() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder)
    let out = folder.path + "/sweep.csv"
    let run = arbkit("sweep", path, "--grid", "alignment.offsets.bybit=-20ms,0ms,+5ms", "--quiet", "--out", out)
    #expect(run.code == .success, "\(run.errors)")
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    #expect(lines.count == 4)
    let pnl = try #require(lines[0].firstIndex(of: "pnl"))
    for row in lines.dropFirst() {
      let plain = arbkit("backtest", path, "--format", "json", "--set", "alignment.offsets.bybit=\(row[0])").object
      #expect(isClose(plain["pnl"] as? Double, Double(row[pnl]), rel: 1e-14), "\(row[0])")
    }
    #expect(lines.dropFirst().map { Double($0[pnl])! }.map { isClose($0, Self.pnl(bybitAsk: 99.6), rel: 1e-12) } == [true, false, false])

    let report = arbkit("report", path, "--set", "alignment.offsets.bybit=-20ms", "--out", folder.path + "/report")
    #expect(report.code == .success, "\(report.errors)")
    let markdown = try String(contentsOfFile: folder.path + "/report/report.md", encoding: .utf8)
    let plainReport = arbkit("report", path, "--out", folder.path + "/plain")
    #expect(plainReport.code == .success, "\(plainReport.errors)")
    let plainMarkdown = try String(contentsOfFile: folder.path + "/plain/report.md", encoding: .utf8)
    let figure = { (pnl: Double) in String(format: "%.2f", pnl) }
    #expect(markdown.contains(figure(Self.pnl(bybitAsk: 99.6))) && !markdown.contains(figure(Self.pnl(bybitAsk: 99.1))))
    #expect(plainMarkdown.contains(figure(Self.pnl(bybitAsk: 99.1))))
    #expect(markdown.contains("clock offset, bybit | -20ms added before alignment") && !plainMarkdown.contains("clock offset"))
  }
}
