import ArbCore
import ArbIngest
import ArbResearch
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// One run of the live board: the board's state, the alerts' states and where their
/// lines go, and the screen the board is drawn on (`nil` when stdout is not a
/// terminal: then alert lines are printed as they come and the board once, at the end).
struct LiveSession {
  var board: LiveBoard
  var tracker: AlertTracker
  let alertLog: AlertLog?
  var screen: Screen?
  let colour: Bool
  /// The board's first line: what is shown and how.
  let title: String
  let sort: LiveRow.Column
  /// The last alert lines, shown under the board on a terminal.
  private(set) var recent: [String] = []
  /// Alert lines kept for the screen.
  static let recentCount = 5
  /// The premium's colour bands (percent): grey from the first, orange from the second.
  static let bands = [0.05, 0.1]

  init(board: LiveBoard, alerts: [BoardAlert], alertLog: AlertLog?, screen: Screen?, colour: Bool, title: String, sort: LiveRow.Column) {
    self.board = board
    tracker = AlertTracker(alerts)
    self.alertLog = alertLog
    self.screen = screen
    self.colour = colour
    self.title = title
    self.sort = sort
  }

  /// Updates the alerts at `time` (the board's time), printing their events.
  mutating func alert(at time: Int64, _ terminal: inout Terminal) throws(FileError) {
    let board = self.board
    for event in tracker.update(at: time, value: { board.row(watchedBy: $0, now: time)?.value($0.field) }) { try emit(event.line, &terminal) }
  }

  /// Redraws the board at `now` on the screen (nothing without one).
  mutating func draw(at now: Int64, _ terminal: inout Terminal) {
    guard var screen else { return }
    terminal.print(screen.render(frame(at: now)), terminator: "")
    self.screen = screen
  }

  /// Ends the run at `now`: an `open` line for each alert that still holds, the board
  /// drawn a last time (printed once without a screen).
  mutating func finish(at now: Int64, _ terminal: inout Terminal) throws(FileError) {
    let board = self.board
    for event in tracker.open(at: now, value: { board.row(watchedBy: $0, now: now)?.value($0.field) }) { try emit(event.line, &terminal) }
    if var screen {
      terminal.print(screen.render(frame(at: now)) + Screen.showCursor, terminator: "\n")
      self.screen = screen
    } else {
      let lines = frame(at: now)
      terminal.print((lines.head + lines.table + lines.tail).joined(separator: "\n"))
    }
  }

  private mutating func emit(_ line: String, _ terminal: inout Terminal) throws(FileError) {
    try alertLog?.append(line)
    if screen == nil { terminal.print(line) }
    recent.append(line)
    if recent.count > Self.recentCount { recent.removeFirst() }
  }

  /// The board at `now` as lines: the header, the table, the recent alerts.
  func frame(at now: Int64) -> (head: [String], table: [String], tail: [String]) {
    let rows = LiveRow.sorted(board.rows(now: now), by: sort, now: now)
    let rate = board.rate(now: now)
    var head = [title]
    head.append(
      "UTC \(Self.clock(now))   KST \(Self.clock(now + 9 * 3_600_000_000))   \(rows.count) instrument\(rows.count == 1 ? "" : "s"); sorted by \(sort.rawValue)")
    head.append(
      "premium = highest / lowest mid − 1 in % (grey ≥ \(JSONValue.format(Self.bands[0])), orange ≥ \(JSONValue.format(Self.bands[1]))); "
        + "kimchi = KRW mid / (USDT mid × rate) − 1 in %, rate \(LiveRow.priceText(rate)) KRW per USDT")
    head.append("")
    var table = TextTable(
      ["instrument", "venues", "high", "high mid", "low", "low mid", "premium", "kimchi", "age"], rightAligned: [1, 3, 5, 6, 7, 8])
    for row in rows {
      let two = row.venues.count >= 2
      table.add([
        row.instrument.description, "\(row.venues.count)", row.high.instrument.venue, LiveRow.priceText(row.high.mid),
        two ? row.low.instrument.venue : "-", LiveRow.priceText(two ? row.low.mid : nil),
        CellColour.premium(NumberText.fixed(row.premium, 4), row.premium, bands: Self.bands, enabled: colour),
        NumberText.fixed(row.kimchi, 4), TimeText.readableDuration(seconds: Double(max(0, now - row.updated)) / 1e6),
      ])
    }
    let tableLines = table.rendered(indent: "  ").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let tail = tracker.alerts.isEmpty ? [] : ["", "Alerts"] + recent.map { "  " + $0 }
    return (head, tableLines, tail)
  }

