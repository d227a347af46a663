import ArbCore
@testable import ArbAnalytics
import Foundation
import TestSupport
import Testing

/// Slow, obvious reference implementations of every ArbAnalytics figure, written from
/// `docs/definitions.md` and nothing else: plain loops, full sorts, linear searches.
/// They never call into ArbAnalytics, so an agreement is evidence, not a tautology.
enum Oracle {
  // MARK: BLAS

  static func dot(_ x: [Double], _ y: [Double]) -> Double {
    var s = 0.0
    for i in 0..<x.count { s += x[i] * y[i] }
    return s
  }

  static func sum(_ x: [Double]) -> Double {
    var s = 0.0
    for v in x { s += v }
    return s
  }

  static func asum(_ x: [Double]) -> Double {
    var s = 0.0
    for v in x { s += abs(v) }
    return s
  }

  static func nrm2(_ x: [Double]) -> Double { dot(x, x).squareRoot() }

  static func axpy(_ alpha: Double, _ x: [Double], _ y: [Double]) -> [Double] {
    var out = y
    for i in 0..<x.count { out[i] = alpha * x[i] + y[i] }
    return out
  }

  static func shift(_ y: [Double], by alpha: Double) -> [Double] { y.map { $0 + alpha } }

  static func scal(_ alpha: Double, _ x: [Double]) -> [Double] { x.map { alpha * $0 } }

  /// y ← αAx + βy, A row-major rows × columns.
  static func gemv(rows: Int, columns: Int, alpha: Double, _ a: [Double], _ x: [Double], beta: Double, _ y: [Double]) -> [Double] {
    var out = y
    for r in 0..<rows {
      var s = 0.0
      for c in 0..<columns { s += a[r * columns + c] * x[c] }
      out[r] = alpha * s + beta * y[r]
    }
    return out
  }

  /// Σx with Neumaier compensation: the accurate sum the statistics oracle builds on.
  static func accurateSum(_ x: [Double]) -> Double {
    var s = 0.0, compensation = 0.0
    for v in x {
      let t = s + v
      compensation += abs(s) >= abs(v) ? (s - t) + v : (v - t) + s
      s = t
    }
    return s + compensation
  }

  // MARK: Quantiles

  /// Type 7 by a full sort: position h = (n − 1) q between order statistics.
  static func quantile(_ x: [Double], _ q: Double) -> Double? {
    guard !x.isEmpty else { return nil }
    let sorted = x.sorted()
    let h = Double(sorted.count - 1) * q
    let low = Int(h.rounded(.down))
    let high = Swift.min(low + 1, sorted.count - 1)
    return sorted[low] + (h - Double(low)) * (sorted[high] - sorted[low])
  }

  // MARK: Statistics

  struct Statistics {
    var count: Int
    var mean, std, min, max, meanTW, stdTW, skew, kurtosis: Double?
    var quantiles: [Double]
  }

  /// Corrected two-pass moments on compensated sums; skew and kurtosis only when the
  /// values are not all equal, std only for n ≥ 2, the time-weighted pair only for Σw > 0.
  static func statistics(_ x: [Double], _ w: [Double]) -> Statistics {
    let n = x.count
    var s = Statistics(count: n, quantiles: [1, 5, 25, 50, 75, 95, 99].compactMap { quantile(x, $0 / 100) })
    guard n > 0 else { return s }
    // The rounded mean is off by up to half an ulp of the data's offset; the deviations
    // keep the exact remainder r (far below that ulp) instead of folding it into the mean.
    let rough = accurateSum(x) / Double(n)
    let r = accurateSum(x.map { $0 - rough }) / Double(n)
    let mean = rough + r
    let d = x.map { ($0 - rough) - r }
    let m2 = accurateSum(d.map { $0 * $0 }) / Double(n)
    let m3 = accurateSum(d.map { $0 * $0 * $0 }) / Double(n)
    let m4 = accurateSum(d.map { $0 * $0 * $0 * $0 }) / Double(n)
    s.mean = mean
    s.min = x.min()
    s.max = x.max()
    if n >= 2 { s.std = (accurateSum(d.map { $0 * $0 }) / Double(n - 1)).squareRoot() }
    if s.min != s.max {
      s.skew = m3 / pow(m2, 1.5)
      s.kurtosis = m4 / (m2 * m2) - 3
    }
    let weightSum = accurateSum(w)
    if weightSum > 0 {
      let meanTW = accurateSum(zip(w, x).map { $0 * $1 }) / weightSum
      s.meanTW = meanTW
      s.stdTW = (accurateSum(zip(w, x).map { $0 * ($1 - meanTW) * ($1 - meanTW) }) / weightSum).squareRoot()
    }
    return s
  }

