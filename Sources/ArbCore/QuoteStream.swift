/// Consecutive quotes of one series, ascending in time with no repeated time: the unit a
/// streaming run works on.
///
/// The buffers belong to the stream that produced the chunk (a mapped partition of a
/// store, a parser's reusable block, an array) and stay valid only until the next call to
/// that stream's `next(maxRows:)`: a consumer that needs a value later (the quote in
/// force at a chunk boundary) copies it. `bidSize` and `askSize` are empty when the
/// stream was opened without sizes; `otherTime` is empty when the source has one clock
/// or it was not asked for; `books` is `nil` unless the source keeps the order book
/// behind each quote (`QuoteSeries.depth`).
public struct QuoteChunk: @unchecked Sendable {
  public let time: UnsafeBufferPointer<Int64>
  public let otherTime: UnsafeBufferPointer<Int64>
  public let bid: UnsafeBufferPointer<Double>
  public let ask: UnsafeBufferPointer<Double>
  public let bidSize: UnsafeBufferPointer<Double>
  public let askSize: UnsafeBufferPointer<Double>
  /// The book behind each quote, one per time.
  public let books: BookChunk?

  public init(
    time: UnsafeBufferPointer<Int64>, otherTime: UnsafeBufferPointer<Int64> = UnsafeBufferPointer(start: nil, count: 0),
    bid: UnsafeBufferPointer<Double>, ask: UnsafeBufferPointer<Double>,
    bidSize: UnsafeBufferPointer<Double> = UnsafeBufferPointer(start: nil, count: 0),
    askSize: UnsafeBufferPointer<Double> = UnsafeBufferPointer(start: nil, count: 0), books: BookChunk? = nil
  ) {
    precondition(bid.count == time.count && ask.count == time.count, "a chunk's price columns have one value per time")
    precondition(bidSize.isEmpty || bidSize.count == time.count, "bid sizes are absent or one per time")
    precondition(askSize.isEmpty || askSize.count == time.count, "ask sizes are absent or one per time")
    precondition(otherTime.isEmpty || otherTime.count == time.count, "other times are absent or one per time")
    precondition(books == nil || books!.count == time.count, "books are absent or one per time")
    self.time = time
    self.otherTime = otherTime
    self.bid = bid
    self.ask = ask
    self.bidSize = bidSize
    self.askSize = askSize
    self.books = books
  }

  /// Number of quotes.
  public var count: Int { time.count }
}

/// One series read a bounded chunk at a time, in time order: what a streaming run
/// consumes instead of a whole `QuoteSeries`, so that its memory depends on the chunk
/// size and not on the length of the history.
public protocol QuoteStream: AnyObject {
  var instrument: Instrument { get }
  var priceSource: PriceSource { get }
  var field: SeriesField { get }
  var clock: Clock { get }
  /// The time of the last quote the stream will yield when it is known before the stream
  /// ends (a series in memory, a store's manifest), else `nil`.
  var lastTime: Int64? { get }
  /// The next at most `maxRows` quotes (`maxRows > 0`), continuing where the previous
  /// chunk ended; `nil` once the series is exhausted. Invalidates the previous chunk.
  func next(maxRows: Int) throws -> QuoteChunk?
  /// How many quotes the stream yields, when known before it ends (a series in memory;
  /// a store: its partitions' rows, counted whole for one a time window cuts), else `nil`.
  var expectedRows: Int? { get }
}

extension QuoteStream {
  public var expectedRows: Int? { nil }
}

/// A stream made from another, `base`: what it does not declare itself is `base`'s.
public protocol QuoteStreamWrapper: QuoteStream {
  /// The stream wrapped.
  var base: any QuoteStream { get }
}

// More specific than `QuoteStream`'s, so `expectedRows` here wins over its `nil`.
extension QuoteStreamWrapper {
  public var instrument: Instrument { base.instrument }
  public var priceSource: PriceSource { base.priceSource }
  public var field: SeriesField { base.field }
  public var clock: Clock { base.clock }
  public var lastTime: Int64? { base.lastTime }
  public var expectedRows: Int? { base.expectedRows }
}

/// A `QuoteStream` over a series held in memory: each chunk is copied into buffers the
/// stream reuses, so a chunk never points into an array.
///
/// Used for sources that cannot be streamed (an unsorted file is ordered in memory) and
/// by tests, which compare a streamed run with the whole-series computation.
public final class SeriesQuoteStream: QuoteStream {
  public let series: QuoteSeries
  private var position = 0
  private var block = ChunkBlock()

  public init(_ series: QuoteSeries) { self.series = series }

  public var instrument: Instrument { series.instrument }
  public var priceSource: PriceSource { series.priceSource }
  public var field: SeriesField { series.field }
  public var clock: Clock { series.clock }
  public var lastTime: Int64? { series.time.last }
  public var expectedRows: Int? { series.count }

  public func next(maxRows: Int) throws -> QuoteChunk? {
    precondition(maxRows > 0, "a chunk holds at least one row")
    guard position < series.count else { return nil }
    let range = position..<(position + min(maxRows, series.count - position))
    position = range.upperBound
    func fill(books: BookChunk?) -> QuoteChunk {
      block.fill(
        rows: range.count, time: series.time[range], otherTime: series.otherTime.isEmpty ? nil : series.otherTime[range],
        bid: series.bid[range], ask: series.ask[range], bidSize: series.bidSize.isEmpty ? nil : series.bidSize[range],
        askSize: series.askSize.isEmpty ? nil : series.askSize[range], books: books)
    }
    guard let depth = series.depth else { return fill(books: nil) }
    return depth.withChunk { fill(books: $0.slice(range)) }
  }
}

