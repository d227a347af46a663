import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// The sized premium worked out as the points stream by (`PremiumStream` with sizes +
/// `SizedPremiumAnalyzer`) against the whole-series `SizedPremiumOracle`, with
/// chunk sizes that cut episodes and spills small enough to go to files.
@Suite("Streamed sized premium")
struct SizedPremiumStreamTests {
  /// How a random leg's books are made.
  enum Books {
    /// Order books of 1…5 levels a side, the first the quote.
    case depth
    /// The top level, each size unknown one time in `unknownOneIn`.
    case topLevel(unknownOneIn: Int)
    /// No sizes at all.
    case noSizes
  }

  static func leg(_ rng: inout SplitMix64, _ k: Int, books: Books, maxGap: Int) -> QuoteSeries {
    var leg = rng.leg("v\(k)", count: rng.int(150...500), start: Int64(rng.int(0...20)), maxGap: maxGap, level: 100 + 0.3 * rng.uniform(), spread: 0.003)
    switch books {
    case .depth:
      addDepth(&rng, to: &leg)
    case .topLevel(let oneIn):
      for j in 0..<leg.count {
        leg.bidSize[j] = rng.int(1...oneIn) == 1 ? .nan : Double(rng.int(1...12)) / 2
        leg.askSize[j] = rng.int(1...oneIn) == 1 ? .nan : Double(rng.int(1...12)) / 2
      }
    case .noSizes:
      leg.bidSize = leg.bidSize.map { _ in .nan }
      leg.askSize = leg.askSize.map { _ in .nan }
    }
    return leg
  }

  /// Gives each quote of `leg` a random book of 1…5 levels a side, the first the quote.
  static func addDepth(_ rng: inout SplitMix64, to leg: inout QuoteSeries) {
    var depth = BookDepth()
    for j in 0..<leg.count {
      let bids = BookWalkTests.side(&rng, best: leg.bid[j], bid: true, count: rng.int(1...5))
      let asks = BookWalkTests.side(&rng, best: leg.ask[j], bid: false, count: rng.int(1...5))
      for (p, s) in bids { depth.appendLevel(bid: true, price: p, size: s) }
      for (p, s) in asks { depth.appendLevel(bid: false, price: p, size: s) }
      depth.closeBook()
      (leg.bidSize[j], leg.askSize[j]) = (bids[0].1, asks[0].1)
    }
    leg.depth = depth
  }

  static let cases: [(books: [Books], options: AlignmentOptions)] = [
    ([.depth, .depth], AlignmentOptions(maxStale: 6)),
    ([.depth, .topLevel(unknownOneIn: 8), .depth], AlignmentOptions(maxStale: 10, minimumLegs: 2)),
    ([.topLevel(unknownOneIn: 5), .topLevel(unknownOneIn: 50)], AlignmentOptions()),
    ([.topLevel(unknownOneIn: 4), .noSizes, .depth, .topLevel(unknownOneIn: 9)], AlignmentOptions(maxStale: 8, minimumLegs: 3)),
    ([.depth, .topLevel(unknownOneIn: 6)], AlignmentOptions(maxStale: 9, grid: 3)),
  ]

  @Test("random books: the streamed sized figures equal the whole-series ones", arguments: cases.indices)
  func sizedFigures(index: Int) throws {
    let c = Self.cases[index]
    var rng = SplitMix64(seed: UInt64(31 + index))
    let options = BandOptions(bands: [0.02, 0.05, 0.1, 0.3], hysteresis: 0.01, minEpisode: 2)
    for round in 0..<3 {
      let legs = c.books.indices.map { Self.leg(&rng, $0, books: c.books[$0], maxGap: 4) }
      let aligned = try AlignedLegs(legs: legs, options: c.options)
      let premium = try PremiumSeries(legs: legs, options: c.options)
      for quantity in [0.5, 2.5, 7] {
        let whole = SizedPremiumOracle(quantity: quantity, bands: options.bands, premium: premium, aligned: aligned, legs: legs).summary(options: options)
        #expect(whole.validPoints > 0 && whole.shortPoints > 0 || quantity != 2.5, "round \(round): both kinds of point")
        for (chunk, spill) in [(1, 1), (7, 40), (300, 1 << 20), (1 << 16, 5)] {
          let stream = try PremiumStream(
            legs: legs.map(SeriesQuoteStream.init), options: c.options, chunkPoints: chunk, legChunkRows: max(1, chunk / 2 + 1),
            keepUsableQuotes: true, keepSizes: true)
          let analyzer = SizedPremiumAnalyzer(quantity: quantity, legCount: legs.count, options: options, spillMemoryLimit: spill)
          while let chunk = try stream.next() { try analyzer.add(chunk) }
          let streamed = try analyzer.finish()
          let comment: Comment = "round \(round), size \(quantity), chunk \(chunk), spill \(spill)"
          #expect(streamed.validPoints == whole.validPoints && streamed.shortPoints == whole.shortPoints, comment)
          PremiumStreamTests.expectEquivalent(streamed.analysis.exec, whole.analysis.exec, comment)
          #expect(streamed.analysis.capacity.count == options.bands.count, comment)
          for (s, w) in zip(streamed.analysis.capacity, whole.analysis.capacity) {
            Self.expectEquivalent(s, w, comment)
          }
          #expect(stream.legHasSizes == legs.map { $0.bidSize.contains { !$0.isNaN } || $0.askSize.contains { !$0.isNaN } }, comment)
          #expect(stream.legDeepest == legs.map { $0.depth?.deepest }, comment)
        }
      }
    }
  }

