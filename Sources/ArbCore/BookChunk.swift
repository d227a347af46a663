/// The order books behind consecutive quotes of a chunk, laid out as `BookDepth` but in
/// buffers that belong to whoever made the chunk (valid as long as the chunk is).
///
/// The bid levels of book `i` are `bidPrice[bidStart[i]..<bidStart[i + 1]]` with their
/// sizes in `bidSize`, best first; asks likewise. The offsets index the level buffers
/// from their start, and `bidStart[0]` need not be 0, so that a run of books is a slice
/// of the offsets over the same level buffers.
public struct BookChunk: @unchecked Sendable {
  public let bidStart: UnsafeBufferPointer<Int>
  public let askStart: UnsafeBufferPointer<Int>
  public let bidPrice: UnsafeBufferPointer<Double>
  public let bidSize: UnsafeBufferPointer<Double>
  public let askPrice: UnsafeBufferPointer<Double>
  public let askSize: UnsafeBufferPointer<Double>

  public init(
    bidStart: UnsafeBufferPointer<Int>, askStart: UnsafeBufferPointer<Int>, bidPrice: UnsafeBufferPointer<Double>,
    bidSize: UnsafeBufferPointer<Double>, askPrice: UnsafeBufferPointer<Double>, askSize: UnsafeBufferPointer<Double>
  ) {
    precondition(bidStart.count == askStart.count && !bidStart.isEmpty, "one offset more than books on each side")
    (self.bidStart, self.askStart) = (bidStart, askStart)
    (self.bidPrice, self.bidSize, self.askPrice, self.askSize) = (bidPrice, bidSize, askPrice, askSize)
  }

  /// Number of books.
  public var count: Int { bidStart.count - 1 }

  /// The most books a stream hands out at a time, whatever rows it is asked for: a chunk
  /// of books is copied on by each reader (a read-ahead, a leg's book in force), and
  /// 4,096 books of 25 levels a side are about 3 MB.
  public static let rowsAtATime = 1 << 12

  /// The prices and sizes of one side of book `i`, best first.
  @inline(__always)
  public func side(_ i: Int, bid: Bool) -> (prices: UnsafeBufferPointer<Double>, sizes: UnsafeBufferPointer<Double>) {
    let (start, prices, sizes) = bid ? (bidStart, bidPrice, bidSize) : (askStart, askPrice, askSize)
    let levels = start[i]..<start[i + 1]
    return (UnsafeBufferPointer(rebasing: prices[levels]), UnsafeBufferPointer(rebasing: sizes[levels]))
  }

  /// The books `rows`, over the same level buffers.
  public func slice(_ rows: Range<Int>) -> BookChunk {
    let offsets = rows.lowerBound..<(rows.upperBound + 1)
    return BookChunk(
      bidStart: UnsafeBufferPointer(rebasing: bidStart[offsets]), askStart: UnsafeBufferPointer(rebasing: askStart[offsets]),
      bidPrice: bidPrice, bidSize: bidSize, askPrice: askPrice, askSize: askSize)
  }

  /// The most levels on a side of any of these books.
  public var deepest: Int {
    var most = 0
    for i in 0..<count { most = max(most, bidStart[i + 1] - bidStart[i], askStart[i + 1] - askStart[i]) }
    return most
  }
}

/// Reusable buffers that books are appended to and handed out as a `BookChunk`, valid
/// until the block next changes.
public final class BookBlock {
  // Unchecked: every use is inside one call of a method of this class, which is never
  // reentered (the block is owned by one reader at a time); a checked access per column
  // per book was a fifth of a book stream's time.
  @exclusivity(unchecked) private var bidStart = GrowingColumn<Int>()
  @exclusivity(unchecked) private var askStart = GrowingColumn<Int>()
  @exclusivity(unchecked) private var bidPrice = GrowingColumn<Double>()
  @exclusivity(unchecked) private var bidSize = GrowingColumn<Double>()
  @exclusivity(unchecked) private var askPrice = GrowingColumn<Double>()
  @exclusivity(unchecked) private var askSize = GrowingColumn<Double>()

  public init() {
    bidStart.append(0)
    askStart.append(0)
  }

  /// Books held.
  public var count: Int { bidStart.count - 1 }

  /// Forgets the books held, keeping the room.
  public func removeAll() {
    bidStart.count = 1
    askStart.count = 1
    bidPrice.count = 0
    bidSize.count = 0
    askPrice.count = 0
    askSize.count = 0
  }

