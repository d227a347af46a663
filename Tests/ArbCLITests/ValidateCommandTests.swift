import ArbCLI
import Foundation
import TestSupport
import Testing

/// `arbkit validate` end to end: the sweep of the shipped scenario (3 × 3 cells) with a
/// seeded period PnL matrix written here, its JSON against the oracle, the table, and
/// every refusal with its exit code and message.
@Suite("arbkit validate")
struct ValidateCommandTests {
  static let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")

  /// A folder with `sweep.csv` (the shipped scenario, entry 0.6/1.0/1.4 × exit
  /// 0/0.05/0.1) and `matrix.csv`, `rows` as its periods.
  static func folder(rows: [[Double]]) throws -> TemporaryFolder {
    let folder = TemporaryFolder()
    let run = arbkit(
      ["sweep", scenario, "--grid", "strategy.entry=0.6:1.4:0.4", "--grid", "strategy.exit=0,0.05,0.1", "--quiet", "--out", folder.path + "/sweep.csv"])
    try #require(run.code == .success, "\(run.errors)")
    folder.write("matrix.csv", matrixText(rows))
    return folder
  }

  static func matrixText(_ rows: [[Double]]) -> String {
    let header = "period_start_us," + (0..<rows[0].count).map(String.init).joined(separator: ",")
    let lines = rows.enumerated().map { t, row in "\(1_677_628_800_000_000 + Int64(t) * 86_400_000_000)," + row.map { "\($0)" }.joined(separator: ",") }
    return ([header] + lines).joined(separator: "\n") + "\n"
  }

  static func random(periods: Int, seed: UInt64) -> [[Double]] {
    var g = SplitMix64(seed: seed)
    return (0..<periods).map { _ in (0..<9).map { Double($0 % 3) * 0.1 + g.normal() } }
  }

  /// A JSON number (integral ones come back as integers).
  static func double(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

  static func numbers(_ value: Any?) -> [Double] { (value as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue } }

  @Test func `JSON agrees with the oracle`() throws {
    let rows = Self.random(periods: 40, seed: 2026)
    let folder = try Self.folder(rows: rows)
    defer { folder.cleanup() }
    let run = arbkit([
      "validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--blocks", "8", "--walk-forward", "10/5",
      "--bootstrap", "300", "--seed", "9", "--format", "json",
    ])
    try #require(run.code == .success, "\(run.errors)")
    let json = run.object
    #expect(
      json.map(\.key).sorted() == [
        "best_cell", "best_cell_values", "best_sharpe", "blocks", "bootstrap", "cells", "combinations", "deflated_sharpe", "kurtosis", "logits",
        "metric", "pbo", "periods", "sharpe_variance", "skewness", "sr0", "trials", "walk_forward",
      ])
    #expect(json["cells"] as? Int == 9 && json["periods"] as? Int == 40 && json["blocks"] as? Int == 8 && json["combinations"] as? Int == 70)
    let logits = OverfittingOracle.logits(rows, blocks: 8)
    #expect(zip(Self.numbers(json["logits"]), logits).allSatisfy { isClose($0, $1, rel: 1e-12) } && Self.numbers(json["logits"]).count == 70)
    #expect(Self.double(json["pbo"]) == OverfittingOracle.pbo(logits))
    let deflated = OverfittingOracle.deflatedSharpe(rows)
    #expect(isClose(Self.double(json["best_sharpe"]), deflated.sharpe))
    #expect(isClose(Self.double(json["sr0"]), deflated.sr0, rel: 1e-9) && isClose(Self.double(json["deflated_sharpe"]), deflated.dsr, rel: 1e-9))
    let best = try #require(json["best_cell"] as? Int)
    let coordinates = ["0.6", "1", "1.4"].flatMap { entry in ["0", "0.05", "0.1"].map { (entry, $0) } }[best]
    #expect(json["best_cell_values"] as? [String: String] == ["strategy.entry": coordinates.0, "strategy.exit": coordinates.1])

    let walk = try #require(json["walk_forward"] as? [String: Any])
    let expected = OverfittingOracle.walkForward(rows, train: 10, test: 5, anchored: false)
    let windows = try #require(walk["windows"] as? [[String: Any]])
    #expect(windows.count == expected.windows.count && windows.count == 6)
    for (window, oracle) in zip(windows, expected.windows) {
      #expect(window["train_from"] as? Int == oracle.train.lowerBound && window["train_to"] as? Int == oracle.train.upperBound)
      #expect(window["test_from"] as? Int == oracle.test.lowerBound && window["test_to"] as? Int == oracle.test.upperBound)
      #expect(window["best_cell"] as? Int == oracle.best && isClose(Self.double(window["test_pnl"]), oracle.testPnL))
      #expect(isClose(Self.double(window["train_sharpe"]), oracle.trainSharpe))
    }
    #expect(isClose(Self.double(walk["oos_pnl"]), expected.oosPnL) && isClose(Self.double(walk["oos_sharpe"]), expected.oosSharpe))
    #expect(isClose(Self.double(walk["in_sample_pnl"]), expected.inSamplePnL))

    let bootstrap = try #require(json["bootstrap"] as? [String: Any])
    let column = rows.map { $0[best] }
    let resampled = OverfittingOracle.bootstrap(column, resamples: 300, blockLength: 3, seed: 9)
    #expect(bootstrap["resamples"] as? Int == 300 && bootstrap["block_length"] as? Int == 3)
    #expect(zip(["pnl_q2_5", "pnl_q50", "pnl_q97_5"].map { Self.double(bootstrap[$0]) }, resampled.pnl).allSatisfy { isClose($0, $1) })
    #expect(zip(["sharpe_q2_5", "sharpe_q50", "sharpe_q97_5"].map { Self.double(bootstrap[$0]) }, resampled.sharpe).allSatisfy { isClose($0, $1) })
    #expect(Self.double(bootstrap["share_pnl_le_0"]) == resampled.shareAtMostZero)

    // Every key is named in the command's section of docs/cli.md (as OutputDocumentationTests checks the others).
    var keys = Set<String>()
    OutputDocumentationTests.collectKeys(json, into: &keys)
    let missing = keys.filter(OutputDocumentationTests.isName).subtracting(try OutputDocumentationTests.documentedNames(["validate"]))
    #expect(missing.isEmpty, "keys docs/cli.md does not name: \(missing.sorted())")
  }