/// Another stream's quotes, each chunk's count handed to `counted` as it is read (what a
/// progress line shows).
public final class CountingQuoteStream: QuoteStreamWrapper {
  public let base: any QuoteStream
  private let counted: (Int) -> Void

  public init(_ base: any QuoteStream, counted: @escaping (Int) -> Void) {
    self.base = base
    self.counted = counted
  }

  public func next(maxRows: Int) throws -> QuoteChunk? {
    let chunk = try base.next(maxRows: maxRows)
    if let chunk { counted(chunk.count) }
    return chunk
  }
}

/// Reusable column buffers that a stream writes its chunks into: filled from columns
/// at once, or appended to a quote at a time; all six columns grow together, and the
/// books (`appendBook`) with them when the quotes have some.
public struct ChunkBlock: ~Copyable {
  private var capacity = 0
  private var time = UnsafeMutablePointer<Int64>.allocate(capacity: 0)
  private var otherTime = UnsafeMutablePointer<Int64>.allocate(capacity: 0)
  private var bid = UnsafeMutablePointer<Double>.allocate(capacity: 0)
  private var ask = UnsafeMutablePointer<Double>.allocate(capacity: 0)
  private var bidSize = UnsafeMutablePointer<Double>.allocate(capacity: 0)
  private var askSize = UnsafeMutablePointer<Double>.allocate(capacity: 0)
  private var books = BookBlock()
  /// Quotes held.
  public private(set) var count = 0

  public init() {}

  deinit {
    time.deallocate()
    otherTime.deallocate()
    bid.deallocate()
    ask.deallocate()
    bidSize.deallocate()
    askSize.deallocate()
  }

  /// Forgets the quotes held, keeping the room.
  public mutating func removeAll() {
    count = 0
    books.removeAll()
  }

  /// Appends the book of the quote appended last (or about to be): the books, when
  /// appended, go one per quote.
  public func appendBook(_ books: BookChunk, _ i: Int) { self.books.append(books, i) }

  /// Appends one quote.
  @inline(__always)
  public mutating func append(time t: Int64, otherTime other: Int64, bid b: Double, ask a: Double, bidSize bs: Double, askSize asz: Double) {
    if count == capacity { reserve(count + 1) }
    time[count] = t
    otherTime[count] = other
    bid[count] = b
    ask[count] = a
    bidSize[count] = bs
    askSize[count] = asz
    count += 1
  }

  /// The quotes at `rows` as a chunk, valid until the block next changes; `otherTime`
  /// and `sizes` say whether those columns are in it, `books` whether the books are.
  public func chunk(_ rows: Range<Int>, otherTime withOtherTime: Bool, sizes: Bool, books withBooks: Bool = false) -> QuoteChunk {
    precondition(rows.upperBound <= count, "a chunk of the quotes held")
    precondition(!withBooks || books.count == count, "a book for every quote held")
    func view<T>(_ column: UnsafeMutablePointer<T>, _ present: Bool = true) -> UnsafeBufferPointer<T> {
      present ? UnsafeBufferPointer(start: column + rows.lowerBound, count: rows.count) : UnsafeBufferPointer(start: nil, count: 0)
    }
    return QuoteChunk(
      time: view(time), otherTime: view(otherTime, withOtherTime), bid: view(bid), ask: view(ask), bidSize: view(bidSize, sizes),
      askSize: view(askSize, sizes), books: withBooks ? books.chunk(rows) : nil)
  }

  /// Replaces the quotes held by `rows` values of each column given (an absent column
  /// is not in the chunk) and returns them as a chunk, valid until the block next changes.
  public mutating func fill(
    rows: Int, time: some Collection<Int64>, otherTime: (some Collection<Int64>)?, bid: some Collection<Double>,
    ask: some Collection<Double>, bidSize: (some Collection<Double>)?, askSize: (some Collection<Double>)?, books: BookChunk? = nil
  ) -> QuoteChunk {
    removeAll()
    reserve(rows)
    count = rows
    Self.copy(time, rows, into: self.time)
    Self.copy(bid, rows, into: self.bid)
    Self.copy(ask, rows, into: self.ask)
    if let otherTime { Self.copy(otherTime, rows, into: self.otherTime) }
    if let bidSize { Self.copy(bidSize, rows, into: self.bidSize) }
    if let askSize { Self.copy(askSize, rows, into: self.askSize) }
    precondition((bidSize == nil) == (askSize == nil), "sizes come in pairs")
    if let books {
      precondition(books.count == rows, "a book per row")
      self.books.append(contentsOf: books)
    }
    return chunk(0..<rows, otherTime: otherTime != nil, sizes: bidSize != nil, books: books != nil)
  }

  private static func copy<T>(_ values: some Collection<T>, _ rows: Int, into column: UnsafeMutablePointer<T>) {
    precondition(values.count == rows, "a chunk's columns have one value per row")
    _ = UnsafeMutableBufferPointer(start: column, count: rows).initialize(from: values)
  }

  /// Makes room for `rows` quotes, keeping those held.
  private mutating func reserve(_ rows: Int) {
    guard rows > capacity else { return }
    let room = Swift.max(rows, 2 * capacity, 1024)
    func moved<T>(_ old: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<T> {
      let new = UnsafeMutablePointer<T>.allocate(capacity: room)
      new.moveInitialize(from: old, count: count)
      old.deallocate()
      return new
    }
    time = moved(time)
    otherTime = moved(otherTime)
    bid = moved(bid)
    ask = moved(ask)
    bidSize = moved(bidSize)
    askSize = moved(askSize)
    capacity = room
  }
}
