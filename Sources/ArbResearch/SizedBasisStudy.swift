import ArbAnalytics
import ArbCore

/// The executable basis at a trade size and its analysis (`arbkit basis` with a size;
/// `docs/definitions.md`, "Basis and funding carry").
public struct SizedBasisStudy {
  public var summary: SizedBasisSummary
  /// How deep the derivative's and the reference's books are.
  public var depth: [LegDepth]

  public init(summary: SizedBasisSummary, depth: [LegDepth]) { (self.summary, self.depth) = (summary, depth) }
}
