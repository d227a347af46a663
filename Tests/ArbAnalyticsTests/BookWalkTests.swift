import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// Walking books for a trade size: average prices, capacity, and the sized executable
/// premium of aligned legs.
@Suite("Book walk and sized premium")
struct BookWalkTests {
  static func average(_ levels: [(Double, Double)], _ quantity: Double) -> Double? {
    let prices = levels.map(\.0), sizes = levels.map(\.1)
    return prices.withUnsafeBufferPointer { p in
      sizes.withUnsafeBufferPointer { s in BookWalk.averagePrice(prices: p, sizes: s, quantity: quantity) }
    }
  }

  static func capacity(_ bids: [(Double, Double)], _ asks: [(Double, Double)], band: Double) -> Double {
    let (bp, bs, ap, asz) = (bids.map(\.0), bids.map(\.1), asks.map(\.0), asks.map(\.1))
    return bp.withUnsafeBufferPointer { bp in
      bs.withUnsafeBufferPointer { bs in
        ap.withUnsafeBufferPointer { ap in
          asz.withUnsafeBufferPointer { asz in BookWalk.capacity(bidPrices: bp, bidSizes: bs, askPrices: ap, askSizes: asz, band: band) }
        }
      }
    }
  }

  @Test("average prices, hand-worked, and a partial fill is no price")
  func averages() {
    let bids = [(100.0, 1.0), (99, 2), (98, 5)]
    #expect(Self.average(bids, 0.5) == 100)
    let two: Double = (100 + 99) / 2, three: Double = (100 + 2 * 99) / 3, eight: Double = (100 + 198 + 490) / 8
    #expect(isClose(Self.average(bids, 2), two))
    #expect(isClose(Self.average(bids, 3), three))
    #expect(isClose(Self.average(bids, 8), eight))
    #expect(Self.average(bids, 8.0001) == nil && Self.average([], 1) == nil)
    #expect(isClose(Self.average([(101, 0.5), (102, 1), (103, 10)], 1), 101.5))
  }

  @Test("capacity, hand-worked")
  func capacityHandWorked() {
    // k = 1.001. Segments (bid, ask, size): (101, 100, 0.5) g = 0.45; (101, 100.2, 0.5) g = 0.7999;
    // (100.5, 100.2, 0.5) g = 0.8998; (100.5, 100.6, 1.5) g = 0.5989; (100, 100.6): slope −0.7006,
    // g reaches 0 at 3 + 0.5989 / 0.7006. Check: 302 + 100(Q − 3) = 1.001 (150.2 + 100.6 (Q − 1.5))
    // ⇔ 2.7007 = 0.7006 Q.
    let bids = [(101.0, 1.0), (100.5, 2), (100, 5)], asks = [(100.0, 0.5), (100.2, 1), (100.6, 3)]
    let q = Self.capacity(bids, asks, band: 0.1)
    #expect(isClose(q, 2.7007 / 0.7006, rel: 1e-9))
    #expect(isClose((Self.average(bids, q)! / Self.average(asks, q)! - 1) * 100, 0.1, rel: 1e-9))
    // Below the band at the first unit: 0. Never below it: the smaller side's size.
    #expect(Self.capacity([(100, 1)], [(100, 1)], band: 0.05) == 0)
    #expect(Self.capacity([(110, 2)], [(100, 5)], band: 0.1) == 2)
    #expect(Self.capacity([], [(100, 5)], band: 0.1) == 0)
  }

  // MARK: Slow walkers

  /// Lot by lot (sizes and quantities in half units, exact in binary): the levels are
  /// sorted best first here, then half a unit is taken at a time.
  static func slowAverage(_ levels: [(Double, Double)], bid: Bool, _ quantity: Double) -> Double? {
    var lots: [Double] = []
    for (price, size) in levels.sorted(by: { bid ? $0.0 > $1.0 : $0.0 < $1.0 }) {
      for _ in 0..<Int(size * 2) { lots.append(price) }
    }
    let wanted = Int(quantity * 2)
    guard lots.count >= wanted else { return nil }
    return lots.prefix(wanted).reduce(0, +) / Double(wanted)
  }

  /// Any quantity, by a plain fill of sorted levels.
  static func plainAverage(_ levels: [(Double, Double)], bid: Bool, _ quantity: Double) -> Double? {
    var left = quantity, notional = 0.0
    for (price, size) in levels.sorted(by: { bid ? $0.0 > $1.0 : $0.0 < $1.0 }) where left > 0 {
      notional += min(size, left) * price
      left -= min(size, left)
    }
    return left > 1e-12 ? nil : notional / quantity
  }

  /// Bisection on the edge, which falls with the quantity.
  static func slowCapacity(_ bids: [(Double, Double)], _ asks: [(Double, Double)], band: Double) -> Double {
    let most = min(bids.reduce(0) { $0 + $1.1 }, asks.reduce(0) { $0 + $1.1 })
    func ok(_ q: Double) -> Bool { (plainAverage(bids, bid: true, q)! / plainAverage(asks, bid: false, q)! - 1) * 100 >= band }
    guard most > 0, ok(1e-9) else { return 0 }
    if ok(most) { return most }
    var (lo, hi) = (1e-9, most)
    for _ in 0..<200 { let mid = (lo + hi) / 2; if ok(mid) { lo = mid } else { hi = mid } }
    return lo
  }

  /// A random book side: `count` levels from `best` away from the touch, sizes 0.5…5.
  static func side(_ rng: inout SplitMix64, best: Double, bid: Bool, count: Int) -> [(Double, Double)] {
    var price = best
    return (0..<count).map { _ in
      let level = (price, Double(rng.int(1...10)) / 2)
      price += (bid ? -1 : 1) * (0.01 + rng.uniform() * 0.2)
      return level
    }
  }

