import ArbAnalytics
import ArbCore
import ArbResearch

/// The result of `arbkit board`, rendered as JSON, CSV (one row per instrument) or a
/// terminal table.
struct BoardResult {
  var rows: [BoardRow]
  /// Instruments found on one venue only (not on the board).
  var singleVenue: [(instrument: CanonicalInstrument, leg: BoardLeg)]
  /// Legs without a canonical instrument (a venue outside the registry, a symbol it
  /// does not know), with the reason.
  var unplaced: [(leg: BoardLeg, reason: String)]
  /// A second leg of one venue and instrument, set aside.
  var sameVenue: [BoardLeg]
  var alignment: AlignmentOptions
  var bands: BandOptions
  var clock: Clock
  var sort: String
  /// `--size`, base units.
  var size: Double?
  /// `--offset`: µs added to each venue's times before alignment.
  var offsets: [(venue: String, micros: Int64)] = []

  init(
    rows: [BoardRow], singleVenue: [(CanonicalInstrument, BoardLeg)], unplaced: [(BoardLeg, String)], sameVenue: [BoardLeg],
    alignment: AlignmentOptions, bands: BandOptions, clock: Clock, sort: String, size: Double?
  ) {
    self.singleVenue = singleVenue.map { (instrument: $0.0, leg: $0.1) }
    self.unplaced = unplaced.map { (leg: $0.0, reason: $0.1) }
    self.sameVenue = sameVenue
    self.alignment = alignment
    self.bands = bands
    self.clock = clock
    self.sort = sort
    self.size = size
    self.rows = Self.sorted(rows, by: sort, bands: bands.bands, sized: size != nil)
  }

  /// The columns `--sort` accepts for `bands`: the numeric figures and `instrument`.
  static func sortColumns(bands: [Double], sized: Bool) -> [String] {
    BoardRow.figureNames(bands: bands, sized: sized).filter { !["top", "bottom", "best_exec_sell", "best_exec_buy"].contains($0) }
  }

  static let sortHelp =
    "instrument, venues, points, valid_points, top_share, bottom_share, mean, p50, p95, max, share_BAND, longest_BAND_s (BAND as given in --bands, e.g. share_0.1), best_exec, best_exec_ts_us"

  /// Rows ordered by `column`: numbers descending with absent values last, the
  /// instrument name ascending; ties by instrument name.
  static func sorted(_ rows: [BoardRow], by column: String, bands: [Double], sized: Bool) -> [BoardRow] {
    let keyed = rows.map { row in (row, row.figures(bands: bands, sized: sized).first { $0.name == column }!.value.number) }
    return keyed.sorted { a, b in
      let (nameA, nameB) = (a.0.instrument.description, b.0.instrument.description)
      if column == "instrument" || a.1 == b.1 { return nameA < nameB }
      guard let x = a.1 else { return false }
      guard let y = b.1 else { return true }
      return x > y
    }.map(\.0)
  }

  var json: JSONValue {
    .object([
      ("clock", .string(alignment.grid.map { "grid \(TimeText.durationText($0))" } ?? "union")),
      ("time_source", .string(clock.rawValue)),
      ("max_stale_us", .int(alignment.maxStale)),
      ("grid_us", .int(alignment.grid)),
      ("bands", .array(bands.bands.map { .number($0) })),
      ("hysteresis", .number(bands.hysteresis)),
      ("min_episode_us", .int(bands.minEpisode)),
      ("sort", .string(sort)),
      ("size", .number(size)),
      ("offsets_us", .object(offsets.map { ($0.venue, .int($0.micros)) })),
      ("instruments", .array(rows.map(json))),
      ("single_venue", .array(singleVenue.map { .object([("instrument", .string($0.instrument.description))] + Self.legJSON($0.leg)) })),
      ("unplaced", .array(unplaced.map { .object(Self.legJSON($0.leg) + [("reason", .string($0.reason))]) })),
      ("same_venue", .array(sameVenue.map { .object(Self.legJSON($0)) })),
    ])
  }

