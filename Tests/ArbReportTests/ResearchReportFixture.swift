import ArbAnalytics
import ArbCore
import ArbResearch
import Foundation
import TestSupport

@testable import ArbBacktest
@testable import ArbReport

/// A small research report built by hand: two legs of 28 and 30 quotes on Monday
/// 2024-01-01 from 00:05 UTC every 10 minutes, leg 2 on a venue whose name is markup,
/// a sweep of five cells over entry × exit, and a journal of five bookings.
///
/// Leg 2 quotes 100 throughout; leg 1 quotes 100 + p, so the mid premium is p percent.
/// Leg 1 skips 02:35 and 02:45: with a 15-minute staleness limit the point at 02:35
/// holds leg 1's 02:25 quote and the point at 02:45 is stale.
enum ReportFixture {
  /// 2024-01-01T00:00:00Z, a Monday.
  static let monday: Int64 = 1_704_067_200_000_000
  static let minute: Int64 = 60_000_000
  /// The venue of leg 2: every character that markup must escape.
  static let hostileVenue = "<b>&\""

  /// Minutes after 00:05 of every union point, and leg 1's premium (percent) at its own quotes.
  static let minutes = Array(stride(from: 0, through: 290, by: 10))
  static let skipped: Set<Int> = [150, 160]
  static let premiumAt: [Int: Double] = [
    0: 0.01, 10: 0.02, 20: 0.06, 30: 0.07, 40: 0.12, 50: 0.03, 60: -0.06, 70: -0.11, 80: 0.08, 90: 0, 100: 0.04, 110: 0.02,
    120: -0.01, 130: 0.055, 140: 0.06, 170: 0.2, 180: 0.15, 190: 0.01, 200: -0.02, 210: 0, 220: 0.01, 230: -0.01, 240: 0.02,
    250: -0.03, 260: 0.04, 270: 0.09, 280: 0.108, 290: 0.03,
  ]

  static func time(_ minutes: Int) -> Int64 { monday + 5 * minute + Int64(minutes) * minute }

  static var legs: [QuoteSeries] {
    let own = minutes.filter { !skipped.contains($0) }
    let first = QuoteSeries(
      instrument: Instrument(venue: "alpha", market: .spot, symbol: "BTC-USDT"), priceSource: .book, time: own.map(time),
      bid: own.map { 100 + premiumAt[$0]! }, ask: own.map { 100 + premiumAt[$0]! })
    let second = QuoteSeries(
      instrument: Instrument(venue: hostileVenue, market: .spot, symbol: "BTC-USDT"), priceSource: .book, time: minutes.map(time),
      bid: minutes.map { _ in 100 }, ask: minutes.map { _ in 100 })
    return [first, second]
  }

  static let sweepCSV = """
    strategy.entry,strategy.exit,trades,wins,pnl,pnl_bps,sharpe
    0.05,0,10,6,12.5,3.1,0.5
    0.05,0.02,8,5,20,5,0.9
    0.1,0,6,4,30,7.5,1.2
    0.1,0.02,5,4,44,11,1.8
    0.15,0,3,1,-8,-2,-0.4

    """

  /// Bookings: (hours after Monday 00:00, PnL, a trade's exit).
  static let bookings: [(hours: Int64, pnl: Double, isTrade: Bool)] = [(1, 10, true), (3, -4, true), (26, 7, true), (29, -12, false), (49, 3, true)]

  static var journal: PnLJournal {
    PnLJournal(
      bookings: bookings.map { (time: monday + $0.hours * 60 * minute, pnl: $0.pnl, isTrade: $0.isTrade) }, firstTime: time(0),
      lastTime: monday + 54 * 60 * minute)
  }

  /// Trades of the four trade bookings: (rich, cheap, holding minutes, entry premium, exit reason).
  static var trades: [Trade] {
    let shapes: [(rich: Int, cheap: Int, minutes: Int64, premium: Double, reason: ExitReason)] = [
      (0, 1, 10, 0.12, .signal), (1, 0, 20, 0.11, .maxHolding), (0, 1, 30, 0.15, .signal), (0, 1, 60, 0.2, .endOfData),
    ]
    return zip(shapes, bookings.filter(\.isTrade)).map { shape, booking in
      let exit = monday + booking.hours * 60 * minute
      return Trade(
        entryTime: exit - shape.minutes * minute, exitTime: exit, rich: shape.rich, cheap: shape.cheap, entryPremium: shape.premium, exitPremium: 0.01,
        richSell: 100, richBuy: 100, cheapBuy: 100, cheapSell: 100, richQuantity: 1, cheapQuantity: 1, fees: 0.2, pnl: booking.pnl,
        exitReason: shape.reason)
    }
  }

