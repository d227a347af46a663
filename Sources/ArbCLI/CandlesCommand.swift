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
    \(HelpText.options(PremiumInputs.help + [
      ("--every DURATION", "bucket width: 1m, 10m, 30m, 1h, 4h, 1d…; required"),
      ("--tz UTC|Asia/Seoul", "align buckets to UTC (default) or Seoul (UTC+9) day boundaries"),
      ("--of mid|premium|exec", "mid: the leg's mid price (one leg, default then); premium (default with two or more legs) or exec"),
      ("--out PATH", "write the candles there instead of stdout; a PATH ending .arrow or .feather (.parquet): the CSV's columns as Arrow IPC (Parquet), typed"),
      ("--format csv|json", "output (default csv): start_us,start,open,high,low,close,mean,mean_tw,count"),
    ]))
    \(IngestFlags.help)
    """

  enum Source: String { case mid, premium, exec }

  let inputs: PremiumInputs
  let every: Int64
  let zone: String
  let source: Source
  let outPath: String?
  let json: Bool

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: PremiumInputs.flags + ["--every", "--tz", "--of", "--out", "--format"], switches: IngestFlags.switches)
    try cursor.validate()
    inputs = try PremiumInputs(cursor, minimum: 1)
    guard let every = try cursor.value("--every", "a positive duration such as 1m, 1h or 1d", { TimeText.parseDuration($0).flatMap { $0 > 0 ? $0 : nil } }) else {
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
    outPath = cursor.value("--out")
    json = try cursor.value("--format", "csv or json", { ["csv": false, "json": true][$0] }) ?? false
  }

  var files: RunFiles { inputs.files(outputs: [outPath]) }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let legs = try inputs.load(&terminal)
    let (time, values): ([Int64], [Double])
    if source == .mid {
      let leg = legs[0]
      time = leg.time
      values = leg.time.indices.map { k in
        let bid = leg.bid[k], ask = leg.ask[k]
        return bid > 0 && bid < .infinity && ask > 0 && ask < .infinity ? (bid + ask) / 2 : .nan
      }
    } else {
      let premium = try PremiumSeries(legs: legs, options: inputs.alignment)
      time = premium.time
      values = source == .exec ? premium.exec : premium.mid  // nan at invalid points
    }
    if let first = time.first, let last = time.last { try Candles.checkRange(first...last, every: every, offset: Self.zones[zone]!) }
    let candles = Candles.make(time: time, values: values, every: every, offset: Self.zones[zone]!)
    // Both formats print the figures of the JSON: checked once, before anything is written.
    let checked = try JSONValue.array(candles.map(Self.json)).checkedFinite()
    var out = try RowWriter(path: outPath, types: [.timestampMicros, .utf8] + Array(repeating: .float64, count: 6) + [.int64])
    if json && !out.isColumnar {
      try out.append(checked.rendered() + "\n")
    } else {
      try out.append("start_us,start,open,high,low,close,mean,mean_tw,count\n")
      for c in candles {
        let prices = [c.open, c.high, c.low, c.close, c.mean].map { NumberText.csv($0) }.joined(separator: ",")
        try out.append("\(c.start),\(TimeText.iso8601(c.start)),\(prices),\(NumberText.csv(c.meanTW)),\(c.count)\n")
      }
    }
    if let text = try out.finish() { terminal.print(text, terminator: "") }
    return .success
  }

  static func json(_ c: Candle) -> JSONValue {
    .object([
      ("start_us", .int(c.start)), ("start", .string(TimeText.iso8601(c.start))),
      ("open", .number(c.open)), ("high", .number(c.high)), ("low", .number(c.low)), ("close", .number(c.close)),
      ("mean", .number(c.mean)), ("mean_tw", .number(c.meanTW)), ("count", .int(c.count)),
    ])
  }
}