  static func legJSON(_ leg: BoardLeg) -> [(String, JSONValue)] {
    [
      ("venue", .string(leg.instrument.venue)), ("market", .string(leg.instrument.market.rawValue)),
      ("symbol", .string(leg.instrument.symbol)), ("rows", .int(leg.rows)), ("price_source", .string(leg.priceSource.rawValue)),
    ]
  }

  private func json(_ row: BoardRow) -> JSONValue {
    let figures = Dictionary(uniqueKeysWithValues: row.figures(bands: bands.bands, sized: size != nil).map { ($0.name, $0.value.json) })
    let analysis = row.analysis
    var members: [(String, JSONValue)] = [
      ("instrument", .string(row.instrument.description)),
      (
        "venues",
        .array(
          row.legs.indices.map { k in
            .object(
              Self.legJSON(row.legs[k]) + [
                ("first_ts_us", .int(row.legs[k].firstTime)), ("last_ts_us", .int(row.legs[k].lastTime)),
                ("top", .number(analysis.flatMap { $0.topShare.isEmpty ? nil : $0.topShare[k] })),
                ("bottom", .number(analysis.flatMap { $0.bottomShare.isEmpty ? nil : $0.bottomShare[k] })),
              ])
          })
      ),
      ("points", figures["points"]!), ("valid_points", figures["valid_points"]!),
      ("stale_points", .int(row.points - row.validPoints)),
      ("top", .object([("venue", figures["top"]!), ("share", figures["top_share"]!)])),
      ("bottom", .object([("venue", figures["bottom"]!), ("share", figures["bottom_share"]!)])),
      ("max_premium", .object(["mean", "p50", "p95", "max"].map { ($0, figures[$0]!) })),
      (
        "bands",
        .array(
          (analysis?.mid.bands ?? []).map { b in
            .object([
              ("band", .number(b.band)), ("share_time", .number(b.shareTime)), ("share_events", .number(b.shareEvents)),
              ("episodes", .int(b.episodes)), ("longest_s", .number(b.durationMax)), ("peak_max", .number(b.peakMax)),
            ])
          })
      ),
      (
        "best_exec",
        .object([
          ("premium", figures["best_exec"]!), ("sell", figures["best_exec_sell"]!), ("buy", figures["best_exec_buy"]!),
          ("ts_us", figures["best_exec_ts_us"]!),
        ])
      ),
    ]
    if let sized = row.sized { members.append(("size", sized.json)) }
    if let problem = row.problem { members.append(("problem", .string(problem))) }
    return .object(members)
  }

  /// One row per instrument, the columns of `BoardRow.figures`.
  var csv: String {
    let names = BoardRow.figureNames(bands: bands.bands, sized: size != nil)
    var text = names.joined(separator: ",") + "\n"
    for row in rows { text += row.figures(bands: bands.bands, sized: size != nil).map(\.value.csv).joined(separator: ",") + "\n" }
    return text
  }