  // MARK: Alignment

  struct Aligned {
    var time: [Int64] = []
    var duration: [Int64] = []
    var valid: [Bool] = []
    /// Per leg, per point: index of the as-of quote, −1 before the leg's first quote.
    var state: [[Int]] = []
    var validPoints: Int { valid.filter { $0 }.count }
  }

  /// As-of join by linear search from each leg's first quote at every clock point.
  /// `nil` when the legs cannot be aligned (fewer than two, one empty, no overlap).
  static func align(_ legs: [QuoteSeries], maxStale: Int64? = nil, grid: Int64? = nil) -> Aligned? {
    guard legs.count >= 2, legs.allSatisfy({ !$0.time.isEmpty }) else { return nil }
    let start = legs.map { $0.time.min()! }.max()!
    guard legs.allSatisfy({ $0.time.max()! >= start }) else { return nil }
    let end = legs.map { $0.time.max()! }.max()!
    var out = Aligned()
    if let step = grid {
      var t = start - ((start % step) + step) % step  // floored to the step, also below 0
      while t <= end {
        out.time.append(t)
        t += step
      }
    } else {
      out.time = Set(legs.flatMap(\.time)).filter { $0 >= start }.sorted()
    }
    let n = out.time.count
    out.duration = (0..<n).map { $0 + 1 < n ? out.time[$0 + 1] - out.time[$0] : 0 }
    out.valid = [Bool](repeating: true, count: n)
    for leg in legs {
      var column: [Int] = []
      for (i, t) in out.time.enumerated() {
        var found = -1
        for j in 0..<leg.count where leg.time[j] <= t { found = j }
        column.append(found)
        if found < 0 {
          out.valid[i] = false
        } else {
          let (bid, ask) = (leg.bid[found], leg.ask[found])
          if !(bid.isFinite && ask.isFinite && bid > 0 && ask > 0) { out.valid[i] = false }
          if let maxStale, t - leg.time[found] > maxStale { out.valid[i] = false }
        }
      }
      out.state.append(column)
    }
    return out
  }

  // MARK: Premiums

  struct Premium {
    /// `nil` at invalid points.
    var mid: [Double?] = []
    var exec: [Double?] = []
    var rich: [Int] = []
    var cheap: [Int] = []
    var top: [Int] = []
    var bottom: [Int] = []
  }

  static func premium(_ aligned: Aligned, _ legs: [QuoteSeries]) -> Premium {
    var p = Premium()
    for i in aligned.time.indices {
      guard aligned.valid[i] else {
        p.mid.append(nil); p.exec.append(nil)
        p.rich.append(-1); p.cheap.append(-1); p.top.append(-1); p.bottom.append(-1)
        continue
      }
      let bid = legs.indices.map { legs[$0].bid[aligned.state[$0][i]] }
      let ask = legs.indices.map { legs[$0].ask[aligned.state[$0][i]] }
      let mids = legs.indices.map { (bid[$0] + ask[$0]) / 2 }
      let top = mids.firstIndex(of: mids.max()!)!
      let bottom = mids.firstIndex(of: mids.min()!)!
      if legs.count == 2 {
        p.mid.append((mids[0] / mids[1] - 1) * 100)
      } else {
        p.mid.append((mids[top] / mids[bottom] - 1) * 100)
      }
      // Every ordered pair (sell k at its bid, buy c at its ask); first best wins ties.
      var best = (edge: -Double.infinity, rich: -1, cheap: -1)
      for k in legs.indices {
        for c in legs.indices where c != k {
          let edge = (bid[k] / ask[c] - 1) * 100
          if edge > best.edge { best = (edge, k, c) }
        }
      }
      p.exec.append(best.edge)
      p.rich.append(best.rich); p.cheap.append(best.cheap)
      p.top.append(top); p.bottom.append(bottom)
    }
    return p
  }

  // MARK: Bands

  struct Bands {
    var shareEvents, shareTime, shareEventsPositive, shareEventsNegative: Double?
    var episodes = 0
    var durationMean, durationMedian, durationMax, peakMean, peakMax: Double?
  }

