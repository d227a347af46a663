import ArbAnalytics
import ArbCore

/// Sections 1–5: what was read and what the premium did.
extension ResearchReport {
  var coverageSection: ReportDocument.Section {
    var section = ReportDocument.Section(id: "coverage", title: Self.sectionTitles[0])
    section.table(
      ReportDocument.Table(
        header: ["leg", "venue", "market", "symbol", "rows read", "rejected", "points", "first", "last", "price"],
        rows: coverage.enumerated().map { k, leg in
          [
            "\(k + 1)", leg.instrument.venue, leg.instrument.market.rawValue, leg.instrument.symbol,
            ReportNumber.count(leg.rowsRead), ReportNumber.count(leg.rowsRejected), ReportNumber.count(leg.points),
            leg.firstTime.map(TimeText.iso8601) ?? "–", leg.lastTime.map(TimeText.iso8601) ?? "–", leg.priceSource.rawValue,
          ]
        }, numeric: [0, 4, 5, 6],
        caption: "Points: rows accepted after rows with the same time collapsed to the last. Times UTC."))
    section.paragraph(
      "Files: " + coverage.enumerated().map { "leg \($0.offset + 1): " + $0.element.files.joined(separator: ", ") }.joined(separator: "; ") + ".")
    let stale = scenario.maxStale
    section.heading("Gaps longer than the staleness limit")
    if let stale {
      section.table(
        ReportDocument.Table(
          header: ["leg", "gaps > " + TimeText.durationText(stale), "time in gaps", "longest", "longest from"],
          rows: coverage.enumerated().map { k, leg in
            [
              "\(k + 1)", ReportNumber.count(leg.gaps.count), ReportNumber.duration(Double(leg.gaps.total) / 1e6),
              leg.gaps.count > 0 ? ReportNumber.duration(Double(leg.gaps.longest) / 1e6) : "–",
              leg.gaps.longestStart.map(TimeText.iso8601) ?? "–",
            ]
          }, numeric: [0, 1, 2, 3]))
    } else {
      section.paragraph("The scenario sets no staleness limit (alignment.max_stale): gaps are not counted and no point is stale.")
    }
    section.heading("Rows rejected by reason")
    let rejected = coverage.enumerated().flatMap { k, leg in leg.rejected.map { ["\(k + 1)", $0.reason, ReportNumber.count($0.count)] } }
    if rejected.isEmpty {
      section.paragraph("No row was rejected: rows read = rows accepted on every leg.")
    } else {
      section.table(ReportDocument.Table(header: ["leg", "reason", "rows"], rows: rejected, numeric: [0, 2]))
    }
    section.paragraph(
      "Aligned on the " + (scenario.grid.map { "grid of " + TimeText.durationText($0) } ?? "union clock of both legs' quotes") + ": "
        + ReportNumber.count(premium.count) + " points, " + ReportNumber.count(premium.validPoints) + " valid, "
        + ReportNumber.count(premium.count - premium.validPoints) + " stale or one-sided (never filled with an old price, 0 or NaN).")
    return section
  }

  var premiumSection: ReportDocument.Section {
    var section = ReportDocument.Section(id: "premium", title: Self.sectionTitles[1])
    let series = TimeSeriesChart.Series(name: "mid premium", colour: "#1c7ed6", time: premium.time, values: premium.mid, valid: premium.valid)
    let bandText = bands.map { ReportNumber.fixed($0, 2) + " %" }.joined(separator: " and ")
    var full = TimeSeriesChart(
      id: "premium-full", title: "Premium over time, full range",
      description: "The " + premiumName + " at every valid point, drawn as the lowest and highest value in each pixel column so that no spike is lost; bands "
        + bandText + " shaded near zero on both signs, and a strip under the time axis coloured where the premium reached each band. Time axis "
        + zone.label + ".",
      yTitle: "premium, %", series: [series])
    full.bands = bands
    full.signed = coverage.count == 2
    full.zone = zone
    section.figure(
      full.svg, file: "premium.svg",
      caption: "Premium over time (" + premiumName + "), full range; shaded near zero and in the band strip: "
        + zip(["grey", "orange"], bands).map { $0 + " from " + ReportNumber.fixed($1, 2) + " %" }.joined(separator: ", "))
    let q = analysis.mid.statistics.quantiles
    if q.count == 7 {
      let limit = NiceTicks.numbers(0, max(max(abs(q[1]), abs(q[5])) * 1.5, (bands.last ?? 0.1) * 1.5), count: 4).values.last!
      var zoom = full
      zoom.id = "premium-zoom"
      zoom.title = "Premium over time, ±" + ReportNumber.fixed(limit, 2) + " %"
      zoom.description =
        "The same series with the y axis limited to ±" + ReportNumber.fixed(limit, 2)
        + " % (about 1.5 times the 5 % and 95 % quantiles); values beyond are drawn at the edge."
      zoom.yRange = (-limit, limit)
      section.figure(
        zoom.svg, file: "premium-zoom.svg",
        caption: "Premium over time, y axis limited to ±" + ReportNumber.fixed(limit, 2) + " %, values beyond drawn at the edge")
    }
    return section
  }