  @Test("random books against the slow walkers", arguments: [UInt64(1), 2, 3, 4])
  func randomBooks(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    for _ in 0..<200 {
      let bids = Self.side(&rng, best: 100 + rng.uniform() * 0.4, bid: true, count: rng.int(1...8))
      let asks = Self.side(&rng, best: 100 + rng.uniform() * 0.4, bid: false, count: rng.int(1...8))
      for q in [0.5, 1, 2.5, 6, 20] {
        #expect(isClose(Self.average(bids, q), Self.slowAverage(bids, bid: true, q), rel: 1e-12))
        #expect(isClose(Self.average(asks, q), Self.slowAverage(asks, bid: false, q), rel: 1e-12))
      }
      for band in [0.0, 0.05, 0.1] {
        #expect(isClose(Self.capacity(bids, asks, band: band), Self.slowCapacity(bids, asks, band: band), rel: 1e-7, abs: 1e-7))
      }
    }
  }

  @Test("sized premium of three legs against a brute-force oracle")
  func sizedPremium() throws {
    var rng = SplitMix64(seed: 9)
    // Each quote's book: the top level is the quote, four more levels behind it.
    var legs: [QuoteSeries] = []
    var books: [[([(Double, Double)], [(Double, Double)])]] = []
    for k in 0..<3 {
      var leg = rng.leg("v\(k)", count: 150, start: Int64(rng.int(0...20)), maxGap: 15, level: 100 + 0.3 * rng.uniform(), spread: 0.003)
      var depth = BookDepth()
      var legBooks: [([(Double, Double)], [(Double, Double)])] = []
      for j in 0..<leg.count {
        let bids = Self.side(&rng, best: leg.bid[j], bid: true, count: rng.int(1...5))
        let asks = Self.side(&rng, best: leg.ask[j], bid: false, count: rng.int(1...5))
        for (p, s) in bids { depth.appendLevel(bid: true, price: p, size: s) }
        for (p, s) in asks { depth.appendLevel(bid: false, price: p, size: s) }
        depth.closeBook()
        leg.bidSize[j] = bids[0].1
        leg.askSize[j] = asks[0].1
        legBooks.append((bids, asks))
      }
      leg.depth = depth
      legs.append(leg)
      books.append(legBooks)
    }
    let options = AlignmentOptions(maxStale: 20, minimumLegs: 2)
    let aligned = try AlignedLegs(legs: legs, options: options)
    let premium = try PremiumSeries(legs: legs, options: options, maxPremium: true)
    let quantity = 4.0
    let sized = SizedPremiumOracle(quantity: quantity, bands: [0.05], premium: premium, aligned: aligned, legs: legs)
    var short = 0, valid = 0
    for i in 0..<aligned.count {
      guard aligned.valid[i] else {
        #expect(!sized.premium.valid[i] && sized.capacity[0][i].isNaN)
        continue
      }
      // The legs in force: their last quote at or before t, fresh (linear search).
      let t = aligned.time[i]
      let state = legs.map { leg -> Int? in
        guard let j = leg.time.lastIndex(where: { $0 <= t }), t - leg.time[j] <= 20 else { return nil }
        return j
      }
      var best: Double? = nil, capacity = 0.0
      for s in 0..<3 {
        for c in 0..<3 where c != s {
          guard let js = state[s], let jc = state[c] else { continue }
          capacity = max(capacity, Self.slowCapacity(books[s][js].0, books[c][jc].1, band: 0.05))
          guard let bid = Self.slowAverage(books[s][js].0, bid: true, quantity), let ask = Self.slowAverage(books[c][jc].1, bid: false, quantity) else {
            continue
          }
          best = max(best ?? -.infinity, (bid / ask - 1) * 100)
        }
      }
      if let best {
        valid += 1
        #expect(sized.premium.valid[i] && isClose(sized.premium.exec[i], best, rel: 1e-12, abs: 1e-12), "point \(i)")
      } else {
        short += 1
        #expect(!sized.premium.valid[i], "point \(i)")
      }
      #expect(isClose(sized.capacity[0][i], capacity, rel: 1e-7, abs: 1e-7), "point \(i)")
    }
    #expect(sized.shortPoints == short && sized.premium.validPoints == valid)
    #expect(short > 5 && valid > 50)
  }

  @Test("without depth a leg is its top level; without sizes it fills nothing")
  func levelOne() throws {
    let a = QuoteSeries.leg("a", [0], bid: [101], ask: [101.1])
    var b = QuoteSeries.leg("b", [0], bid: [100], ask: [100.1])
    b.askSize = [2]
    let legs = [a, b]  // sizes 1 on a, ask size 2 on b
    let aligned = try AlignedLegs(legs: legs)
    let premium = PremiumSeries(aligned: aligned, legs: legs)
    let fits = SizedPremiumOracle(quantity: 1, bands: [0.1], premium: premium, aligned: aligned, legs: legs)
    #expect(fits.premium.valid == [true] && isClose(fits.premium.exec[0], (101 / 100.1 - 1) * 100))
    #expect(fits.capacity[0] == [1])
    let tooBig = SizedPremiumOracle(quantity: 1.5, bands: [0.1], premium: premium, aligned: aligned, legs: legs)
    #expect(tooBig.premium.valid == [false] && tooBig.shortPoints == 1)
    var noSizes = legs
    noSizes[1].askSize = [.nan]
    noSizes[1].bidSize = [.nan]
    let none = SizedPremiumOracle(quantity: 0.1, bands: [0.1], premium: premium, aligned: aligned, legs: noSizes)
    #expect(none.premium.validPoints == 0 && none.capacity[0] == [0])
  }
}
