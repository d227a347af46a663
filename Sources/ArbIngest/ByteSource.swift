import ArbCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A stream of bytes read in chunks: a plain file or a decompressed one.
protocol ByteSource: AnyObject {
  /// The file's path (or the name of bytes in memory), for messages.
  var path: String { get }
  /// Fills as much of `buffer` as is available; returns 0 at end of stream.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int
}

/// A file read with POSIX `read(2)` (no Foundation `FileHandle`: each of its calls allocates).
final class FileSource: ByteSource {
  let path: String
  private let descriptor: Int32
  /// Size of the file in bytes, from `fstat`; 0 for a stream.
  let size: Int

  /// Opens `path` for reading: a regular file or a stream. Throws `FileError.missing`
  /// when it does not exist, `FileError.unreadable` for a folder or a device.
  init(path: String) throws(FileError) {
    self.path = path
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else {
      let code = errno
      throw code == ENOENT || code == ENOTDIR ? .missing(path: path) : .unreadable(path: path, reason: String(cString: strerror(code)))
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let code = errno
      close(fd)
      throw .unreadable(path: path, reason: String(cString: strerror(code)))
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: isStream = false
    case S_IFIFO, S_IFSOCK: isStream = true
    case let kind:
      close(fd)
      throw .unreadable(path: path, reason: kind == S_IFDIR ? "is a directory" : "not a regular file or a stream, was a \(Self.kindName(kind))")
    }
    descriptor = fd
    size = isStream ? 0 : Int(info.st_size)
  }

  /// A pipe, FIFO or socket (`<(…)`, `/dev/stdin` of a pipe): read once, size unknown.
  let isStream: Bool

  /// The kind of a file that is neither regular nor a stream, for the message: a device
  /// never ends (`/dev/zero`) or holds no data file.
  private static func kindName(_ kind: mode_t) -> String {
    switch kind {
    case S_IFCHR: "character device"
    case S_IFBLK: "block device"
    default: "special file"
    }
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

/// A file that cannot be opened, read or written. Distinct from `IngestError`: the CLI
/// maps it to exit 66 (missing, not a file), 64 (an output that is an input, a file of a
/// kind the command does not take) or 74.
public enum FileError: Error, Sendable, Equatable, CustomStringConvertible {
  case missing(path: String)
  case unreadable(path: String, reason: String)
  /// An input that exists but is no file to read, e.g. a folder or a device; `kind` says what it is.
  case notAFile(path: String, kind: String)
  case unwritable(path: String, reason: String)
  /// An output of a run that is also one of its inputs.
  case overwritesInput(output: String, input: String)
  /// Two outputs of a run that are the same file: one would replace the other.
  case sameOutput(output: String, other: String)
  /// An input in a format the command does not take; `remedy` says what it takes.
  case unsupportedFormat(path: String, format: String, remedy: String)

  public var description: String {
    switch self {
    case .missing(let path): "\(path): error: no such file"
    case .unreadable(let path, let reason): "\(path): error: cannot read, \(reason)"
    case .notAFile(let path, let kind): "\(path): error: is a \(kind), not a file"
    case .unwritable(let path, let reason): "\(path): error: cannot write, \(reason)"
    case .overwritesInput(let output, let input): "\(output): error: would overwrite \(input), an input of this run; name another output"
    case .sameOutput(let output, let other): "\(output): error: is also \(other), another output of this run; name another file"
    case .unsupportedFormat(let path, let format, let remedy): "\(path): error: is \(format), which this command does not read; \(remedy)"
    }
  }
}

/// Bytes already in memory, read as if they were a file named `path` (the ingest of
/// in-memory data, and the fuzz targets).
final class MemorySource: ByteSource {
  let path: String
  private let bytes: [UInt8]
  private var offset = 0

  init(_ bytes: [UInt8], path: String) {
    self.bytes = bytes
    self.path = path
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    let n = min(buffer.count, bytes.count - offset)
    guard n > 0 else { return 0 }
    bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
    offset += n
    return n
  }
}

/// A stream whose first bytes were already read (to detect what it holds): hands them
/// out again, then reads on. Counts every byte it hands out.
final class ReplaySource: ByteSource {
  private let source: ByteSource
  private let head: [UInt8]
  private var offset = 0
  /// The error that ended the first read, thrown once the head is handed out: the
  /// reader then places it at the line it breaks in.
  private var pending: IngestError?
  /// Bytes handed out so far.
  private(set) var delivered = 0
  var path: String { source.path }

  init(_ source: ByteSource, head: [UInt8]) {
    self.source = source
    self.head = head
  }

  /// The first `count` bytes of `source` (fewer when it ends or fails first), and
  /// `source` replayed from its start (a failure comes after the bytes before it).
  static func peek(_ source: ByteSource, count: Int) -> (head: [UInt8], replay: ReplaySource) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
    defer { buffer.deallocate() }
    var filled = 0
    var failure: IngestError? = nil
    while filled < count {
      let n: Int
      do { n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) } catch {
        failure = error
        break
      }
      if n == 0 { break }
      filled += n
    }
    let head = Array(buffer[0..<filled])
    let replay = ReplaySource(source, head: head)
    replay.pending = failure
    return (head, replay)
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    let n: Int
    if offset == head.count, let pending {
      self.pending = nil
      throw pending
    }
    if offset < head.count {
      n = min(buffer.count, head.count - offset)
      head.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
      offset += n
    } else {
      n = try source.read(into: buffer)
    }
    delivered += n
    return n
  }
}

