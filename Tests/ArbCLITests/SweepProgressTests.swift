import Foundation
import TestSupport
import Testing

@testable import ArbCLI

// The progress line of `arbkit sweep`: its arithmetic on an injected clock, and that a
// terminal gets it while a pipe and --quiet do not.

@Suite("arbkit sweep progress")
struct SweepProgressTests {
  @Test("rate over the cells this run computed, time left at that rate, a 30-character bar")
  func lineArithmetic() {
    // 250 of 1000 done in 5 s: 50 cells/s, 750 left → 15 s.
    #expect(
      Progress.line(done: 250, total: 1000, doneHere: 250, seconds: 5)
        == "\r[" + String(repeating: "#", count: 7) + String(repeating: ".", count: 23) + "] 250/1000 cells, 50.0/s, ETA 15 s")
    // A resumed sweep: 600 rows were on disk, 100 more in 4 s → 25/s, 300 left → 12 s.
    #expect(Progress.line(done: 700, total: 1000, doneHere: 100, seconds: 4).hasSuffix("] 700/1000 cells, 25.0/s, ETA 12 s"))
    // No time has passed yet: no rate, no ETA.
    #expect(Progress.line(done: 3, total: 10, doneHere: 3, seconds: 0).hasSuffix("] 3/10 cells, 0.0/s, ETA -"))
    // Done: a full bar and nothing left.
    #expect(Progress.line(done: 8, total: 8, doneHere: 8, seconds: 3) == "\r[" + String(repeating: "#", count: 30) + "] 8/8 cells, 2.7/s, ETA 0 s")
    // An empty sweep (every row on disk) still draws a full bar.
    #expect(Progress.line(done: 0, total: 0, doneHere: 0, seconds: 1).hasPrefix("\r[" + String(repeating: "#", count: 30) + "] 0/0 cells"))
  }

  @Test("advance reads the clock at each batch; finish ends the line; nothing when not shown")
  func injectedClock() {
    var nanoseconds: UInt64 = 1_000_000_000
    var lines: [String] = []
    let progress = Progress(total: 100, done: 20, show: true, now: { nanoseconds }, write: { lines.append($0) })
    nanoseconds += 2_000_000_000
    progress.advance(10)  // 10 cells in 2 s: 5/s, 70 left → 14 s
    nanoseconds += 500_000_000
    progress.advance(40)  // 50 cells in 2.5 s: 20/s, 30 left → 1.5 s, printed as 2
    progress.finish()
    #expect(lines.count == 3)
    #expect(lines[0].hasSuffix("] 30/100 cells, 5.0/s, ETA 14 s"))
    #expect(lines[1].hasSuffix("] 70/100 cells, 20.0/s, ETA 2 s"))
    #expect(lines[2] == "\n")

    var hidden: [String] = []
    let quiet = Progress(total: 100, done: 0, show: false, now: { nanoseconds }, write: { hidden.append($0) })
    quiet.advance(50)
    quiet.finish()
    #expect(hidden.isEmpty)
  }

  /// What stderr of the built `arbkit sweep` receives on a terminal or on a pipe.
  static func sweepStderr(terminal: Bool, extra: [String] = []) throws -> String {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let arguments = ["sweep", SweepCommandTests.scenario, "--grid", "strategy.entry=0.6:1.0:0.1", "--out", folder.path + "/s.csv"] + extra
    return try StreamProgressTests.stderr(arguments, terminal: terminal)
  }

  @Test("a terminal gets the progress line; a pipe and --quiet get nothing", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func terminalOnly() throws {
    let shown = try Self.sweepStderr(terminal: true)
    #expect(shown.contains("] 5/5 cells, "), "\(shown.debugDescription)")
    #expect(shown.contains("/s, ETA "), "\(shown.debugDescription)")
    #expect(shown.contains("\r[" + String(repeating: "#", count: 30) + "]"), "\(shown.debugDescription)")
    #expect(try Self.sweepStderr(terminal: false) == "")
    #expect(try Self.sweepStderr(terminal: true, extra: ["--quiet"]) == "")
  }
}
