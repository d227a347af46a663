import Foundation

/// The stationary block bootstrap (Politis & Romano 1994) of one cell's period PnL,
/// as `docs/definitions.md` defines it: quantiles of the total PnL and of the Sharpe
/// ratio over `resamples` resamples, and the share of resamples whose total is ≤ 0.
///
/// Each resample has T values x[i₀], x[i₁], …: i₀ is a random row, and each next index
/// is, with probability 1/L, a new random row, otherwise the previous index + 1
/// (wrapping from T − 1 to 0), so blocks have geometric lengths of mean L. The draws
/// come from SplitMix64 seeded with `seed`, in this order for each resample and row:
/// for rows after the first a uniform u = (next() >> 11) · 2⁻⁵³ that starts a block
/// when u < 1/L, and for a block's first row a row ⌊u′·T⌋ from the next uniform u′. The
/// same seed gives the same figures on every machine.
public struct BlockBootstrap: Sendable, Equatable {
  /// The probabilities of the reported quantiles (type 7, as `Quantiles`).
  public static let probabilities = [0.025, 0.5, 0.975]
  /// The default mean block length of T periods: ∛T rounded, at least 1.
  public static func defaultBlockLength(periods: Int) -> Int { max(1, Int(cbrt(Double(periods)).rounded())) }

  public let resamples: Int
  public let blockLength: Int
  public let seed: UInt64
  /// The 2.5 %, 50 % and 97.5 % quantiles of the resamples' total PnL.
  public let pnlQuantiles: [Double]
  /// The same quantiles of the resamples' Sharpe ratios (`nil` where not finite: a
  /// quantile between −∞ and +∞, or at ±∞).
  public let sharpeQuantiles: [Double?]
  /// The share of resamples with total PnL ≤ 0.
  public let sharePnLAtMostZero: Double

  /// - Precondition: `resamples` and `blockLength` at least 1, `column` not empty.
  /// - Complexity: O(resamples · T).
  public init<Column: RandomAccessCollection<Double>>(column: Column, resamples: Int, blockLength: Int, seed: UInt64) where Column.Index == Int {
    precondition(resamples >= 1 && blockLength >= 1 && !column.isEmpty, "BlockBootstrap: \(resamples) resamples, block length \(blockLength)")
    let values = Array(column)
    let periods = values.count
    let restart = 1 / Double(blockLength)
    var generator = SplitMixGenerator(seed: seed)
    var totals: [Double] = [], ratios: [Double] = []
    totals.reserveCapacity(resamples)
    ratios.reserveCapacity(resamples)
    var resample = [Double](repeating: 0, count: periods)
    for _ in 0..<resamples {
      var index = 0
      for t in 0..<periods {
        if t == 0 || generator.uniform() < restart {
          index = min(periods - 1, Int(generator.uniform() * Double(periods)))
        } else {
          index = index + 1 == periods ? 0 : index + 1
        }
        resample[t] = values[index]
      }
      totals.append(resample.reduce(0, +))
      ratios.append(PeriodSharpe.of(resample))
    }
    self.resamples = resamples
    self.blockLength = blockLength
    self.seed = seed
    sharePnLAtMostZero = Double(totals.count(where: { $0 <= 0 })) / Double(resamples)
    pnlQuantiles = Quantiles.compute(totals, probabilities: Self.probabilities)!
    sharpeQuantiles = Quantiles.compute(ratios, probabilities: Self.probabilities)!.map { $0.isFinite ? $0 : nil }
  }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small seeded generator whose stream is the
/// same on every machine (the bootstrap's draws, the benchmark's generated data).
public struct SplitMixGenerator: Sendable {
  private var state: UInt64
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform double in [0, 1): the top 53 bits of `next()` times 2⁻⁵³.
  public mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }
}
