import ArbCore

/// A `QuoteStream` read ahead on a thread of its own (`ReadAhead`): the wrapped stream (a file being
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
  public var priceSource: PriceSource { ended ? inner.priceSource : startingPriceSource }

  private let startingPriceSource: PriceSource
  private let inner: any QuoteStream
  private let ahead: ReadAhead<Slot>
  /// The slot being handed out, and how far.
  private var current: Slot? = nil
  private var offset = 0
  private var ended = false

  /// Starts reading `stream` ahead, `slots` chunks of `rows` quotes at most.
  public init(_ stream: any QuoteStream, rows: Int, slots: Int = 3) {
    precondition(rows > 0 && slots > 1, "prefetching needs chunks of a row or more and two slots or more")
    instrument = stream.instrument
    field = stream.field
    clock = stream.clock
    lastTime = stream.lastTime
    startingPriceSource = stream.priceSource
    inner = stream
    ahead = ReadAhead(slots: (0..<slots).map { _ in Slot() }, name: "arbkit.prefetch-quotes") { slot in
      guard let chunk = try stream.next(maxRows: rows) else { return false }
      slot.fill(chunk)
      return true
    }
  }

  deinit { ahead.stop() }

  public func next(maxRows: Int) throws -> QuoteChunk? {
    precondition(maxRows > 0, "a chunk holds at least one row")
    guard !ended else { return nil }
    while current.map({ offset == $0.count }) ?? true {
      if current != nil { ahead.release() }
      current = ahead.take()
      offset = 0
      if current == nil {
        ended = true
        if let failure = ahead.failure { throw failure }
        return nil
      }
    }
    let slot = current!
    let rows = offset..<min(slot.count, offset + maxRows)
    offset = rows.upperBound
    return slot.chunk(rows)
  }

  /// One chunk of the wrapped stream, copied.
  private final class Slot {
    private var block = ChunkBlock()
    private var hasOtherTime = false
    private var hasSizes = false
    private var hasBooks = false
    var count: Int { block.count }

    func fill(_ chunk: QuoteChunk) {
      hasOtherTime = !chunk.otherTime.isEmpty
      hasSizes = !chunk.bidSize.isEmpty
      hasBooks = chunk.books != nil
      _ = block.fill(
        rows: chunk.count, time: chunk.time, otherTime: hasOtherTime ? chunk.otherTime : nil, bid: chunk.bid, ask: chunk.ask,
        bidSize: hasSizes ? chunk.bidSize : nil, askSize: hasSizes ? chunk.askSize : nil, books: chunk.books)
    }

    func chunk(_ rows: Range<Int>) -> QuoteChunk { block.chunk(rows, otherTime: hasOtherTime, sizes: hasSizes, books: hasBooks) }
  }
}
