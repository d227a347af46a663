import Foundation
import TestSupport
import Testing

// `arbkit sweep` and `arbkit merge` on the shipped scenarios: every row equals the
// plain backtest of its cell, and the bytes do not depend on jobs, shards or a kill.

@Suite("arbkit sweep and merge")
struct SweepCommandTests {
  static let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let grid = [
    "--grid", "strategy.entry=0.6:1.0:0.4", "--grid", "strategy.exit=0,0.1", "--grid", "costs.fees.kraken=0.0016,0.004", "--grid", "costs.slippage_bps=0,5",
  ]

  static func sweep(_ extra: [String], in folder: TemporaryFolder, name: String) throws -> String {
    let out = folder.path + "/" + name
    let run = arbkit(["sweep", scenario] + grid + ["--quiet", "--out", out] + extra)
    #expect(run.code == .success, "\(run.errors)")
    return try String(contentsOfFile: out, encoding: .utf8)
  }

  @Test("cells are checked on several threads, and the first bad cell in grid order is the error", arguments: [1, 2])
  func firstBadCell(jobs: Int) {
    // 300 cells; the notional is zero from cell 150 on (and in every later chunk).
    let notionals = (0..<100).map { $0 < 50 ? "1000" : "0" }.joined(separator: ",")
    expectUsageError(
      ["sweep", Self.scenario, "--grid", "strategy.notional=" + notionals, "--grid", "strategy.exit=0,0.1,0.2", "--jobs", "\(jobs)", "--quiet"],
      "strategy.notional must be positive, was 0.0 (cell strategy.notional=0 strategy.exit=0)", "jobs \(jobs)")
  }

