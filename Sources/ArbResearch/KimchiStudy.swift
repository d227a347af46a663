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

  /// The study of `krwCount` KRW markets over a USD market through an FX rate (an FX
  /// series or a USDT-KRW market; at most `fxMaxStale` µs old), with a USDT-USD market
  /// valuing USDT in USD when `usdtUSD`. `open(k)` opens leg `k` of `[KRW…, USD, FX,
  /// USDT-USD]` as a new stream, as often as the passes ask; `each(v, chunk)` sees every
  /// chunk of KRW market `v`'s premium.
  ///
  /// - Throws: `AlignmentError`, `TimeError` for legs that cannot be aligned,
  ///   `SpillError`, what `open`, a leg's stream or `each` throws.
  public init(
    krwCount: Int, usdtUSD: Bool, open: (Int) throws -> any QuoteStream, alignment: AlignmentOptions, bands: BandOptions, fxMaxStale: Int64,
    chunkPoints: Int = 1 << 16, each: (Int, KimchiChunk) throws -> Void = { _, _ in }
  ) throws {
    // The values kept for the quantiles stay in memory up to 16 chunks' worth.
    let limit = max(1 << 16, 16 * chunkPoints)
    var venues: [Venue] = []
    for v in 0..<krwCount {
      let krw = try open(v)
      let stream = try KimchiStream(
        krw: krw, usd: try open(krwCount), fx: try open(krwCount + 1), usdtUSD: usdtUSD ? try open(krwCount + 2) : nil, options: alignment,
        fxMaxStale: fxMaxStale, chunkPoints: chunkPoints, legChunkRows: chunkPoints)
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
          name: krw.instrument.description, points: aligned.points, validPoints: aligned.validPoints, fxStalePoints: stream.fxStalePoints,
          premium: summaries[0], usdtTerm: usdtUSD ? summaries[1] : nil, premiumUSD: usdtUSD ? summaries[2] : nil, legRows: aligned.legRows,
          legFirstTime: aligned.legFirstTime, legLastTime: aligned.legLastTime))
    }
    self.venues = venues
    guard krwCount >= 2 else {
      board = nil
      return
    }
    let premium = try PremiumStream(legs: try (0..<krwCount).map(open), options: alignment, chunkPoints: chunkPoints, legChunkRows: chunkPoints)
    let analyzer = PremiumAnalyzer(legCount: krwCount, maxPremium: premium.maxPremium, options: bands, spillMemoryLimit: limit)
    while let chunk = try premium.next() { try analyzer.add(chunk) }
    board = Board(points: premium.points, validPoints: premium.validPoints, analysis: try analyzer.finish())
  }
}
