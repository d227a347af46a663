import ArbIngest
@testable import ArbResearch
import Foundation
import TestSupport
import Testing

// `costs.maker_leg` end to end on real Tardis book snapshots (Binance futures BTCUSDT,
// 25 and 5 levels of the same book: the queue ahead of the order is the real size at the
// ask). The repository holds no real trades of that instrument and time, so the maker
// leg's trades are hand-made Tardis `trades` rows at the books' times; every figure below
// is worked out from them and the snapshots by hand (docs/definitions.md, "Maker leg").

@Suite("costs.maker_leg on real Tardis book snapshots")
struct MakerCommandTests {
  static let fixtures = BookFillCommandTests.fixtures
  static let (ask, bid) = (11657.08, 11657.07)
  static let notional = 100_000.0

  /// Hand-made trades, local times: 2 at the bid (not the order's price), then 1.5 and
  /// 0.3 at the ask.
  static let trades = """
    exchange,symbol,timestamp,local_timestamp,id,side,price,amount
    binance-futures,BTCUSDT,1598918403899000,1598918403900000,t1,sell,11657.07,2
    binance-futures,BTCUSDT,1598918403939000,1598918403940000,t2,buy,11657.08,1.5
    binance-futures,BTCUSDT,1598918403959000,1598918403960000,t3,buy,11657.08,0.3

    """

  static func scenario(_ folder: TemporaryFolder) -> String {
    let tape = folder.write("trades.csv", trades)
    let legs = BookFillCommandTests.files.map {
      #"{ "venue": "binance", "market": "linear", "symbol": "BTCUSDT", "files": ["\#(fixtures)/\#($0)"], "trades": ["\#(tape)"] }"#
    }
    return folder.write(
      "maker.json",
      """
      {
        "legs": [\(legs.joined(separator: ", "))],
        "strategy": { "mode": "convergence", "entry": -0.001, "exit": -0.01, "notional": \(notional), "max_holding": "100ms" },
        "costs": { "maker_leg": 0, "queue": "risk_averse", "fees": { "binance": 0.0004 } }
      }
      """)
  }

