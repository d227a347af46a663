import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

#if canImport(Glibc)
import Glibc
#endif

// Inputs that are not regular files: a pipe or FIFO is read once, as a stream (its
// compression and format detected from bytes that are then handed out again); a device
// is refused rather than read forever or taken for an empty file.
@Suite("Stream inputs")
struct StreamInputTests {
  /// Reads `file` through a FIFO fed by `/bin/sh -c "COMMAND < file > fifo"`, as
  /// `arbkit inspect <(zcat …)` or `… | arbkit inspect /dev/stdin` hand it over.
  static func readThroughFIFO(_ file: String, command: String, options: IngestOptions = IngestOptions()) throws -> IngestedFile {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let fifo = folder.path + "/stream"
    #expect(mkfifo(fifo, 0o600) == 0)
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: "/bin/sh")
    writer.arguments = ["-c", "\(command) < '\(file)' > '\(fifo)'"]
    try writer.run()
    defer { writer.waitUntilExit() }
    return try Ingest.read(path: fifo, options: options)
  }

  static let commands: [(file: String, command: String)] = [
    ("huobi-dm-swap_quotes_BTC-USD.csv", "cat"),
    ("huobi-dm-swap_quotes_BTC-USD.csv", "\(gzipTool) -c"),
    ("huobi-dm-swap_quotes_BTC-USD.csv", "\(zstdTool) -q -c"),
    ("json/okx-slice.jsonl.zst", "cat"),
    ("json/upbit_BTC_KRW_06.jsonl.gz", "cat"),
    ("json/rest-snapshots.jsonl", "cat"),
    ("json/history-slice.json", "cat"),
  ]

  @Test("a FIFO is read as a stream: same rows as the file, plain, gzip, zstd or JSON", arguments: commands)
  func fifo(c: (file: String, command: String)) throws {
    let direct = try Ingest.read(path: fixture(c.file))
    let streamed = try Self.readThroughFIFO(fixture(c.file), command: c.command)
    #expect(streamed.report.format == direct.report.format)
    #expect(streamed.report.rowsRead == direct.report.rowsRead && streamed.report.rowsAccepted == direct.report.rowsAccepted)
    #expect(streamed.series.count == direct.series.count)
    for (a, b) in zip(streamed.series, direct.series) { #expect(sameColumns(a, b), "\(a.instrument)") }
  }

  @Test func `a broken stream through a FIFO is reported at the line it breaks in`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let gzipped = try gzip(folder.write("quotes.csv", try String(contentsOfFile: fixture("huobi-dm-swap_quotes_BTC-USD.csv"), encoding: .utf8)))
    let bytes = try Data(contentsOf: URL(fileURLWithPath: gzipped))
    let cut = folder.write("cut.csv.gz", bytes.prefix(bytes.count - 12))
    let error = #expect(throws: IngestError.self) { try Self.readThroughFIFO(cut, command: "cat") }
    guard case .truncatedCompressedStream? = error?.reason else { Issue.record("\(String(describing: error))"); return }
    #expect(error?.position.line ?? 0 >= 1)
  }

  @Test func `a character device is refused, not read as an empty file`() {
    #expect(throws: FileError.unreadable(path: "/dev/zero", reason: "not a regular file or a stream, was a character device")) {
      try Ingest.read(path: "/dev/zero")
    }
  }

  @Test func `a stream's first bytes are handed out again before the rest`() throws {
    let bytes = Array("exchange,symbol\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 100_000)
    let (head, replay) = ReplaySource.peek(MemorySource(bytes, path: "s"), count: 4)
    #expect(head == Array("exch".utf8))
    var read: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 3)
    while true {
      let n = try buffer.withUnsafeMutableBytes { raw throws(IngestError) in try replay.read(into: raw) }
      if n == 0 { break }
      read += buffer[0..<n]
    }
    #expect(read == bytes && replay.delivered == bytes.count)
  }
}
