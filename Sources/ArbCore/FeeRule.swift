/// The one rule every fee obeys, whether it comes from a scenario's `costs.fees` or
/// from the exchange registry: a fraction per fill, below 1 (100 %). A taker fee is
/// never negative; a maker fee may be a rebate of at most 1 % (venues pay 0.01–0.03 %).
public enum FeeRule {
  /// Taker fees and a scenario's fees: [0, 1).
  public static let taker: Range<Double> = 0..<1
  /// Maker fees: [−0.01, 1).
  public static let maker: Range<Double> = -0.01..<1

  /// What is wrong with `fee` for `range`, as "must be a fraction in [0, 1), was -0.5";
  /// `nil` when it is within.
  public static func problem(_ fee: Double, in range: Range<Double> = taker) -> String? {
    range.contains(fee) ? nil : "must be a fraction in [\(bound(range.lowerBound)), \(bound(range.upperBound))), was \(fee)"
  }

  /// A bound as written in the rule: `0`, `1`, `-0.01`.
  private static func bound(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
}
