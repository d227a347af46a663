import Foundation
import TestSupport
import Testing

// `arbkit sweep --pnl-matrix`: every column is the plain backtest's bookings of its cell
// (trade exits and funding settlements from its ledgers) summed per period, and the
// bytes do not depend on jobs, shards or a resume.

@Suite("arbkit sweep --pnl-matrix")
struct PnLMatrixTests {
  static let convergence = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let convergenceGrid = ["strategy.entry=0.6,1.0", "strategy.exit=0,0.1"]
  static let carry = Repository.data("scenarios/bybit-btcusdt-carry.json")
  static let carryGrid = ["strategy.entry=-0.0404,-0.0403", "strategy.max_holding=5s,10s"]
  static let hour: Int64 = 3_600_000_000

  static func csv(_ path: String) throws -> [[String]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
  }

  static func floorDiv(_ x: Int64, _ d: Int64) -> Int64 { x / d - (x % d != 0 && x < 0 ? 1 : 0) }

  /// The plain backtest's bookings of one cell, from its ledgers: each funding payment at
  /// its time, each trade's PnL without its funding at its exit, a payment before an
  /// exit at the same time.
  static func bookings(_ scenario: String, _ sets: [String], in folder: TemporaryFolder) throws -> [(time: Int64, pnl: Double)] {
    let trades = folder.path + "/trades.csv", funding = folder.path + "/funding.csv"
    let run = arbkit(["backtest", scenario, "--trades", trades, "--funding", funding] + sets.flatMap { ["--set", $0] })
    #expect(run.code == .success, "\(run.errors)")
    let ledger = try csv(trades), header = ledger[0]
    let exit = try #require(header.firstIndex(of: "exit_ts_us")), pnl = try #require(header.firstIndex(of: "pnl"))
    let paid = header.firstIndex(of: "funding")
    let payments = try csv(funding).dropFirst().map { (time: Int64($0[0])!, pnl: Double($0[4])!) }
    let exits = ledger.dropFirst().map { row in (time: Int64(row[exit])!, pnl: Double(row[pnl])! - (paid.map { Double(row[$0])! } ?? 0)) }
    return (payments + exits).enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
  }

