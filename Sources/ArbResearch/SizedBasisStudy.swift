import ArbAnalytics
import ArbCore

/// The executable basis at a trade size and its analysis (`arbkit basis` with a size;
/// `docs/definitions.md`, "Basis and funding carry").
public struct SizedBasisStudy {
  public var sized: SizedBasis
  public var open: SeriesSummary
  public var close: SeriesSummary
  /// Per band, statistics of the capacity of `open` over the valid points of the alignment.
  public var capacity: [SeriesStatistics]
  /// How deep the derivative's and the reference's books are.
  public var depth: [LegDepth]

  /// The basis of `derivative` over `reference` at `size` base units, aligned by
  /// `alignment`.
  ///
  /// - Throws: `AlignmentError` for legs that cannot be aligned.
  public init(size: Double, derivative: QuoteSeries, reference: QuoteSeries, alignment: AlignmentOptions, bands: BandOptions) throws(AlignmentError) {
    let aligned = try AlignedLegs(legs: [derivative, reference], options: alignment)
    sized = SizedBasis(quantity: size, bands: bands.bands, aligned: aligned, derivative: derivative, reference: reference)
    open = SeriesSummary(signed: sized.open, column: sized.open.mid, options: bands)
    close = SeriesSummary(signed: sized.close, column: sized.close.mid, options: bands)
    capacity = SizedAnalysis.capacity(sized.capacity, valid: sized.alignedValid, premium: sized.open)
    depth = [derivative, reference].map(LegDepth.init)
  }
}
