import ArbBacktest
import ArbCore
import ArbResearch

/// Sections 6–8: the sweep, the chosen cell's backtest and the assumptions.
extension ResearchReport {
  var sweepSection: ReportDocument.Section {
    var section = ReportDocument.Section(id: "sweep", title: Self.sectionTitles[5])
    guard let sweep, let values = sweep.values[metric] else {
      section.paragraph("No sweep given (arbkit report SCENARIO --sweep RESULTS.csv adds one): the backtest below runs the scenario as written.")
      return section
    }
    let grid = sweep.grid
    let axes = grid.axes
    // Columns: strategy.entry (or the first axis); rows: strategy.exit (or the second).
    let columnAxis = axes.firstIndex { $0.key == "strategy.entry" } ?? 0
    let rowAxis = axes.indices.first { $0 != columnAxis && axes[$0].key == "strategy.exit" } ?? axes.indices.first { $0 != columnAxis }
    let others = axes.indices.filter { $0 != columnAxis && $0 != rowAxis }
    let panelCount = others.reduce(1) { $0 * axes[$1].values.count }
    section.paragraph(
      (sweepName.map { $0 + ": " } ?? "") + ReportNumber.count(sweep.rows) + " of " + ReportNumber.count(grid.cellCount) + " cells over "
        + axes.map { $0.key + " (" + $0.values.joined(separator: ", ") + ")" }.joined(separator: " × ") + ". Colour: " + metric
        + (panelCount > 1 ? "; one panel per value of " + others.map { axes[$0].key }.joined(separator: " × ") + "." : "."))
    let present = values.compactMap { $0 }
    let (low, high) = (present.min() ?? 0, present.max() ?? 0)
    let best = sweep.best(metric)
    let shown = min(panelCount, 24)
    for panel in 0..<shown {
      // The fixed value of each other axis in this panel (last axis fastest).
      var rest = panel
      var fixed: [Int: Int] = [:]
      for a in others.reversed() {
        fixed[a] = rest % axes[a].values.count
        rest /= axes[a].values.count
      }
      let rowValues = rowAxis.map { axes[$0].values } ?? [""]
      var marked: (row: Int, column: Int)? = nil
      let cells = rowValues.indices.map { r in
        axes[columnAxis].values.indices.map { c -> Double? in
          var coordinates = [Int](repeating: 0, count: axes.count)
          coordinates[columnAxis] = c
          if let rowAxis { coordinates[rowAxis] = r }
          for (a, v) in fixed { coordinates[a] = v }
          let cell = grid.cell(coordinates)
          if cell == best { marked = (r, c) }
          return values[cell]
        }
      }
      let panelName = others.map { axes[$0].key + " = " + axes[$0].values[fixed[$0]!] }.joined(separator: ", ")
      var chart = HeatMap(
        id: "sweep-\(panel)", title: "Sweep: " + metric + (panelName.isEmpty ? "" : ", " + panelName),
        description: "Heat map of " + metric + " over " + axes[columnAxis].key + " (columns)" + (rowAxis.map { " × " + axes[$0].key + " (rows)" } ?? "")
          + (panelName.isEmpty ? "" : " at " + panelName) + "; red is positive, blue negative; the best cell is outlined.",
        rowTitle: rowAxis.map { axes[$0].key } ?? "", columnTitle: axes[columnAxis].key, rows: rowValues, columns: axes[columnAxis].values,
        values: cells, scale: .diverging(low: low, high: high), format: { ReportNumber.fixed($0, abs($0) >= 100 ? 0 : 2) })
      chart.marked = marked
      chart.cellWidth = max(30, min(64, 720 / Double(max(axes[columnAxis].values.count, 1))))
      chart.showValues = chart.cellWidth >= 44
      section.figure(chart.svg, file: "sweep-\(panel + 1).svg", caption: "Sweep " + metric + (panelName.isEmpty ? "" : ", " + panelName))
    }
    if shown < panelCount { section.paragraph("First \(shown) of \(panelCount) panels shown; the table below ranks every cell.") }
    if let best {
      section.heading("Best cell and its robustness")
      section.paragraph(
        "Best by " + metric + ": " + grid.overrides(best).joined(separator: ", ") + " with " + ReportNumber.fixed(values[best], 2)
          + "; robustness (mean over the cell and its " + ReportNumber.count(grid.neighbours(best).count) + " grid neighbours, as arbkit sweep ranks) "
          + ReportNumber.fixed(sweep.robustness(best, metric), 2) + ". A robustness far below the cell's own value marks a lone spike rather than a plateau.")
    }
    let shownMetrics = ([metric] + ["trades", "wins", "sharpe"].filter { $0 != metric }).filter { sweep.values[$0] != nil }
    let top = sweep.ranked(metric).prefix(10)
    section.table(
      ReportDocument.Table(
        header: ["rank"] + axes.map(\.key) + shownMetrics + ["robustness"],
        rows: top.enumerated().map { k, cell in
          let here = grid.coordinates(cell)
          return ["\(k + 1)"] + axes.indices.map { axes[$0].values[here[$0]] }
            + shownMetrics.map { name in ReportNumber.fixed(sweep.values[name]![cell], name == "trades" || name == "wins" ? 0 : 2) }
            + [ReportNumber.fixed(sweep.robustness(cell, metric), 2)]
        }, numeric: Set(0...(axes.count + shownMetrics.count + 1)), caption: "Top cells by " + metric + "."))
    return section
  }