  /// Occupancy and episodes read literally off the definitions. `values[i] == nil`
  /// marks an invalid point; `side[i]` is what an episode must keep.
  static func bands(
    band b: Double, values: [Double?], side: [Int], time: [Int64], duration: [Int64],
    oneSided: Bool, hysteresis h: Double = 0, minEpisode: Int64 = 0
  ) -> Bands {
    let n = values.count
    func magnitude(_ x: Double) -> Double { oneSided ? x : abs(x) }
    func inBand(_ i: Int) -> Bool { values[i].map { magnitude($0) >= b } ?? false }
    var out = Bands()
    let validIndexes = (0..<n).filter { values[$0] != nil }
    if !validIndexes.isEmpty {
      let count = Double(validIndexes.count)
      out.shareEvents = Double(validIndexes.filter(inBand).count) / count
      out.shareEventsPositive = Double(validIndexes.filter { values[$0]! >= b }.count) / count
      out.shareEventsNegative = oneSided ? 0 : Double(validIndexes.filter { values[$0]! <= -b }.count) / count
    }
    let weightAll = validIndexes.reduce(0.0) { $0 + Double(duration[$1]) }
    let weightIn = validIndexes.filter(inBand).reduce(0.0) { $0 + Double(duration[$1]) }
    if weightAll > 0 { out.shareTime = weightIn / weightAll }

    // Runs: start where |x| ≥ b, extend while valid, same side and |x| ≥ b − h.
    var durations: [Double] = [], peaks: [Double] = []
    var i = 0
    while i < n {
      guard inBand(i) else { i += 1; continue }
      var j = i + 1
      while j < n, let x = values[j], side[j] == side[i], magnitude(x) >= b - h { j += 1 }
      let last = j - 1
      let micros = (j < n ? time[j] : time[last]) - time[i]
      if micros >= minEpisode {
        durations.append(Double(micros) / 1e6)
        peaks.append((i...last).map { abs(values[$0]!) }.max()!)
      }
      i = j
    }
    out.episodes = durations.count
    if !durations.isEmpty {
      out.durationMean = sum(durations) / Double(durations.count)
      out.durationMedian = quantile(durations, 0.5)
      out.durationMax = durations.max()
      out.peakMean = sum(peaks) / Double(peaks.count)
      out.peakMax = peaks.max()
    }
    return out
  }

  // MARK: Half-life

  struct HalfLife {
    var beta: Double
    var points: Double
    var seconds: Double?
  }

  /// OLS of Δx_t on (1, x_{t−1}) with both sides centred; nil unless −1 < β < 0.
  static func halfLife(_ x: [Double], durations: [Double]) -> HalfLife? {
    guard x.count >= 3 else { return nil }
    let lag = Array(x.dropLast())
    let delta = (1..<x.count).map { x[$0] - x[$0 - 1] }
    let mx = accurateSum(lag) / Double(lag.count), my = accurateSum(delta) / Double(delta.count)
    let sxx = accurateSum(lag.map { ($0 - mx) * ($0 - mx) })
    let sxy = accurateSum(zip(lag, delta).map { ($0 - mx) * ($1 - my) })
    guard sxx > 0 else { return nil }
    let beta = sxy / sxx
    guard beta > -1 && beta < 0 else { return nil }
    let points = -log(2.0) / log(1 + beta)
    let median = quantile(durations, 0.5) ?? 0
    return HalfLife(beta: beta, points: points, seconds: median > 0 ? points * median / 1e6 : nil)
  }
}

// MARK: - Test data helpers

extension QuoteSeries {
  /// A leg from literal columns (sizes 1).
  static func leg(_ name: String, _ time: [Int64], bid: [Double], ask: [Double]) -> QuoteSeries {
    QuoteSeries(
      instrument: Instrument(venue: name, market: .spot, symbol: "BTCUSD"), priceSource: .book, time: time,
      bid: bid, ask: ask, bidSize: time.map { _ in 1 }, askSize: time.map { _ in 1 })
  }

  /// A leg whose bid and ask are one price (`price_source: last`).
  static func leg(_ name: String, _ time: [Int64], price: [Double]) -> QuoteSeries {
    leg(name, time, bid: price, ask: price)
  }
}

extension SplitMix64 {
  /// A random leg: `count` strictly increasing times with gaps 1…maxGap from `start`,
  /// a mid wandering around `level` and a spread of 0…spread (relative).
  mutating func leg(
    _ name: String, count: Int, start: Int64, maxGap: Int, level: Double = 100, spread: Double = 0.002
  ) -> QuoteSeries {
    var t = start, time: [Int64] = [], bid: [Double] = [], ask: [Double] = []
    var mid = level
    for _ in 0..<count {
      time.append(t)
      t += Int64(int(1...maxGap))
      mid *= 1 + 0.001 * normal()
      let half = mid * spread * uniform() / 2
      bid.append(mid - half)
      ask.append(mid + half)
    }
    return .leg(name, time, bid: bid, ask: ask)
  }
}

