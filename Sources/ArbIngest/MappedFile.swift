#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A whole file mapped read-only into memory (`mmap`), unmapped when released.
final class MappedFile {
  let path: String
  /// The file's bytes; empty for an empty file. Valid only while `self` is alive: use
  /// `withBytes`.
  private let bytes: UnsafeRawBufferPointer
  /// Size of the file in bytes.
  var count: Int { bytes.count }

  /// Maps `path`. The pages are read ahead (`MAP_POPULATE`): the callers read every byte.
  init(path: String) throws(FileError) {
    self.path = path
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else {
      let code = errno
      throw code == ENOENT || code == ENOTDIR ? .missing(path: path) : .unreadable(path: path, reason: String(cString: strerror(code)))
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw .unreadable(path: path, reason: "not a regular file")
    }
    let size = Int(info.st_size)
    guard size > 0 else {
      bytes = UnsafeRawBufferPointer(start: nil, count: 0)
      return
    }
    let start = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0)
    guard let start, start != MAP_FAILED else {
      throw .unreadable(path: path, reason: "mmap failed: \(String(cString: strerror(errno)))")
    }
    bytes = UnsafeRawBufferPointer(start: start, count: size)
  }

  /// Calls `body` with the mapped bytes, keeping the mapping alive meanwhile.
  func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try withExtendedLifetime(self) { try body(bytes) }
  }

  deinit {
    if let start = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: start), bytes.count) }
  }
}
