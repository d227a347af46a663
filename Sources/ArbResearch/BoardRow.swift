import ArbAnalytics
import ArbCore

/// One instrument of the premium board: its legs on two or more venues and the
/// analysis of their max premium (`docs/definitions.md`, "Premium board"), streamed a
/// chunk at a time (`PremiumStream`, `PremiumAnalyzer`): memory depends on the chunk
/// size and the number of legs, not on the length of the history.
public struct BoardRow {
  public var instrument: CanonicalInstrument
  /// One leg per venue, by venue name.
  public var legs: [BoardLeg]
  /// Points of the aligned legs, and the valid ones among them (0 when the legs never overlap).
  public var points = 0
  public var validPoints = 0
  public var analysis: PremiumAnalysis?
  /// The best executable edge: premium, venue sold, venue bought, time.
  public var bestExec: (premium: Double, sell: String, buy: String, time: Int64)?
  /// Why there is no analysis (legs that never overlap).
  public var problem: String?
  /// With a size: the executable premium at the size from the venues' books.
  public var sized: SizedPremiumStudy?

  /// A leg of the row: the instrument it names and the stream of its quotes.
  public typealias Input = (instrument: Instrument, stream: any QuoteStream)

  /// Aligns `legs` (one per venue) with at least two usable venues per point and
  /// analyses the max premium, reading `chunkRows` quotes of a leg and making
  /// `chunkRows` points at a time; every leg is read to its end. With `sized`, also the
  /// executable premium at `size`, walking at each point the book behind each leg's
  /// quote, or its top level; the legs' streams then yield their sizes (and books).
  ///
  /// - Throws: what a leg's stream throws, or `SpillError`; an `AlignmentError` is the
  ///   row's `problem`.
  public init(
    instrument: CanonicalInstrument, legs: [Input], alignment: AlignmentOptions, bands: BandOptions, chunkRows: Int,
    size: Double? = nil
  ) throws {
    self.instrument = instrument
    let order = legs.indices.sorted { legs[$0].instrument.venue < legs[$1].instrument.venue }
    let tallies = order.map { TalliedQuoteStream(legs[$0].stream) }
    let venues = order.map { legs[$0].instrument.venue }
    var options = alignment
    options.minimumLegs = 2
    do {
      let premium = try PremiumStream(
        legs: tallies, options: options, maxPremium: true, chunkPoints: chunkRows, legChunkRows: chunkRows, keepUsableQuotes: size != nil,
        keepSizes: size != nil)
      // The values kept for the quantiles stay in memory up to 16 chunks' worth (1 Mi by default).
      let spillLimit = max(1 << 16, 16 * chunkRows)
      let analyzer = PremiumAnalyzer(legCount: legs.count, maxPremium: premium.maxPremium, options: bands, spillMemoryLimit: spillLimit)
      let sizedAnalyzer = size.map { size in
        SizedPremiumAnalyzer(quantity: size, legCount: legs.count, options: bands, spillMemoryLimit: spillLimit)
      }
      var best = BestExecPoint()
      try premium.forEachChunk { chunk in
        try analyzer.add(chunk)
        try sizedAnalyzer?.add(chunk)
        best.add(chunk)
      }
      analysis = try analyzer.finish()
      if let sizedAnalyzer {
        let depth = order.indices.map { i in
          LegDepth(deepest: premium.legDeepest[i], priceSource: tallies[i].priceSource, hasSizes: premium.legHasSizes[i])
        }
        self.sized = SizedPremiumStudy(summary: try sizedAnalyzer.finish(), depth: depth)
      }
      (points, validPoints) = (premium.points, premium.validPoints)
      bestExec = best.point.map { ($0.premium, venues[Int($0.rich)], venues[Int($0.cheap)], $0.time) }
    } catch let error as AlignmentError {
      problem = error.description
    }
    // A walk that stopped early (an empty leg, legs that never overlap) leaves quotes to count.
    for tally in tallies { try tally.drain(chunkRows: chunkRows) }
    self.legs = zip(order, tallies).map { k, tally in BoardLeg(tally, instrument: legs[k].instrument) }
  }

  public var venues: [String] { legs.map(\.instrument.venue) }

  /// The venue most often on top (`top`) or at the bottom, with its share of valid points
  /// (the first venue by name on a tie); `nil` without valid points.
  public func leader(top: Bool) -> (venue: String, share: Double)? {
    guard let shares = top ? analysis?.topShare : analysis?.bottomShare, !shares.isEmpty else { return nil }
    let best = shares.indices.max { shares[$0] < shares[$1] || (shares[$0] == shares[$1] && $0 > $1) }!
    return (venues[best], shares[best])
  }

