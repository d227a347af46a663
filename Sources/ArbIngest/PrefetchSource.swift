import ArbCore
import Dispatch
import Foundation
import Synchronization

/// Reads a source ahead on a thread of its own, a few chunks at a time, so that
/// decompressing (zlib's inflate, zstd) runs on one core while the caller parses on
/// another: reading a compressed file then takes about as long as the slower of the
/// two instead of their sum. Bytes come out exactly as the wrapped source gives them;
/// its errors are thrown by the `read` that reaches them.
final class PrefetchSource: ByteSource {
  let path: String
  private let pipe: Pipe
  /// The chunk being handed out, and how far.
  private var slot = 0
  private var offset = 0
  private var count = 0
  private var holding = false
  private var ended = false

  /// Starts reading `source` ahead into `slots` chunks of `chunkBytes` each.
  init(_ source: ByteSource, path: String, slots: Int = 3, chunkBytes: Int = 1 << 20) {
    self.path = path
    pipe = Pipe(source: source, slots: slots, chunkBytes: chunkBytes)
    let thread = Thread { [pipe] in pipe.produce() }
    thread.name = "arbkit.prefetch"
    thread.start()
  }

  deinit { pipe.stop() }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    guard !ended, buffer.count > 0 else { return 0 }
    if offset == count {
      if holding {
        pipe.release()
        slot = (slot + 1) % pipe.chunks.count
      }
      pipe.filled.wait()
      holding = true
      offset = 0
      count = pipe.counts[slot]
      if count == 0 {
        ended = true
        if let failure = pipe.failure { throw failure }
        return 0
      }
    }
    let n = min(buffer.count, count - offset)
    buffer.baseAddress!.copyMemory(from: pipe.chunks[slot].baseAddress! + offset, byteCount: n)
    offset += n
    return n
  }

  /// The state shared by the reading thread and the caller. The semaphores order
  /// every access: a chunk is written only between `free.wait` and `filled.signal`
  /// and read only between `filled.wait` and `free.signal`.
  private final class Pipe: @unchecked Sendable {
    let source: ByteSource
    let chunks: [UnsafeMutableRawBufferPointer]
    /// Bytes in each chunk; 0 marks the end of the source (or its failure).
    var counts: [Int]
    var failure: IngestError? = nil
    let filled = DispatchSemaphore(value: 0)
    private let free: DispatchSemaphore
    private let finished = DispatchSemaphore(value: 0)
    private let stopping = Mutex(false)

    init(source: ByteSource, slots: Int, chunkBytes: Int) {
      self.source = source
      chunks = (0..<slots).map { _ in .allocate(byteCount: chunkBytes, alignment: 64) }
      counts = Array(repeating: 0, count: slots)
      // Created at 0 and signalled: libdispatch refuses to dispose of a semaphore
      // whose count is below the value it was created with.
      free = DispatchSemaphore(value: 0)
      for _ in 0..<slots { free.signal() }
    }

    deinit { for chunk in chunks { chunk.deallocate() } }

    /// The reading thread: fills chunk after chunk until the source ends, fails, or
    /// the caller stops listening. The bytes read before a failure are handed out
    /// first, then the failure.
    func produce() {
      defer { finished.signal() }
      var k = 0
      var pending: IngestError? = nil
      while true {
        free.wait()
        if stopping.withLock({ $0 }) { return }
        var n = 0
        if pending == nil { (n, pending) = fill(chunks[k]) }
        if n == 0 { failure = pending }
        counts[k] = n
        filled.signal()
        if n == 0 { return }
        k = (k + 1) % chunks.count
      }
    }

    /// Reads until `chunk` is full or the source ends (fewer, larger hand-overs);
    /// returns the bytes read and the error that stopped it, if one did.
    private func fill(_ chunk: UnsafeMutableRawBufferPointer) -> (Int, IngestError?) {
      var n = 0
      do {
        while n < chunk.count {
          let got = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[n...]))
          if got == 0 { break }
          n += got
        }
        return (n, nil)
      } catch {
        return (n, error)
      }
    }

    /// The caller is done with a chunk.
    func release() { free.signal() }

    /// Ends the reading thread (it may be waiting for a free chunk) and waits for it.
    func stop() {
      stopping.withLock { $0 = true }
      free.signal()
      finished.wait()
    }
  }
}
