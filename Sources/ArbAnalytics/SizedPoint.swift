import ArbCore

/// The sized trade at one point of an alignment (`SizedPremiumAnalyzer`):
/// the best edge over ordered pairs of legs and each band's capacity, from the books
/// of the legs `usable` there. Its buffers are made once and reused at every point.
final class SizedPoint {
  let quantity: Double
  let bands: [Double]
  /// Per leg, whether its quote is usable at the point (else the leg is left out).
  let usable: UnsafeMutableBufferPointer<Bool>
  /// Per band, the best capacity over pairs at the last point evaluated (0 when none).
  let capacity: UnsafeMutableBufferPointer<Double>
  private let bidAverage: UnsafeMutableBufferPointer<Double>, askAverage: UnsafeMutableBufferPointer<Double>

  init(quantity: Double, bands: [Double], legCount: Int) {
    (self.quantity, self.bands) = (quantity, bands)
    usable = .allocate(capacity: legCount)
    usable.initialize(repeating: false)
    capacity = .allocate(capacity: bands.count)
    capacity.initialize(repeating: 0)
    bidAverage = .allocate(capacity: legCount)
    bidAverage.initialize(repeating: .nan)
    askAverage = .allocate(capacity: legCount)
    askAverage.initialize(repeating: .nan)
  }

  deinit {
    usable.deallocate()
    for buffer in [capacity, bidAverage, askAverage] { buffer.deallocate() }
  }

  /// The best `(avgBid_s(Q) / avgAsk_c(Q) − 1) × 100` over ordered pairs (sell on s, buy
  /// on c) whose books fill `quantity`, `nil` when no pair does; sets `capacity`.
  func evaluate(_ books: [LegBooks]) -> (edge: Double, sell: Int, buy: Int)? {
    let legCount = usable.count
    for k in 0..<legCount {
      bidAverage[k] = usable[k] ? books[k].average(bid: true, quantity: quantity) ?? .nan : .nan
      askAverage[k] = usable[k] ? books[k].average(bid: false, quantity: quantity) ?? .nan : .nan
    }
    var best = (edge: -Double.infinity, sell: -1, buy: -1)
    for s in 0..<legCount where !bidAverage[s].isNaN {
      for c in 0..<legCount where c != s && !askAverage[c].isNaN {
        let edge = (bidAverage[s] / askAverage[c] - 1) * 100
        if edge > best.edge { best = (edge, s, c) }
      }
    }
    for (b, band) in bands.enumerated() {
      var most = 0.0
      for s in 0..<legCount where usable[s] {
        for c in 0..<legCount where c != s && usable[c] {
          most = max(most, books[s].capacity(against: books[c], band: band))
        }
      }
      capacity[b] = most
    }
    return best.sell >= 0 ? best : nil
  }
}

/// The book of one leg at a point of a stream: the order book behind its quote, or its
/// top level with its sizes (also walked by `SizedBasisAnalyzer`). A class: the walk
/// passes it at every point.
final class LegBooks {
  /// The top level of the point being worked on, set by its owner: bid, bid size, ask,
  /// ask size.
  private let top: UnsafeMutablePointer<Double>
  /// The books of the chunk being worked on (`PremiumChunk.usableBooks`), and the index
  /// in them of the leg's book at the point, -1 for a quote without one: both set by
  /// the owner.
  var books: BookChunk? = nil
  var index = -1

  /// A streamed leg's books, the one level at `top` (bid, bid size, ask, ask size) at a
  /// point whose quote has no book.
  init(top: UnsafeMutablePointer<Double>) { self.top = top }

  /// Calls `body` with the prices and sizes of one side of the point's book, best first.
  @inline(__always)
  func withSide<R>(bid: Bool, _ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>) -> R) -> R {
    guard index >= 0 else {
      let price = top + (bid ? 0 : 2)
      // An unknown size (nan) fills nothing: no level.
      let count = price[1].isNaN ? 0 : 1
      return body(UnsafeBufferPointer(start: price, count: count), UnsafeBufferPointer(start: price + 1, count: count))
    }
    let side = books.unsafelyUnwrapped.side(index, bid: bid)
    return body(side.prices, side.sizes)
  }

  func average(bid: Bool, quantity: Double) -> Double? {
    withSide(bid: bid) { BookWalk.averagePrice(prices: $0, sizes: $1, quantity: quantity) }
  }

  /// The capacity of selling into this leg's bids and buying `other`'s asks at the point.
  func capacity(against other: LegBooks, band: Double) -> Double {
    withSide(bid: true) { bidPrices, bidSizes in
      other.withSide(bid: false) { askPrices, askSizes in
        BookWalk.capacity(bidPrices: bidPrices, bidSizes: bidSizes, askPrices: askPrices, askSizes: askSizes, band: band)
      }
    }
  }
}

/// Statistics of a sized premium: the executable premium at the size (as `exec` of a
/// premium analysis, over the points where the size fills) and, per band, the capacity
/// over the valid points of the alignment, each point weighted by its duration.
public struct SizedAnalysis: Sendable {
  public var exec: SeriesSummary
  public var capacity: [SeriesStatistics]

  init(exec: SeriesSummary, capacity: [SeriesStatistics]) { (self.exec, self.capacity) = (exec, capacity) }
}