  static let basisCases: [(books: [Books], options: AlignmentOptions)] = [
    ([.depth, .depth], AlignmentOptions(maxStale: 6)),
    ([.topLevel(unknownOneIn: 6), .depth], AlignmentOptions(maxStale: 5)),
    ([.depth, .topLevel(unknownOneIn: 30)], AlignmentOptions(maxStale: 9, grid: 3)),
    ([.topLevel(unknownOneIn: 4), .noSizes], AlignmentOptions()),
  ]

  @Test("random books: the streamed sized basis equals the whole-series one", arguments: basisCases.indices)
  func sizedBasis(index: Int) throws {
    let c = Self.basisCases[index]
    var rng = SplitMix64(seed: UInt64(71 + index))
    let options = BandOptions(bands: [0.02, 0.1, 0.3], hysteresis: 0.01, minEpisode: 2)
    for round in 0..<3 {
      let legs = c.books.indices.map { Self.leg(&rng, $0, books: c.books[$0], maxGap: 4) }
      let aligned = try AlignedLegs(legs: legs, options: c.options)
      for quantity in [0.5, 2.5, 7] {
        let whole = SizedBasisOracle(quantity: quantity, bands: options.bands, aligned: aligned, derivative: legs[0], reference: legs[1])
        let (open, close) = (
          SeriesSummary(signed: whole.open, column: whole.open.mid, options: options),
          SeriesSummary(signed: whole.close, column: whole.close.mid, options: options)
        )
        let capacity = SizedPremiumOracle.capacity(whole.capacity, valid: whole.alignedValid, premium: whole.open)
        if case .noSizes = c.books[1] { #expect(whole.open.validPoints == 0 && whole.openShort > 0) }
        for (chunk, spill) in [(1, 1), (7, 40), (300, 1 << 20)] {
          let stream = try PremiumStream(
            legs: legs.map(SeriesQuoteStream.init), options: c.options, chunkPoints: chunk, legChunkRows: max(1, chunk / 2 + 1),
            keepUsableQuotes: true, keepSizes: true)
          let analyzer = SizedBasisAnalyzer(quantity: quantity, options: options, spillMemoryLimit: spill)
          while let chunk = try stream.next() { try analyzer.add(chunk) }
          let streamed = try analyzer.finish()
          let comment: Comment = "round \(round), size \(quantity), chunk \(chunk), spill \(spill)"
          #expect(streamed.openShort == whole.openShort && streamed.closeShort == whole.closeShort, comment)
          #expect(streamed.open.statistics.count == whole.open.validPoints && streamed.close.statistics.count == whole.close.validPoints, comment)
          PremiumStreamTests.expectEquivalent(streamed.open, open, comment)
          PremiumStreamTests.expectEquivalent(streamed.close, close, comment)
          #expect(streamed.capacity.count == options.bands.count, comment)
          for (s, w) in zip(streamed.capacity, capacity) { Self.expectEquivalent(s, w, comment) }
        }
      }
    }
  }

  /// Counts, extremes and quantiles identical; moments equal to 1e-12 relative.
  static func expectEquivalent(_ s: SeriesStatistics, _ w: SeriesStatistics, _ comment: Comment) {
    #expect(s.count == w.count && s.min == w.min && s.max == w.max && s.quantiles == w.quantiles, comment)
    let pairs: [(Double?, Double?)] = [(s.mean, w.mean), (s.std, w.std), (s.meanTW, w.meanTW), (s.stdTW, w.stdTW), (s.skew, w.skew), (s.kurtosis, w.kurtosis)]
    for (k, (a, b)) in pairs.enumerated() { #expect(isClose(a, b, rel: 1e-12, abs: 1e-15), "\(comment) figure \(k): \(a as Any) vs \(b as Any)") }
  }

  @Test func `a top level's sizes and a book follow their quote across chunks`() throws {
    // b quotes at 0 and 10 only: from 1 to 9 its quote in force is the one of time 0,
    // read in an earlier chunk of one row. b has books: book j has j + 1 levels a side,
    // level l of size 10 j + l; a has none.
    var a = QuoteSeries.leg("a", Array(0...10), bid: Array(repeating: 101, count: 11), ask: Array(repeating: 101.1, count: 11))
    var b = QuoteSeries.leg("b", [0, 10], bid: [100, 100.5], ask: [100.1, 100.6])
    (a.bidSize, a.askSize) = (Array(repeating: 3, count: 11), Array(repeating: 3, count: 11))
    (b.bidSize, b.askSize) = ([1, 4], [2, .nan])
    var depth = BookDepth()
    for j in 0..<2 {
      for l in 0...j {
        depth.appendLevel(bid: true, price: b.bid[j] - Double(l), size: Double(10 * j + l))
        depth.appendLevel(bid: false, price: b.ask[j] + Double(l), size: Double(10 * j + l))
      }
      depth.closeBook()
    }
    b.depth = depth
    for chunkPoints in [1, 4, 20] {
      let stream = try PremiumStream(
        legs: [SeriesQuoteStream(a), SeriesQuoteStream(b)], chunkPoints: chunkPoints, legChunkRows: 1, keepUsableQuotes: true,
        keepSizes: true)
      var sizes: [Double] = [], aIndexes: [Int64] = [], bBooks: [[Double]] = []
      while let chunk = try stream.next() {
        sizes += chunk.usableSizes
        for i in 0..<chunk.count {
          aIndexes.append(chunk.usableBookIndex[2 * i])
          let index = Int(chunk.usableBookIndex[2 * i + 1])
          guard index >= 0, let books = chunk.usableBooks else {
            bBooks.append([])
            continue
          }
          let (bids, asks) = (books.side(index, bid: true), books.side(index, bid: false))
          bBooks.append(Array(bids.prices) + Array(bids.sizes) + Array(asks.prices) + Array(asks.sizes))
        }
      }
      // Per point: bid sizes (a, b), then ask sizes (a, b).
      let expectedSizes = (0...10).flatMap { t -> [Double] in t < 10 ? [3, 1, 3, 2] : [3, 4, 3, .nan] }
      #expect(PremiumStreamTests.same(sizes, expectedSizes), "chunk \(chunkPoints)")
      #expect(aIndexes == Array(repeating: -1, count: 11), "chunk \(chunkPoints)")
      let first: [Double] = [100, 0, 100.1, 0], second: [Double] = [100.5, 99.5, 10, 11, 100.6, 101.6, 10, 11]
      // b's last quote has no ask size but a book: usable, with its book.
      #expect(bBooks == Array(repeating: first, count: 10) + [second], "chunk \(chunkPoints)")
      #expect(stream.legHasSizes == [true, true] && stream.legDeepest == [nil, 2], "chunk \(chunkPoints)")
    }
  }

  @Test func `over legs with books a chunk holds a few thousand points, whatever is asked`() throws {
    var rng = SplitMix64(seed: 77)
    let plain = (0..<2).map { rng.leg("v\($0)", count: 6_000, start: 0, maxGap: 4, level: 100, spread: 0.003) }
    var booked = plain
    for k in booked.indices { Self.addDepth(&rng, to: &booked[k]) }
    for (legs, limit) in [(booked, BookChunk.rowsAtATime), (plain, 1 << 16)] {
      let stream = try PremiumStream(legs: legs.map(SeriesQuoteStream.init), chunkPoints: 1 << 16, keepSizes: true)
      var counts: [Int] = []
      while let chunk = try stream.next() { counts.append(chunk.count) }
      let points = counts.reduce(0, +)
      #expect(points > 2 * BookChunk.rowsAtATime && points == stream.points)
      #expect(counts.dropLast().allSatisfy { $0 == limit } && counts.last! <= limit, "\(counts)")
    }
  }
}