  /// The scenario with `overrides`, its leg files written to `folder`.
  static func scenario(_ folder: TemporaryFolder, overrides: [String] = []) throws -> Scenario {
    folder.write("a.csv", "")
    folder.write("b.csv", "")
    let document: [String: JSONTree] = [
      "description": "hand-made test",
      "legs": [
        ["venue": "alpha", "market": "spot", "symbol": "BTC-USDT", "files": ["a.csv"]],
        ["venue": .string(hostileVenue), "market": "spot", "symbol": "BTC-USDT", "files": ["b.csv"]],
      ],
      "alignment": ["max_stale": "15m"],
      "strategy": ["entry": 0.1, "exit": 0.02, "notional": 1000.0, "max_holding": "2h", "cooldown": "5m"],
      "costs": ["fees": ["alpha": 0.001], "slippage_bps": 1.5, "latency": "250ms", "venue_latency": [hostileVenue: "40ms"]],
    ]
    return try Scenario.load(path: folder.path + "/scenario.json", document: document, overrides: overrides)
  }

  static func report(_ folder: TemporaryFolder, sweep: Bool = true, overrides: [String] = []) throws -> ResearchReport {
    let scenario = try scenario(folder, overrides: overrides)
    let legs = legs
    let premium = try PremiumSeries(legs: legs, options: AlignmentOptions(maxStale: scenario.maxStale))
    let coverage = [
      LegCoverage(
        series: legs[0], files: [folder.path + "/a.csv"], rowsRead: 31, rowsRejected: 3, rejected: [("bad price", 2), ("time backwards", 1)],
        staleLimit: scenario.maxStale),
      LegCoverage(series: legs[1], files: [folder.path + "/b.csv"], rowsRead: 30, rowsRejected: 0, rejected: [], staleLimit: scenario.maxStale),
    ]
    var report = ResearchReport(
      scenarioName: "scenario.json", scenario: scenario, overrides: sweep ? ["strategy.entry=0.1", "strategy.exit=0.02"] : [], coverage: coverage,
      fees: [0.001, 0.0025], premium: premium, analysis: PremiumAnalysis(premium: premium), bands: BandOptions().bands,
      backtest: ResearchReport.Backtest(metrics: [("trades", "4"), ("pnl", "4.00")], journal: journal, trades: trades))
    if sweep {
      report.sweep = try SweepResults(csv: sweepCSV, path: "sweep.csv")
      report.sweepName = "sweep.csv"
    }
    return report
  }

  /// The section titled `title` of `document`.
  static func section(_ document: ReportDocument, _ title: String) -> ReportDocument.Section {
    document.sections.first { $0.title == title }!
  }

  static func tables(_ section: ReportDocument.Section) -> [ReportDocument.Table] {
    section.blocks.compactMap { if case .table(let table) = $0 { table } else { nil } }
  }

  static func paragraphs(_ section: ReportDocument.Section) -> [String] {
    section.blocks.compactMap { if case .paragraph(let text) = $0 { text } else { nil } }
  }

  static func figures(_ section: ReportDocument.Section) -> [ReportDocument.Figure] {
    section.blocks.compactMap { if case .figure(let figure) = $0 { figure } else { nil } }
  }

  /// Number of `<svg` elements in the section's figures.
  static func svgCount(_ section: ReportDocument.Section) -> Int {
    figures(section).reduce(0) { $0 + $1.svg.rendered.components(separatedBy: "<svg").count - 1 }
  }

  /// The row of `table` whose first cell is `name`.
  static func row(_ table: ReportDocument.Table, _ name: String) -> [String] {
    table.rows.first { $0.first == name } ?? []
  }

  /// Every `d` of the `<path>` elements of `svg`.
  static func paths(_ svg: String) -> [String] {
    let pattern = try! NSRegularExpression(pattern: "<path d=\"([^\"]*)\"")
    return pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).map { String(svg[Range($0.range(at: 1), in: svg)!]) }
  }
}
