import ArbCore
import Dispatch
import Foundation
import Synchronization

/// A `QuoteStream` read ahead on a thread of its own: the wrapped stream (a file being
/// parsed) makes its next chunks while the caller works on the one before, so legs of
/// CSV files are parsed on every core while the alignment walks them. The quotes, and
/// the errors at the point they occur, are exactly those of the wrapped stream.
///
/// The wrapped stream belongs to the reading thread once this stream is made: its
/// instrument, field, clock and last time are read before; its price source once it has
/// ended.
public final class PrefetchedQuoteStream: QuoteStream {
  public let instrument: Instrument
  public let field: SeriesField
  public let clock: Clock
  public let lastTime: Int64?
  /// The wrapped stream's, read once it has ended (final then), else as it was at the start.
  public var priceSource: PriceSource { ended ? pipe.inner.priceSource : startingPriceSource }

  private let startingPriceSource: PriceSource
  private let pipe: Pipe
  /// The slot being handed out, and how far.
  private var slot = 0
  private var offset = 0
  private var holding = false
  private var ended = false

  /// Starts reading `stream` ahead, `slots` chunks of `rows` quotes at most.
  public init(_ stream: any QuoteStream, rows: Int, slots: Int = 3) {
    precondition(rows > 0 && slots > 1, "prefetching needs chunks of a row or more and two slots or more")
    instrument = stream.instrument
    field = stream.field
    clock = stream.clock
    lastTime = stream.lastTime
    startingPriceSource = stream.priceSource
    pipe = Pipe(inner: stream, rows: rows, slots: slots)
    let thread = Thread { [pipe] in pipe.produce() }
    thread.name = "arbkit.prefetch-quotes"
    thread.start()
  }

  deinit { pipe.stop() }

  public func next(maxRows: Int) throws -> QuoteChunk? {
    precondition(maxRows > 0, "a chunk holds at least one row")
    guard !ended else { return nil }
    if !holding || offset == pipe.slots[slot].count {
      if holding {
        pipe.release()
        slot = (slot + 1) % pipe.slots.count
      }
      pipe.filled.wait()
      holding = true
      offset = 0
      if pipe.slots[slot].count == 0 {
        ended = true
        if let failure = pipe.failure { throw failure }
        return nil
      }
    }
    let rows = offset..<min(pipe.slots[slot].count, offset + maxRows)
    offset = rows.upperBound
    return pipe.slots[slot].chunk(rows)
  }

  /// One chunk of the wrapped stream, copied.
  private final class Slot {
    private var block = ChunkBlock()
    private var hasOtherTime = false
    private var hasSizes = false
    var count: Int { block.count }

    func fill(_ chunk: QuoteChunk) {
      hasOtherTime = !chunk.otherTime.isEmpty
      hasSizes = !chunk.bidSize.isEmpty
      _ = block.fill(
        rows: chunk.count, time: chunk.time, otherTime: hasOtherTime ? chunk.otherTime : nil, bid: chunk.bid, ask: chunk.ask,
        bidSize: hasSizes ? chunk.bidSize : nil, askSize: hasSizes ? chunk.askSize : nil)
    }

    func clear() { block.removeAll() }

    func chunk(_ rows: Range<Int>) -> QuoteChunk { block.chunk(rows, otherTime: hasOtherTime, sizes: hasSizes) }
  }

  /// The state shared by the reading thread and the caller. The semaphores order every
  /// access: a slot is written only between `free.wait` and `filled.signal` and read
  /// only between `filled.wait` and `release`; `inner` is used by the reading thread
  /// alone until it has ended.
  private final class Pipe: @unchecked Sendable {
    let inner: any QuoteStream
    let rows: Int
    let slots: [Slot]
    var failure: (any Error)? = nil
    let filled = DispatchSemaphore(value: 0)
    private let free: DispatchSemaphore
    private let finished = DispatchSemaphore(value: 0)
    private let stopping = Mutex(false)

    init(inner: any QuoteStream, rows: Int, slots: Int) {
      self.inner = inner
      self.rows = rows
      self.slots = (0..<slots).map { _ in Slot() }
      // Created at 0 and signalled: libdispatch refuses to dispose of a semaphore whose
      // count is below the value it was created with.
      free = DispatchSemaphore(value: 0)
      for _ in 0..<slots { free.signal() }
    }

    /// The reading thread: fills slot after slot until the stream ends, fails, or the
    /// caller stops listening. An empty slot marks the end (and the failure, if any).
    func produce() {
      defer { finished.signal() }
      var k = 0
      while true {
        free.wait()
        if stopping.withLock({ $0 }) { return }
        do {
          if let chunk = try inner.next(maxRows: rows) {
            slots[k].fill(chunk)
          } else {
            slots[k].clear()
          }
        } catch {
          failure = error
          slots[k].clear()
        }
        let ended = slots[k].count == 0
        filled.signal()
        if ended { return }
        k = (k + 1) % slots.count
      }
    }

    /// The caller is done with a slot.
    func release() { free.signal() }

    /// Ends the reading thread (it may be waiting for a free slot) and waits for it.
    func stop() {
      stopping.withLock { $0 = true }
      free.signal()
      finished.wait()
    }
  }
}