  /// Appends a book of the given sides' levels, best first.
  public func append(
    bids: (prices: UnsafeBufferPointer<Double>, sizes: UnsafeBufferPointer<Double>),
    asks: (prices: UnsafeBufferPointer<Double>, sizes: UnsafeBufferPointer<Double>)
  ) {
    bidPrice.append(contentsOf: bids.prices)
    bidSize.append(contentsOf: bids.sizes)
    askPrice.append(contentsOf: asks.prices)
    askSize.append(contentsOf: asks.sizes)
    bidStart.append(bidPrice.count)
    askStart.append(askPrice.count)
  }

  /// Appends every book of `books`.
  public func append(contentsOf books: BookChunk) {
    guard books.count > 0 else { return }
    let (bidBase, askBase) = (bidPrice.count - books.bidStart[0], askPrice.count - books.askStart[0])
    let bids = books.bidStart[0]..<books.bidStart[books.count], asks = books.askStart[0]..<books.askStart[books.count]
    bidPrice.append(contentsOf: UnsafeBufferPointer(rebasing: books.bidPrice[bids]))
    bidSize.append(contentsOf: UnsafeBufferPointer(rebasing: books.bidSize[bids]))
    askPrice.append(contentsOf: UnsafeBufferPointer(rebasing: books.askPrice[asks]))
    askSize.append(contentsOf: UnsafeBufferPointer(rebasing: books.askSize[asks]))
    for i in 1...books.count {
      bidStart.append(books.bidStart[i] + bidBase)
      askStart.append(books.askStart[i] + askBase)
    }
  }

  /// Appends book `i` of `books`, its prices divided by `rate` unless it is 1 (a
  /// conversion to another currency, as `FXConversion` divides a series' books).
  public func append(_ books: BookChunk, _ i: Int, dividingPricesBy rate: Double = 1) {
    let (bids, asks) = (books.side(i, bid: true), books.side(i, bid: false))
    append(bids: bids, asks: asks)
    guard rate != 1 else { return }
    bidPrice.divideLast(bids.prices.count, by: rate)
    askPrice.divideLast(asks.prices.count, by: rate)
  }

  /// The books `rows` held, valid until the block next changes.
  public func chunk(_ rows: Range<Int>) -> BookChunk {
    precondition(rows.upperBound <= count, "books held")
    let offsets = rows.lowerBound..<(rows.upperBound + 1)
    return BookChunk(
      bidStart: UnsafeBufferPointer(rebasing: bidStart.buffer[offsets]), askStart: UnsafeBufferPointer(rebasing: askStart.buffer[offsets]),
      bidPrice: bidPrice.buffer, bidSize: bidSize.buffer, askPrice: askPrice.buffer, askSize: askSize.buffer)
  }

  /// Every book held.
  public var all: BookChunk { chunk(0..<count) }
}

/// A column of values that grows by doubling, in memory of its own.
struct GrowingColumn<T: BitwiseCopyable>: ~Copyable {
  private var base = UnsafeMutablePointer<T>.allocate(capacity: 0)
  private var capacity = 0
  /// Values held (lowering it forgets the last ones).
  var count = 0

  init() {}

  deinit { base.deallocate() }

  /// The values held.
  var buffer: UnsafeBufferPointer<T> { UnsafeBufferPointer(start: base, count: count) }

  @inline(__always)
  mutating func append(_ value: T) {
    if count == capacity { reserve(count + 1) }
    (base + count).initialize(to: value)
    count += 1
  }

  mutating func append(contentsOf values: UnsafeBufferPointer<T>) {
    guard !values.isEmpty else { return }
    if count + values.count > capacity { reserve(count + values.count) }
    (base + count).initialize(from: values.baseAddress!, count: values.count)
    count += values.count
  }

  /// Divides the last `n` values by `divisor`.
  mutating func divideLast(_ n: Int, by divisor: Double) where T == Double {
    for j in (count - n)..<count { base[j] /= divisor }
  }

  private mutating func reserve(_ wanted: Int) {
    let room = Swift.max(wanted, 2 * capacity, 256)
    let new = UnsafeMutablePointer<T>.allocate(capacity: room)
    new.moveInitialize(from: base, count: count)
    base.deallocate()
    (base, capacity) = (new, room)
  }
}
