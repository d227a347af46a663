/// Random numbers that are pure functions of a seed and the identity of what they decide
/// (`docs/definitions.md`, "Seeded draws"): a draw never depends on the order in which
/// runs, cells or threads ask, so a seeded run gives the same bytes for any `--jobs`.
public enum SeededDraw {
  /// What a draw decides; each purpose has its own stream.
  public enum Purpose: UInt64, Sendable {
    case legFailure = 1
    case latency = 2
    /// The delay of an inventory rebalance's transfers.
    case transfer = 3
  }

  /// A number in [0, 1) from `seed`, `purpose` and `parts` (a fill's time and leg): each
  /// value mixed in turn by SplitMix64's finaliser, the top 53 bits of the result.
  public static func uniform(seed: UInt64, _ purpose: Purpose, _ parts: UInt64...) -> Double {
    var h = mix(seed ^ (purpose.rawValue &* 0x9E37_79B9_7F4A_7C15))
    for part in parts { h = mix((h ^ part) &+ 0x9E37_79B9_7F4A_7C15) }
    return Double(h >> 11) * 0x1p-53
  }

  /// SplitMix64's output function: a bijection of 64-bit values that spreads every input bit.
  static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