  @Test(
    "risk_averse and probabilistic:2: the order at the ask with the real 1.714 ahead fills after 1.8 traded, or after 1.5 once the book's fall is shared out",
    arguments: [("risk_averse", Int64(1_598_918_403_960_000), Int64(1_598_918_404_130_901)), ("probabilistic:2", 1_598_918_403_940_000, 1_598_918_404_050_508)]
      as [(String, Int64, Int64)])
  func realBooks(queue: String, fill: Int64, exit: Int64) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let ledgerPath = folder.path + "/ledger.csv"
    let run = arbkit(["backtest", Self.scenario(folder), "--set", "costs.queue=\(queue)", "--format", "json", "--trades", ledgerPath])
    #expect(run.code == .success, "\(run.errors)")
    let json = run.object
    // The entry at the first valid point (403.810979 s) rests at leg 0's ask with 1.714 ahead.
    // risk_averse: 1.714 − 1.5 = 0.214, − 0.3 < 0 at 403.96 s. probabilistic:2: the ask
    // falls 1.714 → 1.476 (403.894256 s) and → 1.475 with nothing traded and nothing
    // behind (back 0, prob 0): 1.475 ahead, − 1.5 < 0 at 403.94 s. A second order, at the
    // next point after the exit, finds no trade and is cancelled when the data end.
    #expect(json["trades"] as? Int == 1)
    #expect((json["maker_orders"] as? Int, json["maker_filled"] as? Int, json["maker_cancelled"] as? Int) == (2, 1, 1))
    #expect((json["skipped"] as? [String: Any])?["maker_cancelled"] as? Int == 1)
    let lines = try String(contentsOfFile: ledgerPath, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
    #expect(
      lines[0].joined(separator: ",")
        == "entry_ts_us,exit_ts_us,direction,rich,cheap,maker_leg,maker_place_ts_us,maker_fill_ts_us,entry_premium,exit_premium,pnl,pnl_bps,fees,maker_queue_ahead,maker_price"
    )
    let row = lines[1]
    #expect(row[0] == "\(fill)" && row[1] == "\(exit)")
    #expect(Array(row[5...7]) == ["0", "1598918403810979", "\(fill)"])
    #expect(Double(row[13]) == 1.714 && Double(row[14]) == Self.ask)
    // Leg 0 sells 100 000 / 11657.08 at its ask (maker fee 0.0002, the registry's for
    // Binance USDⓈ-M) and buys it back at the ask; leg 1 buys at its ask and sells at its bid.
    let (q0, q1) = (Self.notional / Self.ask, Self.notional / Self.ask)
    let fees = 0.0002 * q0 * Self.ask + 0.0004 * q0 * Self.ask + 0.0004 * q1 * Self.ask + 0.0004 * q1 * Self.bid
    #expect(isClose(Double(row[12]), fees, rel: 1e-12))
    #expect(isClose(Double(row[10]), q1 * (Self.bid - Self.ask) - fees, rel: 1e-12))
    // The same fills on the data cut anywhere: no rule reads past its time.
    let check = arbkit(["backtest", Self.scenario(folder), "--set", "costs.queue=\(queue)", "--lookahead-check", "--cuts", "40"])
    #expect(check.code == .success, "\(check.output)")
  }

  /// Real Binance spot BTCUSDT quotes (with sizes) and trades (with quantities) of the
  /// same 46 seconds, 2021-01-08, nautilus_trader's test data: the maker leg and, its
  /// quotes again, the taker leg.
  static let parquet = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures/parquet").path

  static func realScenario(_ folder: TemporaryFolder) -> String {
    let leg =
      #"{ "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["\#(parquet)/btcusdt-quotes.parquet"], "trades": ["\#(parquet)/btcusdt-trades.parquet"] }"#
    return folder.write(
      "real.json",
      """
      {
        "legs": [\(leg), \(leg)],
        "strategy": { "mode": "convergence", "entry": -0.01, "exit": -1, "notional": 10000, "max_holding": "1s" },
        "costs": { "maker_leg": 0, "maker_timeout": "3s" }
      }
      """)
  }

  /// The queue of docs/definitions.md, "Maker leg", on top-of-book quotes `(time, bid, ask,
  /// bidSize, askSize)` and trades `(time, price, size)`: the fill time of a sale at
  /// `price` placed at `place` on quote row `row`, or `nil` before `end`.
  static func referenceFill(
    quotes: [(Int64, Double, Double, Double, Double)], trades: [(Int64, Double, Double)], place: Int64, row: Int, price: Double, end: Int64,
    power: Double?
  ) -> Int64? {
    var events = trades.indices.filter { trades[$0].0 > place }.map { (trades[$0].0, 0, $0) }
    events += quotes.indices.filter { $0 > row }.map { (quotes[$0].0, 1, $0) }
    events.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
    var (front, level, traded) = (quotes[row].4, quotes[row].4, 0.0)
    for (time, kind, k) in events where time < end {
      if kind == 0 {
        let (_, p, size) = trades[k]
        if p > price { return time }
        if p == price {
          front -= size
          traded += size
          if front < 0 { return time }
        }
        continue
      }
      let (_, bid, ask, _, askSize) = quotes[k]
      if bid > price { return time }
      guard let n = power, ask >= price else { continue }
      let size = ask == price ? askSize : 0
      let change = level - size - traded
      if change < 0 {
        front = min(front, size)
      } else {
        let back = level - front
        var p = Foundation.pow(back, n) / (Foundation.pow(back, n) + Foundation.pow(front, n))
        if !p.isFinite { p = 1 }
        front = min(front - (1 - p) * change + min(back - p * change, 0), size)
      }
      (level, traded) = (size, 0)
    }
    return nil
  }

  @Test(
    "real quotes and trades: every maker order's price, queue ahead and fill time as a slow queue on pyarrow's values gives them",
    arguments: [nil, 2.0] as [Double?])
  func realTrades(power: Double?) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let ledgerPath = folder.path + "/ledger.csv"
    let queue = power.map { "probabilistic:\($0)" } ?? "risk_averse"
    let scenario = Self.realScenario(folder)
    let run = arbkit(["backtest", scenario, "--set", "costs.queue=\(queue)", "--format", "json", "--trades", ledgerPath])
    #expect(run.code == .success, "\(run.errors)")
    let json = run.object
    func rows(_ path: String) throws -> [[String]] {
      try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map {
        $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      }
    }
    // pyarrow's quotes, equal times collapsed to the last as a leg's are; its trades, all kept.
    var quotes: [(Int64, Double, Double, Double, Double)] = []
    for r in try rows(Self.parquet + "/btcusdt-quotes-expected.csv") {
      let quote = (Int64(r[0])!, Double(r[4])!, Double(r[5])!, Double(r[6])!, Double(r[7])!)
      if quotes.last?.0 == quote.0 { quotes[quotes.count - 1] = quote } else { quotes.append(quote) }
    }
    let trades = try rows(Self.parquet + "/btcusdt-trades-sizes-expected.csv").map { (Int64($0[0])!, Double($0[1])!, Double($0[2])!) }
    let lines = try rows(ledgerPath)
    let cancelled = (json["skipped"] as? [String: Any])?["maker_cancelled"] as? Int ?? 0
    #expect(lines.count >= 2 && json["trades"] as? Int == lines.count && json["maker_orders"] as? Int == lines.count + cancelled)
    for row in lines {
      // Leg 0 sells at its ask ("1>2"): the ask in force at the placement, its size ahead.
      let place = Int64(row[6])!
      let j = try #require(quotes.lastIndex { $0.0 <= place })
      #expect(row[2] == "1>2" && Double(row[14]) == quotes[j].2 && Double(row[13]) == quotes[j].4)
      let fill = Self.referenceFill(quotes: quotes, trades: trades, place: place, row: j, price: quotes[j].2, end: place + 3_000_000, power: power)
      #expect(fill.map { "\($0)" } == row[7] && row[0] == row[7], "\(row)")
    }
    let check = arbkit(["backtest", scenario, "--set", "costs.queue=\(queue)", "--lookahead-check", "--cuts", "30"])
    #expect(check.code == .success, "\(check.output)")
  }

  @Test("sweep rows equal the backtest per cell with costs.queue, costs.maker_leg and fees on the axes; the same bytes for any --jobs")
  func sweepRows() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = Self.scenario(folder)
    let grid = ["costs.queue=risk_averse,probabilistic:2", "costs.maker_leg=none,0,1", "costs.fees.binance=0.0004,0.001"]
    let arguments = ["sweep", scenario, "--quiet"] + grid.flatMap { ["--grid", $0] }
    let run = arbkit(arguments + ["--jobs", "1"]), two = arbkit(arguments + ["--jobs", "2"])
    #expect(run.code == .success && two.code == .success, "\(run.errors)")
    #expect(run.output == two.output)
    let lines = run.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let header = lines[0]
    #expect(lines.count == 1 + 2 * 3 * 2)
    var holding: [String: String] = [:]
    for row in lines.dropFirst() {
      let cell = (0..<3).flatMap { ["--set", "\(header[$0])=\(row[$0])"] }
      let plain = arbkit(["backtest", scenario, "--format", "json"] + cell).object
      for (k, key) in header.enumerated().dropFirst(3) {
        switch plain[key] {
        case let x as Double: #expect(isClose(x, Double(row[k]), rel: 1e-14), "\(row[0..<3]) \(key)")
        case let x as Int: #expect(Double(x) == Double(row[k]), "\(row[0..<3]) \(key)")
        case is NSNull: #expect(row[k].isEmpty, "\(row[0..<3]) \(key)")
        case nil where key == "funding": #expect(row[k].isEmpty)
        default: Issue.record("\(key) missing from the backtest output")
        }
      }
      holding[row[0..<2].joined(separator: ",")] = row[header.firstIndex(of: "mean_holding_s")!]
    }
    // The queue rules fill leg 0's order at different times (held 170.901 and 110.508 ms);
    // leg 1's order at its bid (10.896 ahead, 2 traded) never fills.
    #expect(holding["risk_averse,0"] == "0.170901" && holding["probabilistic:2,0"] == "0.110508")
    #expect(holding["risk_averse,1"] == "" && holding["probabilistic:2,1"] == "")
    // Without a maker leg both legs take, and the queue rule is not used.
    #expect(holding["risk_averse,none"] == holding["probabilistic:2,none"] && holding["risk_averse,none"]?.isEmpty == false)
  }

  @Test("cells that differ in a fee share a simulation; cells that differ in the maker rule do not")
  func sharing() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.scenario(folder)
    let base = ["costs.queue=risk_averse", "costs.maker_leg=0", "costs.maker_timeout=none", "costs.fees.binance=0.0004"]
    let changes = [
      ("costs.fees.binance=0.001", true), ("costs.maker_fees.binance=-0.0001", true), ("costs.queue=probabilistic:2", false),
      ("costs.queue=probabilistic:3", false), ("costs.maker_leg=1", false), ("costs.maker_leg=none", false), ("costs.maker_timeout=50ms", false),
    ]
    for (change, shares) in changes {
      let cells = try [base, base + [change]].enumerated().map { (cell: $0.offset, scenario: try Scenario.load(path: path, overrides: $0.element)) }
      let groups = try SweepPlan(cells: cells, options: IngestOptions()).groups.map { $0.cells.map(\.cell) }
      #expect(groups == (shares ? [[0, 1]] : [[0], [1]]), "\(change)")
    }
  }

  @Test("a leg's trades file is an input: no ledger, sweep or matrix is written onto it")
  func tradesAreInputs() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = Self.scenario(folder)
    let tape = folder.path + "/trades.csv"
    let before = try Data(contentsOf: URL(fileURLWithPath: tape))
    expectUsageError(["backtest", scenario, "--trades", tape], "an input of this run")
    expectUsageError(["backtest", scenario, "--equity", tape], "an input of this run")
    expectUsageError(["sweep", scenario, "--grid", "costs.maker_timeout=1s,3s", "--out", tape], "an input of this run")
    expectUsageError(["sweep", scenario, "--grid", "costs.maker_timeout=1s,3s", "--out", folder.path + "/s.csv", "--pnl-matrix", tape], "an input of this run")
    #expect(try Data(contentsOf: URL(fileURLWithPath: tape)) == before)
  }

  @Test("a maker leg without trades, without trade sizes or without sizes at its touch is refused (exit 64), as are the rules it does not combine with")
  func refusals() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = Self.scenario(folder)
    expectUsageError(
      ["backtest", scenario, "--set", "costs.maker_leg=1", "--set", "legs.1.trades="],
      "costs.maker_leg 1 needs legs.1.trades: the leg's recorded trades, each with its price and size")
    expectUsageError(
      ["backtest", scenario, "--set", "legs.0.trades=\(Self.fixtures)/\(BookFillCommandTests.files[1])"],
      "costs.maker_leg moves its order up the queue by trades and their sizes")
    expectUsageError(
      ["backtest", scenario, "--set", "legs.0.files=\(Self.fixtures)/BTCUSDT-1m-2025-01-01-futures-header.csv"],
      "legs.0 (binance:linear:BTCUSDT): costs.maker_leg queues an order behind the size at the touch, but the leg's source has no sizes")
    expectUsageError(["backtest", scenario, "--set", "costs.maker_leg=2"], "costs.maker_leg expects a leg index, 0 or 1, or none, was 2")
    expectUsageError(["backtest", scenario, "--set", "costs.queue=fifo"], "costs.queue expects risk_averse or probabilistic:POWER")
    expectUsageError(["backtest", scenario, "--set", "costs.queue=probabilistic:0"], "costs.queue expects risk_averse or probabilistic:POWER")
    expectUsageError(["backtest", scenario, "--set", "costs.fill=book"], "costs.maker_leg rests its order at the top of book: use costs.fill top")
    expectUsageError(["backtest", scenario, "--set", "costs.cap_at_book=true"], "costs.cap_at_book is not defined with costs.maker_leg")
    expectUsageError(["backtest", scenario, "--set", "costs.maker_fees.kraken=0.001"], "unknown key 'costs.maker_fees.kraken' (no leg trades on kraken)")
  }
}
