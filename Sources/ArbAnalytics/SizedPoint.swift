import ArbCore

/// The sized trade at one point of an alignment (`SizedPremiumAnalyzer`):
/// the best edge over ordered pairs of legs and each band's capacity, from the legs'
/// books at `rows`. Its buffers are made once and reused at every point.
final class SizedPoint {
  let quantity: Double
  let bands: [Double]
  /// Per leg, the row of its book at the point; -1 leaves the leg out (not usable there).
  let rows: UnsafeMutableBufferPointer<Int>
  /// Per band, the best capacity over pairs at the last point evaluated (0 when none).
  let capacity: UnsafeMutableBufferPointer<Double>
  private let bidAverage: UnsafeMutableBufferPointer<Double>, askAverage: UnsafeMutableBufferPointer<Double>

  init(quantity: Double, bands: [Double], legCount: Int) {
    (self.quantity, self.bands) = (quantity, bands)
    rows = .allocate(capacity: legCount)
    rows.initialize(repeating: -1)
    capacity = .allocate(capacity: bands.count)
    capacity.initialize(repeating: 0)
    bidAverage = .allocate(capacity: legCount)
    bidAverage.initialize(repeating: .nan)
    askAverage = .allocate(capacity: legCount)
    askAverage.initialize(repeating: .nan)
  }

  deinit {
    rows.deallocate()
    for buffer in [capacity, bidAverage, askAverage] { buffer.deallocate() }
  }

  /// The best `(avgBid_s(Q) / avgAsk_c(Q) − 1) × 100` over ordered pairs (sell on s, buy
  /// on c) whose books fill `quantity`, `nil` when no pair does; sets `capacity`.
  func evaluate(_ books: [LegBooks]) -> (edge: Double, sell: Int, buy: Int)? {
    let legCount = rows.count
    for k in 0..<legCount {
      let j = rows[k]
      bidAverage[k] = j < 0 ? .nan : books[k].average(row: j, bid: true, quantity: quantity) ?? .nan
      askAverage[k] = j < 0 ? .nan : books[k].average(row: j, bid: false, quantity: quantity) ?? .nan
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
      for s in 0..<legCount where rows[s] >= 0 {
        for c in 0..<legCount where c != s && rows[c] >= 0 {
          most = max(most, books[s].capacity(row: rows[s], against: books[c], row: rows[c], band: band))
        }
      }
      capacity[b] = most
    }
    return best.sell >= 0 ? best : nil
  }
}

/// The books of one leg at a point of a stream: its depth, or its top level with its
/// sizes (also walked by `SizedBasisAnalyzer`). A class: the walk passes it at every
/// point.
final class LegBooks {
  private let depth: BookDepth?
  /// Without depth: the top level of the point being worked on, set by its owner: bid,
  /// bid size, ask, ask size.
  private let top: UnsafeMutablePointer<Double>

  /// A streamed leg's books: `depth` when it has some (its rows are the stream's), else
  /// the one level at `top` (bid, bid size, ask, ask size) its owner sets at each point.
  init(depth: BookDepth?, top: UnsafeMutablePointer<Double>) {
    (self.depth, self.top) = (depth, top)
  }

  /// Calls `body` with the prices and sizes of one side of book `row`, best first.
  @inline(__always)
  func withSide<R>(row: Int, bid: Bool, _ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>) -> R) -> R {
    guard let depth else {
      let price = top + (bid ? 0 : 2)
      // An unknown size (nan) fills nothing: no level.
      let count = price[1].isNaN ? 0 : 1
      return body(UnsafeBufferPointer(start: price, count: count), UnsafeBufferPointer(start: price + 1, count: count))
    }
    let (start, prices, sizes) = bid ? (depth.bidStart, depth.bidPrice, depth.bidSize) : (depth.askStart, depth.askPrice, depth.askSize)
    return prices.withUnsafeBufferPointer { p in
      sizes.withUnsafeBufferPointer { s in
        body(UnsafeBufferPointer(rebasing: p[start[row]..<start[row + 1]]), UnsafeBufferPointer(rebasing: s[start[row]..<start[row + 1]]))
      }
    }
  }

  func average(row: Int, bid: Bool, quantity: Double) -> Double? {
    withSide(row: row, bid: bid) { BookWalk.averagePrice(prices: $0, sizes: $1, quantity: quantity) }
  }

  /// The capacity of selling into this leg's bids at `row` and buying `other`'s asks.
  func capacity(row: Int, against other: LegBooks, row otherRow: Int, band: Double) -> Double {
    withSide(row: row, bid: true) { bidPrices, bidSizes in
      other.withSide(row: otherRow, bid: false) { askPrices, askSizes in
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
