import Foundation
import TestSupport
import Testing

// `arbkit backtest` end to end on the scenario shipped in Data/scenarios (real
// Binance.US and Kraken candles): the summary, ledger, equity and journal agree with
// one another, and every scenario mistake stops before any data is read.

@Suite("arbkit backtest")
struct BacktestCommandTests {
  static let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")

  @Test("the shipped scenario: summary, ledger, equity curve and daily journal agree")
  func shippedScenario() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let trades = folder.path + "/trades.csv", equity = folder.path + "/equity.csv"
    let run = arbkit("backtest", Self.scenario, "--format", "json", "--trades", trades, "--equity", equity)
    #expect(run.code == .success, "\(run.errors)")
    let object = run.object
    #expect(allNumbersFinite(object))
    let count = try #require(object["trades"] as? Int)
    let pnl = try #require(object["pnl"] as? Double)
    let fees = try #require(object["fees"] as? Double)
    #expect(count > 10)
    for key in ["trades", "wins", "pnl", "pnl_bps", "fees", "max_drawdown", "exposure", "mean_holding_s", "forced_exits", "sharpe", "daily"] {
      #expect(object[key] != nil, "missing \(key)")
    }
    #expect(isClose(object["pnl_bps"] as? Double, pnl / 10_000 * 10_000, rel: 1e-12))

    let ledger = try String(contentsOfFile: trades, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
    #expect(ledger[0].joined(separator: ",") == "entry_ts_us,exit_ts_us,direction,rich,cheap,entry_premium,exit_premium,pnl,pnl_bps,fees")
    let rows = ledger.dropFirst()
    #expect(rows.count == count)
    #expect(isClose(rows.reduce(0) { $0 + Double($1[7])! }, pnl, rel: 1e-9))
    #expect(isClose(rows.reduce(0) { $0 + Double($1[9])! }, fees, rel: 1e-9))
    #expect(rows.allSatisfy { Int64($0[0])! < Int64($0[1])! && ($0[2] == "1>2" || $0[2] == "2>1") })
    #expect(rows.allSatisfy { Double($0[5])! >= 0.8 })  // every entry at or above the entry band
    #expect(rows.filter { Double($0[7])! > 0 }.count == object["wins"] as? Int)

    let curve = try String(contentsOfFile: equity, encoding: .utf8).split(separator: "\n").dropFirst()
    #expect(curve.count == count)
    #expect(isClose(Double(curve.last!.split(separator: ",")[1])!, pnl, rel: 1e-9))

    let daily = try #require(object["daily"] as? [[String: Any]])
    // Candle closes are stamped at the candle end: the last one at 2023-03-22 00:00.
    #expect(daily.first?["date"] as? String == "2023-03-01" && daily.last?["date"] as? String == "2023-03-22")
    #expect(daily.count == 22)
    #expect(isClose(daily.reduce(0) { $0 + ($1["pnl"] as! Double) }, pnl, rel: 1e-9))
    #expect(daily.reduce(0) { $0 + ($1["trades"] as! Int) } == count)
  }

  @Test("--set overrides typed keys; a band nobody reaches trades nothing")
  func overrides() {
    let run = arbkit("backtest", Self.scenario, "--format", "json", "--set", "strategy.entry=50", "--set", "costs.fees.kraken=0.0026")
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.object["trades"] as? Int == 0)
    #expect(run.object["pnl"] as? Double == 0)
    #expect(run.object["sharpe"] is NSNull)
    #expect(run.object["mean_holding_s"] is NSNull)
  }

  @Test("--tz Asia/Seoul: the journal's days are Seoul days; the totals do not change")
  func seoulDays() throws {
    let utc = arbkit("backtest", Self.scenario, "--format", "json")
    let seoul = arbkit("backtest", Self.scenario, "--format", "json", "--tz", "Asia/Seoul")
    #expect(seoul.code == .success)
    #expect(seoul.object["time_zone"] as? String == "Asia/Seoul")
    #expect(seoul.object["pnl"] as? Double == utc.object["pnl"] as? Double)
    let days = try #require(seoul.object["daily"] as? [[String: Any]])
    // The data runs 2023-03-01 00:01Z (09:01 KST) to 2023-03-22 00:00Z (09:00 KST).
    #expect(days.first?["date"] as? String == "2023-03-01" && days.last?["date"] as? String == "2023-03-22")
    #expect(days.reduce(0) { $0 + ($1["trades"] as! Int) } == utc.object["trades"] as? Int)
    #expect(arbkit("backtest", Self.scenario, "--tz", "Mars/Base").code == .usage)
  }

  static let mistakes: [(arguments: [String], message: String)] = [
    (["--set", "strategy.entyr=1"], "unknown key 'strategy.entyr', did you mean 'strategy.entry'?"),
    (["--set", "costs.fees.krakn=0.001"], "unknown key 'costs.fees.krakn' (no leg trades on krakn), did you mean 'costs.fees.kraken'?"),
    (["--set", "strategy.entry=high"], "strategy.entry expects a number, was 'high'"),
    (["--set", "strategy.exit=0.9"], "strategy.exit (0.9) is above strategy.entry (0.8)"),
    (["--set", "costs.fees.kraken=-0.001"], "costs.fees.kraken must be a fraction in [0, 1), was -0.001"),
    (["--set", "costs.slippage_bps=-1"], "costs.slippage_bps must be ≥ 0"),
    (["--set", "legs.0.files=missing.csv"], "legs.0: no such file"),
    (["--set", "alignment.max_stale=soon"], "alignment.max_stale expects a duration"),
    (["--set", "legs.1.market=perp"], "legs.1.market expects one of spot, linear"),
    (["--set", "journal.tz=Europe/Paris"], "journal.tz expects UTC or Asia/Seoul"),
    (["--set", "strategy.entry"], "'strategy.entry' is not KEY=VALUE"),
  ]

  @Test("scenario mistakes are usage errors (exit 64) that name the key", arguments: mistakes)
  func mistake(c: (arguments: [String], message: String)) {
    let run = arbkit(["backtest", Self.scenario] + c.arguments)
    #expect(run.code == .usage)
    #expect(run.errors.contains(c.message), "\(run.errors)")
  }

  @Test("an unknown key in the file itself, and a relative path, resolve against the file")
  func keysInTheFile() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let text = try String(contentsOfFile: Self.scenario, encoding: .utf8)
      .replacingOccurrences(of: "../samples/", with: Repository.data("samples") + "/")
      .replacingOccurrences(of: "../formats/", with: Repository.data("formats") + "/")
    let moved = folder.write("moved.json", text)
    #expect(arbkit("backtest", moved, "--format", "json").code == .success)
    let typo = folder.write("typo.json", text.replacingOccurrences(of: "\"max_holding\"", with: "\"max_hold\""))
    let run = arbkit("backtest", typo)
    #expect(run.code == .usage)
    #expect(run.errors.contains("unknown key 'strategy.max_hold', did you mean 'strategy.max_holding'?"), "\(run.errors)")
  }

  @Test("a venue with no known fee must be given one")
  func unknownFee() {
    let run = arbkit("backtest", Self.scenario, "--set", "legs.1.venue=nowhere")
    #expect(run.code == .usage)
    #expect(run.errors.contains("no taker fee known for nowhere spot; set costs.fees.nowhere"), "\(run.errors)")
  }
}

