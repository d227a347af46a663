import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The output folder of a recording: made if missing, locked for one recorder at a
/// time, and put in order when a recorder starts after one that was killed.
package enum RecordFolder {
  /// The lock file: a `flock` on it is held while recording (the kernel drops it
  /// however the process ends).
  static let lockName = ".arbkit-record.lock"

  /// Makes `folder` if missing and takes its lock; returns the lock's descriptor,
  /// kept open while recording.
  static func prepare(_ folder: String) throws(RecordError) -> Int32 {
    var info = stat()
    if stat(folder, &info) != 0 {
      guard errno == ENOENT, mkdir(folder, 0o755) == 0 || errno == EEXIST else {
        throw RecordError("\(folder): error: cannot make the folder, \(String(cString: strerror(errno)))", isIO: true)
      }
    } else if info.st_mode & S_IFMT != S_IFDIR {
      throw RecordError("\(folder): error: is not a folder", isIO: true)
    }
    let lock = open(folder + "/" + lockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard lock >= 0 else { throw RecordError("\(folder)/\(lockName): error: cannot open, \(String(cString: strerror(errno)))", isIO: true) }
    guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
      close(lock)
      throw RecordError("\(folder): error: another arbkit record writes to this folder", isIO: true)
    }
    return lock
  }

  /// The names of a recording's plain files: `VENUE-MARKET-YYYYMMDDTHHMMSSZ[-N].jsonl`.
  package static func isRecordingName(_ name: String) -> Bool {
    name.wholeMatch(of: /[a-z]+-[a-z]+-[0-9]{8}T[0-9]{6}Z(-[0-9]+)?\.jsonl/) != nil
  }

  /// Puts the files a killed recorder left in order, returning what it did (one line
  /// each): a hidden `.NAME.new` becomes `NAME` when it holds whole lines and is
  /// removed otherwise; a hidden compression in progress is removed; a plain file whose
  /// compressed copy exists is removed; any other plain file is compressed.
  static func recover(_ folder: String, compression: RecordCompression) throws(RecordError) -> [String] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    var notes: [String] = []
    for name in names where name.hasPrefix(".") {
      let path = folder + "/" + name
      if name.hasSuffix(".new"), isRecordingName(String(name.dropFirst().dropLast(4))) {
        let final = folder + "/" + name.dropFirst().dropLast(4)
        if !exists(final) && endsWithNewline(path) && link(path, final) == 0 { notes.append("kept \(final)") }
        unlink(path)
      } else if name.wholeMatch(of: /\.[a-z]+-[a-z]+-[0-9]{8}T[0-9]{6}Z(-[0-9]+)?\.jsonl\.(zst|gz)\.tmp/) != nil {
        unlink(path)
      }
    }
    let after = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    for name in after where isRecordingName(name) {
      let plain = folder + "/" + name
      if RecordCompression.allCases.contains(where: { exists(plain + $0.suffix) }) {
        unlink(plain)
        notes.append("removed \(plain), compressed already")
      } else {
        try compress(plain, with: compression, in: folder)
        notes.append("compressed \(plain)")
      }
    }
    syncFolder(folder)
    return notes
  }

  /// Compresses `plain` into `plain` + suffix: written to a hidden temporary file,
  /// synced, linked to its name, the folder synced, then `plain` removed.
  static func compress(_ plain: String, with compression: RecordCompression, in folder: String) throws(RecordError) {
    let name = plain.split(separator: "/").last.map(String.init) ?? plain
    let final = plain + compression.suffix
    let temporary = folder + "/." + name + compression.suffix + ".tmp"
    unlink(temporary)
    let input = open(plain, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard input >= 0 else { throw RecordError("cannot open \(plain), \(String(cString: strerror(errno)))", isIO: true) }
    defer { close(input) }
    let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard output >= 0 else { throw RecordError("cannot create \(temporary), \(String(cString: strerror(errno)))", isIO: true) }
    do {
      try compression.compress(input: input, output: output)
    } catch {
      close(output)
      unlink(temporary)
      throw error
    }
    let synced = fsync(output) == 0
    close(output)
    guard synced, link(temporary, final) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw RecordError("cannot finish \(final), \(reason)", isIO: true)
    }
    unlink(temporary)
    syncFolder(folder)
    unlink(plain)
    syncFolder(folder)
  }

  /// Syncs the folder's entries (new names, removed names).
  static func syncFolder(_ folder: String) {
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
  }

  private static func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  private static func endsWithNewline(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var last: UInt8 = 0
    let size = lseek(fd, 0, SEEK_END)
    return size > 0 && pread(fd, &last, 1, size - 1) == 1 && last == 10
  }
}
