#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Writing whole files and appending to open ones, with `FileError`s that name the path.
public enum FileOutput {
  /// Writes `bytes` to `path`, replacing it.
  public static func write(_ path: String, bytes: UnsafeRawBufferPointer) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw FileError.unreadable(path: path, reason: "cannot write: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    try writeAll(fd, bytes, path: path)
  }

  /// Writes `text` (UTF-8) to `path`, replacing it.
  public static func write(_ path: String, text: String) throws {
    var text = text
    try text.withUTF8 { try write(path, bytes: UnsafeRawBufferPointer($0)) }
  }

  /// Writes every byte of `bytes` to the open descriptor `fd` (of `path`, for errors).
  public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    var written = 0
    while written < bytes.count {
      let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
      guard n > 0 else { throw FileError.unreadable(path: path, reason: "write failed: \(String(cString: strerror(errno)))") }
      written += n
    }
  }
}
