import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// How often a recording starts a new file: on every UTC hour or day boundary.
public enum RecordRotation: String, Sendable, CaseIterable {
  case hour = "1h", day = "1d"

  var micros: Int64 { self == .hour ? 3_600_000_000 : 86_400_000_000 }

  /// The start of the period holding `micros` (UTC).
  func periodStart(_ micros: Int64) -> Int64 { micros - ((micros % self.micros) + self.micros) % self.micros }
}

/// The files of one target in the output folder: lines are appended to a plain
/// `STEM-YYYYMMDDTHHMMSSZ.jsonl` (named after its first line's receive time), each
/// line with one `write(2)`, synced at most once a second; at a UTC period boundary,
/// and when recording stops, the file is closed and compressed beside it
/// (`….jsonl.zst` or `.gz`, synced, then the plain file removed).
///
/// Every name it makes is new (`O_EXCL`, `link(2)`), so it never writes through a
/// link. A file appears under its name only once it holds a whole first line.
final class RecordingFile {
  let folder: String
  let stem: String
  let rotation: RecordRotation
  let compression: RecordCompression
  private var descriptor: Int32 = -1
  private var path = ""
  private var period: Int64 = .min
  private var lastSync: Int64 = 0
  private var unsynced = false
  /// Compressions of finished files still running, on dispatch's threads so that a
  /// long one never holds a thread the pollers run on.
  private let compressions = DispatchGroup()
  /// Problems of background compressions (the plain file is then left as it is).
  let problems = ProblemLog()

  init(folder: String, stem: String, rotation: RecordRotation, compression: RecordCompression) {
    self.folder = folder
    self.stem = stem
    self.rotation = rotation
    self.compression = compression
  }

  /// Whether the next line at `micros` starts a new file.
  func startsNewFile(at micros: Int64) -> Bool { descriptor < 0 || rotation.periodStart(micros) != period }

  /// Appends `line` and a newline, starting a new file first when `micros` (the
  /// line's receive time) is in a new period.
  func append(_ line: [UInt8], at micros: Int64) throws(RecordError) {
    var bytes = line
    bytes.append(10)
    if startsNewFile(at: micros) {
      finishFile()
      try create(first: bytes, at: micros)
    } else {
      try writeAll(descriptor, bytes)
      unsynced = true
    }
    syncIfDue(now: micros)
  }

  /// Syncs the file's data when a second has passed since the last sync.
  func syncIfDue(now micros: Int64) {
    guard unsynced, descriptor >= 0, micros - lastSync >= 1_000_000 else { return }
    fdatasync(descriptor)
    lastSync = micros
    unsynced = false
  }

  /// Closes the current file and compresses it, then waits for every compression.
  func close() async {
    finishFile()
    await withCheckedContinuation { done in compressions.notify(queue: .global()) { done.resume() } }
  }

  /// Creates a file named after `micros` holding `first`: written to a hidden
  /// `.NAME.new`, synced, then linked to its name (a name already taken gets `-2`, `-3`…).
  private func create(first: [UInt8], at micros: Int64) throws(RecordError) {
    let base = stem + "-" + Self.stamp(micros)
    for attempt in 1...1000 {
      let name = base + (attempt == 1 ? "" : "-\(attempt)") + ".jsonl"
      let hidden = folder + "/." + name + ".new"
      if exists(folder + "/" + name) || exists(folder + "/" + name + compression.suffix) { continue }
      let fd = open(hidden, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0o644)
      if fd < 0 {
        if errno == EEXIST { continue }
        throw RecordError("\(hidden): error: cannot create, \(String(cString: strerror(errno)))", isIO: true)
      }
      do throws(RecordError) {
        try writeAll(fd, first)
      } catch {
        Glibc.close(fd)
        unlink(hidden)
        throw error
      }
      fdatasync(fd)
      if link(hidden, folder + "/" + name) != 0 {
        let reason = errno
        Glibc.close(fd)
        unlink(hidden)
        if reason == EEXIST { continue }
        throw RecordError("\(folder)/\(name): error: cannot create, \(String(cString: strerror(reason)))", isIO: true)
      }
      unlink(hidden)
      RecordFolder.syncFolder(folder)
      descriptor = fd
      path = folder + "/" + name
      period = rotation.periodStart(micros)
      lastSync = micros
      unsynced = false
      return
    }
    throw RecordError("\(folder): error: no free file name for \(base)", isIO: true)
  }

  /// Closes the current file (synced) and starts its compression in the background.
  private func finishFile() {
    guard descriptor >= 0 else { return }
    fsync(descriptor)
    Glibc.close(descriptor)
    descriptor = -1
    let (plain, compression, folder, problems) = (path, compression, folder, problems)
    compressions.enter()
    DispatchQueue.global(qos: .utility).async { [compressions] in
      do throws(RecordError) {
        try RecordFolder.compress(plain, with: compression, in: folder)
      } catch {
        problems.add("\(plain): warning: left uncompressed, \(error.message)")
      }
      compressions.leave()
    }
  }

  private func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  /// `YYYYMMDDTHHMMSSZ` of `micros` (UTC).
  static func stamp(_ micros: Int64) -> String {
    var seconds = time_t(micros / 1_000_000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
  }
}

/// Messages collected from background work, printed when recording stops.
final class ProblemLog: Sendable {
  private let messages = Mutex<[String]>([])
  func add(_ message: String) { messages.withLock { $0.append(message) } }
  var all: [String] { messages.withLock { $0 } }
}