  @Test("every row is the plain backtest of its cell, though cells share simulations")
  func rowsEqualBacktests() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let lines = try Self.sweep([], in: folder, name: "sweep.csv").split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    let header = lines[0]
    #expect(
      header == [
        "strategy.entry", "strategy.exit", "costs.fees.kraken", "costs.slippage_bps", "trades", "wins", "pnl", "pnl_bps", "fees", "max_drawdown", "exposure",
        "mean_holding_s", "forced_exits", "sharpe", "funding",
      ])
    #expect(lines.count == 1 + 2 * 2 * 2 * 2)
    for row in lines.dropFirst() {
      let sets = (0..<4).flatMap { ["--set", "\(header[$0])=\(row[$0])"] }
      let plain = arbkit(["backtest", Self.scenario, "--format", "json"] + sets).object
      for (k, key) in header.enumerated().dropFirst(4) {
        // Foundation's JSON reader may be one ulp off the printed text: compare to 1e-14.
        switch plain[key] {
        case let x as Double: #expect(isClose(x, Double(row[k]), rel: 1e-14), "\(row[0...3]) \(key)")
        case is NSNull: #expect(row[k].isEmpty, "\(row[0...3]) \(key)")
        case nil where key == "funding": #expect(row[k].isEmpty, "mode convergence has no funding")
        default: Issue.record("\(key) missing from the backtest output")
        }
      }
    }
  }

  @Test("--format json holds the CSV's cells, in the same order; it refuses --out")
  func jsonOutput() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let lines = try Self.sweep([], in: folder, name: "sweep.csv").split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    let run = arbkit(["sweep", Self.scenario] + Self.grid + ["--quiet", "--format", "json"])
    #expect(run.code == .success, "\(run.errors)")
    let keys = try #require(run.object["keys"] as? [String]), metrics = try #require(run.object["metrics"] as? [String])
    #expect(keys + metrics == lines[0])
    let cells = try #require(run.object["cells"] as? [[String: Any]])
    #expect(cells.count == lines.count - 1)
    for (cell, row) in zip(cells, lines.dropFirst()) {
      for (k, key) in lines[0].enumerated() {
        switch cell[key] {
        case let text as String: #expect(k < keys.count && text == row[k], "\(key)")
        case is NSNull: #expect(row[k].isEmpty, "\(key)")
        case let number as NSNumber: #expect(isClose(number.doubleValue, Double(row[k]), rel: 1e-14), "\(row[0...3]) \(key)")
        default: Issue.record("\(key) missing from cell \(row[0...3])")
        }
      }
    }
    let withOut = arbkit(["sweep", Self.scenario] + Self.grid + ["--format", "json", "--out", folder.path + "/x.csv"])
    #expect(withOut.code == .usage && withOut.errors.contains("--format json prints to stdout"))
  }

  static let carryGrids: [(sets: [String], grid: [String])] = [
    (
      [],
      [
        "strategy.entry=-0.0404,-0.0403", "costs.fees.bybit=0.0005,0.001", "strategy.notional=1000,10000", "costs.latency=0ms,2s",
        "strategy.max_holding=5s,10s",
      ]
    ),
    (["legs.1.market=inverse"], ["legs.1.contract_size=10,100", "costs.slippage_bps=0,3", "strategy.cooldown=none,5s"]),
  ]

  @Test("mode carry: every row is the plain backtest of its cell (linear, and inverse by contract size)", arguments: carryGrids)
  func carryRowsEqualBacktests(c: (sets: [String], grid: [String])) throws {
    let scenario = Repository.data("scenarios/bybit-btcusdt-carry.json")
    let sets = c.sets.flatMap { ["--set", $0] }
    let run = arbkit(["sweep", scenario, "--quiet"] + sets + c.grid.flatMap { ["--grid", $0] })
    #expect(run.code == .success, "\(run.errors)")
    let lines = run.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let header = lines[0], axes = c.grid.count
    #expect(lines.count == 1 + (1 << axes))
    var traded = 0
    for row in lines.dropFirst() {
      let cell = (0..<axes).flatMap { ["--set", "\(header[$0])=\(row[$0])"] }
      let plain = arbkit(["backtest", scenario, "--format", "json"] + sets + cell).object
      traded += plain["trades"] as? Int ?? 0
      for (k, key) in header.enumerated().dropFirst(axes) {
        switch plain[key] {
        case let x as Double: #expect(isClose(x, Double(row[k]), rel: 1e-14), "\(row[0..<axes]) \(key)")
        case is NSNull: #expect(row[k].isEmpty, "\(row[0..<axes]) \(key)")
        default: Issue.record("\(key) missing from the backtest output")
        }
      }
    }
    #expect(traded > 0)
  }

  @Test("mode inventory: transfer fees and delay distributions on the axes; every row is the plain backtest of its cell, for any --jobs")
  func inventoryTransfers() throws {
    let scenario = Repository.data("scenarios/binanceus-kraken-inventory.json")
    let grid = ["rebalance.asset_fees.BTC=0,0.001", "rebalance.delay=2h,uniform:30m:3h", "costs.seed=1,2"].flatMap { ["--grid", $0] }
    let run = arbkit(["sweep", scenario, "--quiet", "--set", "strategy.entry=0.5"] + grid)
    #expect(run.code == .success, "\(run.errors)")
    #expect(arbkit(["sweep", scenario, "--quiet", "--set", "strategy.entry=0.5", "--jobs", "3"] + grid).output == run.output)
    let lines = run.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let header = lines[0]
    #expect(lines.count == 1 + 8)
    var pnl: Set<String> = []
    for row in lines.dropFirst() {
      let cell = (0..<3).flatMap { ["--set", "\(header[$0])=\(row[$0])"] }
      let plain = arbkit(["backtest", scenario, "--format", "json", "--set", "strategy.entry=0.5"] + cell).object
      #expect((plain["rebalances"] as? Int ?? 0) > 0)
      #expect((plain["transfer_fees"] as? Double ?? -1) > 0 || row[0] == "0", "\(row[0...2])")
      pnl.insert(row[header.firstIndex(of: "pnl")!])
      for (k, key) in header.enumerated().dropFirst(3) {
        switch plain[key] {
        case let x as Double: #expect(isClose(x, Double(row[k]), rel: 1e-14), "\(row[0...2]) \(key)")
        case is NSNull: #expect(row[k].isEmpty, "\(row[0...2]) \(key)")
        case nil where key == "funding": #expect(row[k].isEmpty)
        default: Issue.record("\(key) missing from the backtest output")
        }
      }
    }
    // Fees and the drawn delays (whose seed matters only for the uniform one) change the results.
    #expect(pnl.count >= 5)
  }

  @Test("the same bytes for --jobs 1 and 2, for 3 shards merged, and after a resume")
  func sameBytes() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let whole = try Self.sweep(["--jobs", "2"], in: folder, name: "whole.csv")
    #expect(try Self.sweep(["--jobs", "1"], in: folder, name: "one.csv") == whole)
    for i in 1...3 { _ = try Self.sweep(["--shard", "\(i)/3"], in: folder, name: "shard\(i).csv") }
    let shards = (1...3).map { folder.path + "/shard\($0).csv" }
    let merged = arbkit(["merge"] + shards + ["--out", folder.path + "/merged.csv"])
    #expect(merged.code == .success, "\(merged.errors)")
    #expect(try String(contentsOfFile: folder.path + "/merged.csv", encoding: .utf8) == whole)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: folder.path + "/merged.csv.meta.json"))
        == Data(contentsOf: URL(fileURLWithPath: folder.path + "/whole.csv.meta.json")))

    // A torn write: cut the file mid-row, then resume.
    let torn = folder.path + "/torn.csv"
    try Data(whole.utf8.prefix(whole.utf8.count / 2)).write(to: URL(fileURLWithPath: torn))
    try FileManager.default.copyItem(atPath: folder.path + "/whole.csv.meta.json", toPath: torn + ".meta.json")
    let resumed = arbkit(["sweep", Self.scenario] + Self.grid + ["--quiet", "--out", torn, "--resume"])
    #expect(resumed.code == .success, "\(resumed.errors)")
    #expect(try String(contentsOfFile: torn, encoding: .utf8) == whole)
  }

  @Test("merge and resume refuse files of another sweep")
  func refusals() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    _ = try Self.sweep(["--shard", "1/2"], in: folder, name: "a.csv")
    let other = folder.path + "/b.csv"
    let run = arbkit(["sweep", Self.scenario, "--grid", "strategy.entry=0.5,0.7", "--shard", "2/2", "--quiet", "--out", other])
    #expect(run.code == .success)
    let mixed = arbkit("merge", folder.path + "/a.csv", other, "--out", folder.path + "/m.csv")
    #expect(mixed.code == .usage && mixed.errors.contains("is a shard of another sweep"), "\(mixed.errors)")
    let missing = arbkit("merge", folder.path + "/a.csv", "--out", folder.path + "/m.csv")
    #expect(missing.code == .usage && missing.errors.contains("missing shard(s) 2/2"), "\(missing.errors)")
    let resume = arbkit(["sweep", Self.scenario, "--grid", "strategy.entry=0.5,0.8", "--quiet", "--out", folder.path + "/a.csv", "--resume"])
    #expect(resume.code == .usage && resume.errors.contains("written by another sweep"), "\(resume.errors)")
  }

  @Test("a sweep killed with SIGKILL and rerun with --resume ends with the uninterrupted bytes")
  func killAndResume() throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit").path
    try #require(FileManager.default.isExecutableFile(atPath: binary), "the arbkit binary is built beside the tests")
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Leg failures keep the cells from streaming: each is run, and its row written, in turn.
    let arguments = [
      "sweep", Self.scenario, "--grid", "strategy.entry=0.05:0.5:0.005", "--grid", "strategy.exit=0,0.05", "--jobs", "1", "--quiet", "--set",
      "costs.leg_fail_rate=0.2",
    ]
    let whole = folder.path + "/whole.csv", killed = folder.path + "/killed.csv"
    #expect(try runProgram(binary, arguments + ["--out", whole]) == 0)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments + ["--out", killed]
    try process.run()
    // Kill once some rows are on disk but not all.
    let expected = try String(contentsOfFile: whole, encoding: .utf8)
    var waited = 0
    while waited < 600, ((try? String(contentsOfFile: killed, encoding: .utf8))?.split(separator: "\n").count ?? 0) < 4 {
      usleep(10_000)
      waited += 1
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let partial = try String(contentsOfFile: killed, encoding: .utf8)
    #expect(partial.count < expected.count, "the kill came after the end")
    #expect(try runProgram(binary, arguments + ["--out", killed, "--resume"]) == 0)
    #expect(try String(contentsOfFile: killed, encoding: .utf8) == expected)
  }

  @Test("ranking: top cells by the metric, with the mean over grid neighbours")
  func ranking() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let run = arbkit([
      "sweep", Self.scenario, "--grid", "strategy.entry=0.7,0.8,0.9", "--quiet", "--out", folder.path + "/r.csv", "--rank", "pnl", "--top", "2",
    ])
    #expect(run.code == .success)
    let rows = try String(contentsOfFile: folder.path + "/r.csv", encoding: .utf8).split(separator: "\n").dropFirst().map {
      $0.split(separator: ",").map(String.init)
    }
    let pnl = rows.map { Double($0[3])! }
    let best = pnl.indices.max { pnl[$0] < pnl[$1] }!
    let around = [best - 1, best, best + 1].filter { pnl.indices.contains($0) }.map { pnl[$0] }
    let robustness = around.reduce(0, +) / Double(around.count)
    let first = run.output.split(separator: "\n")[3].split(separator: " ").map(String.init)
    #expect(first == ["1", rows[best][0], String(format: "%.4f", pnl[best]), String(format: "%.4f", robustness)])
    #expect(arbkit(["sweep", Self.scenario, "--grid", "strategy.entry=1", "--rank", "pnl_bp"]).errors.contains("did you mean 'pnl_bps'?"))
  }
}
