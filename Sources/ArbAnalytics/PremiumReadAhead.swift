import Dispatch
import Foundation
import Synchronization

extension PremiumPoints {
  /// Calls `body` with every chunk in order while the source makes the next one on a
  /// thread of its own, so that the as-of walk (or a partial's replay) and the work on
  /// its points run on two cores. `body` gets copies of the chunks, each valid until `body` returns; it must
  /// not touch the source, whose counters (`points`, `legRows`, …) are final once this
  /// returns.
  ///
  /// - Throws: what `next()` or `body` throws, at the chunk where it occurs (the stream
  ///   stops reading ahead when `body` throws).
  public func forEachChunk(_ body: (PremiumChunk) throws -> Void) throws {
    let pipe = ChunkPipe(stream: self)
    let thread = Thread { [pipe] in pipe.produce() }
    thread.name = "arbkit.premium-walk"
    thread.start()
    defer { pipe.stop() }
    var k = 0
    while true {
      pipe.filled.wait()
      guard let chunk = pipe.slots[k].chunk else {
        if let failure = pipe.failure { throw failure }
        return
      }
      try body(chunk)
      pipe.free.signal()
      k = 1 - k
    }
  }
}

/// The two chunks a read-ahead walk hands over, and the thread that makes them. The
/// semaphores order every access: a slot is written only between `free.wait` and
/// `filled.signal`, read only between `filled.wait` and the next `free.signal`; the
/// source is used by the walking thread alone until it has ended.
private final class ChunkPipe: @unchecked Sendable {
  let stream: any PremiumPoints
  let slots: [ChunkSlot]
  var failure: (any Error)? = nil
  let filled = DispatchSemaphore(value: 0)
  let free: DispatchSemaphore
  private let finished = DispatchSemaphore(value: 0)
  private let stopping = Mutex(false)

  init(stream: any PremiumPoints) {
    self.stream = stream
    slots = [ChunkSlot(), ChunkSlot()]
    // Created at 0 and signalled: libdispatch refuses to dispose of a semaphore whose
    // count is below the value it was created with.
    free = DispatchSemaphore(value: 0)
    for _ in slots { free.signal() }
  }

  /// The walking thread: fills slot after slot until the stream ends, fails, or the
  /// caller stops. A slot without a chunk marks the end (and the failure, if any).
  func produce() {
    defer { finished.signal() }
    var k = 0
    while true {
      free.wait()
      if stopping.withLock({ $0 }) { return }
      do {
        if let chunk = try stream.next() { slots[k].fill(chunk) } else { slots[k].clear() }
      } catch {
        failure = error
        slots[k].clear()
      }
      let ended = slots[k].chunk == nil
      filled.signal()
      if ended { return }
      k = 1 - k
    }
  }

  /// Ends the walking thread (it may be waiting for a free slot) and waits for it.
  func stop() {
    stopping.withLock { $0 = true }
    free.signal()
    finished.wait()
  }
}

/// One chunk copied out of the stream's buffers, in buffers kept from chunk to chunk.
private final class ChunkSlot {
  private var int64s = UnsafeMutableBufferPointer<Int64>(start: nil, count: 0)
  private var doubles = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
  private var bytes = UnsafeMutableBufferPointer<Int8>(start: nil, count: 0)
  private var flags = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
  /// The copy, `nil` when the slot marks the end.
  private(set) var chunk: PremiumChunk? = nil

  deinit {
    int64s.deallocate()
    doubles.deallocate()
    bytes.deallocate()
    flags.deallocate()
  }

  func clear() { chunk = nil }

  /// Copies `source`'s columns, laid end to end in one buffer per element type.
  func fill(_ source: PremiumChunk) {
    let n = source.count
    let int64Count = 2 * n + source.quoteTimes.count
    let doubleCount = 2 * n + source.quotes.count + source.usableQuotes.count
    Self.reserve(&int64s, int64Count)
    Self.reserve(&doubles, doubleCount)
    Self.reserve(&bytes, 4 * n)
    Self.reserve(&flags, n)
    var (i, d, b) = (0, 0, 0)
    func copy<T>(_ column: UnsafeBufferPointer<T>, _ into: UnsafeMutableBufferPointer<T>, _ at: inout Int) -> UnsafeBufferPointer<T> {
      let part = UnsafeMutableBufferPointer(rebasing: into[at..<(at + column.count)])
      if !column.isEmpty {
        UnsafeMutableRawPointer(part.baseAddress!).copyMemory(from: column.baseAddress!, byteCount: column.count * MemoryLayout<T>.stride)
      }
      at += column.count
      return UnsafeBufferPointer(part)
    }
    var f = 0
    chunk = PremiumChunk(
      time: copy(source.time, int64s, &i), duration: copy(source.duration, int64s, &i), valid: copy(source.valid, flags, &f),
      mid: copy(source.mid, doubles, &d), exec: copy(source.exec, doubles, &d), rich: copy(source.rich, bytes, &b),
      cheap: copy(source.cheap, bytes, &b), top: copy(source.top, bytes, &b), bottom: copy(source.bottom, bytes, &b),
      quotes: copy(source.quotes, doubles, &d), quoteTimes: copy(source.quoteTimes, int64s, &i),
      usableQuotes: copy(source.usableQuotes, doubles, &d))
  }

  /// Grows `buffer` to hold `count` elements (its contents dropped).
  private static func reserve<T>(_ buffer: inout UnsafeMutableBufferPointer<T>, _ count: Int) {
    guard buffer.count < count else { return }
    buffer.deallocate()
    buffer = .allocate(capacity: count)
  }
}
