import ArbAnalytics
import ArbCore

/// The premium of aligned legs at a trade size and its analysis (`arbkit premium` and
/// `arbkit board` with a size; `docs/definitions.md`, "Size-aware executable premium").
public struct SizedPremiumStudy {
  public var sized: SizedPremium
  public var analysis: SizedAnalysis
  /// How deep each leg's books are.
  public var depth: [LegDepth]

  /// The premium of `legs` at `size` base units, walking their books on the points of
  /// `premium` (the same legs aligned by `alignment`).
  ///
  /// - Throws: `AlignmentError` for legs that cannot be aligned.
  public init(size: Double, premium: PremiumSeries, legs: [QuoteSeries], alignment: AlignmentOptions, bands: BandOptions) throws(AlignmentError) {
    let aligned = try AlignedLegs(legs: legs, options: alignment)
    sized = SizedPremium(quantity: size, bands: bands.bands, premium: premium, aligned: aligned, legs: legs)
    analysis = SizedAnalysis(sized, options: bands)
    depth = legs.map(LegDepth.init)
  }
}

/// How deep a leg's books are, which decides what a fill at a size can walk.
public enum LegDepth: Equatable, Sendable {
  /// Order books up to this many levels.
  case book(levels: Int)
  /// The top level with its sizes.
  case topLevel
  /// No sizes: last prices, or quotes without them.
  case noSizes

  public init(_ leg: QuoteSeries) {
    if let depth = leg.depth {
      self = .book(levels: depth.deepest)
    } else if leg.priceSource == .last || (leg.bidSize.allSatisfy(\.isNaN) && leg.askSize.allSatisfy(\.isNaN)) {
      self = .noSizes
    } else {
      self = .topLevel
    }
  }
}
