import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

/// The result of `arbkit premium`, rendered as JSON (the contract in `docs/cli.md`),
/// CSV (one `series,metric,value` row per figure) or a terminal table.
struct PremiumResult {
  /// The legs as read, with their row accounting.
  let legs: [LegSummary]
  /// The canonical instrument of each leg, when its venue is in the registry.
  let canonical: [CanonicalInstrument?]
  let points: Int
  let validPoints: Int
  let analysis: PremiumAnalysis
  let alignment: AlignmentOptions
  let bands: BandOptions
  let clock: Clock
  /// `--size`: the executable premium at a trade size.
  var sized: SizedPremiumStudy? = nil
  /// `--offset`: µs added to each venue's times before alignment.
  var offsets: [(venue: String, micros: Int64)] = []

  static let quantileKeys = SeriesStatistics.quantileLevels.map { JSONValue.format($0) }

  var json: JSONValue {
    var members: [(String, JSONValue)] = [
      (
        "legs",
        .array(
          zip(legs, canonical).map { leg, canonical in
            .object([
              ("venue", .string(leg.instrument.venue)), ("market", .string(leg.instrument.market.rawValue)),
              ("symbol", .string(leg.instrument.symbol)), ("field", .string(leg.field.rawValue)),
              ("instrument", canonical.map { .string($0.description) } ?? .null), ("rows", .int(leg.rows)),
              ("first_ts_us", .int(leg.firstTime)), ("last_ts_us", .int(leg.lastTime)),
              ("price_source", .string(leg.priceSource.rawValue)),
              ("rows_read", .int(leg.reports.reduce(0) { $0 + $1.rowsRead })),
              ("rows_rejected", .int(leg.reports.reduce(0) { $0 + $1.rowsRejected })),
            ])
          })
      ),
      ("points", .int(points)),
      ("valid_points", .int(validPoints)),
      ("stale_points", .int(points - validPoints)),
      ("clock", .string(alignment.grid.map { "grid \(TimeText.durationText($0))" } ?? "union")),
      ("time_source", .string(clock.rawValue)),
      ("max_stale_us", .int(alignment.maxStale)),
      ("grid_us", .int(alignment.grid)),
      ("hysteresis", .number(bands.hysteresis)),
      ("min_episode_us", .int(bands.minEpisode)),
      ("offsets_us", .object(offsets.map { ($0.venue, .int($0.micros)) })),
      ("mid", Self.json(analysis.mid, oneSided: false)),
      ("exec", Self.json(analysis.exec, oneSided: true)),
    ]
    if let sized { members.append(("size", sized.json)) }
    if legs.count > 2 {
      members.append(
        (
          "venues",
          .object(
            legs.indices.map { k in
              (
                legs[k].instrument.description,
                .object([
                  ("top", .number(analysis.topShare.isEmpty ? nil : analysis.topShare[k])),
                  ("bottom", .number(analysis.bottomShare.isEmpty ? nil : analysis.bottomShare[k])),
                ])
              )
            })
        ))
    }
    return .object(members)
  }

  /// The statistics' members: count, mean, std, min, max, mean_tw, std_tw, skew, kurtosis, quantiles.
  static func members(_ s: SeriesStatistics) -> [(String, JSONValue)] {
    [
      ("count", .int(s.count)), ("mean", .number(s.mean)), ("std", .number(s.std)),
      ("min", .number(s.min)), ("max", .number(s.max)),
      ("mean_tw", .number(s.meanTW)), ("std_tw", .number(s.stdTW)),
      ("skew", .number(s.skew)), ("kurtosis", .number(s.kurtosis)),
      ("quantiles", .object(s.quantiles.isEmpty ? [] : zip(quantileKeys, s.quantiles).map { ($0, .number($1)) })),
    ]
  }

  static func json(_ summary: SeriesSummary, oneSided: Bool) -> JSONValue {
    .object(
      members(summary.statistics) + [
        ("half_life_s", .number(summary.halfLife?.seconds)),
        ("half_life_points", .number(summary.halfLife?.points)),
        (
          "bands",
          .array(
            summary.bands.map { b in
              .object([
                ("band", .number(b.band)), ("share_events", .number(b.shareEvents)), ("share_time", .number(b.shareTime)),
                ("share_events_pos", .number(b.shareEventsPositive)), ("share_events_neg", .number(b.shareEventsNegative)),
                ("episodes", .int(b.episodes)), ("duration_mean_s", .number(b.durationMean)),
                ("duration_median_s", .number(b.durationMedian)), ("duration_max_s", .number(b.durationMax)),
                ("peak_mean", .number(b.peakMean)), ("peak_max", .number(b.peakMax)),
              ])
            })
        ),
      ])
  }