  /// Quantile of the max premium at `level` percent (one of `SeriesStatistics.quantileLevels`).
  public func quantile(_ level: Double) -> Double? {
    guard let statistics = analysis?.mid.statistics, !statistics.quantiles.isEmpty else { return nil }
    return statistics.quantiles[SeriesStatistics.quantileLevels.firstIndex(of: level)!]
  }
}

/// A leg of a board row as it was read: the instrument it names, its price source,
/// and the quotes read with their first and last time.
public struct BoardLeg: Sendable, Codable {
  public var instrument: Instrument
  public var priceSource: PriceSource
  public var rows: Int
  public var firstTime: Int64?
  public var lastTime: Int64?

  /// Reads `stream` to its end, `chunkRows` quotes at a time: a leg that is not on the
  /// board, described all the same.
  /// - Throws: what the stream throws.
  public init(reading stream: any QuoteStream, instrument: Instrument, chunkRows: Int) throws {
    let tally = TalliedQuoteStream(stream)
    try tally.drain(chunkRows: chunkRows)
    self.init(tally, instrument: instrument)
  }

  /// A leg as `tally` has read it (its price source is final once the stream has ended).
  init(_ tally: TalliedQuoteStream, instrument: Instrument) {
    (self.instrument, priceSource, rows, firstTime, lastTime) = (instrument, tally.priceSource, tally.rows, tally.firstRead, tally.lastRead)
  }
}

/// The valid point with the largest executable premium over chunks, the first of
/// equals: `PremiumSeries.bestExecPoint` of the whole series.
struct BestExecPoint {
  private(set) var point: (premium: Double, rich: Int8, cheap: Int8, time: Int64)?

  mutating func add(_ chunk: PremiumChunk) {
    for i in 0..<chunk.count where chunk.valid[i] && (point == nil || chunk.exec[i] > point!.premium) {
      point = (chunk.exec[i], chunk.rich[i], chunk.cheap[i], chunk.time[i])
    }
  }
}

/// A stream passed through as it is read, counting its quotes and keeping the first and
/// last time read.
final class TalliedQuoteStream: QuoteStreamWrapper {
  let base: any QuoteStream
  private(set) var rows = 0
  private(set) var firstRead: Int64?
  private(set) var lastRead: Int64?

  init(_ base: any QuoteStream) { self.base = base }

  func next(maxRows: Int) throws -> QuoteChunk? {
    guard let chunk = try base.next(maxRows: maxRows) else { return nil }
    if chunk.count > 0 {
      rows += chunk.count
      firstRead = firstRead ?? chunk.time[0]
      lastRead = chunk.time[chunk.count - 1]
    }
    return chunk
  }

  /// Reads what is left of the stream.
  func drain(chunkRows: Int) throws { while try next(maxRows: chunkRows) != nil {} }
}

/// A row as a board partial stores it (`BoardPartial`): every figure the board prints,
/// the numbers as their shortest round-tripping text, so a merge prints the shard's
/// bits. A row with `sized` (`--size`) is not stored: it keeps its legs' books.
extension BoardRow: Codable {
  private enum CodingKeys: String, CodingKey { case instrument, legs, points, validPoints, analysis, bestExec, problem }

  /// `bestExec` as a value a coder takes.
  private struct BestExec: Codable {
    var premium: Double
    var sell: String
    var buy: String
    var timeUs: Int64
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    instrument = try container.decode(CanonicalInstrument.self, forKey: .instrument)
    legs = try container.decode([BoardLeg].self, forKey: .legs)
    points = try container.decode(Int.self, forKey: .points)
    validPoints = try container.decode(Int.self, forKey: .validPoints)
    analysis = try container.decodeIfPresent(PremiumAnalysis.self, forKey: .analysis)
    bestExec = try container.decodeIfPresent(BestExec.self, forKey: .bestExec).map { ($0.premium, $0.sell, $0.buy, $0.timeUs) }
    problem = try container.decodeIfPresent(String.self, forKey: .problem)
  }

  public func encode(to encoder: any Encoder) throws {
    precondition(sized == nil, "a sized row is not stored in a partial")
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(instrument, forKey: .instrument)
    try container.encode(legs, forKey: .legs)
    try container.encode(points, forKey: .points)
    try container.encode(validPoints, forKey: .validPoints)
    try container.encodeIfPresent(analysis, forKey: .analysis)
    try container.encodeIfPresent(bestExec.map { BestExec(premium: $0.premium, sell: $0.sell, buy: $0.buy, timeUs: $0.time) }, forKey: .bestExec)
    try container.encodeIfPresent(problem, forKey: .problem)
  }
}
