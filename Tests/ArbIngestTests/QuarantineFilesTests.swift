import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// The quarantine files of one run: every input's rejected lines kept in a file they
// share, an input read again replacing its own.
@Suite("Quarantine files of a run")
struct QuarantineFilesTests {
  @Test("inputs add their lines in order, under a header line when it changes; an input written again replaces its own")
  func sharedFile() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let target = folder.path + "/rejected.csv"
    let files = QuarantineFiles()
    func write(_ input: String, _ header: String, _ lines: String) throws {
      try files.write(target, input: input, header: Array(header.utf8), lines: Array(lines.utf8), named: true)
    }
    func contents() throws -> String { try String(contentsOfFile: target, encoding: .utf8) }
    try write("a.csv", "h1\n", "a1\na2\n")
    #expect(try contents() == "h1\na1\na2\n")
    try write("b.csv", "h1\n", "b1\n")
    #expect(try contents() == "h1\na1\na2\nb1\n")
    try write("c.csv", "h2\n", "c1\n")
    try write("d.jsonl", "", "{}\n")
    #expect(try contents() == "h1\na1\na2\nb1\nh2\nc1\n{}\n")
    // A second pass over a.csv: its lines once, where they were.
    try write("a.csv", "h1\n", "a1\na2\n")
    #expect(try contents() == "h1\na1\na2\nb1\nh2\nc1\n{}\n")
    // One file named two ways is one input.
    let e = folder.write("e.csv", "h1\ne1\n")
    try write(e, "h1\n", "e1\n")
    try write(folder.path + "/./e.csv", "h1\n", "e1\n")
    #expect(try contents() == "h1\na1\na2\nb1\nh2\nc1\n{}\nh1\ne1\n")
    // Another run's files: the file is replaced.
    try QuarantineFiles().write(target, input: "b.csv", header: Array("h1\n".utf8), lines: Array("b1\n".utf8), named: true)
    #expect(try contents() == "h1\nb1\n")
  }

  /// A pipe (or a terminal) is written in place: each input's lines go to it once.
  @Test func `an input named by a descriptor gets a quarantine named after it, any other after its file`() {
    let cases = [
      ("/dev/stdin", "stdin"), ("/dev/fd/0", "stdin"), ("/proc/self/fd/0", "stdin"), ("/dev/fd/63", "fd-63"), ("/proc/4242/fd/7", "fd-7"),
      ("/data/fd/7", "7"), ("quotes.csv", "quotes.csv"), ("/data/2024/q.csv.gz", "q.csv.gz"), ("/", "input"),
    ]
    for (path, stem) in cases { #expect(IngestOptions.quarantineStem(of: path) == stem, "\(path)") }
  }

  @Test("a pipe as the quarantine gets each input's lines once")
  func pipe() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let target = folder.path + "/pipe"
    try #require(mkfifo(target, 0o600) == 0)
    let reader = open(target, O_RDONLY | O_NONBLOCK)
    try #require(reader >= 0)
    defer { close(reader) }
    let files = QuarantineFiles()
    try files.write(target, input: "a.csv", header: Array("h\n".utf8), lines: Array("a1\n".utf8), named: true)
    try files.write(target, input: "b.csv", header: Array("h\n".utf8), lines: Array("b1\n".utf8), named: true)
    try files.write(target, input: "a.csv", header: Array("h\n".utf8), lines: Array("a1\n".utf8), named: true)
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = read(reader, &buffer, buffer.count)
    #expect(String(decoding: buffer[0..<max(0, count)], as: UTF8.self) == "h\na1\nb1\n")
  }

  /// A run's output that fails part way: the file keeps what it held.
  @Test("an append that fails leaves the file as it was")
  func failedAppend() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let target = folder.path + "/rejected.csv"
    let files = QuarantineFiles()
    try files.write(target, input: "a.csv", header: Array("h\n".utf8), lines: Array("a1\n".utf8), named: true)
    #expect(throws: FileError.self) {
      try Self.failing(target, after: 6) { try files.write(target, input: "b.csv", header: Array("h\n".utf8), lines: Array("b1\n".utf8), named: true) }
    }
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "h\na1\n")
  }

  /// Runs `body` with writes to `target` failing as on a full disk once it holds `bytes`.
  static func failing(_ target: String, after bytes: Int, _ body: () throws -> Void) rethrows {
    FileOutput.diskLimits.withLock { $0[target] = bytes }
    defer { FileOutput.diskLimits.withLock { _ = $0.removeValue(forKey: target) } }
    try body()
  }
}
