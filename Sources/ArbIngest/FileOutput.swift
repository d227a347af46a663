#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore
import Synchronization

/// Every output file of a command goes through here (docs/cli.md, "Output files"):
///
/// - written all or nothing (`AtomicFile`): to a temporary file in the target's folder,
///   synced, renamed over the target, and the folder synced; a failed or interrupted
///   write leaves the old file as it was and no temporary file;
/// - checked before a run starts (`check(named:derived:inputs:)`): never an input of
///   the run (same device and inode), never a file in a missing folder;
/// - never written through a symbolic link, unless the user named the link itself: a
///   name the command makes (a report's `report.html`, a sidecar) that is a link is
///   refused.
public enum FileOutput {
  /// Writes `bytes` to `path` all or nothing (`named`: the user gave `path`, see `AtomicFile`).
  public static func write(_ path: String, bytes: UnsafeRawBufferPointer, named: Bool = true) throws(FileError) {
    let file = try AtomicFile(path: path, named: named)
    try file.write(bytes)
    try file.commit()
  }

  /// Writes `text` (UTF-8) to `path` all or nothing.
  public static func write(_ path: String, text: String, named: Bool = true) throws(FileError) {
    let file = try AtomicFile(path: path, named: named)
    try file.write(text)
    try file.commit()
  }

