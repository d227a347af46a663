import ArbAnalytics
import ArbCore
import Foundation
import Testing
import TestSupport

@testable import ArbBacktest
@testable import ArbReport

/// Sections 6–8 of the research report (sweep, backtest, assumptions) on the sweep CSV,
/// journal and scenario of `ReportFixture`, checked against the CSV read here and the
/// journal summed here.
@Suite("Research report: result sections")
struct ResearchReportResultsTests {
  static func report(sweep: Bool = true) throws -> ResearchReport {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    return try ReportFixture.report(folder, sweep: sweep)
  }

  /// The sweep CSV read here: entry and exit axes in file order, and per cell its metrics by name.
  static func sweepCells() -> (entries: [String], exits: [String], cells: [[String]: [String: Double]]) {
    let lines = ReportFixture.sweepCSV.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let header = lines[0]
    var entries: [String] = [], exits: [String] = [], cells: [[String]: [String: Double]] = [:]
    for fields in lines.dropFirst() {
      if !entries.contains(fields[0]) { entries.append(fields[0]) }
      if !exits.contains(fields[1]) { exits.append(fields[1]) }
      cells[[fields[0], fields[1]]] = Dictionary(uniqueKeysWithValues: (2..<header.count).map { (header[$0], Double(fields[$0])!) })
    }
    return (entries, exits, cells)
  }

  /// Mean of pnl_bps over the cell and its neighbours one step along either axis, where present.
  static func robustness(_ entry: Int, _ exit: Int) -> Double {
    let (entries, exits, cells) = sweepCells()
    let around = [(entry, exit), (entry - 1, exit), (entry + 1, exit), (entry, exit - 1), (entry, exit + 1)]
    let values = around.compactMap { e, x -> Double? in
      entries.indices.contains(e) && exits.indices.contains(x) ? cells[[entries[e], exits[x]]]?["pnl_bps"] : nil
    }
    return values.reduce(0, +) / Double(values.count)
  }

