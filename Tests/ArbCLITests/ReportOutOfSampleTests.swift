import ArbCLI
import Foundation
import TestSupport
import Testing

/// `arbkit report --pnl-matrix`: the section "Is the best threshold real?" shows the
/// figures of `arbkit validate` on the same sweep and matrix, says whether the best
/// cell survives, is absent without a matrix, and refuses what validate refuses.
@Suite("Report: out of sample")
struct ReportOutOfSampleTests {
  static let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let title = "Is the best threshold real?"

  /// The Markdown of the report on the shipped scenario with the sweep and matrix in `folder`.
  static func markdown(_ folder: TemporaryFolder, _ extra: [String] = []) throws -> String {
    let run = arbkit(
      ["report", scenario, "--sweep", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--out", folder.path + "/report"] + extra)
    try #require(run.code == .success, "\(run.errors)")
    return try String(contentsOfFile: folder.path + "/report/report.md", encoding: .utf8)
  }

  /// The text of `markdown` between `before` and the next `after`.
  static func figure(_ markdown: String, after before: String, until after: String) -> String? {
    guard let start = markdown.range(of: before) else { return nil }
    let rest = markdown[start.upperBound...]
    return String(rest[..<(rest.range(of: after)?.lowerBound ?? rest.endIndex)])
  }

  static func fixed(_ value: Any?, _ digits: Int) -> String {
    guard let number = (value as? NSNumber)?.doubleValue else { return "–" }
    let text = String(format: "%.\(digits)f", number)
    return text == "-" + String(format: "%.\(digits)f", 0.0) ? String(text.dropFirst()) : text
  }

  /// Cell 4 earns about 1 a period with little noise; the other eight are noise around 0.
  static func robust(periods: Int) -> [[Double]] {
    var g = SplitMix64(seed: 7)
    return (0..<periods).map { _ in (0..<9).map { $0 == 4 ? 1 + 0.1 * g.normal() : g.normal() } }
  }

  @Test func `the section's figures are those of arbkit validate with the report's defaults`() throws {
    // 24 periods: the report's defaults are 16 blocks, walk-forward 8/4, 1000 resamples with seed 1.
    let folder = try ValidateCommandTests.folder(rows: ValidateCommandTests.random(periods: 24, seed: 18))
    defer { folder.cleanup() }
    let run = arbkit([
      "validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--blocks", "16", "--walk-forward", "8/4",
      "--bootstrap", "1000", "--seed", "1", "--format", "json",
    ])
    try #require(run.code == .success, "\(run.errors)")
    let json = run.object
    let walk = json["walk_forward"] as? [String: Any] ?? [:], bootstrap = json["bootstrap"] as? [String: Any] ?? [:]
    let markdown = try Self.markdown(folder)
    #expect(markdown.contains("\n## 7 \(Self.title)\n") && markdown.contains("\n## 8 Backtest\n") && markdown.contains("\n## 9 Assumptions\n"))
    #expect(markdown.contains("PBO " + Self.fixed(json["pbo"], 4) + ": the share of the 12,870 combinations of 8 of 16 blocks"))
    #expect(markdown.contains("| deflated Sharpe ratio | " + Self.fixed(json["deflated_sharpe"], 4) + " |"))
    #expect(markdown.contains("| SR0, the expected maximum Sharpe ratio of N' trials | " + Self.fixed(json["sr0"], 4) + " |"))
    #expect(markdown.contains("| skewness of the best cell's period PnL | " + Self.fixed(json["skewness"], 4) + " |"))
    #expect(markdown.contains("| kurtosis (not excess) | " + Self.fixed(json["kurtosis"], 4) + " |"))
    #expect(markdown.contains("| T, periods | 24 |"))
    let windows = (walk["windows"] as? [Any] ?? []).count
    #expect(windows == 4)
    #expect(markdown.contains("\(windows) windows of 8 train and 4 test periods: out-of-sample PnL " + Self.fixed(walk["oos_pnl"], 2) + " ("))
    #expect(markdown.contains("against " + Self.fixed(walk["in_sample_pnl"], 2) + " for the all-periods best cell"))
    let pnl = ["pnl_q2_5", "pnl_q50", "pnl_q97_5"].map { Self.fixed(bootstrap[$0], 2) }
    #expect(markdown.contains("| total PnL | " + pnl.joined(separator: " | ") + " |"))
    let sharpe = ["sharpe_q2_5", "sharpe_q50", "sharpe_q97_5"].map { Self.fixed(bootstrap[$0], 4) }
    #expect(markdown.contains("| Sharpe ratio (per period) | " + sharpe.joined(separator: " | ") + " |"))
    let share = ((bootstrap["share_pnl_le_0"] as? NSNumber)?.doubleValue ?? -1) * 100
    #expect(markdown.contains("Resamples with total PnL ≤ 0: " + Self.fixed(share, 2) + " %."))
    // The report's flags are validate's: --blocks 8 --walk-forward 6/3 --seed 9 give validate's figures for them.
    let other = arbkit([
      "validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--blocks", "8", "--walk-forward", "6/3",
      "--bootstrap", "500", "--seed", "9", "--format", "json",
    ]).object
    let flagged = try Self.markdown(folder, ["--blocks", "8", "--walk-forward", "6/3", "--bootstrap", "500", "--seed", "9"])
    #expect(flagged.contains("PBO " + Self.fixed(other["pbo"], 4) + ": the share of the 70 combinations of 4 of 8 blocks"))
    let otherWalk = other["walk_forward"] as? [String: Any] ?? [:], otherBootstrap = other["bootstrap"] as? [String: Any] ?? [:]
    #expect(flagged.contains("windows of 6 train and 3 test periods: out-of-sample PnL " + Self.fixed(otherWalk["oos_pnl"], 2) + " ("))
    let otherPnL = ["pnl_q2_5", "pnl_q50", "pnl_q97_5"].map { Self.fixed(otherBootstrap[$0], 2) }
    #expect(flagged.contains("| total PnL | " + otherPnL.joined(separator: " | ") + " |"))
    #expect(flagged.contains("1,000 resamples") == false && flagged.contains("500 resamples, mean block 3 periods, seed 9."))
  }

  @Test func `a clearly robust matrix survives`() throws {
    let folder = try ValidateCommandTests.folder(rows: Self.robust(periods: 40))
    defer { folder.cleanup() }
    let markdown = try Self.markdown(folder)
    let sentence = Self.figure(markdown, after: "## 7 \(Self.title)\n\n", until: "\n")
    let survives = "The best cell's edge survives out of sample: PBO 0.00, deflated Sharpe 1.00, walk-forward out-of-sample PnL "
    #expect(sentence?.hasPrefix(survives) == true, "\(sentence ?? "")")
    #expect(markdown.contains("The best cell here is cell 4 "))
  }

  @Test func `a clearly overfit matrix does not survive`() throws {
    // Each cell earns in one stretch of periods and gives it back in the next: the in-sample best is the out-of-sample worst.
    func value(period t: Int, cell n: Int) -> Double {
      let stretch = t / 4 % 9
      if stretch == n { return 5 }
      if stretch == (n + 1) % 9 { return -5 }
      return Double((t * 7 + n * 3) % 5) * 0.01
    }
    let rows = (0..<32).map { t in (0..<9).map { n in value(period: t, cell: n) } }
    let folder = try ValidateCommandTests.folder(rows: rows)
    defer { folder.cleanup() }
    let json = arbkit(["validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--format", "json"]).object
    let pbo = (json["pbo"] as? NSNumber)?.doubleValue ?? 0
    #expect(pbo >= 0.5)
    let markdown = try Self.markdown(folder)
    let sentence = Self.figure(markdown, after: "## 7 \(Self.title)\n\n", until: "\n")
    #expect(sentence?.hasPrefix("The best cell's edge does not survive out of sample: PBO " + Self.fixed(pbo, 2)) == true, "\(sentence ?? "")")
  }

  @Test func `fewer than 16 periods: the largest even number of blocks, said in the section`() throws {
    let folder = try ValidateCommandTests.folder(rows: ValidateCommandTests.random(periods: 11, seed: 3))
    defer { folder.cleanup() }
    let markdown = try Self.markdown(folder)
    #expect(markdown.contains("combinations of 5 of 10 blocks") && markdown.contains("10 blocks, not 16: the matrix has only 11 periods."))
  }

  @Test func `the matrix's file name is escaped in the page and the Markdown`() throws {
    let folder = try ValidateCommandTests.folder(rows: Self.robust(periods: 16))
    defer { folder.cleanup() }
    let hostile = "<b>&\"x_[1].csv"
    try FileManager.default.moveItem(atPath: folder.path + "/matrix.csv", toPath: folder.path + "/" + hostile)
    let run = arbkit([
      "report", Self.scenario, "--sweep", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/" + hostile, "--out", folder.path + "/report",
    ])
    try #require(run.code == .success, "\(run.errors)")
    let html = try String(contentsOfFile: folder.path + "/report/report.html", encoding: .utf8)
    let markdown = try String(contentsOfFile: folder.path + "/report/report.md", encoding: .utf8)
    #expect(html.contains("&lt;b&gt;&amp;&quot;x_[1].csv: 9 cells over 16 periods") && !html.contains(hostile))
    #expect(markdown.contains("&lt;b&gt;&amp;\"x\\_\\[1\\].csv: 9 cells over 16 periods") && !markdown.contains(hostile))
  }

  @Test func `without --pnl-matrix the report has its eight sections`() throws {
    let folder = try ValidateCommandTests.folder(rows: [[0]])
    defer { folder.cleanup() }
    let run = arbkit(["report", Self.scenario, "--sweep", folder.path + "/sweep.csv", "--out", folder.path + "/report"])
    try #require(run.code == .success, "\(run.errors)")
    let markdown = try String(contentsOfFile: folder.path + "/report/report.md", encoding: .utf8)
    #expect(!markdown.contains(Self.title) && markdown.contains("\n## 7 Backtest\n") && markdown.contains("\n## 8 Assumptions\n"))
  }

  @Test func `refusals: 64 without --sweep or --pnl-matrix, 65 for a matrix that does not match the sweep`() throws {
    expectUsageError(["report", Self.scenario, "--pnl-matrix", "m.csv", "--out", "r"], "--pnl-matrix needs --sweep RESULTS.csv")
    expectUsageError(["report", Self.scenario, "--sweep", "s.csv", "--blocks", "8", "--out", "r"], "--blocks needs --pnl-matrix PATH")
    expectUsageError(["report", Self.scenario, "--sweep", "s.csv", "--pnl-matrix", "m.csv", "--blocks", "3", "--out", "r"], "invalid value for '--blocks'")
    let folder = try ValidateCommandTests.folder(rows: [[1, 2, 3, 4, 5]])
    defer { folder.cleanup() }
    for matrix in [ValidateCommandTests.matrixText([[1, 2, 3, 4, 5]]), ValidateCommandTests.matrixText(ValidateCommandTests.random(periods: 6, seed: 1))] {
      folder.write("matrix.csv", matrix)
      let arguments = ["--sweep", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv"]
      let report = arbkit(["report", Self.scenario] + arguments + ["--blocks", "8", "--out", folder.path + "/report"])
      let validate = arbkit(["validate", folder.path + "/sweep.csv", "--pnl-matrix", folder.path + "/matrix.csv", "--blocks", "8"])
      #expect(report.code == .dataError && validate.code == .dataError)
      #expect(!report.errors.isEmpty && report.errors == validate.errors, "\(report.errors)")
      #expect(!FileManager.default.fileExists(atPath: folder.path + "/report/report.html"))
    }
  }
}