  var distributionSection: ReportDocument.Section {
    var section = ReportDocument.Section(id: "distribution", title: Self.sectionTitles[2])
    let m = analysis.mid.statistics, e = analysis.exec.statistics
    if m.quantiles.count == 7 {
      let top = (bands.last ?? 0.1) * 1.5
      let low = min(m.quantiles[0], -top), high = max(m.quantiles[6], top)
      let values = (0..<premium.count).compactMap { premium.valid[$0] ? premium.mid[$0] : nil }
      let (edges, counts) = HistogramChart.bin(values, low: low, high: high, bins: 80)
      var chart = HistogramChart(
        id: "histogram", title: "Distribution of the premium",
        description: "Histogram of the " + premiumName + " over " + ReportNumber.count(values.count)
          + " valid points, 80 bins from the 1 % to the 99 % quantile; values beyond fall in the edge bins. Dashed lines mark the bands.",
        xTitle: "premium, %", edges: edges, counts: counts)
      chart.bands = bands
      chart.signed = coverage.count == 2
      section.figure(chart.svg, file: "histogram.svg", caption: "Distribution of the " + premiumName + " (edge bins hold the 1 % tails); dashed: the bands")
    }
    var rows: [[String]] = [["count", ReportNumber.count(m.count), ReportNumber.count(e.count)]]
    let figures: [(String, Double?, Double?, Int)] = [
      ("mean", m.mean, e.mean, 5), ("std", m.std, e.std, 5), ("min", m.min, e.min, 5), ("max", m.max, e.max, 5),
      ("mean (time-weighted)", m.meanTW, e.meanTW, 5), ("std (time-weighted)", m.stdTW, e.stdTW, 5),
    ]
    rows += figures.map { [$0.0, ReportNumber.fixed($0.1, $0.3), ReportNumber.fixed($0.2, $0.3)] }
    for (k, level) in SeriesStatistics.quantileLevels.enumerated() where m.quantiles.count == 7 && e.quantiles.count == 7 {
      rows.append(["q" + ReportNumber.fixed(level, 0), ReportNumber.fixed(m.quantiles[k], 5), ReportNumber.fixed(e.quantiles[k], 5)])
    }
    rows.append(["skew", ReportNumber.fixed(m.skew, 3), ReportNumber.fixed(e.skew, 3)])
    rows.append(["kurtosis (excess)", ReportNumber.fixed(m.kurtosis, 3), ReportNumber.fixed(e.kurtosis, 3)])
    rows.append(["half-life", ReportNumber.duration(analysis.mid.halfLife?.seconds), ReportNumber.duration(analysis.exec.halfLife?.seconds)])
    section.table(
      ReportDocument.Table(
        header: ["statistic, %", "mid", "exec"], rows: rows, numeric: [1, 2], caption: "As arbkit premium prints them (docs/definitions.md)."))
    return section
  }

  var bandsSection: ReportDocument.Section {
    var section = ReportDocument.Section(id: "bands", title: Self.sectionTitles[3])
    for (name, summary) in [("mid", analysis.mid), ("exec", analysis.exec)] {
      section.table(
        ReportDocument.Table(
          header: ["band %", "events", "time", "events +", "events −", "episodes", "dur mean", "dur median", "dur max", "peak mean", "peak max"],
          rows: summary.bands.map { b in
            [
              ReportNumber.fixed(b.band, 2), ReportNumber.percent(b.shareEvents), ReportNumber.percent(b.shareTime),
              ReportNumber.percent(b.shareEventsPositive), ReportNumber.percent(b.shareEventsNegative), ReportNumber.count(b.episodes),
              ReportNumber.duration(b.durationMean), ReportNumber.duration(b.durationMedian), ReportNumber.duration(b.durationMax),
              ReportNumber.fixed(b.peakMean, 4), ReportNumber.fixed(b.peakMax, 4),
            ]
          }, numeric: Set(0...10), caption: "Bands of the " + name + " premium: occupancy by events and by time, episodes and their durations."))
    }
    let classes: [(label: String, upTo: Double)] = [
      ("< 1 min", 60), ("1–2 min", 120), ("2–5 min", 300), ("5–15 min", 900), ("15–60 min", 3600), ("1–4 h", 14_400), ("≥ 4 h", .infinity),
    ]
    for band in analysis.mid.bands {
      var counts = [Double](repeating: 0, count: classes.count)
      for d in band.episodeDurations { counts[classes.firstIndex { d < $0.upTo }!] += 1 }
      let chart = BarChart(
        id: "durations-\(bands.firstIndex(of: band.band) ?? 0)", title: "Episode durations, band " + ReportNumber.fixed(band.band, 2) + " %",
        description: "Number of episodes of the mid premium beyond " + ReportNumber.fixed(band.band, 2) + " % by duration class; "
          + ReportNumber.count(band.episodes) + " episodes in all.",
        xTitle: "episode duration", yTitle: "episodes", labels: classes.map(\.label), values: counts)
      section.figure(
        chart.svg, file: "durations-\(ReportNumber.fixed(band.band * 100, 0)).svg",
        caption: "Episode durations of the mid premium, band " + ReportNumber.fixed(band.band, 2) + " %")
    }
    return section
  }

