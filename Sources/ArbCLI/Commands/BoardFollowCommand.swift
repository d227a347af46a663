import ArbCore
import ArbIngest
import ArbResearch
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `arbkit board --follow DIR|STORE`: the live board over a recording folder as it
/// grows, or over a finished one (or a store) replayed at `--speed`. Parsed instead of `BoardCommand`
/// when `--follow` is given; its help is a section of `board --help`.
struct BoardFollowCommand: Command {
  static let name = "board"
  static let stopsOnSignal = true
  static let abstract = BoardCommand.abstract
  static var usage: String { BoardCommand.usage }
  static let sortSwitch: String? = nil

  static let help = HelpText.options([
    (
      "--follow DIR|STORE", "show the live board of a folder written by arbkit record, read as it grows (new lines once a second), or of a store (with --speed)"
    ),
    ("--speed N[x]", "replay the finished recording (or the store) at N times its own pace, by its receive times, and stop at its end"),
    (
      "--sort COLUMN",
      "order rows by a column (numbers descending, text ascending): \(LiveRow.Column.allCases.map(\.rawValue).joined(separator: ", ")); default premium"
    ),
    (
      "--alert 'INSTRUMENT FIELD OP NUMBER'",
      "print an alert line when the condition starts and ends, e.g. 'BTC/KRW kimchi >= 3' (FIELD premium or kimchi, in %; OP >= > <= <); repeatable"
    ),
    ("--alerts PATH", "also append every alert line to PATH (never truncated)"),
    ("--duration D", "stop after D of wall time (default: until SIGINT or SIGTERM, or the end of a replay)"),
    ("--max-stale D", "a venue whose last quote is older than D is left out of its row (default 1m)"),
    ("--fx LEG", "the kimchi rate from an FX file of KRW per USD (USDT taken as 1 USD) instead of upbit KRW-USDT in the recording"),
    ("--fx-max-stale D", "with --fx, a rate older than D is not used (default 4d)"),
    ("--registry PATH", "extend the built-in exchange registry with a file"),
  ])

  /// A venue quoted a minute ago is still on the board; recorders poll every second.
  static let defaultMaxStale: Int64 = 60_000_000

  /// Whether `arguments` ask for the live board.
  static func isRequested(_ arguments: [String]) -> Bool {
    arguments.prefix { $0 != "--" }.contains { $0 == "--follow" || $0.hasPrefix("--follow=") }
  }

  let folder: String
  /// `--speed`: replay at this many times the recording's pace; `nil`: follow it live.
  let speed: Double?
  let sort: LiveRow.Column
  let alerts: [BoardAlert]
  let alertsPath: String?
  /// µs of wall time.
  let duration: Int64?
  let maxStale: Int64
  let fx: LegSpec?
  let fxMaxStale: Int64
  let registry: ExchangeRegistry
  let registryPath: String?

  init(arguments: [String]) throws(UsageError) {
    let flags = ["--follow", "--speed", "--sort", "--alert", "--alerts", "--duration", "--max-stale", "--fx", "--fx-max-stale", "--registry"]
    let cursor = ArgumentCursor(arguments, flags: flags, switches: [])
    try cursor.validate()
    if let stray = cursor.arguments.first { throw UsageError("unexpected argument '\(stray)' with --follow (the recording is the folder of --follow)") }
    guard let folder = cursor.value("--follow") else { throw UsageError("missing --follow DIR") }
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else { throw UsageError(file: .missing(path: folder)) }
    guard isFolder.boolValue else { throw UsageError("--follow \(folder) is not a folder; give the folder of arbkit record --out, or a store") }
    self.folder = folder
    speed = try cursor.value("--speed", "a positive factor such as 10x or 0.5") { text in
      Double(text.hasSuffix("x") ? String(text.dropLast()) : text).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }
    if speed == nil && Store.isStore(path: folder) { throw UsageError("--follow \(folder) is a store, a finished recording: replay it with --speed") }
    sort = try cursor.value("--sort", "one of \(LiveRow.Column.allCases.map(\.rawValue).joined(separator: ", "))", LiveRow.Column.init) ?? .premium
    var alerts: [BoardAlert] = []
    for text in cursor.values("--alert") { alerts.append(try BoardAlert(parsing: text)) }
    self.alerts = alerts
    alertsPath = cursor.value("--alerts")
    if alertsPath != nil && alerts.isEmpty { throw UsageError("--alerts PATH needs at least one --alert") }
    // A file inside the recording would be written onto, or read as, the recording itself.
    if let alertsPath, Self.isInside(alertsPath, folder: folder) {
      throw UsageError("--alerts \(alertsPath) is inside the recording \(folder) that the board reads; name a file outside it")
    }
    let positive: (String) -> Int64? = { TimeText.parseDuration($0).flatMap { $0 > 0 ? $0 : nil } }
    duration = try cursor.value("--duration", "a positive duration such as 10s or 1h", positive)
    maxStale = try cursor.value("--max-stale", "a positive duration such as 5s or 1m", positive) ?? Self.defaultMaxStale
    fxMaxStale = try cursor.value("--fx-max-stale", "a positive duration such as 4d", positive) ?? KimchiCommand.defaultFXMaxStale
    registry = try VenuesCommand.registry(cursor)
    registryPath = cursor.value("--registry")
    if let text = cursor.value("--fx") {
      do { fx = try LegSpec(parsing: text) } catch { throw UsageError(error.message) }
    } else {
      fx = nil
    }
  }