extension PremiumAnalysis {
  /// Every number the analysis can print, by name (`nil` where undefined).
  var everyFigure: [(name: String, value: Double?)] {
    var out: [(name: String, value: Double?)] = []
    for (label, summary) in [("mid", mid), ("exec", exec)] {
      let s = summary.statistics
      out += [
        ("\(label).mean", s.mean), ("\(label).std", s.std), ("\(label).min", s.min), ("\(label).max", s.max),
        ("\(label).meanTW", s.meanTW), ("\(label).stdTW", s.stdTW), ("\(label).skew", s.skew),
        ("\(label).kurtosis", s.kurtosis),
      ]
      out += s.quantiles.enumerated().map { ("\(label).q\($0.offset)", $0.element) }
      out += [
        ("\(label).halfLife.beta", summary.halfLife?.beta), ("\(label).halfLife.points", summary.halfLife?.points),
        ("\(label).halfLife.seconds", summary.halfLife?.seconds),
      ]
      for b in summary.bands {
        let name = "\(label).band\(b.band)"
        out += [
          ("\(name).shareEvents", b.shareEvents), ("\(name).shareTime", b.shareTime),
          ("\(name).shareEventsPositive", b.shareEventsPositive), ("\(name).shareEventsNegative", b.shareEventsNegative),
          ("\(name).durationMean", b.durationMean), ("\(name).durationMedian", b.durationMedian),
          ("\(name).durationMax", b.durationMax), ("\(name).peakMean", b.peakMean), ("\(name).peakMax", b.peakMax),
        ]
      }
    }
    out += topShare.enumerated().map { ("topShare\($0.offset)", $0.element) }
    out += bottomShare.enumerated().map { ("bottomShare\($0.offset)", $0.element) }
    return out
  }
}

extension AlignedLegs {
  /// The as-of indexes leg by leg (`perLeg[k][i]`), read through the public accessor.
  var perLeg: [[Int32]] { (0..<legCount).map { k in (0..<count).map { state(leg: k, point: $0) } } }
}

/// The oracles are only as good as their own arithmetic: each is checked here on a
/// case worked out by hand before any test compares the library with it.
@Suite("Oracles on hand-worked cases")
struct OracleSelfTests {
  @Test func `compensated sum keeps what a plain sum loses`() {
    // 1e16 + 1 + 1 − 1e16 = 2 exactly; a left-to-right double sum gives 0.
    #expect(Oracle.accurateSum([1e16, 1, 1, -1e16]) == 2)
    #expect(Oracle.sum([1, 2, 3.5]) == 6.5)
  }

  @Test func `type-7 quantiles of 1…4`() {
    // h = 3q: q = 0.5 → 2.5; q = 0.25 → 1.75; q = 1 → 4.
    #expect(Oracle.quantile([4, 1, 3, 2], 0.5) == 2.5)
    #expect(Oracle.quantile([4, 1, 3, 2], 0.25) == 1.75)
    #expect(Oracle.quantile([4, 1, 3, 2], 1) == 4)
    #expect(Oracle.quantile([], 0.5) == nil)
  }

  @Test func `statistics of 1, 2, 3, 6 with weights 1, 1, 1, 0`() {
    // mean 3; deviations −2, −1, 0, 3: Σd² = 14, Σd³ = 18, Σd⁴ = 98 (n = 4).
    // std = √(14/3); skew = 4.5 / 3.5^1.5; kurtosis = 24.5 / 12.25 − 3 = −1.
    // Weighted: mean (1+2+3)/3 = 2, std √(2/3).
    let s = Oracle.statistics([1, 2, 3, 6], [1, 1, 1, 0])
    #expect(s.mean == 3 && s.min == 1 && s.max == 6)
    #expect(isClose(s.std, (14.0 / 3).squareRoot(), rel: 1e-15))
    #expect(isClose(s.skew, 4.5 / pow(3.5, 1.5), rel: 1e-15))
    #expect(isClose(s.kurtosis, -1, rel: 1e-15))
    #expect(s.meanTW == 2 && isClose(s.stdTW, (2.0 / 3).squareRoot(), rel: 1e-15))
  }

