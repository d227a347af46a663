import Synchronization

/// One `QuoteStream` read by several consumers, each at its own pace: every `branch()`
/// is a stream of all the source's quotes from the first. The source is read once; its
/// chunks are copied into segments that live until every branch has passed them (and
/// no branch still holds a chunk in them), and freed segments are reused.
///
/// Memory is the quotes between the slowest and the fastest branch, in whole source
/// chunks. Branches may be read from different threads (a lock orders their reads); one
/// branch from one thread at a time.
public final class QuoteTee: @unchecked Sendable {
  private let lock = Mutex(())
  private let source: any QuoteStream
  /// Quotes asked of the source at a time.
  private let rows: Int
  /// The segments held, in row order, and freed ones kept for reuse.
  private var segments: [Segment] = []
  private var spare: [Segment] = []
  /// Per branch: the next row it reads, and the first row of the segment its last chunk is in.
  private var positions: [Int] = []
  private var holding: [Int] = []
  /// Rows read from the source so far.
  private var read = 0
  private var ended = false

  /// A tee of `source`, read `rows` quotes at a time.
  public init(_ source: any QuoteStream, rows: Int) {
    precondition(rows > 0, "a chunk holds at least one row")
    self.source = source
    self.rows = rows
  }

  /// A new branch: a stream of every quote of the source, from the first (made before
  /// any branch reads).
  public func branch() -> any QuoteStream {
    precondition(read == 0, "branches are made before the tee is read")
    positions.append(0)
    holding.append(0)
    return Branch(tee: self, index: positions.count - 1)
  }

  /// Branch `b`'s next at most `maxRows` quotes.
  fileprivate func next(branch b: Int, maxRows: Int) throws -> QuoteChunk? {
    precondition(maxRows > 0, "a chunk holds at least one row")
    return try lock.withLock { _ throws -> QuoteChunk? in try take(branch: b, maxRows: maxRows) }
  }

  /// `next(branch:maxRows:)` under the lock.
  private func take(branch b: Int, maxRows: Int) throws -> QuoteChunk? {
    let position = positions[b]
    if position == read {
      guard !ended, let chunk = try source.next(maxRows: rows) else {
        ended = true
        return nil
      }
      let segment = spare.popLast() ?? Segment()
      segment.fill(chunk, start: read)
      segments.append(segment)
      read += chunk.count
      guard chunk.count > 0 else { return try take(branch: b, maxRows: maxRows) }
    }
    // The segment holding `position` (few are held: a linear search from the end).
    let segment = segments.last { $0.start <= position }!
    let end = min(position + maxRows, segment.start + segment.count)
    positions[b] = end
    holding[b] = segment.start
    release()
    return segment.chunk((position - segment.start)..<(end - segment.start))
  }

  /// Frees the segments below every branch's position and every chunk held.
  private func release() {
    let kept = zip(positions, holding).map { min($0, $1) }.min() ?? read
    while let first = segments.first, first.start + first.count <= kept, segments.count > 1 {
      spare.append(segments.removeFirst())
    }
  }

  /// A source chunk, copied.
  private final class Segment {
    var block = ChunkBlock()
    var start = 0
    var count: Int { block.count }
    var otherTime = false
    var sizes = false
    var books = false

    func fill(_ chunk: QuoteChunk, start: Int) {
      self.start = start
      otherTime = !chunk.otherTime.isEmpty
      sizes = !chunk.bidSize.isEmpty
      books = chunk.books != nil
      _ = block.fill(
        rows: chunk.count, time: chunk.time, otherTime: otherTime ? chunk.otherTime : nil, bid: chunk.bid, ask: chunk.ask,
        bidSize: sizes ? chunk.bidSize : nil, askSize: sizes ? chunk.askSize : nil, books: chunk.books)
    }

    func chunk(_ rows: Range<Int>) -> QuoteChunk { block.chunk(rows, otherTime: otherTime, sizes: sizes, books: books) }
  }

  /// One consumer's stream.
  private final class Branch: QuoteStreamWrapper {
    let tee: QuoteTee
    let index: Int

    init(tee: QuoteTee, index: Int) {
      self.tee = tee
      self.index = index
    }

    var base: any QuoteStream { tee.source }

    func next(maxRows: Int) throws -> QuoteChunk? { try tee.next(branch: index, maxRows: maxRows) }
  }
}