  /// Long-form CSV: `series,metric,value`, one figure per row (empty value = undefined).
  var csv: String {
    var text = "series,metric,value\n"
    let summaries = [("mid", analysis.mid), ("exec", analysis.exec)] + (sized.map { [("exec_at_size", $0.summary.analysis.exec)] } ?? [])
    for (name, summary) in summaries {
      guard case .object(let members) = Self.json(summary, oneSided: name != "mid") else { continue }
      for (key, value) in members {
        switch value {
        case .object(let quantiles): for (q, v) in quantiles { text += "\(name),q\(q),\(Self.csvValue(v))\n" }
        case .array(let bands):
          for case .object(let band) in bands {
            let level = Self.csvValue(band[0].1)
            for (bandKey, v) in band.dropFirst() { text += "\(name),band_\(level)_\(bandKey),\(Self.csvValue(v))\n" }
          }
        default: text += "\(name),\(key),\(Self.csvValue(value))\n"
        }
      }
    }
    if let sized {
      text += "size,quantity,\(NumberText.csv(sized.summary.quantity))\nsize,short_points,\(sized.summary.shortPoints)\n"
      for (band, s) in zip(sized.summary.bands, sized.summary.analysis.capacity) {
        let level = JSONValue.format(band)
        text += "capacity,band_\(level)_mean,\(NumberText.csv(s.mean))\ncapacity,band_\(level)_max,\(NumberText.csv(s.max))\n"
      }
    }
    return text
  }

  private static func csvValue(_ value: JSONValue) -> String {
    switch value {
    case .null: ""
    default: value.rendered(indent: 0)
    }
  }

  var table: String {
    var text = "Legs\n"
    var legTable = TextTable(["#", "venue", "market", "symbol", "field", "instrument", "rows", "first", "last", "price"], rightAligned: [0, 6])
    for (k, leg) in legs.enumerated() {
      legTable.add([
        "\(k + 1)", leg.instrument.venue, leg.instrument.market.rawValue, leg.instrument.symbol, leg.field.rawValue,
        canonical[k]?.description ?? "-", "\(leg.rows)", leg.firstTime.map(TimeText.iso8601) ?? "-",
        leg.lastTime.map(TimeText.iso8601) ?? "-", leg.priceSource.rawValue,
      ])
    }
    text += legTable.rendered(indent: "  ") + "\n\n"
    let clockText = alignment.grid.map { "grid \(TimeText.durationText($0))" } ?? "union clock"
    let staleText = alignment.maxStale.map { "max stale \(TimeText.durationText($0))" } ?? "no staleness limit"
    let timeText = clock == .exchange ? ", exchange time" : ""
    text += "Points \(points) (\(clockText)\(timeText), \(staleText)): "
    text += "valid \(validPoints), stale \(points - validPoints)\n"
    text += ExecutionFlags.offsetsLine(offsets)
    if legs.contains(where: { $0.priceSource == .last }) {
      text += "Note: price_source last for some legs (one price per row, bid = ask): exec is then the better of A/B − 1 and B/A − 1, not a tradable edge.\n"
    }
    let title = legs.count > 2 ? "max premium (highest / lowest mid − 1)" : "premium leg 1 over leg 2"
    text += "\nStatistics, % — \(title)\n"
    text += SummaryTable.statistics([("mid", analysis.mid), ("exec", analysis.exec)])
    for (name, summary) in [("mid", analysis.mid), ("exec", analysis.exec)] { text += SummaryTable.bands(name, summary, options: bands) }
    if let sized { text += "\n" + Self.sizedTable(sized, legs: legs.map(\.instrument)) }
    if legs.count > 2 && !analysis.topShare.isEmpty {
      text += "\nVenues (share of valid points)\n"
      var venues = TextTable(["leg", "top", "bottom"])
      for k in legs.indices {
        venues.add([legs[k].instrument.description, NumberText.percent(analysis.topShare[k]), NumberText.percent(analysis.bottomShare[k])])
      }
      text += venues.rendered(indent: "  ") + "\n"
    }
    return text
  }

  /// The `--size` section of the table: depth per leg, the sized exec and capacity.
  static func sizedTable(_ sized: SizedPremiumStudy, legs: [Instrument]) -> String {
    let q = JSONValue.format(sized.summary.quantity)
    var text = "At size \(q) (base units): valid \(sized.summary.validPoints), short of depth \(sized.summary.shortPoints)\n"
    for (leg, depth) in zip(legs, sized.depth) { text += "  depth \(leg): \(ExecutionFlags.depthText(depth))\n" }
    var table = TextTable(["", "exec at \(q)"])
    let e = sized.summary.analysis.exec.statistics
    for (label, value) in [("mean", e.mean), ("min", e.min), ("max", e.max)] { table.add([label, NumberText.fixed(value, 5)]) }
    if !e.quantiles.isEmpty { table.add(["q50", NumberText.fixed(e.quantiles[3], 5)]) }
    for (band, b) in zip(sized.summary.bands, sized.summary.analysis.exec.bands) {
      table.add(["time ≥ \(JSONValue.format(band))", NumberText.percent(b.shareTime)])
    }
    for (band, s) in zip(sized.summary.bands, sized.summary.analysis.capacity) {
      table.add(["capacity ≥ \(JSONValue.format(band)), mean/max", NumberText.fixed(s.mean, 4) + " / " + NumberText.fixed(s.max, 4)])
    }
    return text + table.rendered(indent: "  ") + "\n"
  }
}
