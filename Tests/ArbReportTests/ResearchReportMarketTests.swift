import ArbAnalytics
import ArbCore
import Foundation
import Testing
import TestSupport

@testable import ArbReport

/// Sections 1–5 of the research report (coverage, premium, distribution, bands, time of
/// day) on the hand-made legs of `ReportFixture`, checked against figures worked out
/// here by hand or by a slow computation of their own.
@Suite("Research report: market sections")
struct ResearchReportMarketTests {
  static func document() throws -> ReportDocument {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    return try ReportFixture.report(folder).document
  }

  @Test("the fixture's premium is leg 1's p at its quotes, held over the gap, stale after 15 minutes")
  func premiumOfTheFixture() throws {
    let premium = try PremiumSeries(legs: ReportFixture.legs, options: AlignmentOptions(maxStale: 15 * ReportFixture.minute))
    #expect(premium.time == ReportFixture.minutes.map(ReportFixture.time))
    #expect(premium.count == 30 && premium.validPoints == 29)
    for (i, m) in ReportFixture.minutes.enumerated() {
      #expect(premium.valid[i] == (m != 160), "minute \(m)")
      guard m != 160 else { continue }
      #expect(isClose(premium.mid[i], ReportFixture.premiumAt[m == 150 ? 140 : m]!, rel: 1e-9, abs: 1e-12), "minute \(m): \(premium.mid[i])")
    }
  }

