import ArbAnalytics
import ArbCore

/// What `arbkit basis` computes from its legs (`docs/definitions.md`, "Basis and funding
/// carry"): the basis of a derivative over a reference, the summaries of its columns,
/// the premiums between reference prices, and the funding carry of a perpetual.
///
/// The basis is streamed (`BasisStream`) a chunk of points at a time, its summaries
/// accumulated as it goes; the reference premiums and the carry are computed on legs
/// read whole (`Companions`).
public struct BasisStudy {
  /// Summaries of the basis columns.
  public struct Summaries {
    public var basis: SeriesSummary
    public var open: SeriesSummary
    public var close: SeriesSummary
    public var annualised: SeriesSummary?
  }

  /// A premium between reference prices (mark over index, derivative over mark).
  public struct Reference {
    public var name: String
    public var premium: PremiumSeries
    public var summary: SeriesSummary
  }

  /// The legs read whole for the reference premiums and the carry.
  public struct Companions {
    /// The derivative and the reference as the basis streams read them.
    public var derivative: QuoteSeries
    public var reference: QuoteSeries
    public var mark: QuoteSeries?
    public var index: QuoteSeries?
    /// The perpetual's funding rates; its carry is summed over windows of `window` µs (a
    /// ticker of the rate in force sampled every `fundingInterval` µs).
    public var funding: QuoteSeries?
    public var fundingInterval: Int64
    public var window: Int64

    public init(
      derivative: QuoteSeries, reference: QuoteSeries, mark: QuoteSeries?, index: QuoteSeries?, funding: QuoteSeries?, fundingInterval: Int64,
      window: Int64
    ) {
      (self.derivative, self.reference, self.mark, self.index, self.funding) = (derivative, reference, mark, index, funding)
      (self.fundingInterval, self.window) = (fundingInterval, window)
    }
  }

  /// Points of the alignment, and the valid ones.
  public let points: Int
  public let validPoints: Int
  public let expiry: Int64?
  /// Valid points at or after the expiry (no annualised value).
  public let pointsAfterExpiry: Int
  /// Quotes read, and the first and last quote time, of the derivative and the reference.
  public let legRows: [Int]
  public let legFirstTime: [Int64?]
  public let legLastTime: [Int64?]
  public let summaries: Summaries
  public let references: [Reference]
  /// With a funding series: the carry per window.
  public let carry: FundingCarry?
  /// With reference prices or a funding series: the basis series in memory (the carry's
  /// basis at its windows' edges, the reference columns of a series file).
  public let series: BasisSeries?

  /// The study of `derivative` (a `perp` or a `future`, as `derivativeName` says; its
  /// canonical instrument tells a linear from an inverse settlement) over `reference`,
  /// aligned by `alignment`, streamed `chunkPoints` points at a time; `each` sees every
  /// chunk of the basis as it is made.
  ///
  /// - Throws: `AlignmentError`, `TimeError` for times that cannot be aligned or windowed,
  ///   `SpillError`, what a leg's stream or `each` throws.
  public init(
    derivative: any QuoteStream, reference: any QuoteStream, derivativeName: String, canonical: CanonicalInstrument?, expiry: Int64?,
    alignment: AlignmentOptions, bands: BandOptions, chunkPoints: Int = 1 << 16, companions: Companions?,
    each: (BasisChunk) throws -> Void = { _ in }
  ) throws {
    let stream = try BasisStream(
      derivative: derivative, reference: reference, expiry: expiry, options: alignment, chunkPoints: chunkPoints, legChunkRows: chunkPoints)
    // The values kept for the quantiles stay in memory up to 16 chunks' worth.
    let limit = max(1 << 16, 16 * chunkPoints)
    // Basis, open and close share their points; the annualised basis is valid before the expiry only.
    let columns = SignedSummaryStream(columns: 3, options: bands, spillMemoryLimit: limit)
    let annualised = expiry.map { _ in SignedSummaryStream(columns: 1, options: bands, spillMemoryLimit: limit) }
    while let chunk = try stream.next() {
      try columns.add([chunk.basis, chunk.open, chunk.close], valid: chunk.valid, time: chunk.time, duration: chunk.duration)
      try annualised?.add([chunk.annualised], valid: chunk.beforeExpiry, time: chunk.time, duration: chunk.duration)
      try each(chunk)
    }
    let aligned = stream.alignment
    (points, validPoints, pointsAfterExpiry, self.expiry) = (aligned.points, aligned.validPoints, stream.pointsAfterExpiry, expiry)
    (legRows, legFirstTime, legLastTime) = (aligned.legRows, aligned.legFirstTime, aligned.legLastTime)
    let (summary, yearly) = (try columns.finish(), try annualised?.finish())
    summaries = Summaries(basis: summary[0], open: summary[1], close: summary[2], annualised: yearly?[0])
    guard let companions, companions.mark != nil || companions.index != nil || companions.funding != nil else {
      (references, carry, series) = ([], nil, nil)
      return
    }
    let series = try BasisSeries(derivative: companions.derivative, reference: companions.reference, expiry: expiry, options: alignment)
    self.series = series
    let priced = [("mark", companions.mark), ("index", companions.index)].compactMap { name, s in s.map { (name, $0) } }
    let pairs =
      (priced.count == 2 ? [("mark over index", priced[0].1, priced[1].1)] : [])
      + priced.map { ("\(derivativeName) over \($0.0)", companions.derivative, $0.1) }
    references = try pairs.map { name, a, b in
      let premium = try PremiumSeries(legs: [a, b], options: alignment)
      return Reference(name: name, premium: premium, summary: SeriesSummary(signed: premium, column: premium.mid, options: bands))
    }
    carry = try companions.funding.map { funding throws(TimeError) in
      let (fundingInterval, window) = (companions.fundingInterval, companions.window)
      let inverse = canonical?.kind.isInverse ?? (companions.derivative.instrument.market == .inverse)
      let times = funding.time, basis = series.basis.time
      let ranges = times.isEmpty || basis.isEmpty ? nil : (times[0]...times[times.count - 1], basis[0]...basis[basis.count - 1])
      if let ranges { try FundingCarry.checkRange(funding: ranges.0, basis: ranges.1, interval: fundingInterval, window: window) }
      let events = FundingEvents(funding, tickerInterval: fundingInterval)
      if let ranges { try FundingCarry.checkRange(funding: ranges.0, basis: ranges.1, interval: events.interval, window: window) }
      return FundingCarry(
        events: events, basis: series.basis, perp: companions.derivative,
        settlement: inverse ? .inverse(contractSize: canonical?.contractSize) : .linear, window: window)
    }
  }
}