@Suite("arbkit backtest, mode inventory")
struct InventoryBacktestCommandTests {
  static let scenario = Repository.data("scenarios/binanceus-kraken-inventory.json")

  @Test("the shipped inventory scenario: ledger, balances and PnL agree; base is conserved")
  func shippedScenario() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let trades = folder.path + "/trades.csv", balances = folder.path + "/inventory.csv"
    let run = arbkit("backtest", Self.scenario, "--format", "json", "--trades", trades, "--inventory", balances)
    #expect(run.code == .success, "\(run.errors)")
    let object = run.object
    #expect(allNumbersFinite(object))
    #expect(object["mode"] as? String == "inventory")
    let pnl = try #require(object["pnl"] as? Double)
    let rebalanceCost = try #require(object["rebalance_cost"] as? Double)
    let count = try #require(object["trades"] as? Int)
    #expect(count > 10 && (object["rebalances"] as? Int ?? 0) > 0 && (object["missed"] as? Int ?? 0) > 0)

    let ledger = try String(contentsOfFile: trades, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",") }
    #expect(ledger[0].joined(separator: ",") == "ts_us,direction,rich,cheap,premium,sell_price,buy_price,quantity,pnl,pnl_bps,fees")
    let rows = ledger.dropFirst()
    #expect(rows.count == count)
    #expect(rows.allSatisfy { Double($0[4])! >= 0.8 && Double($0[7])! >= 0.001 && Double($0[7])! <= 5000 / Double($0[5])! * (1 + 1e-12) })
    // Each row's PnL is quantity × (sell − buy) − fees.
    #expect(rows.allSatisfy { isClose(Double($0[8])!, Double($0[7])! * (Double($0[5])! - Double($0[6])!) - Double($0[10])!, rel: 1e-9, abs: 1e-9) })
    #expect(isClose(rows.reduce(0) { $0 + Double($1[8])! } - rebalanceCost, pnl, rel: 1e-9))

    let path = try String(contentsOfFile: balances, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",") }
    #expect(path[0].joined(separator: ",") == "ts_us,base_1,quote_1,base_2,quote_2,base_in_transit,quote_in_transit")
    // Without withdrawal fees the base on the venues and in transit is conserved.
    for row in path.dropFirst() {
      let values = row.dropFirst().map { Double($0)! }
      #expect(isClose(values[0] + values[2] + values[4], 1.0, rel: 1e-12))
      #expect(values.allSatisfy { $0 >= -1e-9 })
    }
    #expect(path.dropFirst().contains { Double($0[5])! > 0 }, "the path shows quote in transit")
    let last = path.last!.dropFirst().map { Double($0)! }
    #expect(isClose(last[1] + last[3] + last[5] - 24_000, pnl, rel: 1e-9))
  }

  @Test("inventory scenario mistakes")
  func mistakes() {
    let missing = arbkit("backtest", Self.scenario, "--set", "legs.1.quote=-5")
    #expect(missing.code == .usage && missing.errors.contains("legs.1: starting balances must be ≥ 0"), "\(missing.errors)")
    let flag = arbkit("backtest", Self.scenario, "--set", "costs.cap_at_book=yes")
    #expect(flag.code == .usage && flag.errors.contains("costs.cap_at_book expects true or false, was 'yes'"), "\(flag.errors)")
    let convergence = arbkit("backtest", Self.scenario, "--set", "strategy.mode=convergence")
    #expect(convergence.code == .usage && convergence.errors.contains("missing 'strategy.exit'"), "\(convergence.errors)")
  }
}