  @Test("data coverage: one row per leg with its counts and times, the gaps beyond the limit, rejections by reason")
  func coverage() throws {
    let section = ReportFixture.section(try Self.document(), "Data coverage")
    let tables = ReportFixture.tables(section)
    #expect(tables.count == 3)
    #expect(tables[0].header == ["leg", "venue", "market", "symbol", "rows read", "rejected", "points", "first", "last", "price"])
    #expect(
      tables[0].rows == [
        ["1", "alpha", "spot", "BTC-USDT", "31", "3", "28", "2024-01-01T00:05:00Z", "2024-01-01T04:55:00Z", "book"],
        ["2", ReportFixture.hostileVenue, "spot", "BTC-USDT", "30", "0", "30", "2024-01-01T00:05:00Z", "2024-01-01T04:55:00Z", "book"],
      ])
    // Leg 1's gaps longer than 15 minutes, found here from its quote times: one, 02:25 to 02:55.
    let times = ReportFixture.legs[0].time
    let gaps = zip(times, times.dropFirst()).filter { $1 - $0 > 15 * ReportFixture.minute }
    #expect(gaps.count == 1 && gaps[0].0 == ReportFixture.time(140) && gaps[0].1 - gaps[0].0 == 30 * ReportFixture.minute)
    #expect(tables[1].header == ["leg", "gaps > 15m", "time in gaps", "longest", "longest from"])
    #expect(tables[1].rows == [["1", "1", "30.0 min", "30.0 min", "2024-01-01T02:25:00Z"], ["2", "0", "0 s", "–", "–"]])
    #expect(tables[2].rows == [["1", "bad price", "2"], ["1", "time backwards", "1"]])
    let paragraphs = ReportFixture.paragraphs(section)
    #expect(paragraphs.first == "Files: leg 1: a.csv; leg 2: b.csv.")
    #expect(paragraphs.last?.hasPrefix("Aligned on the union clock of both legs' quotes: 30 points, 29 valid, 1 stale or one-sided") == true, "\(paragraphs)")
    #expect(ReportFixture.svgCount(section) == 0)
  }

  @Test("data coverage without a staleness limit or rejected rows says so instead of printing empty tables")
  func coverageWithoutLimit() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var report = try ReportFixture.report(folder, overrides: ["alignment.max_stale=none"])
    report.coverage[0].rowsRejected = 0
    report.coverage[0].rejected = []
    let section = ReportFixture.section(report.document, "Data coverage")
    #expect(ReportFixture.tables(section).count == 1)
    #expect(ReportFixture.tables(section)[0].rows[0][4...6] == ["31", "0", "28"])
    // Without a limit the point at 02:45 holds leg 1's 02:25 quote: every point is valid.
    #expect(
      ReportFixture.paragraphs(section) == [
        "Files: leg 1: a.csv; leg 2: b.csv.",
        "The scenario sets no staleness limit (alignment.max_stale): gaps are not counted and no point is stale.",
        "No row was rejected: rows read = rows accepted on every leg.",
        "Aligned on the union clock of both legs' quotes: 30 points, 30 valid, 0 stale or one-sided (never filled with an old price, 0 or NaN).",
      ])
    let assumptions = ReportFixture.tables(ReportFixture.section(report.document, "Assumptions"))[0]
    #expect(ReportFixture.row(assumptions, "staleness limit") == ["staleness limit", "none"])
  }

  /// Type-7 quantile of ascending `sorted`.
  static func quantile(_ sorted: [Double], _ p: Double) -> Double {
    let h = Double(sorted.count - 1) * p
    let low = Int(h.rounded(.down))
    return low + 1 < sorted.count ? sorted[low] + (h - Double(low)) * (sorted[low + 1] - sorted[low]) : sorted[low]
  }

  /// The figures of the distribution table, computed slowly: two passes, a sorted copy.
  static func slowStatistics(_ values: [Double], weights: [Double]) -> [String: Double] {
    let n = Double(values.count)
    let mean = values.reduce(0, +) / n
    let deviations = values.map { $0 - mean }
    let m2 = deviations.map { $0 * $0 }.reduce(0, +) / n
    let m3 = deviations.map { $0 * $0 * $0 }.reduce(0, +) / n
    let m4 = deviations.map { $0 * $0 * $0 * $0 }.reduce(0, +) / n
    let weightSum = weights.reduce(0, +)
    let meanTW = zip(values, weights).map { $0 * $1 }.reduce(0, +) / weightSum
    let varianceTW = zip(values, weights).map { ($0 - meanTW) * ($0 - meanTW) * $1 }.reduce(0, +) / weightSum
    let sorted = values.sorted()
    var figures: [String: Double] = [
      "mean": mean, "std": (m2 * n / (n - 1)).squareRoot(), "min": sorted.first!, "max": sorted.last!, "mean (time-weighted)": meanTW,
      "std (time-weighted)": varianceTW.squareRoot(), "skew": m3 / pow(m2, 1.5), "kurtosis (excess)": m4 / (m2 * m2) - 3,
    ]
    for level in [1.0, 5, 25, 50, 75, 95, 99] { figures["q" + ReportNumber.fixed(level, 0)] = quantile(sorted, level / 100) }
    return figures
  }

  @Test("distribution: count, moments and type-7 quantiles of mid and exec as a slow computation gives them")
  func distribution() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let report = try ReportFixture.report(folder)
    let section = ReportFixture.section(report.document, "Distribution")
    let table = ReportFixture.tables(section)[0]
    #expect(table.header == ["statistic, %", "mid", "exec"])
    #expect(ReportFixture.row(table, "count") == ["count", "29", "29"])
    let premium = report.premium
    let valid = premium.time.indices.filter { premium.valid[$0] }
    let weights = valid.map { Double($0 + 1 < premium.count ? premium.time[$0 + 1] - premium.time[$0] : 0) }
    for (column, values) in [(1, valid.map { premium.mid[$0] }), (2, valid.map { premium.exec[$0] })] {
      let expected = Self.slowStatistics(values, weights: weights)
      #expect(expected.count == 15)
      for (name, value) in expected {
        let printed = ReportFixture.row(table, name)
        let digits = name == "skew" || name.hasPrefix("kurtosis") ? 3 : 5
        #expect(printed.count == 3, "\(name)")
        guard printed.count == 3 else { continue }
        let tolerance = 0.51 * pow(10, -Double(digits))
        #expect(isClose(Double(printed[column]), value, rel: 0, abs: tolerance), "\(name), column \(column): \(printed[column]) vs \(value)")
      }
    }
    // Hand-checked anchors: the median of the mid premium is 0.03, its extremes -0.11 and 0.2.
    #expect(ReportFixture.row(table, "q50")[1] == "0.03000")
    #expect(ReportFixture.row(table, "min")[1] == "-0.11000" && ReportFixture.row(table, "max")[1] == "0.20000")
    #expect(ReportFixture.svgCount(section) == 1)
    #expect(ReportFixture.figures(section)[0].svg.description.contains("over 29 valid points"))
  }

  @Test("premium over time: the full-range chart and the zoomed one, at ±1.5 times the larger of the 5 % and 95 % quantiles")
  func premiumCharts() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let report = try ReportFixture.report(folder)
    let section = ReportFixture.section(report.document, "Premium over time")
    #expect(ReportFixture.figures(section).map(\.file) == ["premium.svg", "premium-zoom.svg"])
    #expect(ReportFixture.svgCount(section) == 2)
    let sorted = (0..<report.premium.count).filter { report.premium.valid[$0] }.map { report.premium.mid[$0] }.sorted()
    let reach = max(abs(Self.quantile(sorted, 0.05)), abs(Self.quantile(sorted, 0.95))) * 1.5
    // 5 %: -0.048, 95 %: 0.138; 1.5 × 0.138 = 0.207 > 0.15, and the nice ticks of 0…0.207 (step 0.1) end at 0.3.
    #expect(isClose(reach, 0.207, rel: 1e-9))
    #expect(ReportFixture.figures(section)[1].svg.title == "Premium over time, ±0.30 %")
  }

  @Test("bands and episodes: shares and episodes of both bands as worked out by hand")
  func bands() throws {
    let section = ReportFixture.section(try Self.document(), "Bands and episodes")
    let tables = ReportFixture.tables(section)
    #expect(tables.count == 2)
    let p = { (share: Double) in ReportNumber.percent(share) }, d = { (minutes: Double) in ReportNumber.duration(minutes * 60) }
    // 29 valid points of 10 minutes each (the last 0): 280 minutes. Band 0.05: 13 points
    // (11 positive), six episodes of 30, 20, 10, 30, 20 and 20 minutes (the one at 02:15
    // ends at the stale point of 02:45) with peaks 0.12, 0.11, 0.08, 0.06, 0.2, 0.108.
    // Band 0.1: 5 points (4 positive), four episodes of 10, 10, 20, 10 minutes.
    #expect(
      tables[0].rows == [
        ["0.05", p(13.0 / 29), p(130.0 / 280), p(11.0 / 29), p(2.0 / 29), "6", d(130.0 / 6), d(20), d(30), "0.1130", "0.2000"],
        ["0.10", p(5.0 / 29), p(50.0 / 280), p(4.0 / 29), p(1.0 / 29), "4", d(12.5), d(10), d(20), "0.1345", "0.2000"],
      ])
    // The executable premium is |p| (one-sided): the same points and episodes, all on the positive side.
    #expect(
      tables[1].rows.map { [$0[0], $0[1], $0[3], $0[4], $0[5], $0[8]] } == [
        ["0.05", p(13.0 / 29), p(13.0 / 29), p(0), "6", d(30)], ["0.10", p(5.0 / 29), p(5.0 / 29), p(0), "4", d(20)],
      ])
    // One bar chart of episode durations per band, each episode in its class.
    let figures = ReportFixture.figures(section)
    #expect(figures.map(\.file) == ["durations-5.svg", "durations-10.svg"])
    #expect(ReportFixture.svgCount(section) == 2)
    let first = figures[0].svg.rendered, second = figures[1].svg.rendered
    #expect(first.contains("<title>5–15 min: 1.00</title>") && first.contains("<title>15–60 min: 5.00</title>"))
    #expect(first.contains("<title>&lt; 1 min: 0.00</title>"))
    #expect(second.contains("<title>5–15 min: 3.00</title>") && second.contains("<title>15–60 min: 1.00</title>"))
  }

  /// Per hour of Monday in a zone `offset` hours ahead of UTC: valid seconds, Σ w x and the
  /// seconds at or beyond each band, accumulated a minute at a time (every time is a whole minute).
  static func slowProfile(_ premium: PremiumSeries, bands: [Double], offset: Int64) -> [Int: (seconds: Double, weighted: Double, inside: [Double])] {
    var hours: [Int: (seconds: Double, weighted: Double, inside: [Double])] = [:]
    for i in 0..<premium.count - 1 where premium.valid[i] {
      var t = premium.time[i]
      while t < premium.time[i + 1] {
        let hour = Int((t - ReportFixture.monday) / (60 * ReportFixture.minute)) + Int(offset)
        var cell = hours[hour] ?? (0, 0, bands.map { _ in 0 })
        cell.seconds += 60
        cell.weighted += 60 * premium.mid[i]
        for (b, band) in bands.enumerated() where abs(premium.mid[i]) >= band { cell.inside[b] += 60 }
        hours[hour] = cell
        t += ReportFixture.minute
      }
    }
    return hours
  }

  @Test("time of day: the hourly table in UTC and KST and the heat maps, as a minute-by-minute sum gives them")
  func timeOfDay() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let report = try ReportFixture.report(folder)
    let section = ReportFixture.section(report.document, "Time of day")
    let table = ReportFixture.tables(section)[0]
    #expect(table.header == ["hour", "UTC valid h", "UTC mean %", "UTC ≥ 0.05", "UTC ≥ 0.10", "KST valid h", "KST mean %", "KST ≥ 0.05", "KST ≥ 0.10"])
    #expect(table.rows.count == 24)
    let utc = Self.slowProfile(report.premium, bands: report.bands, offset: 0), kst = Self.slowProfile(report.premium, bands: report.bands, offset: 9)
    #expect(utc.keys.sorted() == [0, 1, 2, 3, 4] && kst.keys.sorted() == [9, 10, 11, 12, 13])
    func cells(_ hour: Int, _ profile: [Int: (seconds: Double, weighted: Double, inside: [Double])]) -> [String] {
      guard let cell = profile[hour] else { return ["0.0", "–", "–", "–"] }
      return [ReportNumber.fixed(cell.seconds / 3600, 1), ReportNumber.fixed(cell.weighted / cell.seconds, 4)]
        + cell.inside.map { ReportNumber.percent($0 / cell.seconds) }
    }
    for hour in 0..<24 {
      #expect(table.rows[hour] == [hour < 10 ? "0\(hour)" : "\(hour)"] + cells(hour, utc) + cells(hour, kst), "hour \(hour)")
    }
    // By hand: 00:05–01:00 holds 0.01, 0.02, 0.06, 0.07, 0.12 for 10 minutes each and 0.03 for 5.
    #expect(table.rows[0].prefix(5) == ["00", "0.9", ReportNumber.fixed(0.295 / 55 * 10, 4), ReportNumber.percent(30.0 / 55), ReportNumber.percent(10.0 / 55)])
    // Two heat maps per zone (one per band); Monday's cells hold the shares, other days no data.
    let figures = ReportFixture.figures(section)
    #expect(figures.map(\.file) == ["time-of-day-utc-5.svg", "time-of-day-utc-10.svg", "time-of-day-kst-5.svg", "time-of-day-kst-10.svg"])
    #expect(ReportFixture.svgCount(section) == 4)
    let map = figures[0].svg.rendered
    #expect(map.contains("<title>day Mon, hour of day (UTC) 00: " + ReportNumber.percent(30.0 / 55) + "</title>"))
    #expect(map.contains("<title>day Mon, hour of day (UTC) 02: " + ReportNumber.percent(utc[2]!.inside[0] / utc[2]!.seconds) + "</title>"))
    #expect(map.contains("<title>day Tue, hour of day (UTC) 00: no data</title>"))
    #expect(figures[2].svg.rendered.contains("<title>day Mon, hour of day (KST, UTC+9) 09: " + ReportNumber.percent(30.0 / 55) + "</title>"))
  }
}
