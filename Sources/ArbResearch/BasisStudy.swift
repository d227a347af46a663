import ArbAnalytics
import ArbCore

/// What `arbkit basis` computes from its legs (`docs/definitions.md`, "Basis and funding
/// carry"): the basis of a derivative over a reference, the summaries of its columns,
/// the premiums between reference prices, and the funding carry of a perpetual.
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

  public let series: BasisSeries
  public let summaries: Summaries
  public let references: [Reference]
  /// With a funding series: the carry per window.
  public let carry: FundingCarry?

  /// The study of `derivative` (a `perp` or a `future`, as `derivativeName` says; its
  /// canonical instrument tells a linear from an inverse settlement) over `reference`,
  /// aligned by `alignment`, with the premiums of `mark` and `index` and the carry of
  /// `funding` over windows of `window` µs (a ticker of the rate in force sampled every
  /// `fundingInterval` µs).
  ///
  /// - Throws: `AlignmentError`, `TimeError` for times that cannot be aligned or windowed.
  public init(
    derivative: QuoteSeries, derivativeName: String, canonical: CanonicalInstrument?, reference: QuoteSeries, mark: QuoteSeries?,
    index: QuoteSeries?, funding: QuoteSeries?, expiry: Int64?, alignment: AlignmentOptions, bands: BandOptions, fundingInterval: Int64,
    window: Int64
  ) throws {
    let series = try BasisSeries(derivative: derivative, reference: reference, expiry: expiry, options: alignment)
    self.series = series
    summaries = Summaries(
      basis: SeriesSummary(signed: series.basis, column: series.basis.mid, options: bands),
      open: SeriesSummary(signed: series.basis, column: series.open, options: bands),
      close: SeriesSummary(signed: series.basis, column: series.close, options: bands),
      annualised: series.annualised.map { SeriesSummary(signed: $0, column: $0.mid, options: bands) })
    let priced = [("mark", mark), ("index", index)].compactMap { name, s in s.map { (name, $0) } }
    let pairs =
      (priced.count == 2 ? [("mark over index", priced[0].1, priced[1].1)] : [])
      + priced.map { ("\(derivativeName) over \($0.0)", derivative, $0.1) }
    references = try pairs.map { name, a, b in
      let premium = try PremiumSeries(legs: [a, b], options: alignment)
      return Reference(name: name, premium: premium, summary: SeriesSummary(signed: premium, column: premium.mid, options: bands))
    }
    carry = try funding.map { funding throws(TimeError) in
      let inverse = canonical?.kind.isInverse ?? (derivative.instrument.market == .inverse)
      let times = funding.time, basis = series.basis.time
      let ranges = times.isEmpty || basis.isEmpty ? nil : (times[0]...times[times.count - 1], basis[0]...basis[basis.count - 1])
      if let ranges { try FundingCarry.checkRange(funding: ranges.0, basis: ranges.1, interval: fundingInterval, window: window) }
      let events = FundingEvents(funding, tickerInterval: fundingInterval)
      if let ranges { try FundingCarry.checkRange(funding: ranges.0, basis: ranges.1, interval: events.interval, window: window) }
      return FundingCarry(
        events: events, basis: series.basis, perp: derivative,
        settlement: inverse ? .inverse(contractSize: canonical?.contractSize) : .linear, window: window)
    }
  }
}
