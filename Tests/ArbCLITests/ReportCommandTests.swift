import ArbCLI
import Foundation
import Testing
import TestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `arbkit report`: every section on the demo scenario, numbers equal to the
/// backtest, premium and profile commands', the sweep's best cell, hostile strings.
@Suite("Report command")
struct ReportCommandTests {
  static let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let titles = ["Data coverage", "Premium over time", "Distribution", "Bands and episodes", "Time of day", "Sweep", "Backtest", "Assumptions"]

  struct Written {
    var html: String
    var markdown: String
    var folder: String
  }

  static func report(_ arguments: [String], in folder: TemporaryFolder) -> Written {
    let out = folder.path + "/report"
    let run = arbkit(["report"] + arguments + ["--out", out])
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.output.hasPrefix("wrote \(out)/report.html and \(out)/report.md"))
    let html = (try? String(contentsOfFile: out + "/report.html", encoding: .utf8)) ?? ""
    let markdown = (try? String(contentsOfFile: out + "/report.md", encoding: .utf8)) ?? ""
    return Written(html: html, markdown: markdown, folder: out)
  }

  /// `x` with two decimals, as the report prints backtest figures.
  static func two(_ x: Any?) -> String { String(format: "%.2f", (x as? Double) ?? Double((x as? Int) ?? 0)) }

  @Test("the demo report has every section, self-contained, with its figures beside the Markdown")
  func demoSections() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let written = Self.report([Self.scenario], in: folder)
    for (k, title) in Self.titles.enumerated() {
      #expect(written.html.contains("<h2>\(k + 1) \(title)</h2>"))
      #expect(written.markdown.contains("\n## \(k + 1) \(title)\n"))
    }
    // No script, no load from the network (the SVG namespace is a name, not a load).
    #expect(!written.html.lowercased().contains("<script"))
    let withoutNamespace = written.html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
    #expect(!withoutNamespace.contains("http:") && !withoutNamespace.contains("https:") && !withoutNamespace.contains("src="))
    #expect(written.html.contains("Content-Security-Policy"))
    // Each figure: inline in the page with title and desc, and a file the Markdown links to.
    let figures = written.markdown.components(separatedBy: "](").dropFirst().map { String($0.prefix { $0 != ")" }) }
    #expect(figures.count >= 10)
    #expect(written.html.components(separatedBy: "<svg ").count - 1 == figures.count)
    #expect(written.html.components(separatedBy: "role=\"img\" aria-labelledby=").count - 1 == figures.count)
    for file in figures {
      #expect(file.hasSuffix(".svg") && !file.contains("/"))
      let svg = try String(contentsOfFile: written.folder + "/" + file, encoding: .utf8)
      #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
      #expect(svg.contains("<title id=") && svg.contains("<desc id="))
      #expect(written.html.contains(svg))
      #expect((try? XMLDocument(xmlString: svg)) != nil, "\(file) is not well-formed XML")
    }
    // The time-of-day heat maps in both zones and the band shading.
    #expect(written.html.contains("hour of day (UTC)") && written.html.contains("hour of day (KST, UTC+9)"))
    #expect(written.html.contains(">|x| ≥ 0.05 %<") && written.html.contains(">|x| ≥ 0.10 %<"))
    #expect(written.markdown.contains("No sweep given"))
  }

  @Test("numbers match arbkit backtest and arbkit premium")
  func numbersMatch() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let written = Self.report([Self.scenario], in: folder)
    let backtest = arbkit("backtest", Self.scenario, "--format", "json").object
    #expect(backtest["trades"] as? Int == 42)
    for key in ["pnl", "pnl_bps", "fees", "max_drawdown"] {
      // Markdown escapes the underscore of pnl_bps.
      #expect(written.markdown.contains("| \(key.replacingOccurrences(of: "_", with: "\\_")) | \(Self.two(backtest[key])) |"), "\(key)")
    }
    #expect(written.markdown.contains("| trades | \(backtest["trades"] as! Int) |"))
    #expect(written.markdown.contains("| wins | \(backtest["wins"] as! Int) |"))
    #expect(written.markdown.contains("| sharpe | " + String(format: "%.3f", backtest["sharpe"] as! Double) + " |"))
    // Daily journal rows.
    for day in (backtest["daily"] as! [[String: Any]]) {
      #expect(written.markdown.contains("| \(day["date"] as! String) | \(Self.two(day["pnl"])) | \(day["trades"] as! Int) |"))
    }
    let premium = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--format", "json").object
    let valid = premium["valid_points"] as! Int
    #expect(written.markdown.contains(String(format: "%d,%03d valid", valid / 1000, valid % 1000)))
    let mid = premium["mid"] as! [String: Any], exec = premium["exec"] as! [String: Any]
    for key in ["mean", "std", "min", "max"] {
      #expect(
        written.markdown.contains("| \(key) | " + String(format: "%.5f", mid[key] as! Double) + " | " + String(format: "%.5f", exec[key] as! Double) + " |"),
        "\(key)")
    }
    let band = (mid["bands"] as! [[String: Any]])[1]
    let episodes = band["episodes"] as! Int
    let row =
      "| 0.10 | " + String(format: "%.2f %%", band["share_events"] as! Double * 100) + " | " + String(format: "%.2f %%", band["share_time"] as! Double * 100)
    #expect(written.markdown.contains(row))
    #expect(written.markdown.contains(String(format: "| %d,%03d |", episodes / 1000, episodes % 1000)))
  }

  @Test("the by-hour table equals arbkit profile's cells summed over the weekdays")
  func timeOfDayMatchesProfile() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let written = Self.report([Self.scenario], in: folder)
    var utc: [String] = [], kst: [String] = []
    for (zone, shares) in [("UTC", 0), ("Asia/Seoul", 1)] {
      let profile = arbkit("profile", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--tz", zone, "--format", "json").object
      let cells = (profile["cells"] as! [[String: Any]]).filter { $0["hour"] as! Int == 5 }
      let seconds = cells.reduce(0.0) { $0 + ($1["seconds"] as! Double) }
      let inside = cells.reduce(0.0) { $0 + (($1["shares"] as! [String: Any])["0.1"] as? Double ?? 0) * ($1["seconds"] as! Double) }
      let text = String(format: "%.2f %%", inside / seconds * 100)
      if shares == 0 { utc.append(text) } else { kst.append(text) }
    }
    let row = written.markdown.split(separator: "\n").first { $0.hasPrefix("| 05 |") }.map(String.init) ?? ""
    let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    // hour, UTC valid h, mean, ≥0.05, ≥0.1, KST valid h, mean, ≥0.05, ≥0.1
    #expect(cells.count == 9)
    #expect(cells.count == 9 && cells[4] == utc[0] && cells[8] == kst[0])
  }

  @Test("with a sweep: heat map panels, the best cell and its backtest")
  func withSweep() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let csv = folder.path + "/sweep.csv"
    let sweep = arbkit(
      "sweep", Self.scenario, "--grid", "strategy.entry=0.6,1,1.4", "--grid", "strategy.exit=0,0.1", "--grid", "costs.fees.kraken=0.0016,0.004",
      "--quiet", "--out", csv)
    #expect(sweep.code == .success)
    // The best cell by pnl_bps, found here from the CSV.
    let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    let column = lines[0].firstIndex(of: "pnl_bps")!
    let best = lines.dropFirst().max { Double($0[column])! < Double($1[column])! }!
    let written = Self.report([Self.scenario, "--sweep", csv], in: folder)
    let overrides = ["strategy.entry=" + best[0], "strategy.exit=" + best[1], "costs.fees.kraken=" + best[2]]
    #expect(written.markdown.contains("Best by pnl\\_bps: " + overrides.joined(separator: ", ")))
    #expect(written.html.contains("costs.fees.kraken = 0.0016") && written.html.contains("costs.fees.kraken = 0.004"))
    #expect(FileManager.default.fileExists(atPath: written.folder + "/sweep-1.svg") && FileManager.default.fileExists(atPath: written.folder + "/sweep-2.svg"))
    let backtest = arbkit(["backtest", Self.scenario, "--format", "json"] + overrides.flatMap { ["--set", $0] }).object
    #expect(written.markdown.contains("| pnl | \(Self.two(backtest["pnl"])) |"))
    #expect(written.markdown.contains("| trades | \(backtest["trades"] as! Int) |"))
    #expect(written.markdown.contains("The scenario with the best sweep cell applied (" + overrides.joined(separator: ", ") + ")"))
  }

  @Test("--sweep reads arbkit sweep --format json as it reads the CSV: the same report")
  func sweepJSON() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let grid = ["--grid", "strategy.entry=0.6,1,1.4", "--grid", "strategy.exit=0,0.1", "--quiet"]
    let csv = folder.path + "/sweep.csv"
    #expect(arbkit(["sweep", Self.scenario] + grid + ["--out", csv]).code == .success)
    let json = arbkit(["sweep", Self.scenario] + grid + ["--format", "json"])
    #expect(json.code == .success)
    let jsonPath = folder.write("sweep.csv.json", json.output)
    // The two files differ in name only in the extension the report prints, so give
    // both the same name in their own folder.
    try FileManager.default.createDirectory(atPath: folder.path + "/j", withIntermediateDirectories: true)
    try FileManager.default.moveItem(atPath: jsonPath, toPath: folder.path + "/j/sweep.csv")
    let fromCSV = Self.report([Self.scenario, "--sweep", csv], in: folder)
    let other = TemporaryFolder()
    defer { other.cleanup() }
    let fromJSON = Self.report([Self.scenario, "--sweep", folder.path + "/j/sweep.csv"], in: other)
    #expect(fromCSV.markdown.contains("Best by pnl\\_bps:"))
    #expect(fromJSON.markdown == fromCSV.markdown)
    #expect(fromJSON.html == fromCSV.html)
  }

  @Test("hostile venue, symbol, description and file names are escaped everywhere")
  func hostileStrings() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let venue = "<script>alert('v')</script>"
    try FileManager.default.copyItem(atPath: Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv"), toPath: folder.path + "/a<script>&'.csv")
    let scenario: [String: Any] = [
      "description": "</title><script>alert(1)</script> & \"quotes\"",
      "legs": [
        [
          "venue": venue, "market": "spot", "symbol": "BTC&\"USD'<i>", "files": ["a<script>&'.csv"],
          "format": Repository.data("formats/binanceus-kline-1m.json"),
        ],
        [
          "venue": "kraken", "market": "spot", "symbol": "BTCUSDC", "files": [Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz")],
          "format": Repository.data("formats/kraken-ohlcvt-1m.json"),
        ],
      ],
      "alignment": ["max_stale": "2m"],
      "strategy": ["entry": 0.8, "exit": 0.1, "notional": 10000],
      "costs": ["fees": [venue: 0.001]],
    ]
    let path = folder.write("s.json", try JSONSerialization.data(withJSONObject: scenario))
    let written = Self.report([path], in: folder)
    for text in [written.html, written.markdown] {
      #expect(!text.contains("<script"))
      #expect(!text.contains("<i>"))
      #expect(!text.contains("</title><script"))
      #expect(text.contains("&lt;script&gt;alert("))
    }
    #expect(written.html.contains("BTC&amp;&quot;USD&#39;&lt;i&gt;"))
    #expect(written.markdown.contains("BTC&amp;\"USD'&lt;i&gt;"))
    #expect(written.html.contains("a&lt;script&gt;&amp;&#39;.csv"))
  }

  @Test("mode inventory: every row of the backtest table is in the report")
  func inventoryRows() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = Repository.data("scenarios/binanceus-kraken-inventory.json")
    let written = Self.report([scenario], in: folder)
    let table = arbkit("backtest", scenario).output
    // The summary: the lines after the "  ---  ---" rule under the "value" header.
    let lines = table.split(separator: "\n").map(String.init)
    let rule = lines.lastIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("---") }!
    let rows = lines[(rule + 1)...].filter { !$0.isEmpty }
    #expect(rows.count >= 14)
    for line in rows {
      // "  name   value": the value is the last run of non-blank text after two spaces.
      let parts = line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ").filter { !$0.isEmpty }
      let name = parts.first!.trimmingCharacters(in: .whitespaces), value = parts.last!.trimmingCharacters(in: .whitespaces)
      #expect(written.markdown.contains("| \(name.replacingOccurrences(of: "_", with: "\\_")) | \(value) |"), "\(line)")
    }
  }

  @Test("--tz Asia/Seoul puts the time axes in KST")
  func seoulAxes() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let written = Self.report([Self.scenario, "--tz", "Asia/Seoul"], in: folder)
    #expect(written.html.contains(">time (KST, UTC+9)<") && !written.html.contains(">time (UTC)<"))
    #expect(written.markdown.contains("| time axes | KST, UTC+9 |"))
  }

  @Test("errors: no --out, a missing sweep, a sweep that is not one")
  func errors() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let usage = arbkit("report", Self.scenario)
    #expect(usage.code == .usage && usage.errors.contains("--out DIR is required"))
    let missing = arbkit("report", Self.scenario, "--sweep", folder.path + "/none.csv", "--out", folder.path + "/r")
    #expect(missing.code == .noInput)
    let bad = folder.write("bad.csv", "strategy.entry,trades,pnl_bps\n0.5,3,x\n")
    let badRun = arbkit("report", Self.scenario, "--sweep", bad, "--out", folder.path + "/r")
    #expect(badRun.code == .dataError && badRun.errors.contains("bad.csv:2:1: error: pnl_bps: 'x' is not a number"))
    let badJSON = folder.write("bad.json", #"{"keys": ["strategy.entry"], "metrics": ["trades"], "cells": [{"strategy.entry": 0.5, "trades": 3}]}"#)
    let badJSONRun = arbkit("report", Self.scenario, "--sweep", badJSON, "--out", folder.path + "/r")
    #expect(badJSONRun.code == .dataError && badJSONRun.errors.contains("bad.json:1:1: error: cell 1: grid key strategy.entry is missing or not a string"))
    let notSweep = folder.write("other.json", #"{"trades": 3}"#)
    #expect(arbkit("report", Self.scenario, "--sweep", notSweep, "--out", folder.path + "/r").errors.contains("not a sweep JSON"))
    let metric = arbkit("report", Self.scenario, "--metric", "pnl_bp", "--out", folder.path + "/r")
    #expect(metric.code == .usage && metric.errors.contains("did you mean 'pnl_bps'?"))
  }
}
