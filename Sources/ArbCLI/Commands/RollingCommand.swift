import ArbAnalytics
import ArbCore
import ArbIngest

/// `arbkit rolling --leg … --leg … --window W`: rolling z-score, EWMA and mean-reversion
/// measures of a premium series.
struct RollingCommand: Command {
  static let name = "rolling"
  static let abstract = "Rolling mean/std/z-score, EWMA, rolling half-life and variance ratios of a premium"
  static let varianceRatioLags = [2, 5, 10, 20]
  static let quantileLevels: [Double] = [5, 25, 50, 75, 95]
  static let usage = """
    Usage: arbkit rolling --leg SPEC --leg SPEC… --window N|DURATION [options]

    Aligns the legs as arbkit premium does and, over the valid points of the mid
    (or executable) premium, computes the rolling mean, sample std and z-score over
    the last N valid points or the last DURATION of time, an optional EWMA, the AR(1)
    half-life of every window and the variance ratios VR(2, 5, 10, 20). Prints a
    summary; --out writes every valid point. The legs are streamed: memory holds a
    chunk and the points of one window. Definitions: docs/definitions.md.

    Options:
    \(HelpText.options(LegInputs.help + [
      ("--window N|DURATION", "the last N valid points (300) or the last DURATION of time (5m); required"),
      ("--ewma N|DURATION", "EWMA half-life in points (100) or in time (30s)"),
      ("--series premium|exec", "the mid premium (default) or the executable premium"),
      ("--out PATH", "write ts_us,value,mean,std,z,ewma_mean,ewma_std,half_life_s per valid point (CSV; undefined = empty; a PATH ending .arrow or .feather: Arrow IPC, .parquet: Parquet, typed)"),
      TableOutput.help,
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it and the window, not with the history"),
      ("--format table|csv|json", "the summary (default table)"),
    ]))
    \(IngestFlags.help)
    """

  let inputs: LegInputs
  let window: RollingWindow
  let ewma: EWMAHalfLife?
  let exec: Bool
  let out: TableOutput?
  let chunkRows: Int
  let format: OutputFormat

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: LegInputs.flags + ["--window", "--ewma", "--series", "--out", TableOutput.flag, "--chunk-rows", "--format"],
      switches: IngestFlags.switches)
    try cursor.validate()
    inputs = try LegInputs(cursor, minimum: 2)
    guard let window = try cursor.value("--window", "a count of points (300) or a duration (5m)", Self.window) else {
      throw UsageError("missing --window N|DURATION")
    }
    self.window = window
    ewma = try cursor.value("--ewma", "a half-life in points (100) or a duration (30s)", Self.halfLife)
    exec = try cursor.value("--series", "premium or exec", { ["premium": false, "exec": true][$0] }) ?? false
    out = try TableOutput.parse(cursor, flags: ["--out"])[0]
    chunkRows = try cursor.chunkRows()
    format = try OutputFormat.parse(cursor)
  }

  /// A bare whole number is a count of points; a number with a unit is a duration.
  static func window(_ text: String) -> RollingWindow? {
    if let n = Int(text) { return n >= 1 ? .points(n) : nil }
    return TimeText.parseDuration(text).flatMap { $0 > 0 ? .time($0) : nil }
  }

  /// A bare number is a half-life in points; a number with a unit is a duration.
  static func halfLife(_ text: String) -> EWMAHalfLife? {
    if let h = Double(text) { return h > 0 && h.isFinite ? .points(h) : nil }
    return TimeText.parseDuration(text).flatMap { $0 > 0 ? .time($0) : nil }
  }

  var files: RunFiles { inputs.files(outputs: [out?.path]) }

  /// Streams the legs (as `arbkit premium` does) through the rolling windows: memory
  /// holds a chunk per leg and the points a window still reaches, whatever the length of
  /// the history; `--out` rows are written as they are made.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let (legs, progress) = try inputs.open(chunkRows: chunkRows, terminal: terminal)
    defer { progress.finish() }
    defer { legs.warn(&terminal) }
    let premium = try PremiumStream(legs: legs.legs.map(\.stream), options: inputs.alignment, chunkPoints: chunkRows, legChunkRows: chunkRows)
    let analyzer = RollingAnalyzer(
      window: window, ewma: ewma, varianceRatioLags: Self.varianceRatioLags, quantileLevels: Self.quantileLevels,
      spillMemoryLimit: max(1 << 16, 16 * chunkRows))
    var writer = try out.map { try RowWriter($0, types: [.timestampMicros] + Array(repeating: .float64, count: 7)) }
    try writer?.append("ts_us,value,mean,std,z,ewma_mean,ewma_std,half_life_s\n")
    var range = StreamedRangeCheck { [window] in try window.checkRange($0) }
    var (values, time): ([Double], [Int64]) = ([], [])
    while let chunk = try premium.next() {
      let column = exec ? chunk.exec : chunk.mid
      (values, time) = ([], [])
      for i in 0..<chunk.count where chunk.valid[i] {
        // A premium of extreme prices (1e300 against 1e-300) overflows.
        guard column[i].isFinite else { throw NonFiniteResult(key: "the premium at ts_us \(chunk.time[i])", value: column[i]) }
        values.append(column[i])
        time.append(chunk.time[i])
      }
      try time.withUnsafeBufferPointer { times in try range.check(times) { try premium.next()?.time.last } }
      let figures = try values.withUnsafeBufferPointer { x in try time.withUnsafeBufferPointer { t in try analyzer.add(values: x, time: t) } }
      if writer != nil { try RollingResult.write(values: values, time: time, figures: figures, to: &writer!) }
    }
    progress.finish()
    let result = RollingResult(
      points: premium.points, analysis: try analyzer.finish(), window: window, ewma: ewma, exec: exec)
    // Every format prints the figures of the JSON: checked once, before anything is written.
    let json = try result.json.checkedFinite()
    _ = try writer?.finish()
    switch format {
    case .json: terminal.print(json.rendered())
    case .csv: terminal.print(result.csv, terminator: "")
    case .table: terminal.print(result.table)
    }
    if premium.validPoints == 0 {
      terminal.printError("arbkit: warning: no valid point: every point had a stale or missing leg (see --max-stale)")
    }
    return .success
  }
}
