// The only file that imports ISA-L.
import ArbCore
internal import CIsal
import Dispatch
import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A gzip file inflated in memory by ISA-L (Intel's igzip, several times faster than
/// zlib's `inflate`), member after member, a chunk at a time, into one region reserved
/// up front and never moved: the bytes inflated so far can be read while the rest
/// inflates (`follower(from:)`), or once all of it is (`source(_:)`).
///
/// Only what ISA-L accepts in full, within a size limit, is kept: a stream it refuses
/// (corrupt, truncated, a wrong CRC-32 or length in a trailer, bytes after the last
/// member), a member with a header CRC or reserved header flags (which zlib checks and
/// ISA-L does not) or output over the limit makes `inflate(until:)` return `false`;
/// the caller then leaves the file to the streaming `GzipSource`, which reads it or
/// reports its error exactly as it always did.
final class InflatedGzip: RangedBytes, @unchecked Sendable {
  let path: String
  private let input: Compressed
  /// The most bytes the file may inflate to.
  private let limit: Int
  /// The most bytes inflated between two publications of the progress.
  private let chunk: Int
  /// The region: `limit + 1` bytes reserved (not committed) up front. Only the
  /// inflating thread writes it, and only past `Progress.produced`.
  private let base: UnsafeMutableRawPointer
  /// ISA-L's state and the inflating position, used by one thread at a time (the
  /// calling thread, then the thread that inflates the rest).
  private let state: UnsafeMutablePointer<inflate_state>
  private var consumed = 0
  private var produced = 0
  private var atMemberStart = true
  private var outcome: Outcome? = nil
  /// What the inflating thread publishes, and where the follower is.
  private let progress = Mutex(Progress())
  /// Signalled when the follower waits and more bytes (or their end) are published.
  private let wake = DispatchSemaphore(value: 0)

  private enum Outcome { case inflated, refused }

  private struct Progress {
    /// Bytes inflated and readable.
    var produced = 0
    /// Where the follower stops: set by `split()`, or when the file is refused.
    var end: Int? = nil
    /// How far the follower has read.
    var followed = 0
    var waiting = false
  }

  /// The compressed bytes: a mapped file or an array.
  private enum Compressed {
    case file(MappedFile)
    case bytes([UInt8])

    func withBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
      switch self {
      case .file(let file): file.withBytes(body)
      case .bytes(let bytes): bytes.withUnsafeBytes(body)
      }
    }
  }

  /// Prepares to inflate the gzip file at `path` (memory-mapped) to at most `limit`
  /// bytes, `chunk` bytes at a time; `nil` when it is not a regular gzip file.
  convenience init?(path: String, limit: Int, chunk: Int = 1 << 20) {
    guard let file = try? MappedFile(path: path) else { return nil }
    self.init(.file(file), path: path, limit: limit, chunk: chunk)
  }

  /// Prepares to inflate gzip bytes in memory; `nil` when they are not gzip.
  convenience init?(bytes: [UInt8], path: String, limit: Int) {
    self.init(.bytes(bytes), path: path, limit: limit, chunk: 1 << 20)
  }

  private init?(_ input: Compressed, path: String, limit: Int, chunk: Int) {
    guard limit > 0, chunk > 0, input.withBytes({ $0.count >= 18 && $0[0] == 0x1f && $0[1] == 0x8b }) else { return nil }
    // Reserved, not committed: pages exist once written, so a large limit costs nothing.
    let region = mmap(nil, limit + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
    guard let region, region != MAP_FAILED else { return nil }
    // Fewer, larger pages: faulting in the written region costs less.
    _ = madvise(region, limit + 1, MADV_HUGEPAGE)
    self.input = input
    self.path = path
    self.limit = limit
    self.chunk = chunk
    base = region
    state = .allocate(capacity: 1)
    isal_inflate_init(state)
  }

  deinit {
    munmap(base, limit + 1)
    state.deallocate()
  }

  /// Bytes inflated so far (all of them once `inflate(until: .max)` returned `true`).
  var count: Int { progress.withLock { $0.produced } }

  /// The inflated size the last member's trailer gives (modulo 2³²), within the limit:
  /// the size of a one-member file under 4 GiB, to size the columns.
  var sizeHint: Int {
    let isize = input.withBytes { bytes in (0..<4).reduce(0) { $0 | Int(bytes[bytes.count - 4 + $1]) << (8 * $1) } }
    return min(isize, limit)
  }

  /// Whether the whole file is inflated (and accepted).
  var isWhole: Bool { outcome == .inflated }

  /// Inflates on the calling thread until at least `bytes` bytes are inflated or the
  /// file ends; `false` when ISA-L refuses the file (then the follower ends too).
  func inflate(until bytes: Int) -> Bool {
    while outcome == nil && produced < bytes { step() }
    return outcome != .refused
  }

  /// Inflates the next chunk and publishes it.
  private func step() {
    let result = input.withBytes { compressed -> Outcome? in
      let n = compressed.count
      if atMemberStart {
        // zlib checks a header CRC (flag FHCRC, never written by gzip) and refuses
        // reserved flags; ISA-L does neither, so such a file streams.
        guard n - consumed < 4 || compressed[consumed + 3] & 0xE2 == 0 else { return .refused }
        isal_inflate_reset(state)
        state.pointee.crc_flag = UInt32(ISAL_GZIP)
        atMemberStart = false
      }
      let start = UnsafeMutablePointer(mutating: compressed.baseAddress!.assumingMemoryBound(to: UInt8.self))
      let before = (consumed, produced)
      state.pointee.next_in = start + consumed
      state.pointee.avail_in = UInt32(min(n - consumed, Int(UInt32.max)))
      // One byte past the limit, so that a member ending exactly at it is not stalled.
      let room = min(chunk, limit + 1 - produced)
      state.pointee.next_out = (base + produced).assumingMemoryBound(to: UInt8.self)
      state.pointee.avail_out = UInt32(room)
      let status = isal_inflate(state)
      consumed = start.distance(to: state.pointee.next_in)
      produced += room - Int(state.pointee.avail_out)
      // ISA-L checks each trailer's CRC-32 and length (`ISAL_INCORRECT_CHECKSUM`).
      guard status == ISAL_DECOMP_OK, produced <= limit else { return .refused }
      if state.pointee.block_state == ISAL_BLOCK_FINISH {
        atMemberStart = true
        return consumed == n ? .inflated : nil
      }
      // The input ran out before the member's end, or nothing moved.
      if (consumed == n && state.pointee.avail_out > 0) || (consumed, produced) == before { return .refused }
      return nil
    }
    outcome = result
    let waiting = progress.withLock { p in
      if result == .refused {
        // What the follower read is thrown away with the rest: let it end.
        p.end = p.produced
      } else {
        p.produced = produced
      }
      defer { p.waiting = false }
      return p.waiting
    }
    if waiting { wake.signal() }
  }

  /// Once the file is inflated, ends the follower's part just after the first line
  /// break at or after the middle of what it has not read yet; returns the rest, or
  /// `nil` when the follower reads everything (an inflated file under
  /// `parallelThreshold`, or no line break after the middle).
  func split() -> Range<Int>? {
    let (rest, waiting) = progress.withLock { p in
      // A follower not started yet counts from 0: its start, just past the header in
      // the first 64 KiB, is still far before the middle of 16 MiB or more.
      let total = p.produced, from = p.followed
      var end = total
      if total >= parallelThreshold {
        let middle = from + (total - from) / 2
        if let newline = memchr(base + middle, 10, total - middle) { end = base.distance(to: newline) + 1 }
      }
      p.end = end
      defer { p.waiting = false }
      return (end < total ? end..<total : nil, p.waiting)
    }
    if waiting { wake.signal() }
    return rest
  }

  /// The inflated bytes from `start` (already inflated) on, read as they are inflated:
  /// a read waits for the next chunk; they end where `split()` says. One per file.
  func follower(from start: Int) -> ByteSource {
    progress.withLock { $0.followed = start }
    return Follower(of: self)
  }

  /// A range of the bytes inflated so far, read as a file.
  func source(_ range: Range<Int>) -> ByteSource { Slice(of: self, range) }

  private final class Follower: ByteSource {
    private let owner: InflatedGzip
    var path: String { owner.path }

    init(of owner: InflatedGzip) { self.owner = owner }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
      guard buffer.count > 0 else { return 0 }
      while true {
        // The range taken, or nil to wait for more.
        let taken = owner.progress.withLock { p -> Range<Int>? in
          let available = (p.end ?? p.produced) - p.followed
          guard available > 0 else {
            if p.end != nil { return p.followed..<p.followed }
            p.waiting = true
            return nil
          }
          defer { p.followed += min(available, buffer.count) }
          return p.followed..<p.followed + min(available, buffer.count)
        }
        guard let taken else {
          owner.wake.wait()
          continue
        }
        buffer.baseAddress!.copyMemory(from: owner.base + taken.lowerBound, byteCount: taken.count)
        return taken.count
      }
    }
  }

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