  /// Each cell's column of `matrix` holds its bookings summed per period of `length` in
  /// the zone of `offset`, every period of the rows present in order; the rows cover the
  /// days of the plain backtest's daily journal (exactly those days for periods of a day).
  static func expectColumns(
    _ matrix: [[String]], scenario: String, cells: [[String]], length: Int64, offset: Int64, zone: String, in folder: TemporaryFolder
  ) throws {
    #expect(matrix[0] == ["period_start_us"] + cells.indices.map(String.init))
    let starts = matrix.dropFirst().map { Int64($0[0])! }
    #expect(!starts.isEmpty)
    #expect(starts.allSatisfy { ($0 + offset) % length == 0 } && zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 == length })
    for (c, sets) in cells.enumerated() {
      var expected: [Int64: Double] = [:]
      for booking in try bookings(scenario, sets + ["journal.tz=" + zone], in: folder) {
        expected[floorDiv(booking.time + offset, length), default: 0] += booking.pnl
      }
      let column = Dictionary(uniqueKeysWithValues: matrix.dropFirst().map { (floorDiv(Int64($0[0])! + offset, length), Double($0[c + 1])!) })
      #expect(Set(expected.keys).isSubset(of: column.keys), "cell \(c): a booked period outside the rows")
      for (period, value) in column { #expect(value == expected[period] ?? 0, "cell \(c) period \(period)") }
      let plain = arbkit(["backtest", scenario, "--format", "json", "--set", "journal.tz=" + zone] + sets.flatMap { ["--set", $0] })
      let daily = try #require(plain.object["daily"] as? [[String: Any]])
      let days = try daily.map { day -> Int64 in
        let date = try #require(ISO8601DateFormatter().date(from: (day["date"] as! String) + "T00:00:00Z"))
        return Int64(date.timeIntervalSince1970) * 1_000_000 - offset
      }
      if length == 86_400_000_000 {
        #expect(starts == days, "cell \(c): one row per day of the journal")
      } else {
        // The first and last rows hold a time of the journal's first and last days.
        #expect(starts[0] < days[0] + 86_400_000_000 && starts[0] + length > days[0])
        #expect(starts.last! <= days.last! + 86_400_000_000 - 1 && starts.last! + length > days.last!, "cell \(c)")
      }
    }
  }

  static let periods: [(text: String, length: Int64)] = [("1d", 24 * hour), ("6h", 6 * hour), ("2d", 48 * hour)]
  static let zones: [(name: String, offset: Int64)] = [("UTC", 0), ("Asia/Seoul", 9 * hour)]

  @Test("convergence and carry: each column is its cell's bookings per period", arguments: [convergence, carry], [0, 1, 2])
  func columnsEqualBacktests(scenario: String, period: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let grid = scenario == Self.convergence ? Self.convergenceGrid : Self.carryGrid
    let (text, length) = Self.periods[period]
    for zone in Self.zones {
      let matrix = folder.path + "/matrix.csv"
      let run = arbkit(
        ["sweep", scenario, "--quiet", "--set", "journal.tz=" + zone.name, "--pnl-matrix", matrix, "--period", text] + grid.flatMap { ["--grid", $0] })
      #expect(run.code == .success, "\(run.errors)")
      let rows = try Self.csv(matrix)
      let cells = run.output.split(separator: "\n").dropFirst().map { row in
        zip(grid, row.split(separator: ",")).map { String($0.split(separator: "=")[0]) + "=" + $1 }
      }
      try Self.expectColumns(rows, scenario: scenario, cells: cells, length: length, offset: zone.offset, zone: zone.name, in: folder)
      if scenario == Self.convergence { #expect(rows.dropFirst().contains { $0.dropFirst().contains { $0 != "0" } }, "some period has PnL") }
    }
  }

  @Test("carry with funding: settlements on the period they are paid, trades on that of their exit", arguments: ["1h", "2h", "6h", "1d"])
  func carryWithFunding(period: String) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = CarryCommandTests.handMadeScenario(folder)
    let length = Int64(period.dropLast())! * (period.hasSuffix("h") ? Self.hour : 24 * Self.hour)
    let grid = ["costs.slippage_bps=0,5", "strategy.notional=5000,10000"]
    for zone in Self.zones {
      let matrix = folder.path + "/matrix.csv"
      let run = arbkit(
        ["sweep", scenario, "--quiet", "--set", "journal.tz=" + zone.name, "--pnl-matrix", matrix, "--period", period] + grid.flatMap { ["--grid", $0] })
      #expect(run.code == .success, "\(run.errors)")
      let cells = run.output.split(separator: "\n").dropFirst().map { row in
        zip(grid, row.split(separator: ",")).map { String($0.split(separator: "=")[0]) + "=" + $1 }
      }
      try Self.expectColumns(try Self.csv(matrix), scenario: scenario, cells: cells, length: length, offset: zone.offset, zone: zone.name, in: folder)
    }
    // Hourly: 6 rows; the payments at hours 2, 3 and 4 and the exit each on their own hour.
    let matrix = folder.path + "/hourly.csv"
    #expect(arbkit(["sweep", scenario, "--quiet", "--pnl-matrix", matrix, "--period", "1h", "--grid", "costs.slippage_bps=0"]).code == .success)
    let rows = try Self.csv(matrix)
    #expect(rows.count == 7 && rows.dropFirst().map { Int64($0[0])! } == (0..<6).map { CarryCommandTests.start + $0 * Self.hour })
    #expect(rows[3..<6].allSatisfy { $0[1] != "0" })
  }

  static func sweep(_ extra: [String], out: String, matrix: String) -> RunResult {
    let run = arbkit(
      ["sweep", convergence, "--quiet", "--out", out, "--pnl-matrix", matrix, "--period", "6h", "--set", "journal.tz=Asia/Seoul"]
        + ["strategy.entry=0.6:1.0:0.2", "strategy.exit=0,0.1"].flatMap { ["--grid", $0] } + extra)
    #expect(run.code == .success, "\(run.errors)")
    return run
  }

  @Test("the same matrix bytes for --jobs 1 and 2, for 3 shards merged, and after a resume")
  func sameBytes() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = { (name: String) in folder.path + "/" + name }
    func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }
    _ = Self.sweep(["--jobs", "2"], out: path("whole.csv"), matrix: path("whole-matrix.csv"))
    _ = Self.sweep(["--jobs", "1"], out: path("one.csv"), matrix: path("one-matrix.csv"))
    let whole = try bytes("whole-matrix.csv")
    #expect(try bytes("one-matrix.csv") == whole)
    for i in 1...3 { _ = Self.sweep(["--shard", "\(i)/3"], out: path("shard\(i).csv"), matrix: path("shard\(i)-matrix.csv")) }
    #expect(try Self.csv(path("shard2-matrix.csv"))[0] == ["period_start_us", "1", "4"])
    let merged = arbkit(["merge"] + (1...3).map { path("shard\($0).csv") } + ["--out", path("merged.csv"), "--pnl-matrix", path("merged-matrix.csv")])
    #expect(merged.code == .success, "\(merged.errors)")
    #expect(try bytes("merged-matrix.csv") == whole && bytes("merged.csv") == bytes("whole.csv"))