  /// `2025-01-01 09:00:00` of `micros` (whole seconds).
  static func clock(_ micros: Int64) -> String {
    String(TimeText.iso8601(micros - micros.floorMod(1_000_000)).dropLast().map { $0 == "T" ? " " : $0 })
  }
}

extension LiveRow {
  /// A price with about eight significant digits, at most eight decimals; `-` when absent.
  static func priceText(_ value: Double?) -> String {
    guard let value, value > 0, value.isFinite else { return NumberText.fixed(value.flatMap { $0.isFinite ? $0 : nil }, 0) }
    let integerDigits = Int(log10(value).rounded(.down)) + 1
    return NumberText.fixed(value, min(8, max(0, 8 - integerDigits)))
  }
}

/// The terminal the live board is drawn on: each frame from the top-left corner, each
/// line overwritten and cleared to its end, then the rest of the screen cleared; the
/// whole screen is cleared only before the first frame, so redraws do not flicker.
struct Screen {
  static let home = "\u{1B}[H"
  static let clearLine = "\u{1B}[K"
  static let clearBelow = "\u{1B}[J"
  static let clearAll = "\u{1B}[2J"
  static let hideCursor = "\u{1B}[?25l"
  static let showCursor = "\u{1B}[?25h"

  private var drawn = false

  /// The bytes that draw `frame`, cut to the terminal's size: lines to its width, and
  /// table rows dropped from the end when the frame is taller than the screen.
  mutating func render(_ frame: (head: [String], table: [String], tail: [String])) -> String {
    let (width, height) = Self.size()
    let spare = max(2, height - frame.head.count - frame.tail.count)
    let lines = (frame.head + frame.table.prefix(spare) + frame.tail).prefix(height).map { Self.cut($0, to: width) }
    let start = drawn ? Self.home : Self.hideCursor + Self.clearAll + Self.home
    drawn = true
    return start + lines.joined(separator: Self.clearLine + "\r\n") + Self.clearLine + Self.clearBelow
  }

  /// The terminal's columns and rows (80 × 24 when unknown).
  static func size() -> (width: Int, height: Int) {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
    return (Int(size.ws_col), Int(size.ws_row))
  }

  /// `line` cut to `width` visible characters; colour sequences take no column and a
  /// colour cut short is reset.
  static func cut(_ line: String, to width: Int) -> String {
    guard TextTable.visibleWidth(line) > width else { return line }
    var text = "", shown = 0, escaped = false
    for character in line {
      if escaped {
        if character == "m" { escaped = false }
      } else if character == "\u{1B}" {
        escaped = true
      } else {
        guard shown < width else { break }
        shown += 1
      }
      text.append(character)
    }
    return text + CellColour.reset
  }
}

/// The `--alerts` file: opened for appending (made if missing, never truncated), each
/// alert line written with one `write(2)` as it comes.
final class AlertLog {
  let path: String
  private let descriptor: Int32

  init(path: String) throws(FileError) {
    self.path = path
    descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
  }

  deinit { close(descriptor) }

  /// Appends `line` and a newline.
  func append(_ line: String) throws(FileError) {
    var text = line + "\n"
    var failure: FileError?
    text.withUTF8 { bytes in
      do throws(FileError) { try FileOutput.writeAll(descriptor, UnsafeRawBufferPointer(bytes), path: path) } catch { failure = error }
    }
    if let failure { throw failure }
  }
}
