import ArbCore

/// The executable premium at a trade size and the capacity at each band, from the
/// books behind the aligned quotes (`docs/definitions.md`, "Size-aware executable
/// premium").
///
/// At a valid point, for every ordered pair of usable legs (sell on s, buy on c) whose
/// books hold the size on the side taken: `e = (avgBid_s(Q) / avgAsk_c(Q) − 1) × 100`;
/// `exec` is the best of them with its legs. A valid point at which no pair can fill
/// Q is invalid here and counted in `shortPoints`. A leg without depth is read as a
/// one-level book (its best bid and ask with their sizes); without sizes it fills
/// nothing.
public struct SizedPremium: Sendable {
  public var quantity: Double
  /// The bands of `capacity`, percent.
  public var bands: [Double]
  /// The premium series at size `quantity`: `valid`, `exec`, `rich` and `cheap`
  /// describe the sized trade; `mid` and `top`/`bottom` are those of the alignment.
  public var premium: PremiumSeries
  /// Valid points of the alignment at which no pair of legs could fill the size.
  public var shortPoints: Int
  /// Per band, the capacity (base units) at every valid point of the alignment, `nan`
  /// elsewhere: the best over pairs of `BookWalk.capacity`.
  public var capacity: [[Double]]
  /// The valid points of the alignment (where capacity is defined).
  public var alignedValid: [Bool]

  /// - Parameters:
  ///   - premium: the premiums of `aligned` (its mid, top and bottom are kept).
  ///   - aligned: the alignment, whose states name each leg's quote (-1: left out).
  ///   - legs: the aligned legs.
  /// - Complexity: O(points × legs² × levels).
  public init(quantity: Double, bands: [Double], premium: PremiumSeries, aligned: AlignedLegs, legs: [QuoteSeries]) {
    precondition(quantity > 0 && quantity.isFinite, "SizedPremium: size must be positive")
    precondition(aligned.count == premium.count && aligned.legCount == legs.count, "SizedPremium: alignment mismatch")
    self.quantity = quantity
    self.bands = bands
    let n = aligned.count, legCount = legs.count
    var sized = premium
    var short = 0, validPoints = 0
    var capacity = [[Double]](repeating: [Double](repeating: .nan, count: n), count: bands.count)
    let books = legs.map(LegBooks.init)
    var point = SizedPoint(quantity: quantity, bands: bands, legCount: legCount)
    for i in 0..<n {
      sized.exec[i] = .nan
      sized.rich[i] = -1
      sized.cheap[i] = -1
      guard aligned.valid[i] else {
        sized.valid[i] = false
        continue
      }
      for k in 0..<legCount { point.rows[k] = Int(aligned.state(leg: k, point: i)) }
      if let best = point.evaluate(books) {
        sized.exec[i] = best.edge
        sized.rich[i] = Int8(best.sell)
        sized.cheap[i] = Int8(best.buy)
        validPoints += 1
      } else {
        sized.valid[i] = false
        short += 1
      }
      for b in bands.indices { capacity[b][i] = point.capacity[b] }
    }
    sized.validPoints = validPoints
    self.premium = sized
    shortPoints = short
    self.capacity = capacity
    alignedValid = aligned.valid
  }
}

/// The sized trade at one point of an alignment (`SizedPremium`, `SizedPremiumAnalyzer`):
/// the best edge over ordered pairs of legs and each band's capacity, from the legs'
/// books at `rows`.
struct SizedPoint {
  let quantity: Double
  let bands: [Double]
  /// Per leg, the row of its book at the point; -1 leaves the leg out (not usable there).
  var rows: [Int]
  /// Per band, the best capacity over pairs at the last point evaluated (0 when none).
  private(set) var capacity: [Double]
  private var bidAverage: [Double], askAverage: [Double]

  init(quantity: Double, bands: [Double], legCount: Int) {
    (self.quantity, self.bands) = (quantity, bands)
    rows = Array(repeating: -1, count: legCount)
    capacity = Array(repeating: 0, count: bands.count)
    bidAverage = Array(repeating: .nan, count: legCount)
    askAverage = bidAverage
  }