  /// Whether `path` names a file in `folder` or below it (links resolved).
  static func isInside(_ path: String, folder: String) -> Bool {
    let parent = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath().path
    let root = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
    return parent == root || parent.hasPrefix(root.hasSuffix("/") ? root : root + "/")
  }

  var files: RunFiles {
    RunFiles(inputs: [folder] + (fx?.paths ?? []) + [registryPath].compactMap { $0 }, named: [alertsPath].compactMap { $0 })
  }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    var options = IngestOptions()
    options.registry = registry
    let rate: LiveBoard.Rate
    if let fx {
      let series = try fx.load(options: options).series
      guard series.instrument.market == .fx else {
        throw UsageError("--fx \(fx.paths[0]) is a market (\(series.instrument.market.rawValue)), not an FX file of KRW per USD")
      }
      rate = .file(series, maxStale: fxMaxStale)
    } else {
      rate = .market(LiveBoard.upbitUSDT)
    }
    let rateText = fx.map { "FX file \($0.paths[0])" } ?? "upbit KRW-USDT"
    let title = (speed.map { "Replay of \(folder) at \(JSONValue.format($0))x" } ?? "Following \(folder)") + " (kimchi rate: \(rateText))"
    var log: AlertLog?
    if let alertsPath { log = try AlertLog(path: alertsPath) }
    var session = LiveSession(
      board: LiveBoard(registry: registry, rate: rate, maxStale: maxStale), alerts: alerts, alertLog: log,
      screen: terminal.isTTY ? Screen() : nil, colour: terminal.colour, title: title, sort: sort)
    let stop = SignalStop()
    defer { stop.restore() }
    let start = Self.wallMicros()
    let end = duration.map { start + $0 }
    func running() -> Bool { !stop.isSet && end.map { Self.wallMicros() < $0 } ?? true }
    // A frame is drawn on every whole second after the start (one skipped when a read
    // takes longer, never several at once).
    func waitForTick() {
      Self.sleep(until: start + ((Self.wallMicros() - start) / 1_000_000 + 1) * 1_000_000, unless: stop)
    }
    do {
      let torn = try loop(&session, start: start, running: running, waitForTick: waitForTick, &terminal)
      if torn > 0 { terminal.printError("arbkit: warning: \(torn) torn or overlong lines not read") }
    } catch {
      // The terminal gets its cursor back before the error is told.
      if session.screen != nil { terminal.print(Screen.showCursor) }
      throw error
    }
    return .success
  }

  /// Replays or follows the recording until the end of the replay or `running()`
  /// turns false; returns the lines not read (torn, too long, unreadable).
  private func loop(
    _ session: inout LiveSession, start: Int64, running: () -> Bool, waitForTick: () -> Void, _ terminal: inout Terminal
  ) throws -> Int {
    if let speed {
      // The recording's own clock runs `speed` times the wall clock from its first line.
      var replay: any QuoteReplay = Store.isStore(path: folder) ? try StoreReplay(path: folder) : try RecordingReplay(folder: folder)
      guard let first = try replay.nextTime() else {
        terminal.printError("arbkit: warning: \(folder) holds no quotes to replay")
        return 0
      }
      var next = try replay.next()
      var last = first
      while running() {
        let now = first + Int64(Double(Self.wallMicros() - start) * speed)
        while let quotes = next, quotes[0].time <= now {
          for quote in quotes { session.board.apply(quote) }
          last = quotes[0].time
          try session.alert(at: last, &terminal)
          next = try replay.next()
        }
        if next == nil { break }
        session.draw(at: now, &terminal)
        waitForTick()
      }
      try session.finish(at: next == nil ? last : first + Int64(Double(Self.wallMicros() - start) * speed), &terminal)
      return replay.tornLines
    }
    var follower = RecordingFollower(folder: folder)
    while running() {
      try follower.poll { line in
        for quote in RecordingLines.quotes(line: line) ?? [] { session.board.apply(quote) }
      }
      let now = Self.wallMicros()
      try session.alert(at: now, &terminal)
      session.draw(at: now, &terminal)
      waitForTick()
    }
    try session.finish(at: Self.wallMicros(), &terminal)
    return follower.tornLines
  }

  /// The wall clock (µs since the epoch, UTC).
  static func wallMicros() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
  }

  /// Sleeps until the wall clock reaches `micros`, waking every 50 ms to see `stop`.
  private static func sleep(until micros: Int64, unless stop: SignalStop) {
    while !stop.isSet {
      let left = micros - wallMicros()
      guard left > 0 else { return }
      usleep(UInt32(min(left, 50_000)))
    }
  }
}
