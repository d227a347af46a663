import Foundation
import TestSupport
import Testing

@testable import ArbIngest

#if canImport(Glibc)
import Glibc
#endif

/// The names in `folder`, hidden ones included (a temporary file left behind shows here).
func folderNames(_ folder: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }

func fileText(_ path: String) -> String? { FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } }

// Outputs are written all or nothing, never onto an input, never through a symbolic
// link the user did not name; inputs that are no file get their own error.
@Suite("Output files")
struct FileOutputTests {
  @Test("a committed file replaces the old one; one dropped before its commit leaves the old file and no temporary file")
  func allOrNothing() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("out.csv", "old\n")
    do {
      let file = try AtomicFile(path: path)
      try file.write("new, but never committed\n")
      #expect(folderNames(folder.path).count == 2)
    }
    #expect(fileText(path) == "old\n")
    #expect(folderNames(folder.path) == ["out.csv"])
    try FileOutput.write(path, text: "new\n")
    #expect(fileText(path) == "new\n")
    #expect(folderNames(folder.path) == ["out.csv"])
  }

  @Test("a write that fails as on a full disk leaves the old file intact and no temporary file")
  func fullDisk() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("out.csv", "old\n")
    FileOutput.diskLimits.withLock { $0[path] = 4 }
    defer { _ = FileOutput.diskLimits.withLock { $0.removeValue(forKey: path) } }
    let error = #expect(throws: FileError.self) { try FileOutput.write(path, text: "longer than four bytes\n") }
    #expect(error == .unwritable(path: path, reason: "write failed: No space left on device"))
    #expect(fileText(path) == "old\n")
    #expect(folderNames(folder.path) == ["out.csv"])
  }

  @Test("a device is written in place: /dev/full fails with its error, /dev/null is not replaced")
  func devices() throws {
    let error = #expect(throws: FileError.self) { try FileOutput.write("/dev/full", text: "x") }
    #expect(error == .unwritable(path: "/dev/full", reason: "write failed: No space left on device"))
    try FileOutput.write("/dev/null", text: "x")
    var info = stat()
    #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
  }

  @Test("a pipe behind a link (/dev/fd/N, like /dev/stdout) is written in place")
  func pipeBehindLink() throws {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer { close(ends[0]) }
    try FileOutput.write("/dev/fd/\(ends[1])", text: "piped\n")
    close(ends[1])
    var buffer = [UInt8](repeating: 0, count: 16)
    let count = read(ends[0], &buffer, buffer.count)
    #expect(String(decoding: buffer[..<max(count, 0)], as: UTF8.self) == "piped\n")
  }

  @Test("a link the user named is written through, its target replaced; a link in a name the command made is refused")
  func symbolicLinks() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let target = folder.write("target.csv", "old\n")
    let link = folder.path + "/link.csv"
    #expect(symlink("target.csv", link) == 0)
    try FileOutput.write(link, text: "through\n")
    #expect(fileText(target) == "through\n")
    var info = stat()
    #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    let error = #expect(throws: FileError.self) { try FileOutput.write(link, text: "derived\n", named: false) }
    #expect(error == .unwritable(path: link, reason: "is a symbolic link, not written through (name its target instead)"))
    #expect(fileText(target) == "through\n")
  }

  @Test("an output that is an input, by path, link or hard link, is refused naming both; a missing folder is named")
  func checkAgainstInputs() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let input = folder.write("in.csv", "data\n")
    let hard = folder.path + "/hard.csv"
    let soft = folder.path + "/soft.csv"
    #expect(link(input, hard) == 0 && symlink(input, soft) == 0)
    for output in [input, hard, soft] {
      let error = #expect(throws: FileError.self) { try FileOutput.check(named: [output], inputs: [input]) }
      #expect(error == .overwritesInput(output: output, input: input))
    }
    try FileOutput.check(named: [folder.path + "/other.csv"], inputs: [input])
    let missing = #expect(throws: FileError.self) { try FileOutput.check(named: ["/nonexist/d/q.csv"], inputs: []) }
    #expect(missing?.description == "/nonexist/d/q.csv: error: cannot write, no such folder '/nonexist/d'")
    let isFolder = #expect(throws: FileError.self) { try FileOutput.check(named: [folder.path], inputs: []) }
    #expect(isFolder == .unwritable(path: folder.path, reason: "is a folder"))
  }
}
