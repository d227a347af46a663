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
