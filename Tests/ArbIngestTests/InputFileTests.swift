import Foundation
import TestSupport
import Testing

@testable import ArbIngest

#if canImport(Glibc)
import Glibc
#endif

// An input named on the command line that is no file to read says what it is; a leg
// that names an existing file is that file, whatever its name holds.
@Suite("Input files")
struct InputFileTests {
  static let inputs: [(path: String, error: FileError)] = [
    ("/nonexist/s.json", .missing(path: "/nonexist/s.json")),
    ("/tmp", .notAFile(path: "/tmp", kind: "folder")),
    ("/dev/zero", .notAFile(path: "/dev/zero", kind: "character device")),
  ]

  @Test("an input that is missing, a folder or a device says what it is", arguments: inputs)
  func inputKinds(c: (path: String, error: FileError)) {
    #expect(throws: c.error) { try InputFile.check(c.path) }
  }

  @Test("an input that cannot be opened for lack of permission says so")
  func permissionMessage() {
    #expect(InputFile.error(opening: "s.json", code: EACCES) == .unreadable(path: "s.json", reason: "permission denied"))
    #expect(InputFile.error(opening: "s.json", code: ENOENT) == .missing(path: "s.json"))
  }

  @Test("an unreadable input is a permission error", .disabled(if: geteuid() == 0, "root reads a file of any mode"))
  func unreadableFile() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("s.json", "{}")
    chmod(path, 0)
    #expect(throws: FileError.unreadable(path: path, reason: "permission denied")) { try InputFile.check(path) }
  }

  @Test("a leg that names an existing file holding ',' or '=' is that file")
  func existingPathWins() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("a,b=c.csv", "ts_us,bid,ask\n")
    #expect(try LegSpec(parsing: path) == LegSpec(instrument: nil, paths: [path]))
    #expect(try LegSpec(parsing: folder.path + "/x.csv,y.csv").paths == [folder.path + "/x.csv", "y.csv"])
  }
}