    // A torn write: cut the CSV mid-row, remove the matrix, then resume.
    let csv = try bytes("whole.csv")
    try csv.prefix(csv.count / 2).write(to: URL(fileURLWithPath: path("torn.csv")))
    try FileManager.default.copyItem(atPath: path("whole.csv.meta.json"), toPath: path("torn.csv.meta.json"))
    try FileManager.default.removeItem(atPath: path("whole-matrix.csv"))
    _ = Self.sweep(["--resume"], out: path("torn.csv"), matrix: path("whole-matrix.csv"))
    #expect(try bytes("torn.csv") == csv && bytes("whole-matrix.csv") == whole)
    // Resumed with another period: refused as another sweep.
    let other = arbkit(
      ["sweep", Self.convergence, "--quiet", "--out", path("torn.csv"), "--resume", "--pnl-matrix", path("whole-matrix.csv")]
        + ["strategy.entry=0.6:1.0:0.2", "strategy.exit=0,0.1"].flatMap { ["--grid", $0] } + ["--set", "journal.tz=Asia/Seoul"])
    #expect(other.code == .usage && other.errors.contains("written by another sweep"), "\(other.errors)")
  }

  @Test("bad --period values are usage errors (exit 64)", arguments: ["0", "0d", "90m", "-1d", "1.5d", "+1d", "d", "1w"])
  func badPeriod(text: String) {
    expectUsageError(
      ["sweep", Self.convergence, "--grid", "strategy.entry=0.6", "--pnl-matrix", "m.csv", "--period", text], "invalid value for '--period'", text)
  }

  @Test("--period needs --pnl-matrix; one journal.tz for every cell; merge needs every shard's matrix")
  func refusals() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    expectUsageError(["sweep", Self.convergence, "--grid", "strategy.entry=0.6", "--period", "1d"], "--period needs --pnl-matrix")
    expectUsageError(
      ["sweep", Self.convergence, "--grid", "journal.tz=UTC,Asia/Seoul", "--pnl-matrix", folder.path + "/m.csv"],
      "--pnl-matrix: the cells' periods need one journal.tz, was UTC and Asia/Seoul (cell 1)")
    expectUsageError(
      ["sweep", Self.convergence, "--grid", "strategy.entry=0.6", "--out", folder.path + "/s.csv", "--pnl-matrix", folder.path + "/s.csv"],
      "is also the sweep's --out file")
    for i in 1...2 {
      let run = arbkit(["sweep", Self.convergence, "--grid", "strategy.entry=0.6,1.0", "--shard", "\(i)/2", "--quiet", "--out", folder.path + "/s\(i).csv"])
      #expect(run.code == .success, "\(run.errors)")
    }
    expectUsageError(
      ["merge", folder.path + "/s1.csv", folder.path + "/s2.csv", "--out", folder.path + "/all.csv", "--pnl-matrix", folder.path + "/all-matrix.csv"],
      "was swept without --pnl-matrix")
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/all.csv"), "merge writes all or nothing")
  }
}

extension PnLMatrixTests {
  @Test("merge: rows over the union of the shards' periods, 0 where a shard has none; a line that is no row exits 65")
  func mergeUnion() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = { (name: String) in folder.path + "/" + name }
    for i in 1...2 { _ = Self.sweep(["--shard", "\(i)/2"], out: path("s\(i).csv"), matrix: path("s\(i)-matrix.csv")) }
    let first = try Self.csv(path("s1-matrix.csv")), second = try Self.csv(path("s2-matrix.csv"))
    // Shard 2 without its first period, as if its cells' valid points began a period later.
    let text = (second.prefix(1) + second.dropFirst(2)).map { $0.joined(separator: ",") + "\n" }.joined()
    _ = folder.write("s2-matrix.csv", text)
    let merge = ["merge", path("s1.csv"), path("s2.csv"), "--out", path("all.csv"), "--pnl-matrix", path("all-matrix.csv")]
    #expect(arbkit(merge).code == .success)
    let merged = try Self.csv(path("all-matrix.csv"))
    #expect(merged.count == first.count && merged.map { $0[0] } == first.map { $0[0] })
    for (k, row) in merged.enumerated().dropFirst() {
      for cell in 0..<6 {
        let expected = cell % 2 == 0 ? first[k][cell / 2 + 1] : (k == 1 ? "0" : second[k][cell / 2 + 1])
        #expect(row[cell + 1] == expected, "row \(k) cell \(cell)")
      }
    }
    _ = folder.write("s2-matrix.csv", text + "12,x,1,2\n")
    let bad = arbkit(merge)
    let message = path("s2-matrix.csv") + ":\(second.count):1: error: expected period_start_us and 3 finite numbers, was '12,x,1,2'"
    #expect(bad.code == .dataError && bad.errors.contains(message), "\(bad.errors)")
    #expect(try Self.csv(path("all-matrix.csv")) == merged, "a failed merge leaves the old matrix")
  }
}