  @Test func `as-of alignment and premium of two legs`() throws {
    // A quotes at 0 and 10, B at 5: the union clock starts at 5 → points 5, 10.
    let a = QuoteSeries.leg("a", [0, 10], bid: [99, 101], ask: [101, 103])
    let b = QuoteSeries.leg("b", [5], bid: [98], ask: [100])
    let aligned = try #require(Oracle.align([a, b]))
    #expect(aligned.time == [5, 10] && aligned.duration == [5, 0] && aligned.state == [[0, 1], [0, 0]])
    let premium = Oracle.premium(aligned, [a, b])
    // At 10: mids 102 and 99 → (102/99 − 1)·100; best edge sells A's bid 101, buys B's ask 100.
    #expect(isClose(premium.mid[1], (102.0 / 99 - 1) * 100, rel: 1e-15))
    #expect(isClose(premium.exec[1], (101.0 / 100 - 1) * 100, rel: 1e-15))
    #expect(premium.rich[1] == 0 && premium.cheap[1] == 1)
  }
}

// MARK: - Sized premium and basis over whole series

// Unlike `Oracle`, these walk books with `BookWalk` (checked against the slow walkers of
// `BookWalkTests`) and summarise with `SeriesSummary`: they check the streamed analyzers'
// point-by-point walk and chunked statistics against whole series.

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

/// The executable basis at a trade size over whole series (the reference
/// `SizedBasisAnalyzer` is checked against), from the books of a derivative D and its
/// reference R (`docs/definitions.md`, "Basis and funding carry"):
///
/// - `open(Q) = (avgBid_D(Q) / avgAsk_R(Q) − 1) × 100`: sell Q of D on its bids, buy Q
///   of R on its asks;
/// - `close(Q) = (avgAsk_D(Q) / avgBid_R(Q) − 1) × 100`: buy Q of D back on its asks,
///   sell Q of R on its bids.
///
/// Each is valid at a valid point of the alignment whose two books fill Q on the sides
/// it takes; a point where one of them cannot is short of depth (invalid at that size,
/// never 0) and counted. Books are walked as for the sized premium (`SizedPremiumOracle`): a
/// leg without depth is a one-level book, a leg without sizes fills nothing.
struct SizedBasisOracle {
  var quantity: Double
  /// The bands of `capacity`, percent.
  var bands: [Double]
  /// `open(Q)` as a one-column series on the alignment's clock.
  var open: PremiumSeries
  /// `close(Q)` as a one-column series on the alignment's clock.
  var close: PremiumSeries
  /// Valid points of the alignment at which `open(Q)` (resp. `close(Q)`) cannot fill.
  var openShort: Int
  var closeShort: Int
  /// Per band, the capacity of `open` (base units: selling D's bids against R's asks,
  /// `BookWalk.capacity`) at every valid point of the alignment, `nan` elsewhere.
  var capacity: [[Double]]
  /// The valid points of the alignment (where capacity is defined).
  var alignedValid: [Bool]

  /// - Parameters:
  ///   - aligned: the alignment of `[derivative, reference]`.
  /// - Complexity: O(points × (levels + bands × levels)).
  init(quantity: Double, bands: [Double], aligned: AlignedLegs, derivative: QuoteSeries, reference: QuoteSeries) {
    precondition(quantity > 0 && quantity.isFinite, "SizedBasis: size must be positive")
    precondition(aligned.legCount == 2, "SizedBasis: alignment of two legs expected")
    self.quantity = quantity
    self.bands = bands
    let n = aligned.count
    let d = OracleBook(series: derivative), r = OracleBook(series: reference)
    var open = [Double](repeating: .nan, count: n), close = open
    var openValid = [Bool](repeating: false, count: n), closeValid = openValid
    var capacity = [[Double]](repeating: [Double](repeating: .nan, count: n), count: bands.count)
    var openShort = 0, closeShort = 0
    for i in 0..<n where aligned.valid[i] {
      let j = Int(aligned.state(leg: 0, point: i)), k = Int(aligned.state(leg: 1, point: i))
      if let bid = d.average(row: j, bid: true, quantity: quantity), let ask = r.average(row: k, bid: false, quantity: quantity) {
        open[i] = (bid / ask - 1) * 100
        openValid[i] = true
      } else {
        openShort += 1
      }
      if let ask = d.average(row: j, bid: false, quantity: quantity), let bid = r.average(row: k, bid: true, quantity: quantity) {
        close[i] = (ask / bid - 1) * 100
        closeValid[i] = true
      } else {
        closeShort += 1
      }
      for (b, band) in bands.enumerated() { capacity[b][i] = d.capacity(row: j, against: r, row: k, band: band) }
    }
    self.open = PremiumSeries(time: aligned.time, valid: openValid, values: open)
    self.close = PremiumSeries(time: aligned.time, valid: closeValid, values: close)
    self.openShort = openShort
    self.closeShort = closeShort
    self.capacity = capacity
    alignedValid = aligned.valid
  }
}
