import ArbIngest
import Foundation

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The sweep's CSV file: written append-only in cell order, each batch of rows
/// fsync'ed, so that a sweep killed at any moment can be resumed to the same bytes.
/// A sidecar `PATH.meta.json` names the scenario (by checksum), the grid and the
/// shard, so that `--resume` and `arbkit merge` refuse files of another sweep.
struct SweepOutput {
  /// What a sweep file was made from.
  struct Meta: Codable, Equatable {
    var scenarioChecksum: String
    var grid: [String]
    var overrides: [String]
    var shard: String
    var cells: Int
    var totalCells: Int
    /// `--pnl-matrix` (as given) and `--period`, when the sweep writes a PnL matrix.
    var pnlMatrix: String? = nil
    var period: String? = nil

    enum CodingKeys: String, CodingKey {
      case scenarioChecksum = "scenario_checksum", grid, overrides, shard, cells, totalCells = "total_cells", pnlMatrix = "pnl_matrix", period
    }

    static func read(_ path: String) throws -> Meta {
      guard let data = FileManager.default.contents(atPath: path + ".meta.json") else {
        throw UsageError("\(path): no sidecar \(path).meta.json: not written by arbkit sweep")
      }
      do { return try JSONDecoder().decode(Meta.self, from: data) } catch {
        throw UsageError("\(path).meta.json: not a sweep sidecar")
      }
    }

    /// The sidecar of the sweep file `path`, written but not yet committed.
    func sidecar(_ path: String) throws -> AtomicFile {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      let file = try AtomicFile(path: path + ".meta.json", named: false)
      try file.write(String(decoding: try encoder.encode(self), as: UTF8.self) + "\n")
      return file
    }
  }

  let path: String
  private let fd: Int32
  private let lock: SweepLock
  /// Rows already in the file (complete lines after the header).
  private(set) var rowsDone: Int

  /// Opens `path` for a sweep: fresh (header written), or with `resume` continuing
  /// an earlier run of the same sweep after its last complete row; a torn last line
  /// is cut off and its cell run again. A row is complete when it starts with the grid
  /// fields of its cell (`gridFields(row)`) and has `metrics` numbers or empty fields
  /// after them; a last row that is not is torn, an earlier one refuses the file.
  /// Unlike other outputs the file is written in place, row by row, so that `--resume`
  /// can continue it; `SweepLock` keeps a second sweep out of it meanwhile.
  init(path: String, header: String, meta: Meta, resume: Bool, metrics: Int, gridFields: (Int) -> String) throws {
    self.path = path
    lock = try SweepLock(output: path)
    var done = 0
    if resume, let existing = FileManager.default.contents(atPath: path) {
      guard (try? Meta.read(path)) == meta else {
        throw UsageError("--resume: \(path) was written by another sweep (scenario, grid, shard, --pnl-matrix or --period differ); remove it or drop --resume")
      }
      let bytes = [UInt8](existing)
      var complete = (bytes.lastIndex(of: 10).map { $0 + 1 }) ?? 0
      var lines = bytes[..<complete].split(separator: 10, omittingEmptySubsequences: false).dropLast()
      guard let first = lines.first, String(decoding: first, as: UTF8.self) == header else {
        throw UsageError("--resume: \(path) does not start with this sweep's header")
      }
      guard lines.count - 1 <= meta.cells else { throw UsageError("--resume: \(path) has more rows than the sweep has cells") }
      for (row, line) in lines.dropFirst().enumerated() where !Self.isRow(line, gridFields: gridFields(row), metrics: metrics) {
        guard row == lines.count - 2 else {
          throw UsageError("--resume: line \(row + 2) of \(path) is not row \(row + 1) of this sweep; remove the file or drop --resume")
        }
        complete = line.startIndex
        lines.removeLast()
      }
      done = lines.count - 1
      fd = open(path, O_WRONLY)
      guard fd >= 0, ftruncate(fd, off_t(complete)) == 0, lseek(fd, 0, SEEK_END) >= 0 else {
        throw FileError.unreadable(path: path, reason: "cannot reopen for --resume")
      }
    } else {
      try meta.sidecar(path).commit()
      fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      guard fd >= 0 else { throw FileError.unreadable(path: path, reason: "cannot write: \(String(cString: strerror(errno)))") }
      try Self.append(fd, header + "\n", path: path)
    }
    rowsDone = done
  }

  /// `line` is a row: `gridFields`, then `metrics` fields that are empty or finite numbers.
  private static func isRow(_ line: ArraySlice<UInt8>, gridFields: String, metrics: Int) -> Bool {
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix(gridFields + ",") else { return false }
    let fields = text.dropFirst(gridFields.count + 1).split(separator: ",", omittingEmptySubsequences: false)
    return fields.count == metrics && fields.allSatisfy { $0.isEmpty || Double($0)?.isFinite == true }
  }

  /// Appends rows (each with its newline) and syncs them to disk.
  mutating func append(_ rows: String) throws {
    try Self.append(fd, rows, path: path)
    rowsDone += rows.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
  }

  func close() {
    _ = Glibc.close(fd)
    lock.release()
  }

  private static func append(_ fd: Int32, _ text: String, path: String) throws {
    var text = text
    try text.withUTF8 { try FileOutput.writeAll(fd, UnsafeRawBufferPointer($0), path: path) }
    guard fsync(fd) == 0 else { throw FileError.unreadable(path: path, reason: "fsync failed") }
  }

}

/// The lock file `PATH.lock` held while a sweep writes `PATH`, so that a second sweep
/// into the same file is refused instead of interleaving its rows. It is a `flock`: the
/// kernel releases it when the process ends, however it ends, so a killed sweep leaves
/// no lock that blocks the next one.
struct SweepLock {
  let path: String
  private let fd: Int32

  /// Takes the lock of `output`.
  /// - Throws: `FileError.unwritable` when another process holds it.
  init(output: String) throws(FileError) {
    path = output + ".lock"
    while true {
      let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
      guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
        Glibc.close(fd)
        throw .unwritable(path: output, reason: "another arbkit sweep is writing it (\(path) is locked)")
      }
      // A lock file its holder removed on release is no lock any more: take a fresh one.
      var held = stat()
      var named = stat()
      if fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
        self.fd = fd
        return
      }
      Glibc.close(fd)
    }
  }

  /// Removes the lock file and releases the lock.
  func release() {
    unlink(path)
    Glibc.close(fd)
  }
}
