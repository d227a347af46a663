import ArbBacktest
import ArbIngest
@testable import ArbResearch
import Foundation
import TestSupport
import Testing

// A backtest and a sweep's convergence cells stream their legs: every result equals
// the one on legs read whole, for chunks down to two valid points, from CSV files and
// from a store, and each cell that cannot stream still reads its legs whole.

@Suite("A streamed backtest or sweep equals the one on whole legs")
struct StreamedSweepTests {
  static let convergence = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let inventory = Repository.data("scenarios/binanceus-kraken-inventory.json")

  /// The rows (grid fields left out) and PnL-matrix columns of a plan over `cells`.
  static func rows(
    _ cells: [(cell: Int, scenario: Scenario)], stream: Bool, chunkPoints: Int = 1 << 16, jobs: Int = 2
  ) throws -> (
    rows: [String], columns: [String], streamed: [Bool]
  ) {
    let plan = try SweepPlan(cells: cells, options: IngestOptions(), period: 86_400_000_000, stream: stream, chunkPoints: chunkPoints, jobs: jobs)
    var rows: [SweepRow] = []
    try plan.run(jobs: jobs) { rows += $0 }
    let columns = rows.map { row in
      row.column.map { "\($0.times.map(String.init(describing:)) ?? "-") \($0.booked.map { "\($0.period):\($0.pnl.bitPattern)" })" } ?? ""
    }
    return (rows.map(\.csvFields), columns, plan.data.map { $0.streamed != nil })
  }

  /// One cell per combination of the rules a streamed run takes.
  static func cells(_ path: String, extra: [String] = []) throws -> [(cell: Int, scenario: Scenario)] {
    var sets: [[String]] = []
    for entry in ["0.1", "0.3", "0.8"] {
      for exit in ["0", "0.1"] {
        for latency in ["0ms", "1m", "90s"] {
          sets.append(["strategy.entry=\(entry)", "strategy.exit=\(exit)", "costs.latency=\(latency)"])
        }
      }
    }
    sets += [
      ["strategy.entry=0.2", "strategy.cooldown=2h"], ["strategy.entry=0.2", "strategy.max_holding=30m"], ["strategy.entry=0.2", "costs.cap_at_book=true"],
      ["strategy.entry=0.2", "costs.venue_latency.kraken=3m"], ["strategy.entry=0.2", "alignment.offsets.kraken=+30s"],
      ["strategy.entry=0.2", "costs.fees.kraken=0.004", "strategy.notional=500"], ["strategy.entry=0.2", "alignment.max_stale=5m"],
    ]
    return try sets.enumerated().map { (cell: $0.offset, scenario: try Scenario.load(path: path, overrides: $0.element + extra)) }
  }

  @Test("the demo scenario's cells, chunks from two points", arguments: [2, 37, 5_000, 1 << 16])
  func demo(chunkPoints: Int) throws {
    let cells = try Self.cells(Self.convergence)
    let whole = try Self.rows(cells, stream: false)
    let streamed = try Self.rows(cells, stream: true, chunkPoints: chunkPoints)
    #expect(whole.streamed.allSatisfy { !$0 } && streamed.streamed.allSatisfy { $0 })
    #expect(streamed.rows == whole.rows)
    #expect(streamed.columns == whole.columns)
    #expect(whole.rows.contains { !$0.hasPrefix("0,") }, "cells trade")
  }

