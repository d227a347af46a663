#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Checks of an input file named on the command line (a scenario, a registry, a sweep
/// result) before it is read, so that each problem gets its own message and exit code.
public enum InputFile {
  /// Throws unless `path` is a file that can be read: a regular file or a pipe.
  /// - Throws: `FileError.missing`; `FileError.notAFile` for a folder, a device or a
  ///   socket; `FileError.unreadable` (e.g. "permission denied").
  public static func check(_ path: String) throws(FileError) {
    var info = stat()
    guard stat(path, &info) == 0 else { throw error(opening: path, code: errno) }
    switch info.st_mode & S_IFMT {
    case S_IFREG, S_IFIFO: break
    case S_IFDIR: throw .notAFile(path: path, kind: "folder")
    case S_IFCHR: throw .notAFile(path: path, kind: "character device")
    case S_IFBLK: throw .notAFile(path: path, kind: "block device")
    default: throw .notAFile(path: path, kind: "socket")
    }
    // Non-blocking: opening a pipe with no writer yet must not wait here.
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw error(opening: path, code: errno) }
    close(fd)
  }

  /// The error of a failed `open` or `stat` of `path` with `errno` `code`.
  static func error(opening path: String, code: Int32) -> FileError {
    switch code {
    case ENOENT, ENOTDIR: .missing(path: path)
    case EACCES, EPERM: .unreadable(path: path, reason: "permission denied")
    default: .unreadable(path: path, reason: String(cString: strerror(code)).lowercased())
    }
  }
}
