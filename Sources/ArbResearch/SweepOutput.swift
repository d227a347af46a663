import ArbCore
import ArbIngest
import Foundation

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The sweep's CSV file: written append-only in cell order, each batch of rows
/// fsync'ed, so that a sweep killed at any moment can be resumed to the same bytes.
/// A sidecar `PATH.meta.json` names the scenario (by checksum), the grid and the
/// shard, so that a resumed sweep and a merge refuse files of another sweep.
public struct SweepOutput {
  /// What a sweep file was made from.
  public struct Meta: Codable, Equatable, Sendable {
    public var scenarioChecksum: String
    public var grid: [String]
    public var overrides: [String]
    public var shard: String
    public var cells: Int
    public var totalCells: Int
    /// The PnL matrix's path (as given) and its period, when the sweep writes one.
    public var pnlMatrix: String?
    public var period: String?

    public init(
      scenarioChecksum: String, grid: [String], overrides: [String], shard: String, cells: Int, totalCells: Int, pnlMatrix: String? = nil,
      period: String? = nil
    ) {
      (self.scenarioChecksum, self.grid, self.overrides, self.shard) = (scenarioChecksum, grid, overrides, shard)
      (self.cells, self.totalCells, self.pnlMatrix, self.period) = (cells, totalCells, pnlMatrix, period)
    }

    enum CodingKeys: String, CodingKey {
      case scenarioChecksum = "scenario_checksum", grid, overrides, shard, cells, totalCells = "total_cells", pnlMatrix = "pnl_matrix", period
    }

    /// The key/value metadata entry of a columnar sweep file that holds its sidecar's JSON.
    public static let metadataKey = "arbkit.sweep"

    /// The sidecar of the sweep file `path`, or a Parquet sweep file's `metadataKey` entry.
    /// - Throws: `SweepFileError` when it is missing or not a sidecar.
    public static func read(_ path: String) throws(SweepFileError) -> Meta {
      let columnar = ColumnarFile.parquetMetadata(path: path)
      guard let data = columnar.map({ $0[metadataKey].map { Data($0.utf8) } }) ?? FileManager.default.contents(atPath: path + ".meta.json") else {
        throw SweepFileError(path: path, reason: .noSidecar)
      }
      do { return try JSONDecoder().decode(Meta.self, from: data) } catch {
        throw SweepFileError(path: path, reason: .notSidecar)
      }
    }

    /// The sidecar's JSON text.
    public func json() throws -> String {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// The sidecar of the sweep file `path`, written but not yet committed.
    public func sidecar(_ path: String) throws -> AtomicFile {
      let file = try AtomicFile(path: path + ".meta.json", named: false)
      try file.write(try json())
      return file
    }
  }

  public let path: String
  private let fd: Int32
  private let lock: SweepLock
  /// Rows already in the file (complete lines after the header).
  public private(set) var rowsDone: Int

  /// Opens `path` for a sweep: fresh (header written), or with `resume` continuing
  /// an earlier run of the same sweep after its last complete row; a torn last line
  /// is cut off and its cell run again. A row is complete when it starts with the grid
  /// fields of its cell (`gridFields(row)`) and has `metrics` numbers or empty fields
  /// after them; a last row that is not is torn, an earlier one refuses the file.
  /// Unlike other outputs the file is written in place, row by row, so that `--resume`
  /// can continue it; `SweepLock` keeps a second sweep out of it meanwhile.
  public init(path: String, header: String, meta: Meta, resume: Bool, metrics: Int, gridFields: (Int) -> String) throws {
    self.path = path
    lock = try SweepLock(output: path)
    var done = 0
    if resume, let existing = FileManager.default.contents(atPath: path) {
      guard (try? Meta.read(path)) == meta else {
        throw SweepFileError(path: path, reason: .otherSweep)
      }
      let bytes = [UInt8](existing)
      var complete = (bytes.lastIndex(of: 10).map { $0 + 1 }) ?? 0
      var lines = bytes[..<complete].split(separator: 10, omittingEmptySubsequences: false).dropLast()
      guard let first = lines.first, String(decoding: first, as: UTF8.self) == header else {
        throw SweepFileError(path: path, reason: .header)
      }
      guard lines.count - 1 <= meta.cells else { throw SweepFileError(path: path, reason: .moreRows) }
      for (row, line) in lines.dropFirst().enumerated() where !Self.isRow(line, gridFields: gridFields(row), metrics: metrics) {
        guard row == lines.count - 2 else {
          throw SweepFileError(path: path, reason: .notRow(line: row + 2))
        }
        complete = line.startIndex
        lines.removeLast()
      }
      done = lines.count - 1
      fd = open(path, O_WRONLY)
      guard fd >= 0, ftruncate(fd, off_t(complete)) == 0, lseek(fd, 0, SEEK_END) >= 0 else {
        throw FileError.unreadable(path: path, reason: "cannot reopen to resume")
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
  public mutating func append(_ rows: String) throws {
    try Self.append(fd, rows, path: path)
    rowsDone += rows.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
  }

  public func close() {
    _ = Glibc.close(fd)
    lock.release()
  }

  /// Removes the file and its sidecar that this run started (no row written yet), so that
  /// a sweep refused before its first cell leaves no output; `close` still follows.
  public func discard() {
    unlink(path)
    unlink(path + ".meta.json")
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

/// A sweep file or sidecar that is not one of this sweep (exit 64).
public struct SweepFileError: Diagnostic {
  public enum Reason: Equatable, Sendable {
    /// No `PATH.meta.json` beside the file.
    case noSidecar
    /// `PATH.meta.json` is not a sidecar.
    case notSidecar
    /// The sidecar names another scenario, grid, shard or PnL matrix.
    case otherSweep
    /// The file does not start with the sweep's header.
    case header
    /// The file has more rows than the sweep has cells.
    case moreRows
    /// A line before the last that is not the row of its cell.
    case notRow(line: Int)
  }

  public var path: String
  public var reason: Reason

  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }

  public var description: String {
    switch reason {
    case .noSidecar: "\(path): no sidecar \(path).meta.json: not written by arbkit sweep"
    case .notSidecar: "\(path).meta.json: not a sweep sidecar"
    case .otherSweep: "\(path) was written by another sweep (scenario, grid, shard, PnL matrix or period differ)"
    case .header: "\(path) does not start with this sweep's header"
    case .moreRows: "\(path) has more rows than the sweep has cells"
    case .notRow(let line): "line \(line) of \(path) is not row \(line - 1) of this sweep"
    }
  }
}
