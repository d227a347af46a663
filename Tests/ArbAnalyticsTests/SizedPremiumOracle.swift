import ArbCore

@testable import ArbAnalytics

/// The executable premium at a trade size and the capacity at each band over whole
/// series (what `SizedPremiumAnalyzer` is checked against), from the books behind the
/// aligned quotes (`docs/definitions.md`, "Size-aware executable premium").
///
/// At a valid point, for every ordered pair of usable legs (sell on s, buy on c) whose
/// books hold the size on the side taken: `e = (avgBid_s(Q) / avgAsk_c(Q) − 1) × 100`;
/// `exec` is the best of them with its legs. A valid point at which no pair can fill
/// Q is invalid here and counted in `shortPoints`. A leg without depth is read as a
/// one-level book (its best bid and ask with their sizes); without sizes it fills
/// nothing.
struct SizedPremiumOracle {
  var quantity: Double
  var bands: [Double]
  /// The premium series at size `quantity`: `valid`, `exec`, `rich` and `cheap`
  /// describe the sized trade; `mid` and `top`/`bottom` are those of the alignment.
  var premium: PremiumSeries
  /// Valid points of the alignment at which no pair of legs could fill the size.
  var shortPoints: Int
  /// Per band, the capacity (base units) at every valid point of the alignment, `nan`
  /// elsewhere: the best over pairs of `BookWalk.capacity`.
  var capacity: [[Double]]
  /// The valid points of the alignment (where capacity is defined).
  var alignedValid: [Bool]

  init(quantity: Double, bands: [Double], premium: PremiumSeries, aligned: AlignedLegs, legs: [QuoteSeries]) {
    self.quantity = quantity
    self.bands = bands
    let n = aligned.count, legCount = legs.count
    var sized = premium
    var short = 0, validPoints = 0
    var capacity = [[Double]](repeating: [Double](repeating: .nan, count: n), count: bands.count)
    let books = legs.map(OracleBook.init)
    for i in 0..<n {
      sized.exec[i] = .nan
      sized.rich[i] = -1
      sized.cheap[i] = -1
      guard aligned.valid[i] else {
        sized.valid[i] = false
        continue
      }
      let state = (0..<legCount).map { Int(aligned.state(leg: $0, point: i)) }
      let bidAverage = (0..<legCount).map { k in state[k] < 0 ? nil : books[k].average(row: state[k], bid: true, quantity: quantity) }
      let askAverage = (0..<legCount).map { k in state[k] < 0 ? nil : books[k].average(row: state[k], bid: false, quantity: quantity) }
      var best: (edge: Double, sell: Int, buy: Int)? = nil
      for s in 0..<legCount {
        for c in 0..<legCount where c != s {
          guard let bid = bidAverage[s], let ask = askAverage[c] else { continue }
          let edge = (bid / ask - 1) * 100
          if best == nil || edge > best!.edge { best = (edge, s, c) }
        }
      }
      if let best {
        sized.exec[i] = best.edge
        sized.rich[i] = Int8(best.sell)
        sized.cheap[i] = Int8(best.buy)
        validPoints += 1
      } else {
        sized.valid[i] = false
        short += 1
      }
      for (b, band) in bands.enumerated() {
        var most = 0.0
        for s in 0..<legCount where state[s] >= 0 {
          for c in 0..<legCount where c != s && state[c] >= 0 {
            most = max(most, books[s].capacity(row: state[s], against: books[c], row: state[c], band: band))
          }
        }
        capacity[b][i] = most
      }
    }
    sized.validPoints = validPoints
    self.premium = sized
    shortPoints = short
    self.capacity = capacity
    alignedValid = aligned.valid
  }

  /// The figures `SizedPremiumAnalyzer.finish` gives, computed over the whole series.
  func summary(options: BandOptions) -> SizedSummary {
    let exec = SeriesSummary(premium: premium, column: premium.exec, side: PremiumAnalysis.execSide(premium), oneSided: true, options: options)
    return SizedSummary(
      quantity: quantity, bands: bands, validPoints: premium.validPoints, shortPoints: shortPoints,
      analysis: SizedAnalysis(exec: exec, capacity: Self.capacity(capacity, valid: alignedValid, premium: premium)))
  }

  /// Statistics of each capacity column over the `valid` points of the alignment, each
  /// point weighted by its duration on `premium`'s clock.
  static func capacity(_ columns: [[Double]], valid: [Bool], premium: PremiumSeries) -> [SeriesStatistics] {
    let weights = premium.time.indices.filter { valid[$0] }.map { Double(premium.duration(at: $0)) }
    return columns.map { column in
      SeriesStatistics(values: column.indices.filter { valid[$0] }.map { column[$0] }, weights: weights)
    }
  }
}

/// The books of one whole leg: its depth, or its top level with the sizes recorded.
struct OracleBook {
  let series: QuoteSeries

  /// One side of book `row`, best first.
  func levels(row: Int, bid: Bool) -> (prices: [Double], sizes: [Double]) {
    if let depth = series.depth {
      let (start, prices, sizes) = bid ? (depth.bidStart, depth.bidPrice, depth.bidSize) : (depth.askStart, depth.askPrice, depth.askSize)
      return (Array(prices[start[row]..<start[row + 1]]), Array(sizes[start[row]..<start[row + 1]]))
    }
    let (price, size) = bid ? (series.bid[row], series.bidSize[row]) : (series.ask[row], series.askSize[row])
    // An unknown size (nan) fills nothing: no level.
    return size.isNaN ? ([], []) : ([price], [size])
  }

  func average(row: Int, bid: Bool, quantity: Double) -> Double? {
    let (prices, sizes) = levels(row: row, bid: bid)
    return prices.withUnsafeBufferPointer { p in sizes.withUnsafeBufferPointer { s in BookWalk.averagePrice(prices: p, sizes: s, quantity: quantity) } }
  }

  /// The capacity of selling into this leg's bids at `row` and buying `other`'s asks.
  func capacity(row: Int, against other: OracleBook, row otherRow: Int, band: Double) -> Double {
    let (bids, asks) = (levels(row: row, bid: true), other.levels(row: otherRow, bid: false))
    return BookWalkTests.capacity(Array(zip(bids.prices, bids.sizes)), Array(zip(asks.prices, asks.sizes)), band: band)
  }
}
