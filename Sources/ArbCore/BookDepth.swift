/// Order-book depth of a series: one book per quote, every level in flat `Float64`
/// buffers with per-book offsets (no array per book).
///
/// The bid levels of book `i` are `bidPrice[bidStart[i]..<bidStart[i + 1]]` with their
/// sizes in `bidSize`, best first (prices descending); asks likewise, prices ascending.
/// A side may have no level (an empty side of the source).
public struct BookDepth: Sendable, Equatable {
  public var bidStart: [Int] = [0]
  public var bidPrice: [Double] = []
  public var bidSize: [Double] = []
  public var askStart: [Int] = [0]
  public var askPrice: [Double] = []
  public var askSize: [Double] = []

  public init() {}

  /// Number of books.
  public var count: Int { bidStart.count - 1 }

  /// Adds one level to the book being written (best first).
  @inline(__always)
  public mutating func appendLevel(bid: Bool, price: Double, size: Double) {
    if bid {
      bidPrice.append(price)
      bidSize.append(size)
    } else {
      askPrice.append(price)
      askSize.append(size)
    }
  }

  /// Ends the book being written: the levels added since the last call are its levels.
  @inline(__always)
  public mutating func closeBook() {
    bidStart.append(bidPrice.count)
    askStart.append(askPrice.count)
  }

  /// The books at `rows`, in that order.
  public func selecting(_ rows: [Int]) -> BookDepth {
    var out = BookDepth()
    for i in rows {
      out.bidPrice += bidPrice[bidStart[i]..<bidStart[i + 1]]
      out.bidSize += bidSize[bidStart[i]..<bidStart[i + 1]]
      out.askPrice += askPrice[askStart[i]..<askStart[i + 1]]
      out.askSize += askSize[askStart[i]..<askStart[i + 1]]
      out.closeBook()
    }
    return out
  }

  /// Removes the first `count` books, keeping the buffers' capacity.
  public mutating func removeFirst(_ count: Int) {
    guard count > 0 else { return }
    let (bids, asks) = (bidStart[count], askStart[count])
    bidPrice.removeFirst(bids)
    bidSize.removeFirst(bids)
    askPrice.removeFirst(asks)
    askSize.removeFirst(asks)
    bidStart.removeFirst(count)
    askStart.removeFirst(count)
    for i in bidStart.indices {
      bidStart[i] -= bids
      askStart[i] -= asks
    }
  }

  /// Appends the books of `books` after these.
  public mutating func append(contentsOf books: BookChunk) {
    guard books.count > 0 else { return }
    let (bidBase, askBase) = (bidPrice.count - books.bidStart[0], askPrice.count - books.askStart[0])
    let bids = books.bidStart[0]..<books.bidStart[books.count], asks = books.askStart[0]..<books.askStart[books.count]
    bidPrice += books.bidPrice[bids]
    bidSize += books.bidSize[bids]
    askPrice += books.askPrice[asks]
    askSize += books.askSize[asks]
    bidStart += books.bidStart[1...].map { $0 + bidBase }
    askStart += books.askStart[1...].map { $0 + askBase }
  }

  /// Appends the books of `other` after these.
  public mutating func append(contentsOf other: BookDepth) {
    let (bidBase, askBase) = (bidPrice.count, askPrice.count)
    bidPrice += other.bidPrice
    bidSize += other.bidSize
    askPrice += other.askPrice
    askSize += other.askSize
    bidStart += other.bidStart.dropFirst().map { $0 + bidBase }
    askStart += other.askStart.dropFirst().map { $0 + askBase }
  }

  /// Bytes held by the level buffers and offsets.
  public var bytes: Int { (bidStart.count + askStart.count + bidPrice.count + bidSize.count + askPrice.count + askSize.count) * 8 }

  /// Calls `body` with every book as a chunk over these buffers.
  public func withChunk<R>(_ body: (BookChunk) throws -> R) rethrows -> R {
    try bidStart.withUnsafeBufferPointer { bidStart in
      try askStart.withUnsafeBufferPointer { askStart in
        try bidPrice.withUnsafeBufferPointer { bidPrice in
          try bidSize.withUnsafeBufferPointer { bidSize in
            try askPrice.withUnsafeBufferPointer { askPrice in
              try askSize.withUnsafeBufferPointer { askSize in
                try body(
                  BookChunk(
                    bidStart: bidStart, askStart: askStart, bidPrice: bidPrice, bidSize: bidSize, askPrice: askPrice, askSize: askSize))
              }
            }
          }
        }
      }
    }
  }

  /// The largest number of levels on a side of any book.
  public var deepest: Int {
    var most = 0
    for i in 0..<count { most = max(most, bidStart[i + 1] - bidStart[i], askStart[i + 1] - askStart[i]) }
    return most
  }
}