  /// The matrix the sweep itself writes (`--pnl-matrix`, 6-hour periods of the shipped
  /// scenario), read back here and given to the oracle: validate agrees on the real thing.
  @Test func `the sweep's own matrix agrees with the oracle`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let sweep = arbkit([
      "sweep", Self.scenario, "--grid", "strategy.entry=0.6:1.4:0.4", "--grid", "strategy.exit=0,0.05,0.1", "--quiet",
      "--out", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/pnl.csv", "--period", "6h",
    ])
    try #require(sweep.code == .success, "\(sweep.errors)")
    let lines = try String(contentsOfFile: folder.path + "/pnl.csv", encoding: .utf8).split(separator: "\n")
    let rows = lines.dropFirst().map { $0.split(separator: ",").dropFirst().map { Double($0)! } }
    #expect(rows.count == 85 && rows.allSatisfy { $0.count == 9 })
    let run = arbkit([
      "validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/pnl.csv", "--walk-forward", "28/7", "--format", "json",
    ])
    try #require(run.code == .success, "\(run.errors)")
    let json = run.object
    let logits = OverfittingOracle.logits(rows, blocks: 16)
    #expect(Self.numbers(json["logits"]).count == 12_870)
    let mismatches = zip(Self.numbers(json["logits"]), logits).enumerated().filter { !isClose($1.0, $1.1, rel: 1e-12) }
    #expect(mismatches.isEmpty, "\(mismatches.count) logits differ, first: \(mismatches.prefix(3))")
    #expect(isClose(Self.double(json["pbo"]), OverfittingOracle.pbo(logits)))
    let deflated = OverfittingOracle.deflatedSharpe(rows)
    #expect(isClose(Self.double(json["best_sharpe"]), deflated.sharpe))
    #expect(isClose(Self.double(json["deflated_sharpe"]), deflated.dsr, rel: 1e-9))
    let walk = try #require(json["walk_forward"] as? [String: Any])
    let expected = OverfittingOracle.walkForward(rows, train: 28, test: 7, anchored: false)
    #expect(isClose(Self.double(walk["oos_pnl"]), expected.oosPnL) && isClose(Self.double(walk["in_sample_pnl"]), expected.inSamplePnL))
  }

  @Test func `table names the best cell and every section`() throws {
    let folder = try Self.folder(rows: Self.random(periods: 24, seed: 5))
    defer { folder.cleanup() }
    let run = arbkit([
      "validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--walk-forward", "8/4", "--anchored", "--bootstrap", "50",
    ])
    #expect(run.code == .success)
    #expect(run.output.contains("9 cells over 24 periods") && run.output.contains("over 12870 combinations of 8 of 16 blocks"))
    #expect(run.output.contains("Best cell: ") && run.output.contains("strategy.entry="))
    #expect(run.output.contains("Walk-forward 8/4 anchored: 4 windows") && run.output.contains("Bootstrap: 50 resamples, mean block 3 periods, seed 0"))
  }

  /// A constant positive column is the best (+∞): its Sharpe ratio, the DSR, its
  /// skewness and the bootstrap's Sharpe quantiles are null, never a number in disguise.
  @Test func `unbounded and undefined figures are null`() throws {
    var rows = Self.random(periods: 16, seed: 1)
    for t in rows.indices { rows[t][4] = 0.5 }
    let folder = try Self.folder(rows: rows)
    defer { folder.cleanup() }
    let run = arbkit(["validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--bootstrap", "10", "--format", "json"])
    try #require(run.code == .success, "\(run.errors)")
    let json = run.object
    #expect(json["best_cell"] as? Int == 4)
    for key in ["best_sharpe", "deflated_sharpe", "skewness", "kurtosis"] { #expect(json[key] is NSNull, "\(key)") }
    let bootstrap = try #require(json["bootstrap"] as? [String: Any])
    #expect(bootstrap["sharpe_q50"] is NSNull && Self.double(bootstrap["pnl_q50"]) == 8 && Self.double(bootstrap["share_pnl_le_0"]) == 0)
    #expect(!run.output.contains("inf") && !run.output.contains("nan"))
    let huge = arbkit([
      "validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--walk-forward", "\(Int.max)/\(Int.max)", "--format", "json",
    ])
    let walk = huge.object["walk_forward"] as? [String: Any]
    #expect(huge.code == .success && (walk?["windows"] as? [Any])?.isEmpty == true && walk?["oos_pnl"] is NSNull)
    let table = arbkit(["validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv"])
    #expect(table.code == .success && table.output.contains("Sharpe -"))
  }

  static let badMatrices: [(text: String, message: String)] = [
    ("", "matrix.csv:1:1: error: empty file, expected the header period_start_us,0,1,…"),
    (
      "period_start_us,0,1,2,3,4,5,6,8\n",
      "matrix.csv:1:31: error: header field 9 should be '7' (period_start_us, then the cell numbers from 0 in grid order), was '8'"
    ),
    ("time,0,1,2,3,4,5,6,7,8\n", "matrix.csv:1:1: error: header field 1 should be 'period_start_us'"),
    ("period_start_us,0,1,2,3,4,5,6,7\n", "matrix.csv:1:32: error: the header has columns for 8 cells, the sweep has 9 cells"),
    ("period_start_us,0,1,2,3,4,5,6,7,8,9\n", "matrix.csv:1:36: error: the header has columns for 10 cells, the sweep has 9 cells"),
    ("period_start_us,0,1,2,3,4,5,6,7,8\n1,1,1,1,1,1,1,1,1\n", "matrix.csv:2:1: error: wrong field count, expected 10, was 9"),
    ("period_start_us,0,1,2,3,4,5,6,7,8\n1,1,1,1,x,1,1,1,1,1\n", "matrix.csv:2:9: error: invalid PnL of cell 3, expected a finite number, was 'x'"),
    ("period_start_us,0,1,2,3,4,5,6,7,8\n1,1,1,1,1,1,1,1,1,\n", "matrix.csv:2:19: error: invalid PnL of cell 8, expected a finite number, was ''"),
    ("period_start_us,0,1,2,3,4,5,6,7,8\n1,1,1,1,1,1,1,1,1,nan\n", "matrix.csv:2:19: error: invalid PnL of cell 8, expected a finite number, was 'nan'"),
    ("period_start_us,0,1,2,3,4,5,6,7,8\n1.5,1,1,1,1,1,1,1,1,1\n", "matrix.csv:2:1: error: invalid period_start_us, expected an integer, was '1.5'"),
    (
      "period_start_us,0,1,2,3,4,5,6,7,8\n2,1,1,1,1,1,1,1,1,1\n2,1,1,1,1,1,1,1,1,1\n",
      "matrix.csv:3:1: error: period_start_us does not increase, previous 2, was 2"
    ),
    (
      "period_start_us,0,1,2,3,4,5,6,7,8\n2,1,1,1,1,1,1,1,1,1\n3,1,1,1,1,1,1,1,1,1\n",
      "matrix.csv:3:1: error: 2 periods, fewer than the 16 blocks asked for"
    ),
  ]

  @Test func `a bad matrix is exit 65 at its position`() throws {
    let folder = try Self.folder(rows: [[0]])
    defer { folder.cleanup() }
    for c in Self.badMatrices {
      let path = folder.write("matrix.csv", c.text)
      let run = arbkit(["validate", folder.path + "/sweep.csv", "--pnl-matrix", path])
      #expect(run.code == .dataError, "\(c.text)")
      #expect(run.errors.contains(folder.path + "/" + c.message), "\(c.text): \(run.errors)")
      #expect(run.output.isEmpty)
    }
    let missing = arbkit(["validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/none.csv"])
    #expect(missing.code == .noInput && missing.errors.contains("none.csv: error: no such file"))
    let noSweep = arbkit(["validate", folder.path + "/none.csv", "--pnl-matrix", folder.path + "/matrix.csv"])
    #expect(noSweep.code == .noInput)
    for arguments in [[folder.path, "--pnl-matrix", folder.path + "/matrix.csv"], [folder.path + "/sweep.csv", "--pnl-matrix", folder.path]] {
      let run = arbkit(["validate"] + arguments)
      #expect(run.code == .ioError && run.errors.contains("\(folder.path): error: cannot read, a folder, not a file"), "\(run.errors)")
    }
  }

  static let usageErrors: [(arguments: [String], message: String)] = [
    (["s.csv"], "--pnl-matrix PATH is required"),
    (["--pnl-matrix", "m.csv"], "expected one sweep file, was 0 arguments"),
    (["s.csv", "--pnl-matrix", "m.csv", "--blocks", "3"], "invalid value for '--blocks', expected an even number from 2 to 20, was '3'"),
    (["s.csv", "--pnl-matrix", "m.csv", "--blocks", "22"], "invalid value for '--blocks', expected an even number from 2 to 20, was '22'"),
    (["s.csv", "--pnl-matrix", "m.csv", "--walk-forward", "10"], "invalid value for '--walk-forward', expected TRAIN/TEST"),
    (["s.csv", "--pnl-matrix", "m.csv", "--walk-forward", "10/0"], "invalid value for '--walk-forward', expected TRAIN/TEST"),
    (["s.csv", "--pnl-matrix", "m.csv", "--anchored"], "--anchored needs --walk-forward TRAIN/TEST"),
    (["s.csv", "--pnl-matrix", "m.csv", "--bootstrap", "0"], "invalid value for '--bootstrap', expected a number of resamples from 1 to 1000000, was '0'"),
    (["s.csv", "--pnl-matrix", "m.csv", "--seed", "4"], "--seed needs --bootstrap B"),
    (["s.csv", "--pnl-matrix", "m.csv", "--bootstrap", "9", "--seed", "-1"], "invalid value for '--seed'"),
    (["s.csv", "--pnl-matrix", "m.csv", "--bootstrap", "9", "--block-length", "0"], "invalid value for '--block-length'"),
    (["s.csv", "--pnl-matrix", "m.csv", "--format", "csv"], "invalid value for '--format', expected table or json, was 'csv'"),
    (["s.csv", "--pnl-matrix", "m.csv", "--block", "4"], "unknown option '--block', did you mean '--blocks'?"),
  ]

  @Test("bad flags are exit 64", arguments: usageErrors)
  func usageError(c: (arguments: [String], message: String)) {
    expectUsageError(["validate"] + c.arguments, c.message)
  }
}
