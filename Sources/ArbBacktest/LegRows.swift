import ArbCore

/// A leg's quotes and books by row, as the book walker reads them (`BookWalker`): a
/// series in memory, or a stream read forward as the walks reach its rows, the rows
/// below the lowest one a later walk can start at dropped (`release(below:)`), so that
/// memory follows the span of the walks between two round trips' fill rows and the
/// chunk size, not the length of the leg.
final class LegRows {
  /// The stream still to read; `nil` once it ended, and for a series.
  private var stream: (any QuoteStream)?
  private let chunkRows: Int
  /// Whether the rows come from a stream (and may be dropped).
  let streams: Bool
  // Unchecked: the walker that owns the rows reads them one call at a time; a checked
  // access per level read would cost more than the walk.
  /// The leg row of the columns' first element.
  @exclusivity(unchecked) private(set) var base = 0
  @exclusivity(unchecked) private var bid: [Double]
  @exclusivity(unchecked) private var ask: [Double]
  /// The book behind each quote held, when the leg has books.
  @exclusivity(unchecked) private var depth: BookDepth?

  /// The rows of `series`, in memory (nothing is copied or dropped).
  init(_ series: QuoteSeries) {
    (bid, ask, depth) = (series.bid, series.ask, series.depth)
    (stream, chunkRows, streams) = (nil, 0, false)
  }

  /// The rows of `stream` from its first quote, read `chunkRows` quotes at a time.
  init(streaming stream: any QuoteStream, chunkRows: Int) {
    (bid, ask, depth) = ([], [], nil)
    (self.stream, self.chunkRows, streams) = (stream, chunkRows, true)
  }

  /// Whether the leg has row `row` (≥ the last `release` floor), reading on to it.
  /// - Throws: what the stream throws.
  func has(_ row: Int) throws -> Bool {
    while row - base >= bid.count, let next = stream {
      guard let chunk = try next.next(maxRows: chunkRows) else {
        stream = nil
        break
      }
      bid.append(contentsOf: chunk.bid)
      ask.append(contentsOf: chunk.ask)
      if let books = chunk.books {
        if depth == nil { depth = BookDepth() }
        depth!.append(contentsOf: books)
      }
    }
    return row - base < bid.count
  }

  /// The bid or the ask of row `row` of the leg, reading on to it.
  /// - Throws: what the stream throws.
  func quote(_ row: Int, _ side: BookSide) throws -> Double {
    let held = try has(row)
    precondition(held, "a row of the leg")
    return price(row, side)
  }

  /// The bid or the ask of row `row`, which the leg has.
  @inline(__always)
  func price(_ row: Int, _ side: BookSide) -> Double { side == .bid ? bid[row - base] : ask[row - base] }

  /// The levels of one side of the book of row `row`, which the leg has, as positions
  /// for `level`.
  @inline(__always)
  func levels(_ row: Int, _ side: BookSide) -> Range<Int> {
    let i = row - base
    return side == .bid ? depth!.bidStart[i]..<depth!.bidStart[i + 1] : depth!.askStart[i]..<depth!.askStart[i + 1]
  }

  /// The price and size of the level at position `l` of a side (`levels`).
  @inline(__always)
  func level(_ l: Int, _ side: BookSide) -> (price: Double, size: Double) {
    side == .bid ? (depth!.bidPrice[l], depth!.bidSize[l]) : (depth!.askPrice[l], depth!.askSize[l])
  }

  /// The last row held (`base - 1` when none is).
  var lastHeld: Int { base + bid.count - 1 }

  /// Whether dropping the rows below `row` would free at least half of those held.
  func worthDropping(below row: Int) -> Bool { 2 * (row - base) >= bid.count }

  /// Drops the rows below `row` (a stream's, held, from the base up: a series keeps its rows).
  func drop(below row: Int) {
    precondition(streams && row >= base && row <= lastHeld + 1, "rows held of a stream")
    bid.removeFirst(row - base)
    ask.removeFirst(row - base)
    depth?.removeFirst(row - base)
    base = row
  }
}
