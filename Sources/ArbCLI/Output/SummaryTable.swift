import ArbAnalytics
import ArbIngest
import ArbCore

/// Terminal tables of premium summaries, shared by `premium`, `basis` and `kimchi`.
enum SummaryTable {
  /// Statistics of several series side by side, one column each.
  static func statistics(_ columns: [(name: String, summary: SeriesSummary)]) -> String {
    var table = TextTable([""] + columns.map(\.name))
    let stats = columns.map(\.summary.statistics)
    func row(_ label: String, _ digits: Int, _ value: (SeriesStatistics) -> Double?) {
      table.add([label] + stats.map { NumberText.fixed(value($0), digits) })
    }
    table.add(["count"] + stats.map { "\($0.count)" })
    row("mean", 5, \.mean)
    row("std", 5, \.std)
    row("min", 5, \.min)
    row("max", 5, \.max)
    row("mean (time-weighted)", 5, \.meanTW)
    row("std (time-weighted)", 5, \.stdTW)
    for (k, level) in SeriesStatistics.quantileLevels.enumerated() where !(stats.first?.quantiles.isEmpty ?? true) {
      row("q\(JSONValue.format(level))", 5) { $0.quantiles.isEmpty ? nil : $0.quantiles[k] }
    }
    row("skew", 3, \.skew)
    row("kurtosis (excess)", 3, \.kurtosis)
    table.add(["half-life"] + columns.map { NumberText.duration($0.summary.halfLife?.seconds) })
    return table.rendered(indent: "  ") + "\n"
  }

  /// The band table of one series, titled `Bands, NAME` with the episode options in use.
  static func bands(_ name: String, _ summary: SeriesSummary, options bands: BandOptions) -> String {
    var options: [String] = []
    if bands.hysteresis > 0 { options.append("hysteresis \(JSONValue.format(bands.hysteresis))") }
    if bands.minEpisode > 0 { options.append("min episode \(TimeText.durationText(bands.minEpisode))") }
    let text = "\nBands, \(name)" + (options.isEmpty ? "" : " (" + options.joined(separator: ", ") + ")") + "\n"
    var table = TextTable(["band %", "events", "time", "events +", "events −", "episodes", "dur mean", "dur median", "dur max", "peak mean", "peak max"])
    for b in summary.bands {
      table.add([
        JSONValue.format(b.band), NumberText.percent(b.shareEvents), NumberText.percent(b.shareTime),
        NumberText.percent(b.shareEventsPositive), NumberText.percent(b.shareEventsNegative), "\(b.episodes)",
        NumberText.duration(b.durationMean), NumberText.duration(b.durationMedian), NumberText.duration(b.durationMax),
        NumberText.fixed(b.peakMean, 4), NumberText.fixed(b.peakMax, 4),
      ])
    }
    return text + table.rendered(indent: "  ") + "\n"
  }

  /// The legs as JSON: `{role, venue, market, symbol, field, instrument, rows,
  /// first_ts_us, last_ts_us, price_source}` each.
  static func legsJSON(_ legs: [(role: String, leg: LegSummary, canonical: CanonicalInstrument?)]) -> JSONValue {
    .array(
      legs.map { role, s, canonical in
        .object([
          ("role", .string(role)), ("venue", .string(s.instrument.venue)), ("market", .string(s.instrument.market.rawValue)),
          ("symbol", .string(s.instrument.symbol)), ("field", .string(s.field.rawValue)),
          ("instrument", canonical.map { .string($0.description) } ?? .null), ("rows", .int(s.rows)),
          ("first_ts_us", .int(s.firstTime)), ("last_ts_us", .int(s.lastTime)), ("price_source", .string(s.priceSource.rawValue)),
        ])
      })
  }

  /// The table of legs: venue, market, symbol, field, canonical instrument, rows, span, price source.
  static func legs(_ legs: [(role: String, leg: LegSummary, canonical: CanonicalInstrument?)]) -> String {
    var table = TextTable(["leg", "venue", "market", "symbol", "field", "instrument", "rows", "first", "last", "price"], rightAligned: [6])
    for (role, s, canonical) in legs {
      table.add([
        role, s.instrument.venue, s.instrument.market.rawValue, s.instrument.symbol, s.field.rawValue, canonical?.description ?? "-", "\(s.rows)",
        s.firstTime.map(TimeText.iso8601) ?? "-", s.lastTime.map(TimeText.iso8601) ?? "-", s.priceSource.rawValue,
      ])
    }
    return table.rendered(indent: "  ") + "\n"
  }
}

/// A leg as the legs tables describe it: what it is and what was read of it.
struct LegSummary {
  var instrument: Instrument
  var field: SeriesField
  var priceSource: PriceSource
  /// Quotes the leg took part with (within `--from/--to`).
  var rows: Int
  var firstTime: Int64?
  var lastTime: Int64?
  /// The row accounting of the files or store it was read from, where a table shows it.
  var reports: [IngestReport] = []

  /// A leg read whole.
  init(_ series: QuoteSeries) {
    (instrument, field, priceSource) = (series.instrument, series.field, series.priceSource)
    (rows, firstTime, lastTime) = (series.count, series.time.first, series.time.last)
  }

  /// A leg read as `stream`, of which `rows` quotes were read from `firstTime` to `lastTime`.
  init(_ stream: any QuoteStream, instrument: Instrument, rows: Int, firstTime: Int64?, lastTime: Int64?) {
    (self.instrument, field, priceSource) = (instrument, stream.field, stream.priceSource)
    (self.rows, self.firstTime, self.lastTime) = (rows, firstTime, lastTime)
  }
}