  var backtestSection: ReportDocument.Section {
    var section = ReportDocument.Section(id: "backtest", title: Self.sectionTitles[6])
    let s = scenario
    let strategy = s.strategy
    let exit = if case .convergence(let rules) = strategy { ", exit " + ReportNumber.fixed(rules.exit, 4) + " %" } else { "" }
    section.paragraph(
      (overrides.isEmpty ? "The scenario as written" : "The scenario with the best sweep cell applied (" + overrides.joined(separator: ", ") + ")")
        + ": mode \(strategy.mode), entry " + ReportNumber.fixed(strategy.entry, 4) + " %" + exit
        + ", notional " + ReportNumber.fixed(strategy.notional, 2) + (strategy.mode == .inventory ? " per trade." : " per leg."))
    section.table(
      ReportDocument.Table(
        header: ["metric", "value"], rows: backtest.metrics.map { [$0.name, $0.value] }, numeric: [1], caption: "As arbkit backtest prints them."))
    let journal = backtest.journal
    if let first = journal.firstTime, let last = journal.lastTime {
      // Cumulative PnL and drawdown as steps at each booking, from 0 at the first valid point.
      var time = [first], equity = [0.0], drawdown = [0.0]
      var cumulative = 0.0, peak = 0.0
      for booking in journal.bookings {
        time.append(booking.time)
        equity.append(cumulative)
        drawdown.append(cumulative - peak)
        cumulative += booking.pnl
        peak = max(peak, cumulative)
        time.append(booking.time)
        equity.append(cumulative)
        drawdown.append(cumulative - peak)
      }
      time.append(last)
      equity.append(cumulative)
      drawdown.append(cumulative - peak)
      let valid = [Bool](repeating: true, count: time.count)
      var equityChart = TimeSeriesChart(
        id: "equity", title: "Equity curve",
        description: "Cumulative PnL in quote currency, booked at each exit, from 0 at the first valid point; " + ReportNumber.count(journal.bookings.count)
          + " bookings.",
        yTitle: "cumulative PnL", series: [TimeSeriesChart.Series(name: "equity", colour: "#2b8a3e", time: time, values: equity, valid: valid)])
      equityChart.zone = zone
      equityChart.height = 260
      section.figure(equityChart.svg, file: "equity.svg", caption: "Equity curve (cumulative PnL at each exit)")
      var drawdownChart = TimeSeriesChart(
        id: "drawdown", title: "Drawdown",
        description: "Cumulative PnL below its running peak; max drawdown " + ReportNumber.fixed(journal.maxDrawdown, 2) + ".",
        yTitle: "drawdown", series: [TimeSeriesChart.Series(name: "drawdown", colour: "#c92a2a", time: time, values: drawdown, valid: valid)])
      drawdownChart.zone = zone
      drawdownChart.height = 220
      drawdownChart.fillToZero = "#ffc9c9"
      section.figure(drawdownChart.svg, file: "drawdown.svg", caption: "Drawdown from the running peak of the cumulative PnL")
    }
    let days = journal.daily(offset: s.timeZoneOffset)
    if !days.isEmpty {
      let chart = BarChart(
        id: "daily", title: "Daily PnL (" + s.timeZone + " days)",
        description: "PnL booked per calendar day in " + s.timeZone + "; " + ReportNumber.count(days.count) + " days, days without an exit at 0.",
        xTitle: "day (" + s.timeZone + ")", yTitle: "PnL", labels: days.map { String($0.date.dropFirst(5)) }, values: days.map(\.pnl))
      section.figure(chart.svg, file: "daily.svg", caption: "Daily PnL journal (" + s.timeZone + " days)")
      section.heading("Daily PnL journal")
      section.table(
        ReportDocument.Table(
          header: ["date (" + s.timeZone + ")", "PnL", "trades"], rows: days.map { [$0.date, ReportNumber.fixed($0.pnl, 2), ReportNumber.count($0.trades)] },
          numeric: [1, 2]))
    }
    section.heading("Trades")
    section.table(ReportDocument.Table(header: ["", "value"], rows: tradeSummary, numeric: [1]))
    return section
  }

