import Foundation
import TestSupport
import Testing

// `arbkit backtest` in mode carry on the shipped scenario (a real Bybit recording:
// BTCUSDT spot tickers and the linear perp's tickers): the ledger's numbers follow
// from its own fill prices by the written rules, and agree with the summary, the
// equity curve and the journal; scenario mistakes stop before any data is read.

@Suite("arbkit backtest, mode carry")
struct CarryCommandTests {
  static let scenario = Repository.data("scenarios/bybit-btcusdt-carry.json")

  /// The ledger as rows of fields, header first.
  static func ledger(_ path: String) throws -> [[String]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  @Test("the shipped scenario: every trade's PnL from its fills, fees 0.1 % spot and 0.055 % perp, totals agree")
  func shippedScenario() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let trades = folder.path + "/trades.csv", equity = folder.path + "/equity.csv", funding = folder.path + "/funding.csv"
    let run = arbkit("backtest", Self.scenario, "--format", "json", "--trades", trades, "--equity", equity, "--funding", funding)
    #expect(run.code == .success, "\(run.errors)")
    let object = run.object
    #expect(allNumbersFinite(object))
    #expect(object["mode"] as? String == "carry")
    #expect(object["trades"] as? Int == 2 && object["forced_exits"] as? Int == 1)
    #expect(object["funding"] as? Double == 0 && object["funding_payments"] as? Int == 0 && object["funding_from"] is NSNull)
    #expect((object["skipped"] as? [String: Int])?["cooldown"] == 8)
    let rows = try Self.ledger(trades)
    #expect(
      rows[0].joined(separator: ",")
        == "entry_ts_us,exit_ts_us,spot,perp,entry_basis,exit_basis,spot_buy,spot_sell,perp_sell,perp_buy,spot_quantity,perp_quantity,funding,fees,pnl,pnl_bps")
    var total = 0.0, totalFees = 0.0
    for row in rows.dropFirst() {
      let v = row.map { Double($0) }
      let (buyS, sellS, sellP, buyP, q, qP) = (v[6]!, v[7]!, v[8]!, v[9]!, v[10]!, v[11]!)
      #expect(row[2] == "bybit:spot:BTCUSDT" && row[3] == "bybit:linear:BTCUSDT")
      #expect(q == 10_000 / buyS && qP == q)
      // The recorded perp book stays at 65114.2 / 65114.3; spot ticks between 65140.4 and .5.
      #expect(sellP == 65114.2 && buyP == 65114.3 && [65140.4, 65140.5].contains(buyS))
      #expect(v[4]! >= -0.0403 && isClose(v[4]!, (sellP / buyS - 1) * 100, rel: 1e-12))
      let fees = 0.001 * q * (buyS + sellS) + 0.00055 * q * (sellP + buyP)
      #expect(isClose(v[13]!, fees, rel: 1e-12))
      #expect(isClose(v[14]!, q * (sellS - buyS) + q * (sellP - buyP) - fees, rel: 1e-12))
      // No exit signal is reached (b_close ≥ −0.0402 %): max_holding closes, or the end of data.
      #expect(Int64(row[1])! - Int64(row[0])! >= 10_000_000 || row == rows.last!)
      total += v[14]!
      totalFees += v[13]!
    }
    #expect(isClose(object["pnl"] as? Double, total, rel: 1e-12) && isClose(object["fees"] as? Double, totalFees, rel: 1e-12))
    let curve = try String(contentsOfFile: equity, encoding: .utf8).split(separator: "\n").dropFirst()
    #expect(curve.count == 2 && isClose(Double(curve.last!.split(separator: ",")[1])!, total, rel: 1e-12))
    #expect(try String(contentsOfFile: funding, encoding: .utf8) == "ts_us,trade,rate,price,amount\n")
    let table = arbkit("backtest", Self.scenario)
    #expect(table.output.contains("Strategy carry: entry -0.0403%, exit -0.041%, notional 10000 on spot"))
    #expect(table.output.contains("Funding: not booked (strategy.funding false)"))
  }

  @Test("the same perp read as an inverse contract of 100 USD: whole contracts, coin PnL at the spot exit price")
  func inverseWhatIf() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let trades = folder.path + "/trades.csv"
    let run = arbkit("backtest", Self.scenario, "--format", "json", "--trades", trades, "--set", "legs.1.market=inverse", "--set", "legs.1.contract_size=100")
    #expect(run.code == .success, "\(run.errors)")
    let rows = try Self.ledger(trades).dropFirst()
    #expect(rows.count == 2)
    for row in rows {
      let v = row.map { Double($0) }
      let (buyS, sellS, sellP, buyP, q, n) = (v[6]!, v[7]!, v[8]!, v[9]!, v[10]!, v[11]!)
      // q × 65114.2 / 100 ≈ 99.96: 100 contracts.
      #expect(n == (q * sellP / 100).rounded() && n == 100)
      let coin = n * 100 * (1 / buyP - 1 / sellP), coinFees = 0.00055 * n * 100 * (1 / sellP + 1 / buyP)
      let fees = 0.001 * q * (buyS + sellS) + coinFees * sellS
      #expect(isClose(v[13]!, fees, rel: 1e-12))
      #expect(isClose(v[14]!, q * (sellS - buyS) + coin * sellS - fees, rel: 1e-12))
    }
    let unknown = arbkit("backtest", Self.scenario, "--set", "legs.1.market=inverse")
    #expect(
      unknown.code == .usage && unknown.errors.contains("no contract size known for bybit:inverse:BTCUSDT; set legs.1.contract_size"), "\(unknown.errors)")
  }

  @Test("a ticker's current funding rate is not a settlement series: a data error (exit 65)")
  func tickerFunding() {
    let sample = Repository.data("samples/bybit_BTCUSDT_spot-linear_tickers_2026-08-09.jsonl.zst")
    let run = arbkit("backtest", Self.scenario, "--set", "strategy.funding=true", "--set", "funding.files=" + sample)
    #expect(run.code == .dataError)
    #expect(run.errors.contains("funding.files: the funding series of bybit:linear:BTCUSDT has a record at 2026-08-09T21:26:59.526357Z"), "\(run.errors)")
    #expect(run.errors.contains("not on a whole hour: it holds ticker rates, not settlements"))
  }

  static let start: Int64 = 1_735_689_600_000_000, hour: Int64 = 3_600_000_000

  /// Hours 0…5 of 2025-01-01 (UTC): the quotes of the hand-worked engine test
  /// (CarryTests.linearTrade), as Tardis quotes; settlements a few ms late, snapped.
  /// `alignment` is the scenario's alignment object, if any.
  static func handMadeScenario(_ folder: TemporaryFolder, alignment: String = "") -> String {
    func quotes(_ exchange: String, _ rows: [(Double, Double)]) -> String {
      "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
        + rows.enumerated().map { k, q in
          let t = start + Int64(k) * hour
          return "\(exchange),BTCUSDT,\(t),\(t),1,\(q.1),\(q.0),1\n"
        }.joined()
    }
    _ = folder.write("spot.csv", quotes("binance", [(100, 100.1), (100, 100), (100, 100.2), (102, 102.2), (101, 101.1), (101, 101.1)]))
    _ = folder.write("perp.csv", quotes("binance-futures", [(100.1, 100.2), (101, 101.2), (100.8, 101), (102.1, 102.2), (101, 101.1), (101, 101.1)]))
    let rates = [0.01, 0.01, 0.0001, -0.0002, 0.0003, 0.01]
    _ = folder.write(
      "BTCUSDT-fundingRate-2025-01.csv",
      "calc_time,funding_interval_hours,last_funding_rate\n"
        + rates.indices.map { k -> String in
          let millis: Int64 = (start + Int64(k) * hour) / 1000 + 3
          return "\(millis),8,\(rates[k])\n"
        }.joined())
    return folder.write(
      "carry.json",
      """
      { "legs": [ { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["spot.csv"], "format": "tardis.quotes" },
                  { "venue": "binance", "market": "linear", "symbol": "BTCUSDT", "files": ["perp.csv"], "format": "tardis.quotes" } ],
        \(alignment.isEmpty ? "" : "\"alignment\": \(alignment),")
        "strategy": { "mode": "carry", "entry": 0.5, "exit": 0.1, "notional": 10000 },
        "funding": { "files": ["BTCUSDT-fundingRate-2025-01.csv"] } }
      """)
  }

  @Test("hand-made legs and a Binance fundingRate file: the funding of docs/definitions.md through the CLI, ledger, --funding and journal")
  func fundingThroughTheCLI() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (start, hour) = (Self.start, Self.hour)
    let scenario = Self.handMadeScenario(folder)
    let payments = folder.path + "/funding.csv", trades = folder.path + "/trades.csv"
    let run = arbkit("backtest", scenario, "--format", "json", "--funding", payments, "--trades", trades)
    #expect(run.code == .success, "\(run.errors)")
    let object = run.object
    // Registry fees 0.1 % spot and 0.05 % USDⓈ-M, as in the engine test: PnL 100 − 10 − 30.205 + 1.9975.
    #expect(object["trades"] as? Int == 1 && object["funding_payments"] as? Int == 3)
    #expect(isClose(object["funding"] as? Double, 1.9975, rel: 1e-12) && isClose(object["pnl"] as? Double, 61.7925, rel: 1e-12))
    #expect(isClose(object["fees"] as? Double, 30.205, rel: 1e-12) && isClose(object["max_drawdown"] as? Double, 2.043, rel: 1e-12))
    #expect(object["funding_from"] as? String == "2025-01-01T00:00:00Z" && object["funding_to"] as? String == "2025-01-01T05:00:00Z")
    let daily = try #require(object["daily"] as? [[String: Any]])
    #expect(daily.count == 1 && isClose(daily[0]["pnl"] as? Double, 61.7925, rel: 1e-12) && daily[0]["trades"] as? Int == 1)
    let rows = try Self.ledger(payments)
    let times: [Int64] = [2, 3, 4].map { start + $0 * hour }
    #expect(rows[0].joined(separator: ",") == "ts_us,trade,rate,price,amount")
    #expect(rows.dropFirst().map { Int64($0[0])! } == times && rows.dropFirst().allSatisfy { $0[1] == "1" })
    #expect(zip(rows.dropFirst().map { Double($0[4])! }, [1.009, -2.043, 3.0315]).allSatisfy { isClose($0, $1, rel: 1e-12) })
    #expect(rows.dropFirst().map { $0[2] + "@" + $0[3] } == ["0.0001@100.9", "-0.0002@102.15", "0.0003@101.05"])
    #expect(isClose(Double(try Self.ledger(trades)[1][12]), 1.9975, rel: 1e-12))
    // A sweep over pricing keys shares one simulation and the settlements: each row is its plain backtest.
    let sweep = arbkit("sweep", scenario, "--quiet", "--grid", "costs.slippage_bps=0,5", "--grid", "strategy.notional=5000,10000")
    #expect(sweep.code == .success, "\(sweep.errors)")
    let lines = sweep.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    #expect(lines.count == 5 && lines[0].last == "funding")
    for row in lines.dropFirst() {
      let plain = arbkit("backtest", scenario, "--format", "json", "--set", "costs.slippage_bps=" + row[0], "--set", "strategy.notional=" + row[1]).object
      #expect(isClose(plain["funding"] as? Double, Double(row.last!), rel: 1e-14) && isClose(plain["pnl"] as? Double, Double(row[4]), rel: 1e-14))
      #expect(plain["funding_payments"] as? Int == 3)
    }
    let table = arbkit("backtest", scenario)
    #expect(table.output.contains("Funding: 3 settlements paid or received; the funding file has 6 from 2025-01-01T00:00:00Z to 2025-01-01T05:00:00Z"))
  }

  @Test(
    "a clock offset moves the funding settlements with the legs of its venue",
    arguments: [
      ("+1h", 3_600_000_000), ("+35ms", 35_000), ("-2h", -7_200_000_000),
    ] as [(String, Int64)])
  func offsetMovesFunding(c: (offset: String, micros: Int64)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Both legs and the funding are on binance: moving all of them by one offset moves
    // every settlement and trade by it and changes no amount.
    let scenario = Self.handMadeScenario(folder, alignment: "{ \"offsets\": { \"binance\": \"\(c.offset)\" } }")
    let payments = folder.path + "/funding.csv"
    let run = arbkit("backtest", scenario, "--format", "json", "--funding", payments)
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.object["funding_payments"] as? Int == 3)
    #expect(isClose(run.object["funding"] as? Double, 1.9975, rel: 1e-12) && isClose(run.object["pnl"] as? Double, 61.7925, rel: 1e-12))
    let rows = try Self.ledger(payments)
    #expect(rows.dropFirst().map { Int64($0[0])! } == [2, 3, 4].map { Self.start + $0 * Self.hour + c.micros })
    #expect(rows.dropFirst().map { $0[2] + "@" + $0[3] } == ["0.0001@100.9", "-0.0002@102.15", "0.0003@101.05"])
  }

  static let mistakes: [(arguments: [String], message: String)] = [
    (["--set", "strategy.funding=true"], "mode carry needs funding.files (the perp's funding-rate settlements), or strategy.funding false"),
    (["--set", "legs.0.market=linear"], "mode carry: legs.0 is the spot leg (market spot), was linear"),
    (["--set", "legs.1.market=spot"], "mode carry: legs.1 is the perp leg (market linear or inverse), was spot"),
    (["--set", "legs.1.contract_size=100"], "legs.1.contract_size is for an inverse perp, the leg is linear"),
    (["--set", "legs.1.market=inverse", "--set", "legs.1.contract_size=0"], "legs.1.contract_size must be positive, was 0"),
    (["--set", "costs.cap_at_book=true"], "costs.cap_at_book is not defined for mode carry"),
    (["--set", "strategy.funding=true", "--set", "funding.files=nowhere.json"], "funding: no such file"),
    (["--set", "strategy.mode=convergence", "--set", "funding.files=a.json"], "funding.files is read by mode carry only (mode is convergence)"),
    (["--set", "strategy.mode=swap"], "strategy.mode expects one of convergence, inventory, carry"),
    (["--set", "strategy.fundin=false"], "did you mean 'strategy.funding'?"),
  ]

  @Test("carry scenario mistakes are usage errors (exit 64)", arguments: mistakes)
  func mistake(c: (arguments: [String], message: String)) {
    let run = arbkit(["backtest", Self.scenario] + c.arguments)
    #expect(run.code == .usage)
    #expect(run.errors.contains(c.message), "\(run.errors)")
  }
}
