import ArbAnalytics
import ArbCore

/// The premium of aligned legs at a trade size and its analysis (`arbkit premium` and
/// `arbkit board` with a size; `docs/definitions.md`, "Size-aware executable premium").
public struct SizedPremiumStudy {
  public var summary: SizedSummary
  /// How deep each leg's books are.
  public var depth: [LegDepth]

  public init(summary: SizedSummary, depth: [LegDepth]) { (self.summary, self.depth) = (summary, depth) }

  /// The premium of `legs` at `size` base units, walking their books on the points of
  /// `premium` (the same legs aligned by `alignment`).
  ///
  /// - Throws: `AlignmentError` for legs that cannot be aligned.
  public init(size: Double, premium: PremiumSeries, legs: [QuoteSeries], alignment: AlignmentOptions, bands: BandOptions) throws(AlignmentError) {
    let aligned = try AlignedLegs(legs: legs, options: alignment)
    summary = SizedSummary(SizedPremium(quantity: size, bands: bands.bands, premium: premium, aligned: aligned, legs: legs), options: bands)
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
    self.init(depth: leg.depth, priceSource: leg.priceSource, hasSizes: !(leg.bidSize.allSatisfy(\.isNaN) && leg.askSize.allSatisfy(\.isNaN)))
  }

  /// The depth of a leg with books `depth` (or none), whose quotes are `priceSource`
  /// and have a size somewhere (`hasSizes`).
  public init(depth: BookDepth?, priceSource: PriceSource, hasSizes: Bool) {
    if let depth {
      self = .book(levels: depth.deepest)
    } else if priceSource == .last || !hasSizes {
      self = .noSizes
    } else {
      self = .topLevel
    }
  }
}