  var timeOfDaySection: ReportDocument.Section {
    var section = ReportDocument.Section(id: "time-of-day", title: Self.sectionTitles[4])
    section.paragraph(
      "Share of time the mid premium spends at or beyond each band, by hour of day and day of week, time-weighted by point durations (a point spanning an hour boundary is split across the hours it covers; docs/definitions.md)."
    )
    let duration = premium.duration
    let profiles = [ReportZone.utc, ReportZone.seoul].map { zone in
      (
        zone,
        TimeOfDayProfile(
          values: premium.mid, valid: premium.valid, time: premium.time, duration: duration, bands: bands, oneSided: coverage.count > 2,
          zone: zone.name, offset: zone.offset)
      )
    }
    for (zone, profile) in profiles {
      for (b, band) in bands.enumerated() {
        let values = (0..<7).map { day in (0..<24).map { profile.cell(day: day, hour: $0).shares[b] } }
        let high = max(values.joined().compactMap { $0 }.max() ?? 0, 0.01)
        let file = "time-of-day-\(zone.offset == 0 ? "utc" : "kst")-\(ReportNumber.fixed(band * 100, 0)).svg"
        let chart = HeatMap(
          id: "tod-\(zone.offset == 0 ? "utc" : "kst")-\(b)", title: "Share of time beyond " + ReportNumber.fixed(band, 2) + " %, " + zone.label,
          description: "Heat map of the share of time the mid premium is at or beyond " + ReportNumber.fixed(band, 2)
            + " % by weekday (rows) and hour of day (columns) in " + zone.label + "; darker is more.",
          rowTitle: "day", columnTitle: "hour of day (" + zone.label + ")", rows: TimeOfDayProfile.dayNames,
          columns: (0..<24).map { $0 < 10 ? "0\($0)" : "\($0)" }, values: values, scale: .sequential(low: 0, high: high),
          format: { ReportNumber.percent($0) })
        section.figure(chart.svg, file: file, caption: "Share of time |premium| ≥ " + ReportNumber.fixed(band, 2) + " % by weekday × hour, " + zone.label)
      }
    }
    // The same by hour over all days, as a table.
    var rows: [[String]] = []
    for hour in 0..<24 {
      var row = [hour < 10 ? "0\(hour)" : "\(hour)"]
      for (_, profile) in profiles {
        let cells = (0..<7).map { profile.cell(day: $0, hour: hour) }
        let seconds = cells.reduce(0) { $0 + $1.seconds }
        let mean = seconds > 0 ? cells.reduce(0) { $0 + ($1.mean ?? 0) * $1.seconds } / seconds : nil
        row.append(ReportNumber.fixed(seconds / 3600, 1))
        row.append(ReportNumber.fixed(mean, 4))
        for b in bands.indices { row.append(ReportNumber.percent(seconds > 0 ? cells.reduce(0) { $0 + ($1.shares[b] ?? 0) * $1.seconds } / seconds : nil)) }
      }
      rows.append(row)
    }
    let perZone = ["valid h", "mean %"] + bands.map { "≥ " + ReportNumber.fixed($0, 2) }
    section.table(
      ReportDocument.Table(
        header: ["hour"] + perZone.map { "UTC " + $0 } + perZone.map { "KST " + $0 }, rows: rows, numeric: Set(0...(2 * perZone.count)),
        caption: "By hour of day over all weekdays: valid hours, time-weighted mean premium and share of time beyond each band, in UTC and in KST."))
    return section
  }
}
