import ArbAnalytics
import ArbCore
import ArbIngest

/// `arbkit candles --every 1h`: OHLC, means and counts per time bucket of a leg's mid
/// price or of a premium.
struct CandlesCommand: Command {
  static let name = "candles"
  static let abstract = "Resample a leg's mid or a premium into OHLC/mean/count candles (1m, 1h, 1d…)"
  static let zones: [String: Int64] = ["UTC": 0, "Asia/Seoul": 9 * 3_600_000_000]
  static let usage = """
    Usage: arbkit candles (--leg SPEC | --leg SPEC --leg SPEC…) --every DURATION [options]

    With one leg: candles of its mid price (bid + ask) / 2 at each of its quotes. With
    two or more: candles of the mid (default) or executable premium at the valid
    points of the aligned legs, as arbkit premium computes them. Buckets of DURATION
    (1m, 10m, 1h, 1d) are aligned to the day boundaries of --tz; each gives
    open, high, low, close, the event mean, the time-weighted mean and the count;
    buckets without a valid point are left out. Definitions: docs/definitions.md.

    Options:
    \(HelpText.options(LegInputs.help + [
      ("--every DURATION", "bucket width: 1m, 10m, 30m, 1h, 4h, 1d…; required"),
      ("--tz UTC|Asia/Seoul", "align buckets to UTC (default) or Seoul (UTC+9) day boundaries"),
      ("--of mid|premium|exec", "mid: the leg's mid price (one leg, default then); premium (default with two or more legs) or exec"),
      ("--out PATH", "write the candles there instead of stdout; a PATH ending .arrow or .feather (.parquet): the CSV's columns as Arrow IPC (Parquet), typed"),
      TableOutput.help,
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it, not with the history"),
      ("--format csv|json", "output (default csv): start_us,start,open,high,low,close,mean,mean_tw,count"),
    ]))
    \(IngestFlags.help)
    """

  enum Source: String { case mid, premium, exec }

  let inputs: LegInputs
  let every: Int64
  let zone: String
  let source: Source
  let out: TableOutput?
  /// Points, and quotes per leg, worked on at a time.
  let chunkRows: Int
  let json: Bool

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: LegInputs.flags + ["--every", "--tz", "--of", "--out", TableOutput.flag, "--chunk-rows", "--format"], switches: IngestFlags.switches)
    try cursor.validate()
    inputs = try LegInputs(cursor, minimum: 1)
    guard let every = try cursor.value("--every", "a positive duration such as 1m, 1h or 1d", { TimeText.parseDuration($0).flatMap { $0 > 0 ? $0 : nil } })
    else {
      throw UsageError("missing --every DURATION")
    }
    self.every = every
    zone = try cursor.value("--tz", "UTC or Asia/Seoul", { Self.zones[$0] == nil ? nil : $0 }) ?? "UTC"
    let legs = inputs.legs.count
    source = try cursor.value("--of", "mid, premium or exec", Source.init(rawValue:)) ?? (legs == 1 ? .mid : .premium)
    if source == .mid && legs != 1 { throw UsageError("--of mid takes one --leg, was \(legs); premium and exec take two or more") }
    if source == .mid && (inputs.alignment.maxStale != nil || inputs.alignment.grid != nil) {
      throw UsageError("--max-stale and --grid align premiums; a leg's mid uses every quote")
    }
    if source != .mid && legs < 2 { throw UsageError("--of \(source.rawValue) needs at least two --leg, was \(legs)") }
    out = try TableOutput.parse(cursor, flags: ["--out"])[0]
    chunkRows = try cursor.chunkRows()
    json = try cursor.value("--format", "csv or json", { ["csv": false, "json": true][$0] }) ?? false
  }

  var files: RunFiles { inputs.files(outputs: [out?.path]) }

  /// Streams the legs (as `arbkit premium` does) into the candles: memory holds the
  /// candles and a chunk per leg, whatever the length of the history.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let (legs, progress) = try inputs.open(chunkRows: chunkRows, terminal: terminal)
    defer { progress.finish() }
    defer { legs.warn(&terminal) }
    var builder = CandleBuilder(every: every, offset: Self.zones[zone]!)
    var range = StreamedRangeCheck { [every, offset = builder.offset] in try Candles.checkRange($0, every: every, offset: offset) }
    if source == .mid {
      let leg = legs.legs[0].stream
      try Self.addMids(of: leg, chunkRows: chunkRows, to: &builder) { times throws in
        try range.check(times) { try leg.next(maxRows: chunkRows)?.time.last }
      }
    } else {
      let premium = try PremiumStream(
        legs: legs.legs.map(\.stream), options: inputs.alignment, chunkPoints: chunkRows, legChunkRows: chunkRows)
      while let chunk = try premium.next() {
        try range.check(chunk.time) { try premium.next()?.time.last }
        let values = source == .exec ? chunk.exec : chunk.mid
        for i in 0..<chunk.count { builder.add(time: chunk.time[i], value: chunk.valid[i] ? values[i] : .nan, duration: chunk.duration[i]) }
      }
    }
    progress.finish()
    let candles = builder.finish()
    // Both formats print the figures of the JSON: checked once, before anything is written.
    let checked = try JSONValue.array(candles.map(Self.json)).checkedFinite()
    var writer = try RowWriter(out, types: [.timestampMicros, .utf8] + Array(repeating: .float64, count: 6) + [.int64])
    if json && !writer.isColumnar {
      try writer.append(checked.rendered() + "\n")
    } else {
      try writer.append("start_us,start,open,high,low,close,mean,mean_tw,count\n")
      for c in candles {
        try writer.appendRow { row in
          row.append(c.start)
          row.append(ascii: ",")
          row.append(TimeText.iso8601(c.start))
          for price in [c.open, c.high, c.low, c.close, c.mean, c.meanTW] { row.appendField(price) }
          row.append(ascii: ",")
          row.append(c.count)
          row.append(ascii: "\n")
        }
      }
    }
    if let text = try writer.finish() { terminal.print(text, terminator: "") }
    return .success
  }

  /// Adds the mid price of each quote of `stream` to `builder` (`nan` without a usable
  /// bid and ask), each holding to the next quote; `check` sees each chunk's times first.
  static func addMids(
    of stream: any QuoteStream, chunkRows: Int, to builder: inout CandleBuilder, check: (UnsafeBufferPointer<Int64>) throws -> Void
  ) throws {
    var held: (time: Int64, mid: Double)? = nil
    while let chunk = try stream.next(maxRows: chunkRows) {
      try check(chunk.time)
      for k in 0..<chunk.count {
        let bid = chunk.bid[k], ask = chunk.ask[k]
        let mid = bid > 0 && bid < .infinity && ask > 0 && ask < .infinity ? (bid + ask) / 2 : .nan
        if let before = held { builder.add(time: before.time, value: before.mid, duration: chunk.time[k] - before.time) }
        held = (chunk.time[k], mid)
      }
    }
    if let last = held { builder.add(time: last.time, value: last.mid, duration: 0) }
  }

  static func json(_ c: Candle) -> JSONValue {
    .object([
      ("start_us", .int(c.start)), ("start", .string(TimeText.iso8601(c.start))),
      ("open", .number(c.open)), ("high", .number(c.high)), ("low", .number(c.low)), ("close", .number(c.close)),
      ("mean", .number(c.mean)), ("mean_tw", .number(c.meanTW)), ("count", .int(c.count)),
    ])
  }
}