  /// Appends `bytes` to `path`, a file this run wrote whole before (`named`: the user gave
  /// `path`), in one step a signal waits for: a write that fails cuts a regular file back
  /// to its length before, so that it holds all of `bytes` or none of them.
  static func append(_ path: String, bytes: UnsafeRawBufferPointer, named: Bool) throws(FileError) {
    let target = try target(of: path, named: named)
    let fd = open(target, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    var info = stat()
    let regular = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    let written = InterruptCleanup.committing { () -> Result<Void, FileError> in
      let result = Result { () throws(FileError) in
        if let limit = diskLimit(target), Int(info.st_size) + bytes.count > limit {
          // As on a full disk: what fits is written, then the write fails.
          try writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[..<max(0, limit - Int(info.st_size))]), path: path)
          throw .unwritable(path: path, reason: "write failed: \(String(cString: strerror(ENOSPC)))")
        }
        try writeAll(fd, bytes, path: path)
      }
      if regular {
        if case .failure = result { _ = ftruncate(fd, info.st_size) } else { fsync(fd) }
      }
      return result
    }
    try written.get()
  }

  /// Commits outputs that belong together (a report's files, a backtest's ledgers):
  /// every file is synced before the first is renamed into place, so that a write that
  /// fails leaves all the old files.
  public static func commit(_ files: [AtomicFile]) throws(FileError) {
    for file in files { try file.sync() }
    try InterruptCleanup.committing { () throws(FileError) in
      for file in files { try file.publish() }
    }
  }

  /// Checks the outputs of a run before it reads anything: each lands in an existing
  /// folder, is not a folder, and is none of `inputs` (compared by device and inode,
  /// after following a link the user named) nor inside an input that is a store. `named` are paths the user gave; `derived`
  /// are names the command makes, which must not be symbolic links.
  /// Two outputs that land on the same file (the same name, or links or hard links to
  /// one file) are refused too.
  /// - Throws: `FileError.unwritable`, `FileError.overwritesInput`, `FileError.sameOutput`.
  public static func check(named: [String], derived: [String] = [], inputs: [String]) throws(FileError) {
    let identities = inputs.compactMap { input in FileIdentity(path: input).map { (input, $0) } }
    // A store read is every file in its folder: nothing is written inside it.
    let stores = inputs.filter(Store.isStore).compactMap { store in
      realpath(store, nil).map { resolved in
        defer { free(resolved) }
        return (store, String(cString: resolved))
      }
    }
    var targets: [(path: String, target: String, identity: FileIdentity?)] = []
    for (path, isNamed) in named.map({ ($0, true) }) + derived.map({ ($0, false) }) {
      let target = try target(of: path, named: isNamed)
      try checkWritable(target, shown: path)
      let identity = FileIdentity(path: target)
      if let identity, let input = identities.first(where: { $0.1 == identity }) {
        throw .overwritesInput(output: path, input: input.0)
      }
      let standard = canonical(target)
      if let store = stores.first(where: { standard.hasPrefix($0.1 + "/") }) { throw .overwritesInput(output: path, input: store.0) }
      if let other = targets.first(where: { $0.target == standard || ($0.identity != nil && $0.identity == identity) }) {
        throw .sameOutput(output: path, other: other.path)
      }
      targets.append((path, standard, identity))
    }
  }

  /// Where writing `path` lands: `path` itself, or, when it is a symbolic link the
  /// user named, the file at the end of its links.
  /// - Throws: `FileError.unwritable` for a link the user did not name.
  public static func target(of path: String, named: Bool) throws(FileError) -> String {
    var current = path
    for _ in 0..<32 {
      var info = stat()
      guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
      guard named else { throw .unwritable(path: path, reason: "is a symbolic link, not written through (name its target instead)") }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(current, &buffer, buffer.count - 1)
      guard count >= 0 else { return current }
      let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current = link.hasPrefix("/") ? link : folder(of: current) + "/" + link
    }
    throw .unwritable(path: path, reason: "too many levels of symbolic links")
  }

  /// `path` with its folder resolved (`realpath`: links, `.` and `..`), its name as given;
  /// `path` itself when the folder cannot be resolved.
  static func canonical(_ path: String) -> String {
    guard let resolved = realpath(folder(of: path), nil) else { return path }
    defer { free(resolved) }
    let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    return String(cString: resolved) + "/" + name
  }

  /// The folder part of `path` (`.` for a bare name).
  static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// Makes a new, empty folder `base-XXXXXX` (a unique suffix; `mkdtemp`) for the
  /// output `shown`.
  static func makeUniqueFolder(_ base: String, for shown: String) throws(FileError) -> String {
    var template = Array((base + "-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else {
      throw .unwritable(path: shown, reason: "cannot create a staging folder: \(String(cString: strerror(errno)))")
    }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `target` (shown as `shown`) can be written: its folder exists, and it is no folder.
  static func checkWritable(_ target: String, shown: String) throws(FileError) {
    let parent = folder(of: target)
    var info = stat()
    guard stat(parent, &info) == 0 else { throw .unwritable(path: shown, reason: "no such folder '\(parent)'") }
    guard info.st_mode & S_IFMT == S_IFDIR else { throw .unwritable(path: shown, reason: "'\(parent)' is not a folder") }
    if stat(target, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR { throw .unwritable(path: shown, reason: "is a folder") }
  }

  /// Writes every byte of `bytes` to the open descriptor `fd` (of `path`, for errors).
  public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileError) {
    var written = 0
    while written < bytes.count {
      let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw .unwritable(path: path, reason: "write failed: \(String(cString: strerror(errno)))") }
      written += n
    }
  }

  /// Test seam: writes to a target whose path starts with a key here fail with "no
  /// space left on device" once the file would hold more than the key's number of
  /// bytes, as on a full disk.
  static let diskLimits = Mutex<[String: Int]>([:])

  /// The byte limit of `diskLimits` that applies to `target`, if any.
  static func diskLimit(_ target: String) -> Int? {
    diskLimits.withLock { limits in limits.isEmpty ? nil : limits.first { target.hasPrefix($0.key) }?.value }
  }
}

/// A file's device and inode: two paths name the same file when these agree.
struct FileIdentity: Equatable {
  var device: UInt64
  var inode: UInt64

  /// The identity of the file at `path` (links followed); nil when there is none.
  init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }
}

/// One output file written all or nothing: bytes go to a temporary file beside the
/// target; `commit` syncs it, renames it over the target and syncs the folder. An
/// `AtomicFile` released before its commit removes the temporary file, leaving the
/// target as it was. Streaming writers write as they go and commit at the end.
///
/// A target that exists and is not a regular file (`/dev/null`, a FIFO) is written in
/// place: there is nothing to replace.
public final class AtomicFile {
  /// The path as the user or command named it (for messages).
  public let path: String
  /// Where the file lands (`path`, or the file at the end of a named link).
  let target: String
  /// The temporary file renamed over `target`; nil when written in place.
  private let temporary: String?
  private var fd: Int32
  private var size = 0
  private var committed = false
  /// The temporary file's removal should the run be interrupted (`InterruptCleanup`).
  private var interruptToken: UInt64? = nil

