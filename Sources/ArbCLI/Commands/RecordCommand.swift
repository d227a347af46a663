import ArbCore
import ArbRecord
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `arbkit record TARGET… --out DIR`: polls venues' public REST endpoints into
/// `rest.snapshots` files that every command reads.
struct RecordCommand: Command {
  static let name = "record"
  static let stopsOnSignal = true
  static let abstract = "Record venues' public REST tickers (and books) into rest.snapshots files, rotated and compressed"
  static let usage = """
    Usage: arbkit record VENUE:MARKET[:SYMBOLS]… --out DIR [--every D] [--duration D] [--rotate 1h|1d] [--compress zstd|gzip] [--books] [--base-url VENUE=URL]…

    Polls the public REST endpoints of each VENUE:MARKET (no keys) and appends every
    answer as one line of the rest.snapshots envelope (recv_ts_us, send_ts_us, venue,
    endpoint, params, status, response) to DIR/VENUE-MARKET-YYYYMMDDTHHMMSSZ.jsonl.
    Venues and markets: upbit, bithumb, coinone: spot; bybit, binance: spot, linear,
    inverse; okx: spot, linear, inverse, future. SYMBOLS are the venue's own symbols
    separated by ',' (upbit:spot:KRW-BTC,KRW-USDT); without them every symbol the
    venue lists in the market is recorded.
    Lines are written as they arrive and synced every second; at each UTC hour (or
    day) and when recording stops a file is compressed beside it (.jsonl.zst or
    .jsonl.gz) and synced. A killed recorder leaves files every command reads (a cut
    last line is counted as a skipped 'torn last line'); the next run in DIR
    compresses them and starts a new file. Failed requests, HTTP errors, bodies that
    are not JSON and venue error codes are kept as error records, never read as
    prices. HTTP 429 and 418 wait for Retry-After; other failures back off
    exponentially with jitter; each target polls on its own schedule. A status line
    is shown on a terminal; a summary table is printed at the end. Stops after
    --duration, or on SIGINT or SIGTERM.

    Options:
    \(HelpText.options([
      ("--out DIR", "the folder of the recording (required; made if missing; one recorder at a time)"),
      ("--every D", "polling period of each target (default 1s)"),
      ("--duration D", "stop after D (default: until SIGINT or SIGTERM)"),
      ("--rotate 1h|1d", "start a new file on every UTC hour or day (default 1h)"),
      ("--compress zstd|gzip", "how finished files are compressed (default zstd)"),
      ("--books", "also record order books (upbit, bithumb: every symbol; other venues: the named symbols)"),
      ("--base-url VENUE=URL", "send VENUE's requests to URL instead of the venue (repeat per venue), e.g. binance=http://127.0.0.1:8080"),
      ("--timeout D", "the longest one request may take, answer included (default 10s)"),
    ]))
    """

  let options: RecordOptions

  init(arguments: [String]) throws(UsageError) {
    let flags = ["--out", "--every", "--duration", "--rotate", "--compress", "--base-url", "--timeout"]
    let cursor = ArgumentCursor(arguments, flags: flags, switches: ["--books"])
    try cursor.validate()
    guard !cursor.arguments.isEmpty else { throw UsageError("no target given, expected VENUE:MARKET[:SYMBOL,…]") }
    guard let folder = cursor.value("--out") else { throw UsageError("missing --out DIR") }
    var targets: [RecordTarget] = []
    for text in cursor.arguments {
      switch RecordTarget.parse(text) {
      case .success(let target): targets.append(target)
      case .failure(let error): throw UsageError(error.message)
      }
    }
    var options = RecordOptions(targets: targets, folder: folder)
    options.everyMicros = try Self.duration(cursor, "--every", upTo: "1d") ?? options.everyMicros
    options.durationMicros = try Self.duration(cursor, "--duration")
    let timeout = try Self.duration(cursor, "--timeout", upTo: "1d")
    options.timeoutSeconds = timeout.map { Double($0) / 1e6 } ?? options.timeoutSeconds
    if let text = cursor.value("--rotate") {
      guard let rotation = RecordRotation(rawValue: text) else { throw UsageError("invalid value for '--rotate', expected 1h or 1d, was '\(text)'") }
      options.rotation = rotation
    }
    if let text = cursor.value("--compress") {
      guard let compression = RecordCompression(rawValue: text) else {
        throw UsageError("invalid value for '--compress', expected zstd or gzip, was '\(text)'")
      }
      options.compression = compression
    }
    options.books = cursor.flag("--books")
    for text in cursor.values("--base-url") {
      let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, let venue = RecordVenue(rawValue: parts[0]) else {
        let venues = RecordVenue.allCases.map(\.rawValue).joined(separator: ", ")
        throw UsageError("invalid value for '--base-url', expected VENUE=URL with VENUE one of \(venues), was '\(text)'")
      }
      options.baseURLs[venue] = parts[1]
    }
    if let problem = options.validate() {
      switch problem {
      case .booksNeedSymbols(let label):
        throw UsageError("--books on \(label) needs a symbol list (\(label):SYMBOL,…): its books are one request per symbol")
      case .baseURL(let venue, let url):
        throw UsageError("invalid value for '--base-url', expected \(venue.rawValue)=http(s)://HOST[:PORT][/PATH], was '\(url)'")
      default: throw UsageError(problem.description)
      }
    }
    self.options = options
  }

  /// A duration flag of at least 1 ms (`1s`, `500ms`, `1h`) and at most `limit`,
  /// `nil` when absent.
  private static func duration(_ cursor: ArgumentCursor, _ flag: String, upTo limit: String? = nil) throws(UsageError) -> Int64? {
    guard let text = cursor.value(flag) else { return nil }
    let most = limit.flatMap(TimeText.parseDuration) ?? .max
    guard let micros = TimeText.parseDuration(text), micros >= 1000, micros <= most else {
      let range = limit.map { "from 1ms to \($0)" } ?? "of at least 1ms"
      throw UsageError("invalid value for '\(flag)', expected a duration \(range) such as 1s, 500ms, 1h, was '\(text)'")
    }
    return micros
  }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let redraw: @Sendable (String) -> Void = { Self.redraw($0) }
    let status = terminal.passthrough && isatty(STDERR_FILENO) == 1 ? redraw : nil
    let summary: RecordSummary
    do {
      summary = try Recorder.runBlocking(options, status: status)
    } catch {
      if status != nil { Self.redraw("") }
      terminal.printError(error.message.contains(": error: ") ? error.message : "arbkit: error: \(error.message)")
      return error.isIO ? .ioError : .usage
    }
    if status != nil { Self.redraw("") }
    for note in summary.notes { terminal.printError("arbkit record: \(note)") }
    let lines = summary.targets.reduce(0) { $0 + $1.lines }
    let errors = summary.targets.reduce(0) { $0 + $1.errors }
    terminal.print("wrote \(options.folder): \(lines) lines, \(errors) error records")
    var table = TextTable(["target", "requests", "error records", "bytes", "last latency ms"], rightAligned: [1, 2, 3, 4])
    for target in summary.targets {
      table.add([target.label, "\(target.requests)", "\(target.errors)", "\(target.bytes)", target.lastLatencyMicros.map { "\($0 / 1000)" } ?? ""])
    }
    terminal.print(table.rendered())
    return .success
  }

  /// Redraws the status line on stderr in place (carriage return, clear to the end),
  /// cut to the terminal's width so that it never wraps.
  private static func redraw(_ line: String) {
    var size = winsize()
    let width = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 1 ? Int(size.ws_col) - 1 : 159
    var text = "\r\u{1B}[K" + String(line.prefix(width))
    text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
  }
}