  /// Counts, holding times, best and worst trade, by direction and exit reason.
  var tradeSummary: [[String]] {
    let trades = backtest.trades
    guard !trades.isEmpty else {
      let ledger = scenario.strategy.mode == .convergence ? "no trade" : "arbkit backtest --trades PATH"
      return [["trades", ReportNumber.count(backtest.journal.bookings.filter(\.isTrade).count)], ["ledger", ledger]]
    }
    let holding = trades.map { Double($0.exitTime - $0.entryTime) / 1e6 }.sorted()
    let median = holding.count % 2 == 1 ? holding[holding.count / 2] : (holding[holding.count / 2 - 1] + holding[holding.count / 2]) / 2
    var rows: [[String]] = [
      ["trades", ReportNumber.count(trades.count)],
      ["wins", ReportNumber.count(trades.filter { $0.pnl > 0 }.count)],
      ["mean PnL per trade", ReportNumber.fixed(trades.reduce(0) { $0 + $1.pnl } / Double(trades.count), 2)],
      ["best trade", ReportNumber.fixed(trades.map(\.pnl).max(), 2)],
      ["worst trade", ReportNumber.fixed(trades.map(\.pnl).min(), 2)],
      ["mean entry premium, %", ReportNumber.fixed(trades.reduce(0) { $0 + $1.entryPremium } / Double(trades.count), 4)],
      ["holding mean", ReportNumber.duration(holding.reduce(0, +) / Double(holding.count))],
      ["holding median", ReportNumber.duration(median)],
      ["holding max", ReportNumber.duration(holding.last)],
    ]
    let directions = Set(trades.map { "\($0.rich + 1)>\($0.cheap + 1)" }).sorted()
    for direction in directions {
      let these = trades.filter { "\($0.rich + 1)>\($0.cheap + 1)" == direction }
      let rich = Int(direction.prefix(1))! - 1, cheap = Int(direction.suffix(1))! - 1
      rows.append([
        "sell " + coverage[rich].instrument.venue + ", buy " + coverage[cheap].instrument.venue + " (" + direction + ")",
        ReportNumber.count(these.count) + " trades, PnL " + ReportNumber.fixed(these.reduce(0) { $0 + $1.pnl }, 2),
      ])
    }
    for reason in [ExitReason.signal, .maxHolding, .endOfData] {
      rows.append(["exits: " + reason.rawValue, ReportNumber.count(trades.filter { $0.exitReason == reason }.count)])
    }
    return rows
  }

