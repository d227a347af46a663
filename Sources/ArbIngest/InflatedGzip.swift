// The only file that imports libdeflate.
import ArbCore
internal import CDeflate
import Dispatch
import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A gzip file inflated whole into memory by libdeflate, which inflates a member in one
/// call, several times faster than zlib's streaming `inflate`. The inflated bytes are
/// then read like a plain file (in two halves on two threads when large).
///
/// Only what libdeflate accepts in full, within a size limit, is kept: a larger file, a
/// stream it rejects (corrupt, truncated, bytes after the last member), a member with a
/// header CRC (which libdeflate does not check) or a file that cannot be mapped is left
/// to the streaming `GzipSource`, which reads it or reports its error exactly as it
/// always did.
final class InflatedGzip: RangedBytes, @unchecked Sendable {
  let path: String
  /// The inflated bytes (`count` of them), never written after `init`.
  private let base: UnsafeMutableRawPointer
  let count: Int

  /// Inflates the gzip file at `path` (memory-mapped); `nil` when it is not a regular
  /// file that libdeflate inflates in full to at most `limit` bytes.
  convenience init?(path: String, limit: Int) {
    guard let file = try? MappedFile(path: path) else { return nil }
    guard let (base, count) = file.withBytes({ Self.inflate($0, limit: limit) }) else { return nil }
    self.init(path: path, base: base, count: count)
  }

  /// Inflates gzip bytes in memory; `nil` as `init(path:limit:)`, or when they are
  /// not gzip.
  convenience init?(bytes: [UInt8], path: String, limit: Int) {
    guard let (base, count) = bytes.withUnsafeBytes({ Self.inflate($0, limit: limit) }) else { return nil }
    self.init(path: path, base: base, count: count)
  }

  private init(path: String, base: UnsafeMutableRawPointer, count: Int) {
    self.path = path
    self.base = base
    self.count = count
  }

  deinit { free(base) }

  func source(_ range: Range<Int>) -> ByteSource { Slice(of: self, range) }

  /// Every member of `compressed`, one after the other, into one buffer (from
  /// `malloc`): its start and length.
  ///
  /// The buffer starts at the trailer's ISIZE, the last member's inflated size modulo
  /// 2³²: the exact size of a one-member file under 4 GiB, a lower bound otherwise. A
  /// member that does not fit doubles it (the member is inflated again), up to `limit`.
  static func inflate(_ compressed: UnsafeRawBufferPointer, limit: Int) -> (UnsafeMutableRawPointer, Int)? {
    let n = compressed.count
    guard n >= 18, compressed[0] == 0x1f, compressed[1] == 0x8b, limit > 0 else { return nil }
    let isize = (0..<4).reduce(0) { $0 | Int(compressed[n - 4 + $1]) << (8 * $1) }
    guard isize <= limit, let decompressor = libdeflate_alloc_decompressor() else { return nil }
    defer { libdeflate_free_decompressor(decompressor) }
    var capacity = min(limit, max(isize, 1 << 16))
    guard var buffer = malloc(capacity) else { return nil }
    // A thread is worth it for a large buffer only (the size from which a file is read in halves).
    var faulter = capacity >= parallelThreshold ? PageFaulter(buffer, count: capacity) : nil
    var consumed = 0, produced = 0
    while consumed < n {
      // A member with a header CRC (flag FHCRC, which gzip itself never writes): zlib
      // checks it, libdeflate skips it, so the file streams.
      guard n - consumed < 4 || compressed[consumed + 3] & 0x02 == 0 else { break }
      var read = 0, written = 0
      let status = libdeflate_gzip_decompress_ex(
        decompressor, compressed.baseAddress! + consumed, n - consumed, buffer + produced, capacity - produced, &read, &written)
      if status == LIBDEFLATE_SUCCESS {
        consumed += read
        produced += written
        continue
      }
      guard status == LIBDEFLATE_INSUFFICIENT_SPACE, capacity < limit else { break }
      capacity = capacity > limit / 2 ? limit : capacity * 2
      faulter?.stop()
      faulter = nil
      guard let bigger = realloc(buffer, capacity) else { break }
      buffer = bigger
    }
    faulter?.stop()
    guard consumed == n else {
      free(buffer)
      return nil
    }
    return (buffer, produced)
  }

  /// Faults in a buffer's pages on another thread, from its end backwards, while the
  /// caller writes it from the start: the kernel's work of handing out fresh pages
  /// (about a fifth of inflating a large file) then runs on the other core. Only
  /// populates pages (`MADV_POPULATE_WRITE`), never writes to them; a kernel without it
  /// (before Linux 5.14) refuses and nothing happens.
  private final class PageFaulter: Sendable {
    private let stopping = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)

    init(_ start: UnsafeMutableRawPointer, count: Int) {
      let page = Int(sysconf(Int32(_SC_PAGESIZE)))
      let first = (Int(bitPattern: start) + page - 1) & ~(page - 1)
      let end = (Int(bitPattern: start) + count) & ~(page - 1)
      DispatchQueue.global().async { [self] in
        var upper = end
        while upper > first && !stopping.withLock({ $0 }) {
          let lower = max(first, upper - (4 << 20))
          _ = madvise(UnsafeMutableRawPointer(bitPattern: lower), upper - lower, MADV_POPULATE_WRITE)
          upper = lower
        }
        finished.signal()
      }
    }

    /// Stops the thread and waits for it. Call once.
    func stop() {
      stopping.withLock { $0 = true }
      finished.wait()
    }
  }

  /// A range of the inflated bytes, read as a file.
  private final class Slice: ByteSource {
    private let owner: InflatedGzip
    private var offset: Int
    private let end: Int
    var path: String { owner.path }

    init(of owner: InflatedGzip, _ range: Range<Int>) {
      self.owner = owner
      offset = range.lowerBound
      end = range.upperBound
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
      let n = min(buffer.count, end - offset)
      guard n > 0 else { return 0 }
      buffer.baseAddress!.copyMemory(from: owner.base + offset, byteCount: n)
      offset += n
      return n
    }
  }
}
