import ArbAnalytics
import ArbCore
import ArbIngest

/// `arbkit profile --leg … --leg …`: the premium by hour of day × day of week.
struct ProfileCommand: Command {
  static let name = "profile"
  static let abstract = "Premium mean and band share of time by hour of day x day of week, in UTC or KST"
  static let usage = """
    Usage: arbkit profile --leg [VENUE:MARKET:SYMBOL=]PATH[,PATH…][#FIELD][@FORMAT] --leg … [options]

    Aligns the legs as arbkit premium does and profiles the premium by hour of day and
    day of week (Monday first) in one time zone: per cell the valid points, the time
    they cover, the time-weighted mean premium (percent) and the share of time at or
    beyond each band. Each valid point weighs its duration; a point spanning an hour
    boundary is split across the hours it covers (docs/definitions.md, "Time-of-day
    profile"). A cell without time has no mean and no shares (-, empty, null).

    Options:
    \(HelpText.options([
      ("--leg SPEC", "a leg (repeat, at least two), as in arbkit premium"),
      ("--tz UTC|Asia/Seoul", "the zone of the hours and days (default UTC; Asia/Seoul is KST, UTC+9)"),
      ("--premium mid|exec", "the series profiled (default mid; exec tests the bands one-sided)"),
      ("--max-stale DURATION", "a point is valid only if every leg quoted within this"),
      ("--grid DURATION", "align on a fixed grid instead of the union clock"),
      ("--bands LIST", "band levels in percent (default 0.05,0.1)"),
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it, not with the history"),
      ("--format table|csv|json", "output (default table: the cells with time)"),
    ]))
    \(IngestFlags.help)
    """

  let inputs: LegInputs
  let bands: [Double]
  let zone: (name: String, offset: Int64)
  let exec: Bool
  /// Points, and quotes per leg, worked on at a time.
  let chunkRows: Int
  let format: OutputFormat

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: ["--leg", "--tz", "--premium", "--max-stale", "--grid", "--bands", "--chunk-rows", "--format"] + IngestFlags.flags,
      switches: IngestFlags.switches)
    try cursor.validate()
    inputs = try LegInputs(cursor, minimum: 2)
    bands = try AnalysisFlags.bands(cursor).bands
    zone = try cursor.value("--tz", "UTC or Asia/Seoul") { name in TimeOfDayProfile.zones.first { $0.name == name } } ?? TimeOfDayProfile.zones[0]
    exec = try cursor.value("--premium", "mid or exec") { $0 == "mid" || $0 == "exec" ? $0 == "exec" : nil } ?? false
    chunkRows = try cursor.chunkRows()
    format = try OutputFormat.parse(cursor)
  }

  var files: RunFiles { inputs.files() }

  /// Streams the legs (as `arbkit premium` does) into the profile's sums: memory holds
  /// the 168 cells and a chunk per leg, whatever the length of the history.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let (opened, progress) = try inputs.open(chunkRows: chunkRows, terminal: terminal)
    defer { progress.finish() }
    defer { opened.warn(&terminal) }
    let premium = try PremiumStream(legs: opened.legs.map(\.stream), options: inputs.alignment, chunkPoints: chunkRows, legChunkRows: chunkRows)
    var accumulator = TimeOfDayProfile.Accumulator(bands: bands, oneSided: exec || opened.legs.count > 2, zone: zone.name, offset: zone.offset)
    var range = StreamedRangeCheck { [offset = zone.offset] in try TimeOfDayProfile.checkRange($0, offset: offset) }
    while let chunk = try premium.next() {
      try range.check(chunk.time) { try premium.next()?.time.last }
      let values = exec ? chunk.exec : chunk.mid
      for i in 0..<chunk.count where chunk.valid[i] { accumulator.add(values[i], time: chunk.time[i], duration: chunk.duration[i]) }
    }
    progress.finish()
    let profile = accumulator.profile()
    // Every format prints the figures of the JSON: checked once, before anything is written.
    let checked = try json(profile).checkedFinite()
    switch format {
    case .json: terminal.print(checked.rendered())
    case .csv: terminal.print(csv(profile), terminator: "")
    case .table: terminal.print(table(profile, validPoints: premium.validPoints))
    }
    return .success
  }

  private var bandKeys: [String] { bands.map { JSONValue.format($0) } }

  func json(_ profile: TimeOfDayProfile) -> JSONValue {
    .object([
      ("zone", .string(zone.name)), ("offset_us", .int(zone.offset)), ("premium", .string(exec ? "exec" : "mid")),
      ("bands", .array(bands.map { .number($0) })),
      (
        "cells",
        .array(
          profile.cells.map { cell in
            .object([
              ("day", .string(TimeOfDayProfile.dayNames[cell.day])), ("hour", .int(cell.hour)), ("points", .int(cell.points)),
              ("seconds", .number(cell.seconds)), ("mean", .number(cell.mean)),
              ("shares", .object(zip(bandKeys, cell.shares).map { ($0, .number($1)) })),
            ])
          })
      ),
    ])
  }

  func csv(_ profile: TimeOfDayProfile) -> String {
    var text = "zone,day,hour,points,seconds,mean" + bandKeys.map { ",share_" + $0 }.joined() + "\n"
    for cell in profile.cells {
      text += "\(zone.name),\(TimeOfDayProfile.dayNames[cell.day]),\(cell.hour),\(cell.points),\(NumberText.csv(cell.seconds)),\(NumberText.csv(cell.mean))"
      text += cell.shares.map { "," + NumberText.csv($0) }.joined() + "\n"
    }
    return text
  }

  func table(_ profile: TimeOfDayProfile, validPoints: Int) -> String {
    let text = "Premium (\(exec ? "exec" : "mid"), %) by weekday and hour, \(zone.name); \(validPoints) valid points; cells with time only\n"
    var table = TextTable(["day", "hour", "points", "hours", "mean"] + bandKeys.map { "≥ " + $0 }, rightAligned: Set(1...(4 + bands.count)))
    for cell in profile.cells where cell.seconds > 0 {
      table.add(
        [TimeOfDayProfile.dayNames[cell.day], "\(cell.hour)", "\(cell.points)", NumberText.fixed(cell.seconds / 3600, 2), NumberText.fixed(cell.mean, 5)]
          + cell.shares.map { NumberText.percent($0) })
    }
    return text + table.rendered(indent: "  ")
  }
}
