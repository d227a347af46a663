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
    // Another run's files: the file is replaced.
    try QuarantineFiles().write(target, input: "b.csv", header: Array("h1\n".utf8), lines: Array("b1\n".utf8), named: true)
    #expect(try contents() == "h1\nb1\n")
  }
}
