import ArbAnalytics
import ArbCore

/// What `arbkit kimchi` computes from its legs (`docs/definitions.md`, "Kimchi premium"):
/// the kimchi premium of each KRW market over a USD(T) market through an FX rate, with
/// the USDT/USD term when measured, and the premium among the KRW markets.
///
/// Every series is streamed a chunk of points at a time and summarised as it goes: one
/// pass per KRW market over its legs (`KimchiStream`), and one over the KRW markets for
/// the premium among them.
public struct KimchiStudy {
  /// The kimchi premium of one KRW market.
  public struct Venue {
    public var name: String
    /// Points of its alignment, the valid ones, and those where the FX leg had no rate
    /// yet or one older than its limit.
    public var points: Int
    public var validPoints: Int
    public var fxStalePoints: Int
    public var premium: SeriesSummary
    public var usdtTerm: SeriesSummary?
    public var premiumUSD: SeriesSummary?
    /// Quotes read, and the first and last quote time, of its KRW, USD, FX (and
    /// USDT-USD) legs.
    public var legRows: [Int]
    public var legFirstTime: [Int64?]
    public var legLastTime: [Int64?]
  }

  /// The premium among the KRW venues (as `arbkit premium` over them).
  public struct Board {
    public var points: Int
    public var validPoints: Int
    public var analysis: PremiumAnalysis
  }

  public let venues: [Venue]
  /// With two or more KRW markets.
  public let board: Board?

  /// A pass of the study: an alignment of some of its legs `[KRW…, USD, FX, USDT-USD]`.
  public enum Pass: Sendable, Hashable {
    /// KRW market `v` with the USD, FX (and USDT-USD) legs, their quotes kept.
    case venue(Int)
    /// The KRW markets together (the premium among them).
    case board
  }

  /// The passes of a study of `krwCount` KRW markets, in the order they are made.
  public static func passes(krwCount: Int) -> [Pass] { (0..<krwCount).map(Pass.venue) + (krwCount >= 2 ? [.board] : []) }

  /// The legs `pass` aligns, of `[KRW…, USD, FX, USDT-USD]` (the last with `usdtUSD`).
  public static func legs(_ pass: Pass, krwCount: Int, usdtUSD: Bool) -> [Int] {
    switch pass {
    case .venue(let v): [v, krwCount, krwCount + 1] + (usdtUSD ? [krwCount + 2] : [])
    case .board: Array(0..<krwCount)
    }
  }

  /// The alignment `pass` makes of the legs `open(k)` opens, `chunkPoints` points at a
  /// time: a KRW market's with the FX leg at most `fxMaxStale` µs old.
  /// - Parameter checksOverlap: as `PremiumStream`: `false` for a shard's days.
  /// - Throws: what `PremiumStream` or `open` throws.
  public static func align(
    _ pass: Pass, krwCount: Int, usdtUSD: Bool, open: (Int) throws -> any QuoteStream, alignment: AlignmentOptions, fxMaxStale: Int64,
    chunkPoints: Int, checksOverlap: Bool = true
  ) throws -> PremiumStream {
    let venue = pass != .board
    return try PremiumStream(
      legs: try legs(pass, krwCount: krwCount, usdtUSD: usdtUSD).map(open),
      options: venue ? KimchiStream.options(alignment, fxMaxStale: fxMaxStale) : alignment, chunkPoints: chunkPoints, legChunkRows: chunkPoints,
      keepQuotes: venue, checksOverlap: checksOverlap)
  }

  /// The study of the KRW markets `names` over a USD market through an FX rate (an FX
  /// series or a USDT-KRW market; at most `fxMaxStale` µs old), with a USDT-USD market
  /// valuing USDT in USD when `usdtUSD`. `points(pass)` gives the points of each of
  /// `passes(krwCount:)` (`align`, or a replay of shards' points); `each(v, chunk)` sees
  /// every chunk of KRW market `v`'s premium.
  ///
  /// - Throws: `AlignmentError`, `TimeError` for legs that cannot be aligned,
  ///   `SpillError`, what `points` or `each` throws.
  public init(
    names: [String], usdtUSD: Bool, points pointsOf: (Pass) throws -> any PremiumPoints, bands: BandOptions, fxMaxStale: Int64,
    chunkPoints: Int = 1 << 16, each: (Int, KimchiChunk) throws -> Void = { _, _ in }
  ) throws {
    // The values kept for the quantiles stay in memory up to 16 chunks' worth.
    let limit = max(1 << 16, 16 * chunkPoints)
    var venues: [Venue] = []
    for (v, name) in names.enumerated() {
      let stream = KimchiStream(alignment: try pointsOf(.venue(v)), fxMaxStale: fxMaxStale)
      // The premium, the USDT term and the premium in USD share their points.
      let columns = SignedSummaryStream(columns: usdtUSD ? 3 : 1, options: bands, spillMemoryLimit: limit)
      while let chunk = try stream.next() {
        try columns.add(
          usdtUSD ? [chunk.premium, chunk.usdtTerm, chunk.kimchiUSD] : [chunk.premium], valid: chunk.valid, time: chunk.time, duration: chunk.duration)
        try each(v, chunk)
      }
      let summaries = try columns.finish()
      let aligned = stream.alignment
      venues.append(
        Venue(
          name: name, points: aligned.points, validPoints: aligned.validPoints, fxStalePoints: stream.fxStalePoints,
          premium: summaries[0], usdtTerm: usdtUSD ? summaries[1] : nil, premiumUSD: usdtUSD ? summaries[2] : nil, legRows: aligned.legRows,
          legFirstTime: aligned.legFirstTime, legLastTime: aligned.legLastTime))
    }
    self.venues = venues
    guard names.count >= 2 else {
      board = nil
      return
    }
    let premium = try pointsOf(.board)
    let analyzer = PremiumAnalyzer(legCount: names.count, maxPremium: names.count > 2, options: bands, spillMemoryLimit: limit)
    try premium.forEachChunk { try analyzer.add($0) }
    board = Board(points: premium.points, validPoints: premium.validPoints, analysis: try analyzer.finish())
  }
}