  func table(colour: Bool) -> String {
    let clockText = alignment.grid.map { "grid \(TimeText.durationText($0))" } ?? "union clock"
    let staleText = alignment.maxStale.map { "max stale \(TimeText.durationText($0))" } ?? "no staleness limit"
    var text = "Premium board: \(rows.count) instrument\(rows.count == 1 ? "" : "s") on two or more venues "
    text += "(\(clockText)\(clock == .exchange ? ", exchange time" : ""), \(staleText)); sorted by \(sort)\n"
    text += "Max premium = highest / lowest mid − 1, in %; band columns: share of time at or above the band; "
    text += "longest episode per band; top/bottom: venue most often highest/lowest (share of valid points)\n"
    text += ExecutionFlags.offsetsLine(offsets) + "\n"
    let levels = bands.bands.map { JSONValue.format($0) }
    var table = TextTable(
      ["instrument", "venues", "valid", "top", "bottom", "mean", "p50", "p95", "max"] + levels.map { "≥\($0)" }
        + levels.map { "longest \($0)" } + ["best exec", "sell→buy", "at"]
        + (size.map { q in ["exec@\(JSONValue.format(q)) mean", "max", "short"] + levels.map { "capacity \($0)" } } ?? []),
      rightAligned: Set([1, 2] + Array(5..<(9 + 2 * levels.count + 1)) + (size == nil ? [] : Array((12 + 2 * levels.count)..<(15 + 3 * levels.count)))))
    func premium(_ value: Double?) -> String {
      CellColour.premium(NumberText.fixed(value, 4), value, bands: bands.bands, enabled: colour)
    }
    for row in rows {
      let top = row.leader(top: true), bottom = row.leader(top: false), best = row.bestExec
      let statistics = row.analysis?.mid.statistics
      table.add(
        [
          row.instrument.description, "\(row.legs.count)", "\(row.validPoints)",
          top.map { "\($0.venue) \(NumberText.percent($0.share))" } ?? "-",
          bottom.map { "\($0.venue) \(NumberText.percent($0.share))" } ?? "-",
          premium(statistics?.mean), premium(row.quantile(50)), premium(row.quantile(95)), premium(statistics?.max),
        ] + bands.bands.indices.map { NumberText.percent(row.analysis?.mid.bands[$0].shareTime) }
          + bands.bands.indices.map { NumberText.duration(row.analysis?.mid.bands[$0].durationMax) }
          + [premium(best?.premium), best.map { "\($0.sell)→\($0.buy)" } ?? "-", best.map { TimeText.iso8601($0.time) } ?? "-"]
          + (size == nil ? [] : sizedCells(row, premium: premium)))
    }
    text += table.rendered(indent: "  ") + "\n"
    if !rows.isEmpty {
      // Every venue of the board as a column: "-" where a venue does not quote the instrument.
      let venues = Array(Set(rows.flatMap(\.venues))).sorted()
      text += "\nVenues: % of valid points on top / at the bottom (\"-\": the venue does not quote the instrument)\n"
      var matrix = TextTable(["instrument"] + venues)
      for row in rows {
        matrix.add(
          [row.instrument.description]
            + venues.map { venue in
              guard let k = row.venues.firstIndex(of: venue) else { return "-" }
              guard let analysis = row.analysis, !analysis.topShare.isEmpty else { return "-/-" }
              return NumberText.fixed(analysis.topShare[k] * 100, 1) + "/" + NumberText.fixed(analysis.bottomShare[k] * 100, 1)
            })
      }
      text += matrix.rendered(indent: "  ") + "\n"
    }
    var notes: [String] = []
    for row in rows where row.problem != nil { notes.append("\(row.instrument): \(row.problem!)") }
    for row in rows where row.legs.contains(where: { $0.priceSource == .last }) {
      let venues = row.legs.filter { $0.priceSource == .last }.map(\.instrument.venue).joined(separator: ", ")
      notes.append("\(row.instrument): price_source last on \(venues) (one price per row, bid = ask): the best exec there is not a tradable edge")
    }
    if size != nil {
      for row in rows where row.sized != nil {
        notes.append("\(row.instrument) depth: " + zip(row.venues, row.sized!.depth).map { "\($0) \(ExecutionFlags.depthText($1))" }.joined(separator: "; "))
      }
    }
    if !singleVenue.isEmpty {
      notes.append("on one venue only (not on the board): " + singleVenue.map { "\($0.instrument) (\($0.leg.instrument.venue))" }.joined(separator: ", "))
    }
    for (leg, reason) in unplaced { notes.append("\(leg.instrument) not on the board: \(reason)") }
    if !sameVenue.isEmpty {
      notes.append("second leg of a venue for one instrument, set aside: " + sameVenue.map { "\($0.instrument)" }.joined(separator: ", "))
    }
    if !notes.isEmpty { text += "\nNotes\n" + notes.map { "  " + $0 }.joined(separator: "\n") + "\n" }
    return text
  }

  /// The `--size` cells of a row: exec at the size (mean, max), points short of depth,
  /// mean capacity per band.
  private func sizedCells(_ row: BoardRow, premium: (Double?) -> String) -> [String] {
    let exec = row.sized?.summary.analysis.exec.statistics
    return [premium(exec?.mean), premium(exec?.max), row.sized.map { "\($0.summary.shortPoints)" } ?? "-"]
      + bands.bands.indices.map { NumberText.fixed(row.sized?.summary.analysis.capacity[$0].mean, 4) }
  }
}