  @Test("a store's legs stream to the same rows as the CSV files read whole")
  func store() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.convergence))) as! [String: Any]
    let legs = scenario["legs"] as! [[String: Any]]
    let base = (Self.convergence as NSString).deletingLastPathComponent
    let store = folder.path + "/store"
    for leg in legs {
      let file = (base as NSString).appendingPathComponent((leg["files"] as! [String])[0])
      let format = (base as NSString).appendingPathComponent(leg["format"] as! String)
      let result = arbkit(["convert", "\(leg["venue"]!):spot:BTCUSDC=\(file)@\(format)", "--out", store])
      #expect(result.code == .success, "\(result.errors)")
    }
    var stored = scenario
    stored["legs"] = legs.map { leg -> [String: Any] in
      var leg = leg
      leg["files"] = [store]
      leg["format"] = nil
      return leg
    }
    let path = folder.write("stored.json", String(decoding: try JSONSerialization.data(withJSONObject: stored), as: UTF8.self))
    let whole = try Self.rows(try Self.cells(Self.convergence), stream: false)
    let streamed = try Self.rows(try Self.cells(path), stream: true, chunkPoints: 64)
    #expect(streamed.streamed.allSatisfy { $0 })
    #expect(streamed.rows == whole.rows)
  }

  @Test("cells that cannot stream read their legs whole, and equal rows either way")
  func mixed() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // A failing leg cannot stream: the legs its cells share are read whole.
    let cells =
      try Self.cells(Self.convergence) + [(cell: 100, scenario: try Scenario.load(path: Self.convergence, overrides: ["costs.leg_fail_rate=0.1"]))]
    let streamed = try Self.rows(cells, stream: true, chunkPoints: 50)
    let whole = try Self.rows(cells, stream: false)
    #expect(streamed.rows == whole.rows)
    #expect(streamed.streamed.contains(false), "the failing leg's legs are read whole")
    // Another clock offset is another set of legs: those stream.
    #expect(streamed.streamed.contains(true))
  }

  @Test("a streamed backtest gives the whole-leg backtest's JSON, ledger and equity", arguments: [2, 333, 1 << 16])
  func backtest(chunkPoints: Int) throws {
    for (_, scenario) in try Self.cells(Self.convergence).filter({ $0.cell % 4 == 0 || $0.cell >= 18 }) {
      try Self.compareBacktest(scenario, chunkPoints: chunkPoints)
    }
  }

  /// The streamed backtest of `scenario` against the one on whole legs: JSON, ledgers and legs.
  static func compareBacktest(_ scenario: Scenario, chunkPoints: Int) throws {
    var options = IngestOptions()
    options.clock = scenario.clock
    let fees = try scenario.takerFees(registry: options.registry)
    #expect(try ScenarioRun.streams(scenario, fees: fees, registry: options.registry))
    let whole = try ScenarioRun(scenario, fees: fees, recording: try ScenarioRecording.load(scenario, options: options), registry: options.registry)
    let streamed = try ScenarioRun(streaming: scenario, fees: fees, options: options, chunkPoints: chunkPoints)
    #expect(try streamed.checkedFinite().rendered() == (try whole.checkedFinite().rendered()))
    #expect(streamed.ledger.text == whole.ledger.text && streamed.equity.text == whole.equity.text && streamed.funding.text == whole.funding.text)
    #expect(streamed.inventory.text == whole.inventory.text)
    #expect(streamed.legs.map(\.count) == whole.legs.map(\.count) && streamed.legs.map(\.priceSource) == whole.legs.map(\.priceSource))
    #expect(streamed.legs.map(\.instrument) == whole.legs.map(\.instrument))
  }

  @Test("a run with a maker leg cannot stream, and says so")
  func refused() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let registry = IngestOptions().registry
    let scenario = try Scenario.load(path: MakerCommandTests.scenario(folder))
    #expect(try !ScenarioRun.streams(scenario, fees: scenario.takerFees(registry: registry), registry: registry))
  }

  @Test func `book-walking fills and failed legs stream: the same run as on whole legs, chunks from two points`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Two venues' generated book snapshots, so that the premium comes and goes.
    let files = [("binance-futures", UInt64(11)), ("bybit", 12)].map { venue, seed in
      let file = SizeFlagTests.snapshots(venue: venue, rows: 1_500, seed: seed, gap: 40_000)
      return folder.write("\(venue).csv", ([file.header] + file.rows).joined(separator: "\n") + "\n")
    }
    let legs = zip(["binance", "bybit"], files).map { venue, path in
      #"{ "venue": "\#(venue)", "market": "linear", "symbol": "BTCUSDT", "files": ["\#(path)"] }"#
    }
    let path = folder.write(
      "walk.json",
      """
      {
        "legs": [\(legs.joined(separator: ", "))],
        "strategy": { "mode": "convergence", "entry": 0.05, "exit": 0.0, "notional": 120000, "max_holding": "500ms" },
        "costs": { "fill": "book", "latency": "30ms", "fees": { "binance": 0.0004, "bybit": 0.00055 } }
      }
      """)
    let settings = [
      ["costs.partial=fill"], ["costs.partial=hedge"], ["costs.partial=unwind", "costs.leg_fail_rate=0.2"], ["costs.fill=top", "costs.leg_fail_rate=0.3"],
    ]
    for overrides in settings {
      let scenario = try Scenario.load(path: path, overrides: overrides)
      for chunkPoints in [2, 65_536] { try Self.compareBacktest(scenario, chunkPoints: chunkPoints) }
      // The data give round trips to walk, some of them one-legged.
      var options = IngestOptions()
      options.clock = scenario.clock
      let run = try ScenarioRun(streaming: scenario, fees: try scenario.takerFees(registry: options.registry), options: options, chunkPoints: 1 << 16)
      if case .convergence(let result) = run.outcome {
        #expect(result.trades.count >= 5 && result.leggedTrades > 0, "\(overrides)")
      } else {
        Issue.record("mode convergence")
      }
    }
  }

  /// Settings of drawn latencies for legs on `venue`, durations from `short` to `long`:
  /// `costs.latency` uniform and lognormal (at two seeds), `costs.venue_latency.VENUE`
  /// of each form for one venue, and `recorded` where the legs keep both clocks.
  static func drawnLatencies(venue: String, short: String, long: String, recorded: Bool) -> [[String]] {
    var sets = [
      ["costs.latency=uniform:0ms:\(long)"], ["costs.latency=uniform:0ms:\(long)", "costs.seed=5"],
      ["costs.latency=lognormal:\(short):0.8", "costs.seed=3"], ["costs.latency=lognormal:\(short):2.5"],
      ["costs.venue_latency.\(venue)=uniform:\(short):\(long)"],
      ["costs.latency=\(short)", "costs.venue_latency.\(venue)=lognormal:\(long):0.5", "costs.seed=9"],
    ]
    if recorded { sets += [["costs.latency=recorded"], ["costs.latency=uniform:0ms:\(short)", "costs.venue_latency.\(venue)=recorded", "costs.seed=2"]] }
    return sets
  }

  @Test(
    "drawn latencies stream in every mode: backtests, and sweep rows on one or two threads, equal the whole-leg ones byte for byte",
    arguments: [2, 3, 7, 100, 1 << 16])
  func drawnLatencies(chunkPoints: Int) throws {
    let bybit = Repository.data("scenarios/bybit-btcusdt-carry.json")
    let demo = Self.drawnLatencies(venue: "kraken", short: "30s", long: "3m", recorded: false)
    let recorded = Self.drawnLatencies(venue: "bybit", short: "20ms", long: "300ms", recorded: true)
    let families: [(path: String, sets: [[String]])] = [
      (Self.convergence, demo.map { $0 + ["strategy.entry=0.2", "strategy.cooldown=30m"] }), (Self.inventory, demo.map { $0 + ["strategy.entry=0.3"] }),
      // The recording's own two clocks: every mode at a recorded latency.
      (bybit, recorded), (bybit, recorded.map { $0 + ["strategy.mode=convergence", "strategy.entry=0.005", "strategy.exit=0"] }),
      (
        bybit,
        recorded.map { $0 + ["strategy.mode=inventory", "strategy.entry=0.005", "legs.0.base=1", "legs.1.base=1", "legs.0.quote=1e5", "legs.1.quote=1e5"] }
      ),
    ]
    for (path, sets) in families {
      let cells = try sets.enumerated().map { (cell: $0.offset, scenario: try Scenario.load(path: path, overrides: $0.element)) }
      let whole = try Self.rows(cells, stream: false)
      #expect(whole.streamed.allSatisfy { !$0 } && whole.rows.contains { !$0.hasPrefix("0,") }, "cells trade")
      for jobs in [1, 2] {
        let streamed = try Self.rows(cells, stream: true, chunkPoints: chunkPoints, jobs: jobs)
        #expect(streamed.streamed.allSatisfy { $0 } && streamed.rows == whole.rows && streamed.columns == whole.columns, "\(path), jobs \(jobs)")
      }
      for (cell, scenario) in cells where chunkPoints > 7 || cell % 2 == 0 { try Self.compareBacktest(scenario, chunkPoints: chunkPoints) }
    }
  }

  @Test("a recorded latency on legs with one clock is refused by a streamed backtest as on whole legs")
  func recordedOnOneClock() throws {
    var options = IngestOptions()
    for path in [Self.convergence, Self.inventory] {
      let scenario = try Scenario.load(path: path, overrides: ["costs.venue_latency.kraken=recorded"])
      options.clock = scenario.clock
      let fees = try scenario.takerFees(registry: options.registry)
      #expect(try ScenarioRun.streams(scenario, fees: fees, registry: options.registry))
      let streamed = #expect(throws: ScenarioLegError.self) { try ScenarioRun(streaming: scenario, fees: fees, options: options, chunkPoints: 7) }
      let whole = #expect(throws: ScenarioLegError.self) {
        try ScenarioRun(scenario, fees: fees, recording: try ScenarioRecording.load(scenario, options: options), registry: options.registry)
      }
      #expect(streamed?.reason == whole?.reason && streamed?.description.contains("legs.1 (kraken") == true, "\(String(describing: streamed))")
    }
  }

  /// Inventory cells of the demo pair: thresholds, latencies and rebalance delays, with
  /// balances small enough to run out, and every other rule a streamed run takes.
  static func inventoryCells() throws -> [(cell: Int, scenario: Scenario)] {
    var sets: [[String]] = []
    for entry in ["0.2", "0.8"] {
      for latency in ["0ms", "1m"] {
        for delay in ["0ms", "30m", "2h"] {
          sets.append(["strategy.entry=\(entry)", "costs.latency=\(latency)", "rebalance.delay=\(delay)"])
        }
      }
    }
    sets += [
      ["strategy.entry=0.3", "costs.cap_at_book=true"], ["strategy.entry=0.3", "costs.venue_latency.kraken=3m"],
      ["strategy.entry=0.3", "alignment.offsets.kraken=+30s"], ["strategy.entry=0.3", "costs.fees.kraken=0.004", "strategy.notional=500"],
      ["strategy.entry=0.3", "legs.0.base=0.05", "legs.1.quote=1000", "rebalance.cost=5"], ["strategy.entry=0.3", "strategy.min_size=0.2"],
      ["strategy.entry=0.3", "alignment.max_stale=5m", "costs.slippage_bps=0"],
      ["strategy.entry=0.3", "rebalance.asset_fees.BTC=0.0005", "rebalance.asset_fees.USDC=2"],
      ["strategy.entry=0.3", "rebalance.delay=uniform:10m:3h", "costs.seed=7"], ["strategy.entry=0.3", "rebalance.delay=lognormal:1h:0.8"],
    ]
    return try sets.enumerated().map { (cell: $0.offset, scenario: try Scenario.load(path: Self.inventory, overrides: $0.element)) }
  }

  @Test("mode inventory streams: sweep rows equal the whole-leg rows and each cell's streamed backtest, byte for byte", arguments: [2, 3, 7, 1 << 16])
  func inventory(chunkPoints: Int) throws {
    let cells = try Self.inventoryCells()
    let whole = try Self.rows(cells, stream: false)
    let streamed = try Self.rows(cells, stream: true, chunkPoints: chunkPoints, jobs: chunkPoints % 2 + 1)
    #expect(whole.streamed.allSatisfy { !$0 } && streamed.streamed.allSatisfy { $0 })
    #expect(streamed.rows == whole.rows)
    #expect(streamed.columns == whole.columns)
    #expect(whole.rows.contains { !$0.hasPrefix("0,") }, "cells trade")
    var options = IngestOptions()
    var rebalances = 0
    for (cell, scenario) in cells where chunkPoints > 3 || cell % 3 == 0 {
      try Self.compareBacktest(scenario, chunkPoints: chunkPoints)
      options.clock = scenario.clock
      let run = try ScenarioRun(streaming: scenario, fees: scenario.takerFees(registry: options.registry), options: options, chunkPoints: chunkPoints)
      #expect(SweepRow(cell: cell, metrics: BacktestMetrics(run, journal: run.journal)).csvFields == streamed.rows[cell], "cell \(cell)")
      if case .inventory(let inventory) = run.outcome { rebalances += inventory.rebalances.count }
    }
    #expect(rebalances > 1, "cells run out of base or quote and rebalance")
  }

  @Test("mode carry streams: backtests and sweeps equal the whole-leg ones, funding settlements included", arguments: [2, 5, 1 << 16])
  func carry(chunkPoints: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let funded = CarryCommandTests.handMadeScenario(folder)
    let recorded = Repository.data("scenarios/bybit-btcusdt-carry.json")
    for (path, sets) in [
      (funded, [["strategy.entry=0.5"], ["strategy.entry=0.2", "strategy.exit=0"], ["costs.latency=90m"]]),
      (recorded, [[], ["strategy.entry=-0.0405"], ["strategy.cooldown=0ms", "strategy.max_holding=5s"]]),
    ] {
      let cells = try sets.enumerated().map { (cell: $0.offset, scenario: try Scenario.load(path: path, overrides: $0.element)) }
      let whole = try Self.rows(cells, stream: false)
      let streamed = try Self.rows(cells, stream: true, chunkPoints: chunkPoints)
      #expect(streamed.streamed == [true] && streamed.rows == whole.rows && streamed.columns == whole.columns)
      for (_, scenario) in cells { try Self.compareBacktest(scenario, chunkPoints: chunkPoints) }
    }
  }

  @Test("a duration that moves a time out of range is refused (64) by a streamed run as by a whole one, not trapped on the way")
  func durationsOutOfRange() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Two legs in the year 8941, where a holding limit or cooldown of 9.1e18 µs leaves the range of times.
    let start: Int64 = 220_000_000_000_000_000
    for (name, exchange, offset) in [("a", "binance", 0.0), ("b", "bybit", 0.4)] {
      var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
      for k in 0..<300 {
        let t = start + Int64(k) * 1_000_000 + (name == "b" ? 500 : 0)
        let bid = 100 + offset * Double(k % 3)
        text += "\(exchange),BTCUSDT,\(t),\(t),1,\(bid + 0.1),\(bid),1\n"
      }
      _ = folder.write("\(name).csv", text)
    }
    let scenario = folder.write(
      "far.json",
      """
      { "legs": [ { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["a.csv"] },
                  { "venue": "bybit", "market": "linear", "symbol": "BTCUSDT", "files": ["b.csv"] } ],
        "alignment": { "max_stale": "1m" }, "strategy": { "mode": "convergence", "entry": 0.1, "exit": 0, "notional": 1000 },
        "costs": { "latency": "2s" } }
      """)
    #expect(arbkit("backtest", scenario, "--chunk-rows", "2").code == .success)
    for key in ["strategy.max_holding", "strategy.cooldown"] {
      let run = arbkit("backtest", scenario, "--set", "\(key)=9100000000000000000us", "--chunk-rows", "2")
      #expect(run.code == .usage && run.errors.contains("leaves the range of times"), "\(key): \(run.errors)")
      let out = folder.path + "/sweep.csv"
      let sweep = arbkit("sweep", scenario, "--grid", "\(key)=1h,9100000000000000000us", "--quiet", "--out", out, "--chunk-rows", "3")
      #expect(sweep.code == .usage && sweep.errors.contains("leaves the range of times"), "\(key): \(sweep.errors)")
      #expect(!FileManager.default.fileExists(atPath: out), "a refused sweep leaves no output")
    }
  }
}