/// How many bytes a compressed file may inflate to: `ratio` times its compressed size,
/// and never less than `floor`. Real market data compresses 3–75× (zstd on repetitive
/// JSON lines is the top); a zip, gzip or zstd bomb (1 GiB of zeros is ~1 MiB of gzip)
/// goes far past it and stops with `IngestError.Reason.decompressionLimit` instead of
/// running for minutes or filling memory downstream.
public struct DecompressionLimit: Sendable, Equatable {
  public var ratio: Int
  public var floor: Int

  /// Defaults: 250× the compressed size, at least 64 MiB.
  public init(ratio: Int = 250, floor: Int = 64 << 20) {
    self.ratio = ratio
    self.floor = floor
  }

  /// The limit in bytes for a file of `compressed` bytes.
  func bytes(compressed: Int) -> Int {
    let (product, overflow) = compressed.multipliedReportingOverflow(by: ratio)
    return max(floor, overflow ? .max : product)
  }
}

/// A decompressing source that throws `decompressionLimit` once it has produced more
/// than `limit` bytes.
///
/// The compressed size is asked for at each read: a stream's grows as it is read.
final class BoundedSource: ByteSource {
  private let source: ByteSource
  let path: String
  private let limits: DecompressionLimit
  private let compressedSize: () -> Int
  private var produced = 0

  init(_ source: ByteSource, path: String, limit: DecompressionLimit, compressed: @escaping () -> Int) {
    self.source = source
    self.path = path
    limits = limit
    compressedSize = compressed
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    let compressed = compressedSize()
    let limit = limits.bytes(compressed: compressed)
    // Ask for at most one byte past the limit: enough to know it is exceeded.
    let room = limit - produced
    let wanted = room >= buffer.count ? buffer.count : room + 1
    let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
    produced += n
    if produced > limit {
      throw IngestError(.decompressionLimit(limit: limit, compressed: compressed), at: SourcePosition(path: path, line: 0, column: 0))
    }
    return n
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
  static func detect(magic: UnsafeRawBufferPointer) -> Compression {
    let n = magic.count
    if n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b { return .gzip }
    guard n >= 4 else { return .none }
    let word = (magic[0], magic[1], magic[2], magic[3])
    if word == (0x50, 0x4b, 0x03, 0x04) { return .zip }
    if word == (0x28, 0xb5, 0x2f, 0xfd) { return .zstd }
    return .none
  }

  /// Detects the compression of the file at `path` from its first four bytes.
  static func detect(path: String) throws(FileError) -> Compression {
    let source = try FileSource(path: path)
    var magic: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    return withUnsafeMutableBytes(of: &magic) { raw in
      let n = (try? source.read(into: raw)) ?? 0
      return detect(magic: UnsafeRawBufferPointer(rebasing: raw[0..<n]))
    }
  }

  /// Opens `path` as a byte stream that decompresses on the fly, within `limit`.
  static func open(path: String, limit: DecompressionLimit = DecompressionLimit()) throws(FileError) -> ByteSource {
    let compression = try detect(path: path)
    let file = try FileSource(path: path)
    return wrap(file, path: path, size: file.size, compression: compression, limit: limit)
  }

  /// Opens bytes in memory as `open(path:)` opens a file.
  static func open(bytes: [UInt8], path: String, limit: DecompressionLimit = DecompressionLimit()) -> ByteSource {
    let compression = bytes.withUnsafeBytes { detect(magic: UnsafeRawBufferPointer(rebasing: $0.prefix(4))) }
    return wrap(MemorySource(bytes, path: path), path: path, size: bytes.count, compression: compression, limit: limit)
  }

  /// A stream (pipe, FIFO) decompressed on the fly, as `open(path:)` opens a file: its
  /// first bytes are read once to detect the compression, then handed out again. The
  /// limit grows with the compressed bytes read so far.
  static func open(stream: ByteSource, limit: DecompressionLimit = DecompressionLimit()) -> ByteSource {
    let (magic, replay) = ReplaySource.peek(stream, count: 4)
    let compression = magic.withUnsafeBytes { detect(magic: $0) }
    guard compression != .none else { return replay }
    return bounded(compression, replay, path: stream.path, limit: limit) { [replay] in replay.delivered }
  }

  /// `source` (of `size` compressed bytes) decompressed by `compression`, bounded.
  private static func wrap(_ source: ByteSource, path: String, size: Int, compression: Compression, limit: DecompressionLimit) -> ByteSource {
    guard compression != .none else { return source }
    let inflating = bounded(compression, source, path: path, limit: limit) { size }
    return size >= prefetchThreshold ? PrefetchSource(inflating, path: path) : inflating
  }

  /// `source` decompressed by `compression` within `limit` of its `compressed` size.
  private static func bounded(
    _ compression: Compression, _ source: ByteSource, path: String, limit: DecompressionLimit, compressed: @escaping () -> Int
  ) -> ByteSource {
    let inflating: ByteSource
    switch compression {
    case .none: return source
    case .zip: inflating = ZipSource(source: source, path: path)
    case .gzip: inflating = GzipSource(source: source, path: path)
    case .zstd: inflating = ZstdSource(source: source, path: path)
    }
    return BoundedSource(inflating, path: path, limit: limit, compressed: compressed)
  }

  /// Compressed inputs of at least this size are decompressed on a second thread
  /// (`PrefetchSource`); smaller ones are not worth a thread.
  static let prefetchThreshold = 1 << 20
}