  /// The best `(avgBid_s(Q) / avgAsk_c(Q) − 1) × 100` over ordered pairs (sell on s, buy
  /// on c) whose books fill `quantity`, `nil` when no pair does; sets `capacity`.
  mutating func evaluate(_ books: [LegBooks]) -> (edge: Double, sell: Int, buy: Int)? {
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

/// The books of one leg: its depth, or its top level with the sizes recorded (also
/// walked by `SizedBasisAnalyzer`).
struct LegBooks {
  private enum Levels {
    case depth(BookDepth)
    case series(QuoteSeries)
    /// The top level of the point being worked on, set by its owner: bid, bid size,
    /// ask, ask size.
    case point(UnsafeMutablePointer<Double>)
  }

  private let levels: Levels

  init(_ series: QuoteSeries) {
    levels = series.depth.map(Levels.depth) ?? .series(series)
  }

  /// A streamed leg's books: `depth` when it has some (its rows are the stream's), else
  /// the one level at `top` (bid, bid size, ask, ask size) its owner sets at each point.
  init(depth: BookDepth?, top: UnsafeMutablePointer<Double>) {
    levels = depth.map(Levels.depth) ?? .point(top)
  }

  /// Calls `body` with the prices and sizes of one side of book `row`, best first.
  @inline(__always)
  func withSide<R>(row: Int, bid: Bool, _ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>) -> R) -> R {
    switch levels {
    case .depth(let depth):
      let (start, prices, sizes) = bid ? (depth.bidStart, depth.bidPrice, depth.bidSize) : (depth.askStart, depth.askPrice, depth.askSize)
      return prices.withUnsafeBufferPointer { p in
        sizes.withUnsafeBufferPointer { s in
          body(UnsafeBufferPointer(rebasing: p[start[row]..<start[row + 1]]), UnsafeBufferPointer(rebasing: s[start[row]..<start[row + 1]]))
        }
      }
    case .series(let series):
      let (prices, sizes) = bid ? (series.bid, series.bidSize) : (series.ask, series.askSize)
      // An unknown size (nan) fills nothing: no level.
      let levels = sizes[row].isNaN ? row..<row : row..<(row + 1)
      return prices.withUnsafeBufferPointer { p in
        sizes.withUnsafeBufferPointer { s in body(UnsafeBufferPointer(rebasing: p[levels]), UnsafeBufferPointer(rebasing: s[levels])) }
      }
    case .point(let top):
      let price = top + (bid ? 0 : 2)
      let count = price[1].isNaN ? 0 : 1
      return body(UnsafeBufferPointer(start: price, count: count), UnsafeBufferPointer(start: price + 1, count: count))
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
/// over the valid points of the alignment.
public struct SizedAnalysis: Sendable {
  public var exec: SeriesSummary
  public var capacity: [SeriesStatistics]

  init(exec: SeriesSummary, capacity: [SeriesStatistics]) { (self.exec, self.capacity) = (exec, capacity) }

  /// - Parameter options: bands and episode options of the sized exec; its bands are the
  ///   sized premium's.
  public init(_ sized: SizedPremium, options: BandOptions = BandOptions()) {
    precondition(options.bands == sized.bands, "SizedAnalysis: bands differ from the sized premium's")
    let premium = sized.premium
    exec = SeriesSummary(premium: premium, column: premium.exec, side: PremiumAnalysis.execSide(premium), oneSided: true, options: options)
    capacity = Self.capacity(sized.capacity, valid: sized.alignedValid, premium: premium)
  }

  /// Statistics of each capacity column over the `valid` points of the alignment, each
  /// point weighted by its duration on `premium`'s clock.
  public static func capacity(_ columns: [[Double]], valid: [Bool], premium: PremiumSeries) -> [SeriesStatistics] {
    let weights = premium.time.indices.filter { valid[$0] }.map { Double(premium.duration(at: $0)) }
    return columns.map { column in
      SeriesStatistics(values: column.indices.filter { valid[$0] }.map { column[$0] }, weights: weights)
    }
  }
}