  @Test("sweep: the heat map holds every cell of the CSV, the best is outlined, its robustness is the mean with its neighbours")
  func sweep() throws {
    let section = ReportFixture.section(try Self.report().document, "Sweep")
    let paragraphs = ReportFixture.paragraphs(section)
    #expect(paragraphs[0] == "sweep.csv: 5 of 6 cells over strategy.entry (0.05, 0.1, 0.15) × strategy.exit (0, 0.02). Colour: pnl_bps.")
    #expect(ReportFixture.figures(section).map(\.file) == ["sweep-1.svg"])
    #expect(ReportFixture.svgCount(section) == 1)
    let (entries, exits, cells) = Self.sweepCells()
    #expect(entries == ["0.05", "0.1", "0.15"] && exits == ["0", "0.02"] && cells.count == 5)
    let map = ReportFixture.figures(section)[0].svg.rendered
    for entry in entries {
      for exit in exits {
        let value = cells[[entry, exit]]?["pnl_bps"].map { ReportNumber.fixed($0, 2) } ?? "no data"
        #expect(map.contains("<title>strategy.exit \(exit), strategy.entry \(entry): \(value)</title>"), "\(entry), \(exit)")
      }
    }
    // The best cell (entry 0.1, exit 0.02: 11) is outlined: a frame one pixel outside its rect.
    let best = try #require(cells.max { $0.value["pnl_bps"]! < $1.value["pnl_bps"]! })
    #expect(best.key == ["0.1", "0.02"])
    let cell = try NSRegularExpression(pattern: "<rect x=\"([^\"]*)\" y=\"([^\"]*)\"[^>]*><title>strategy.exit 0.02, strategy.entry 0.1: 11.00</title>")
    let match = try #require(cell.firstMatch(in: map, range: NSRange(map.startIndex..., in: map)))
    let x = Double(map[Range(match.range(at: 1), in: map)!])!, y = Double(map[Range(match.range(at: 2), in: map)!])!
    #expect(map.contains("<rect x=\"\(SVG.f(x - 1))\" y=\"\(SVG.f(y - 1))\" width=\"65\" height=\"23\" fill=\"none\" stroke=\"#000\" stroke-width=\"2.5\"/>"))
    #expect(map.components(separatedBy: "stroke-width=\"2.5\"").count == 2)
    // Robustness of the best cell: (11 + 5 + 7.5) / 3, the cell at entry 0.15 being missing.
    #expect(isClose(Self.robustness(1, 1), 23.5 / 3))
    #expect(
      paragraphs[1].hasPrefix(
        "Best by pnl_bps: strategy.entry=0.1, strategy.exit=0.02 with 11.00; robustness (mean over the cell and its 3 grid neighbours, "
          + "as arbkit sweep ranks) 7.83."),
      "\(paragraphs[1])")
    // Top cells, best first, with the other metrics and each one's robustness.
    let table = ReportFixture.tables(section)[0]
    #expect(table.header == ["rank", "strategy.entry", "strategy.exit", "pnl_bps", "trades", "wins", "sharpe", "robustness"])
    let ranked = cells.sorted { $0.value["pnl_bps"]! > $1.value["pnl_bps"]! }
    #expect(table.rows.count == ranked.count)
    for (k, (key, metrics)) in ranked.enumerated() {
      let rob = Self.robustness(entries.firstIndex(of: key[0])!, exits.firstIndex(of: key[1])!)
      #expect(
        table.rows[k] == [
          "\(k + 1)", key[0], key[1], ReportNumber.fixed(metrics["pnl_bps"]!, 2), "\(Int(metrics["trades"]!))", "\(Int(metrics["wins"]!))",
          ReportNumber.fixed(metrics["sharpe"]!, 2), ReportNumber.fixed(rob, 2),
        ], "rank \(k + 1)")
    }
    #expect(table.rows[4] == ["5", "0.15", "0", "-2.00", "3", "1", "-0.40", ReportNumber.fixed((-2 + 7.5) / 2, 2)])
  }

  @Test("without a sweep: no heat map, and the backtest says the scenario runs as written")
  func noSweep() throws {
    let document = try Self.report(sweep: false).document
    let sweep = ReportFixture.section(document, "Sweep")
    #expect(ReportFixture.svgCount(sweep) == 0 && ReportFixture.tables(sweep).isEmpty)
    #expect(
      ReportFixture.paragraphs(sweep) == [
        "No sweep given (arbkit report SCENARIO --sweep RESULTS.csv adds one): the backtest below runs the scenario as written."
      ])
    #expect(ReportFixture.paragraphs(ReportFixture.section(document, "Backtest"))[0].hasPrefix("The scenario as written: mode convergence"))
  }

  @Test("backtest: equity and drawdown follow the journal's cumulative sum and running peak; daily journal and trades summed")
  func backtest() throws {
    let report = try Self.report()
    let section = ReportFixture.section(report.document, "Backtest")
    #expect(
      ReportFixture.paragraphs(section)[0]
        == "The scenario with the best sweep cell applied (strategy.entry=0.1, strategy.exit=0.02): mode convergence, entry 0.1000 %, "
        + "exit 0.0200 %, notional 1000.00 per leg.")
    let tables = ReportFixture.tables(section)
    #expect(tables[0].rows == [["trades", "4"], ["pnl", "4.00"]])
    let figures = ReportFixture.figures(section)
    #expect(figures.map(\.file) == ["equity.svg", "drawdown.svg", "daily.svg"])
    #expect(ReportFixture.svgCount(section) == 3)

    // Cumulative sum and running peak of the bookings, by hand: 10, -4, 7, -12, 3.
    let pnl = ReportFixture.bookings.map(\.pnl)
    let cumulative = pnl.indices.map { pnl[...$0].reduce(0, +) }
    let peak = cumulative.indices.map { max(0, cumulative[...$0].max()!) }
    #expect(cumulative == [10, 6, 13, 1, 4] && zip(cumulative, peak).map { $0 - $1 } == [0, -4, 0, -12, -9])
    // As steps: from 0 at the first valid point, before and after each booking, held to the last.
    let journal = report.backtest.journal
    var time = [journal.firstTime!], equity = [0.0], drawdown = [0.0]
    for (k, booking) in journal.bookings.enumerated() {
      time += [booking.time, booking.time]
      equity += [k == 0 ? 0 : cumulative[k - 1], cumulative[k]]
      drawdown += [k == 0 ? 0 : cumulative[k - 1] - peak[k - 1], cumulative[k] - peak[k]]
    }
    time.append(journal.lastTime!)
    equity.append(cumulative.last!)
    drawdown.append(cumulative.last! - peak.last!)
    func drawn(_ values: [Double], height: Double, fill: String?) -> [String] {
      var chart = TimeSeriesChart(
        id: "x", title: "x", description: "x", yTitle: "x",
        series: [.init(name: "x", colour: "#000", time: time, values: values, valid: time.map { _ in true })])
      chart.height = height
      chart.fillToZero = fill
      return ReportFixture.paths(chart.svg.rendered)
    }
    let equityPaths = ReportFixture.paths(figures[0].svg.rendered), drawdownPaths = ReportFixture.paths(figures[1].svg.rendered)
    #expect(!equityPaths.isEmpty && equityPaths == drawn(equity, height: 260, fill: nil))
    #expect(drawdownPaths.count == 2 && drawdownPaths == drawn(drawdown, height: 220, fill: "#ffc9c9"))
    #expect(figures[1].svg.description.hasSuffix("max drawdown 12.00."))
    #expect(figures[0].svg.description.hasSuffix("5 bookings."))

    // The daily journal: UTC days from the first to the last valid point.
    let expectedDays = [["2024-01-01", "6.00", "2"], ["2024-01-02", "-5.00", "1"], ["2024-01-03", "3.00", "1"]]
    #expect(tables[1].header == ["date (UTC)", "PnL", "trades"] && tables[1].rows == expectedDays)
    let daily = figures[2].svg.rendered
    #expect(daily.contains("<title>01-01: 6.00</title>") && daily.contains("<title>01-02: -5.00</title>") && daily.contains("<title>01-03: 3.00</title>"))

    // Trades: 10, -4, 7, 3 held 10, 20, 30, 60 minutes; three sell leg 1, one sells leg 2.
    let venue = ReportFixture.hostileVenue
    #expect(
      tables[2].rows == [
        ["trades", "4"], ["wins", "3"], ["mean PnL per trade", "4.00"], ["best trade", "10.00"], ["worst trade", "-4.00"],
        ["mean entry premium, %", "0.1450"], ["holding mean", ReportNumber.duration(30 * 60)], ["holding median", ReportNumber.duration(25 * 60)],
        ["holding max", ReportNumber.duration(60 * 60)],
        ["sell alpha, buy \(venue) (1>2)", "3 trades, PnL 20.00"], ["sell \(venue), buy alpha (2>1)", "1 trades, PnL -4.00"],
        ["exits: signal", "2"], ["exits: max_holding", "1"], ["exits: end_of_data", "1"],
      ])
  }

  @Test("assumptions: every fee, the slippage, latencies, staleness and strategy as the scenario sets them")
  func assumptions() throws {
    let section = ReportFixture.section(try Self.report().document, "Assumptions")
    let table = ReportFixture.tables(section)[0]
    let venue = ReportFixture.hostileVenue
    #expect(
      table.rows == [
        ["taker fee, leg 1 (alpha:spot:BTC-USDT)", "0.1000 % (costs.fees.alpha)"],
        ["taker fee, leg 2 (\(venue):spot:BTC-USDT)", "0.2500 % (registry)"],
        ["slippage", "1.50 bps per fill"],
        ["latency", "250ms after the signal"],
        ["latency, \(venue)", "40ms"],
        ["staleness limit", "15m"],
        ["clock", "receive time, union of quote times"],
        ["FX source", "none: the legs are compared in their own quote currency (BTC-USDT)"],
        ["price source", "alpha book, \(venue) book"],
        ["mode", "convergence"],
        ["entry / exit", "0.1000 % / 0.0200 %"],
        ["notional", "1000.00"],
        ["max holding", "2h"],
        ["cooldown", "5m"],
        ["size capped at book", "no"],
        ["bands", "0.05 %, 0.10 %"],
        ["journal days", "UTC"],
        ["time axes", "UTC"],
      ])
    #expect(table.caption == "Printed from the scenario scenario.json with strategy.entry=0.1, strategy.exit=0.02.")
    #expect(ReportFixture.svgCount(section) == 0)
  }

  @Test("a venue named <b>&\" is escaped in the HTML, the Markdown and every figure, and appears raw nowhere")
  func escaping() throws {
    let document = try Self.report().document
    #expect(document.sections.map(\.title) == ResearchReport.sectionTitles)
    let html = document.html, markdown = document.markdown
    let venue = ReportFixture.hostileVenue
    #expect(!html.contains(venue) && !html.contains("<b>"))
    #expect(html.contains("<title>ArbKit report: alpha:spot:BTC-USDT vs &lt;b&gt;&amp;&quot;:spot:BTC-USDT</title>"))
    #expect(html.contains("<td>&lt;b&gt;&amp;&quot;</td>"))
    #expect(html.contains("<td>sell alpha, buy &lt;b&gt;&amp;&quot; (1&gt;2)</td>"))
    #expect(html.contains("<td>latency, &lt;b&gt;&amp;&quot;</td>"))
    #expect(!markdown.contains("<b>") && markdown.contains("| 2 | &lt;b&gt;&amp;\" | spot |"))
    #expect(document.figures.allSatisfy { !$0.svg.rendered.contains(venue) && !$0.svg.rendered.contains("<b>") })
    // Every section's figures reach the page: 2 + 1 + 2 + 4 + 1 + 3 drawings.
    #expect(html.components(separatedBy: "<svg").count - 1 == 13 && document.figures.count == 13)
  }
}