  var assumptionsSection: ReportDocument.Section {
    var section = ReportDocument.Section(id: "assumptions", title: Self.sectionTitles[7])
    let s = scenario
    var rows: [[String]] = []
    for (k, leg) in s.legs.enumerated() {
      rows.append([
        "taker fee, " + legName(k),
        ReportNumber.fixed(fees[k] * 100, 4) + " %" + (s.fees[leg.venue] != nil ? " (costs.fees." + leg.venue + ")" : " (registry)"),
      ])
    }
    rows.append(["slippage", ReportNumber.fixed(s.slippageBps, 2) + " bps per fill"])
    rows.append(["latency", s.latency.description + " after the signal"])
    for (venue, latency) in s.venueLatency.sorted(by: { $0.key < $1.key }) { rows.append(["latency, " + venue, latency.description]) }
    rows.append(["staleness limit", s.maxStale.map(TimeText.durationText) ?? "none"])
    rows.append([
      "clock", (s.clock == .local ? "receive time" : "exchange time") + (s.grid.map { ", grid " + TimeText.durationText($0) } ?? ", union of quote times"),
    ])
    let fx: String
    if let rate = s.fx {
      let files = rate.files.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: ", ")
      fx =
        files + ": the " + rate.converts + " prices divided by the rate in force, at most " + (rate.maxStale.map(TimeText.durationText) ?? "any age")
        + " old (fx)"
    } else {
      fx =
        s.legs.contains { $0.market == .fx }
        ? "an fx leg of the scenario"
        : "none: the legs are compared in their own quote currency (" + Set(s.legs.map(\.symbol)).sorted().joined(separator: ", ") + ")"
    }
    rows.append(["FX source", fx])
    for (venue, micros) in s.offsets.sorted(by: { $0.key < $1.key }) {
      rows.append(["clock offset, " + venue, (micros < 0 ? "-" : "+") + TimeText.durationText(abs(micros)) + " added before alignment"])
    }
    rows.append([
      "price source",
      coverage.map { $0.instrument.venue + " " + $0.priceSource.rawValue }.joined(separator: ", ")
        + (coverage.contains { $0.priceSource == .last } ? " (last: one price per row, bid = ask; fills at that price are not tradable quotes)" : ""),
    ])
    let rules = s.strategy.threshold
    rows.append(["mode", s.strategy.mode.rawValue])
    // Mode inventory trades at once: its exit is its entry.
    rows.append(["entry / exit", ReportNumber.fixed(s.strategy.entry, 4) + " % / " + ReportNumber.fixed(rules?.exit ?? s.strategy.entry, 4) + " %"])
    rows.append(["notional", ReportNumber.fixed(s.strategy.notional, 2)])
    rows.append(["max holding", rules?.maxHolding.map(TimeText.durationText) ?? "none"])
    rows.append(["cooldown", rules?.cooldown.map(TimeText.durationText) ?? "none"])
    rows.append(["size capped at book", s.capAtBook ? "yes" : "no"])
    rows.append(["bands", bands.map { ReportNumber.fixed($0, 2) + " %" }.joined(separator: ", ")])
    rows.append(["journal days", s.timeZone])
    rows.append(["time axes", zone.label])
    section.table(
      ReportDocument.Table(
        header: ["assumption", "value"], rows: rows,
        caption: "Printed from the scenario " + scenarioName + (overrides.isEmpty ? "" : " with " + overrides.joined(separator: ", ")) + "."))
    return section
  }
}
