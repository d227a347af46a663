#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A whole file mapped read-only into memory (`mmap`), unmapped when released.
public final class MappedFile {
  public let path: String
  /// The file's bytes; empty for an empty file. Valid only while `self` is alive: use
  /// `withBytes`, or keep `self` alive as long as a pointer into them is used.
  public let bytes: UnsafeRawBufferPointer
  /// Size of the file in bytes.
  public var count: Int { bytes.count }

  /// Maps `path`. `readAhead`: the pages are read in at once (`MAP_POPULATE`), for a
  /// caller that reads every byte; otherwise they are read as touched, in order
  /// (`MADV_SEQUENTIAL`), for a caller that reads a part or releases as it goes.
  public init(path: String, readAhead: Bool = true) throws(FileError) {
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
    let start = mmap(nil, size, PROT_READ, MAP_PRIVATE | (readAhead ? MAP_POPULATE : 0), fd, 0)
    guard let start, start != MAP_FAILED else {
      throw .unreadable(path: path, reason: "mmap failed: \(String(cString: strerror(errno)))")
    }
    if !readAhead { madvise(start, size, MADV_SEQUENTIAL) }
    bytes = UnsafeRawBufferPointer(start: start, count: size)
  }

  /// Calls `body` with the mapped bytes, keeping the mapping alive meanwhile.
  public func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try withExtendedLifetime(self) { try body(bytes) }
  }

  /// Gives the whole pages of `bytes[range]` back to the system (`MADV_DONTNEED`): they
  /// leave the process's resident memory and are read again from the file if touched.
  public func release(_ range: Range<Int>) {
    guard let base = bytes.baseAddress, !range.isEmpty else { return }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let start = (range.lowerBound + page - 1) / page * page
    let end = range.upperBound == count ? count : range.upperBound / page * page
    guard start < end else { return }
    madvise(UnsafeMutableRawPointer(mutating: base + start), end - start, MADV_DONTNEED)
  }

  deinit {
    if let start = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: start), bytes.count) }
  }
}
