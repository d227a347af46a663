import ArbCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A stream of bytes read in chunks: a plain file or a decompressed one.
protocol ByteSource: AnyObject {
  /// Fills as much of `buffer` as is available; returns 0 at end of stream.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int
}

/// A file read with POSIX `read(2)` (no Foundation `FileHandle`: each of its calls allocates).
final class FileSource: ByteSource {
  let path: String
  private let descriptor: Int32
  /// Size of the file in bytes, from `fstat`.
  let size: Int

  /// Opens `path` for reading. Throws `FileError.missing` when it does not exist.
  init(path: String) throws(FileError) {
    self.path = path
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else {
      let code = errno
      throw code == ENOENT || code == ENOTDIR ? .missing(path: path) : .unreadable(path: path, reason: String(cString: strerror(code)))
    }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
      close(fd)
      throw .unreadable(path: path, reason: "is a directory")
    }
    descriptor = fd
    size = Int(info.st_size)
  }

  deinit { close(descriptor) }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    while true {
      let n = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw IngestError(.readFailed(detail: "read failed: \(String(cString: strerror(errno)))"), at: SourcePosition(path: path, line: 0, column: 0))
    }
  }
}

/// A file that cannot be opened. Distinct from `IngestError`: the CLI maps it to exit 66 / 74.
public enum FileError: Error, Sendable, Equatable, CustomStringConvertible {
  case missing(path: String)
  case unreadable(path: String, reason: String)

  public var description: String {
    switch self {
    case .missing(let path): "\(path): error: no such file"
    case .unreadable(let path, let reason): "\(path): error: cannot read, \(reason)"
    }
  }
}

/// How a file's bytes are stored on disk, known from its first bytes.
enum Compression: String, Sendable {
  case none
  case gzip
  case zip
  case zstd

  /// Detects gzip by its magic bytes `1f 8b`, zip by `PK\3\4` (a local file header),
  /// zstd by `28 b5 2f fd` (a zstd frame).
  static func detect(path: String) throws(FileError) -> Compression {
    let source = try FileSource(path: path)
    var magic: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    let n = withUnsafeMutableBytes(of: &magic) { (try? source.read(into: $0)) ?? 0 }
    if n >= 2 && magic.0 == 0x1f && magic.1 == 0x8b { return .gzip }
    if n == 4 && magic == (0x50, 0x4b, 0x03, 0x04) { return .zip }
    if n == 4 && magic == (0x28, 0xb5, 0x2f, 0xfd) { return .zstd }
    return .none
  }

  /// Opens `path` as a byte stream that decompresses on the fly.
  static func open(path: String) throws(FileError) -> ByteSource {
    let file = try FileSource(path: path)
    switch try detect(path: path) {
    case .none: return file
    case .zip: return ZipSource(file: file)
    case .gzip: return GzipSource(file: file)
    case .zstd: return ZstdSource(file: file)
    }
  }
}
