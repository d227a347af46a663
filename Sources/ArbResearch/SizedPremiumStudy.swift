import ArbAnalytics
import ArbCore

/// The premium of aligned legs at a trade size and its analysis (`arbkit premium` and
/// `arbkit board` with a size; `docs/definitions.md`, "Size-aware executable premium").
public struct SizedPremiumStudy {
  public var summary: SizedSummary
  /// How deep each leg's books are.
  public var depth: [LegDepth]

  public init(summary: SizedSummary, depth: [LegDepth]) { (self.summary, self.depth) = (summary, depth) }
}

/// How deep a leg's books are, which decides what a fill at a size can walk.
public enum LegDepth: Equatable, Sendable {
  /// Order books up to this many levels.
  case book(levels: Int)
  /// The top level with its sizes.
  case topLevel
  /// No sizes: last prices, or quotes without them.
  case noSizes

  /// The depth of a leg whose books have at most `deepest` levels on a side (`nil`: a
  /// leg without books), whose quotes are `priceSource` and have a size somewhere
  /// (`hasSizes`): what `PremiumStream` tells of each leg.
  public init(deepest: Int?, priceSource: PriceSource, hasSizes: Bool) {
    if let deepest {
      self = .book(levels: deepest)
    } else if priceSource == .last || !hasSizes {
      self = .noSizes
    } else {
      self = .topLevel
    }
  }
}
