import ArbCore
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Work done, rate and time left on stderr, redrawn in place (only on a terminal): the
/// cells of a sweep, the quotes a streaming command has read.
final class Progress: @unchecked Sendable {
  /// The units counted: `cells`, `quotes` or `points`.
  private let unit: String
  /// `nil` while the total is not known (files read as they are parsed): no bar, no ETA.
  private let total: Int?
  private var done: Int
  private let show: Bool
  /// Monotonic nanoseconds; tests inject a clock.
  private let now: () -> UInt64
  private let start: UInt64
  private let startDone: Int
  /// With `every`, lines are drawn at most that often (the first one that long after the
  /// start), and the last one at `finish`.
  private var lastDrawn: UInt64
  private let everyNanoseconds: UInt64
  private var finished = false
  /// Where lines go (stderr); tests collect them.
  private let write: (String) -> Void

  init(
    total: Int?, done: Int = 0, unit: String = "cells", show: Bool, every seconds: Double = 0,
    now: @escaping () -> UInt64 = { DispatchTime.now().uptimeNanoseconds },
    write: @escaping (String) -> Void = { text in
      var terminal = Terminal(passthrough: true)
      terminal.printError(text, terminator: "")
    }
  ) {
    self.total = total
    self.done = done
    self.unit = unit
    self.show = show
    self.now = now
    self.write = write
    everyNanoseconds = UInt64(seconds * 1e9)
    start = now()
    lastDrawn = start
    startDone = done
  }

  /// Shows progress on stderr only when it is a terminal and the caller has not asked for quiet.
  static func onTerminal(_ terminal: Terminal, quiet: Bool = false) -> Bool {
    !quiet && terminal.passthrough && isatty(STDERR_FILENO) == 1
  }

  func advance(_ count: Int) { update(done: done + count) }

  /// `advance` for work counted on several threads: one call at a time.
  var concurrentAdvance: @Sendable (Int) -> Void {
    let lock = Mutex(())
    return { count in lock.withLock { _ in self.advance(count) } }
  }

  /// Sets the work done so far to `done`.
  func update(done: Int) {
    self.done = done
    guard show else { return }
    let time = now()
    guard everyNanoseconds == 0 || time - lastDrawn >= everyNanoseconds else { return }
    lastDrawn = time
    write(Self.line(done: done, total: total, doneHere: done - startDone, seconds: Double(time - start) / 1e9, unit: unit))
  }

  /// Draws the last line and ends it; once only, so that a run can call it when its
  /// reading is done and again (deferred) when it stops on an error.
  /// Draws the last line and ends it; a count without a total that never moved (a
  /// command whose legs were read whole) draws nothing.
  func finish() {
    guard show, !finished, total != nil || done > startDone else { return }
    finished = true
    if everyNanoseconds > 0 {
      write(Self.line(done: done, total: total, doneHere: done - startDone, seconds: Double(now() - start) / 1e9, unit: unit))
    }
    write("\n")
  }

  /// The line after `done` of `total` units, `doneHere` of them by this run in
  /// `seconds` (the rows a resumed sweep found on disk do not count towards the rate):
  /// a 30-character bar, the rate per second and the time left at that rate (`-` until
  /// a rate is known); without a total, the count and the rate alone.
  static func line(done: Int, total: Int?, doneHere: Int, seconds: Double, unit: String = "cells") -> String {
    let rate = seconds > 0 ? Double(doneHere) / seconds : 0
    guard let total else { return "\r\(done) \(unit), \(NumberText.fixed(rate, 1))/s" }
    let eta = rate > 0 ? Double(max(total - done, 0)) / rate : nil
    let width = 30
    let filled = total > 0 ? width * min(done, total) / total : width
    let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    return "\r[\(bar)] \(done)/\(total) \(unit), \(NumberText.fixed(rate, 1))/s, ETA \(eta.map { NumberText.fixed($0, 0) + " s" } ?? "-")"
  }
}