  /// Opens a temporary file for `path`; `named`: the user gave `path`, so a symbolic
  /// link there is followed (a name the command made must not be a link).
  /// - Throws: `FileError.unwritable`.
  public init(path: String, named: Bool = true) throws(FileError) {
    self.path = path
    if !named { _ = try FileOutput.target(of: path, named: false) }
    var info = stat()
    // A device or pipe, also behind a link such as /dev/stdout, is opened as named.
    if stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG && info.st_mode & S_IFMT != S_IFDIR {
      target = path
      temporary = nil
      fd = open(path, O_WRONLY | O_CLOEXEC)
      guard fd >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
      return
    }
    target = try FileOutput.target(of: path, named: named)
    try FileOutput.checkWritable(target, shown: path)
    let exists = stat(target, &info) == 0
    let base = target.split(separator: "/").last.map(String.init) ?? "output"
    let folder = FileOutput.folder(of: target)
    // Created and registered for removal in one step, so that a signal leaves no file.
    let (attempt, token) = InterruptCleanup.registering { () -> (made: (fd: Int32, name: String, error: Int32), removal: @Sendable () -> Void) in
      var attempt: (fd: Int32, name: String, error: Int32) = (-1, "", 0)
      for _ in 0..<16 where attempt.fd < 0 {
        attempt.name = folder + "/." + base + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        attempt.fd = open(attempt.name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        attempt.error = errno
        if attempt.fd < 0 && attempt.error != EEXIST { break }
      }
      let (made, name) = (attempt.fd >= 0, attempt.name)
      return (attempt, { if made { unlink(name) } })
    }
    guard attempt.fd >= 0 else {
      InterruptCleanup.unregister(token)
      throw .unwritable(path: path, reason: "cannot create a temporary file: \(String(cString: strerror(attempt.error)))")
    }
    (fd, temporary, interruptToken) = (attempt.fd, attempt.name, token)
    if exists { fchmod(fd, info.st_mode & 0o7777) }
  }

  deinit {
    if fd >= 0 { close(fd) }
    if !committed, let temporary { unlink(temporary) }
    if let interruptToken { InterruptCleanup.unregister(interruptToken) }
  }

  /// Appends `bytes`.
  public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
    if let limit = FileOutput.diskLimit(target), size + bytes.count > limit {
      throw .unwritable(path: path, reason: "write failed: \(String(cString: strerror(ENOSPC)))")
    }
    try FileOutput.writeAll(fd, bytes, path: path)
    size += bytes.count
  }

  /// Appends `text` as UTF-8.
  public func write(_ text: String) throws(FileError) {
    var text = text
    try text.withUTF8 { bytes in Result { () throws(FileError) in try write(UnsafeRawBufferPointer(bytes)) } }.get()
  }

  /// Appends the bytes of `text`.
  public func write(_ text: CSVBytes) throws(FileError) {
    try text.bytes.withUnsafeBytes { bytes in Result { () throws(FileError) in try write(bytes) } }.get()
  }

  /// Puts the file in place (`FileOutput.commit` for several that belong together).
  public func commit() throws(FileError) { try FileOutput.commit([self]) }

  /// Syncs and closes the temporary file.
  func sync() throws(FileError) {
    if temporary != nil && fsync(fd) != 0 { throw .unwritable(path: path, reason: "fsync failed: \(String(cString: strerror(errno)))") }
    close(fd)
    fd = -1
  }

  /// Renames the synced temporary file over the target and syncs the folder.
  func publish() throws(FileError) {
    guard let temporary else {
      committed = true
      return
    }
    guard rename(temporary, target) == 0 else {
      throw .unwritable(path: path, reason: "cannot move into place: \(String(cString: strerror(errno)))")
    }
    committed = true
    let folder = open(FileOutput.folder(of: target), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folder >= 0 {
      fsync(folder)
      close(folder)
    }
  }
}
