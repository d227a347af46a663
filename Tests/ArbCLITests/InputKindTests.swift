import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbCLI

#if canImport(Glibc)
import Glibc
#endif

// Inputs that are not regular files, through the commands: a FIFO in a folder is a
// note, not a read that waits forever for a writer; a device is an I/O error (74).
// Symbols of new assets in real recordings reach the board through their grammar.
@Suite("Input kinds")
struct InputKindTests {
  static let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path

  @Test(.timeLimit(.minutes(1)))
  func `board over a folder skips a FIFO in it with a note`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    folder.write("a.csv", try String(contentsOfFile: Self.fixtures + "/huobi-dm-swap_quotes_BTC-USD.csv", encoding: .utf8))
    #expect(mkfifo(folder.path + "/pipe", 0o600) == 0)
    let run = arbkit("board", folder.path, "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.errors.contains("arbkit: warning: \(folder.path)/pipe is a FIFO, not a data file; skipped"), "\(run.errors)")
  }

  @Test func `a character device is an I/O error, not an empty file`() {
    let run = arbkit("inspect", "/dev/zero")
    #expect(run.code == .ioError)
    #expect(run.errors.contains("/dev/zero: error: cannot read, not a regular file or a stream, was a character device"), "\(run.errors)")
  }

  @Test func `a read that fails midway is an I/O error (74), not bad data`() {
    var terminal = Terminal()
    let failure = IngestError(.readFailed(detail: "read failed: Input/output error"), at: SourcePosition(path: "a.csv", line: 7, column: 1))
    #expect(ArbCLI.report(failure, sortSwitch: nil, terminal: &terminal) == .ioError)
    #expect(terminal.errors.contains("a.csv:7:1: error: read failed: Input/output error"))
  }

  @Test func `the board keeps the new assets of real recordings (CON_KRW, GOM2_KRW, KRW-LAMB, KRW-WAVES)`() {
    let run = arbkit("board", Self.fixtures + "/json/bithumb-slice.jsonl.zst", Self.fixtures + "/json/upbit-slice.jsonl.zst")
    #expect(run.code == .success)
    #expect(!run.output.contains("unknown base asset"), "\(run.output)")
    for asset in ["CON/KRW spot (bithumb)", "GOM2/KRW spot (bithumb)", "LAMB/KRW spot (upbit)", "WAVES/KRW spot (upbit)"] {
      #expect(run.output.contains(asset), "\(asset)")
    }
  }

  @Test func `a registry fee out of range is refused with the venue, market and field`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write(
      "r.json",
      """
      {"fees_read": "2026-01-01", "venues": [{"id": "upbit", "name": "Upbit", "region": "KR", "markets": [
        {"kind": "spot", "venue_name": "KRW market", "example": "KRW-BTC", "quote": "KRW", "symbols": ["{QUOTE}-{BASE}"], "maker": 0.0005, "taker": -0.5}]}]}
      """)
    let run = arbkit("venues", "--registry", path)
    #expect(run.code == .usage)
    #expect(run.errors.contains("\(path): error: not a valid exchange registry: upbit market 'KRW market': taker must be a fraction in [0, 1), was -0.5"))
  }
}
