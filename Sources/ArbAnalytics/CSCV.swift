import Foundation

/// Combinatorially symmetric cross-validation: the probability of backtest overfitting
/// (Bailey, Borwein, López de Prado, Zhu, "The probability of backtest overfitting",
/// J. Computational Finance 2017), as `docs/definitions.md` ("CSCV") defines it.
///
/// The T rows are cut into S blocks (`PnLMatrix.blockBounds`). For every combination C
/// of S/2 blocks, in lexicographic order of the sorted block indices, J = the rows of C
/// (in sample) and J̄ = the other rows; n* = the cell with the highest S(J, n) (ties: the
/// lowest number); r = the average rank (1 lowest … N highest, ties averaged) of
/// S(J̄, n*) among S(J̄, n); ω = r / (N + 1); λ = ln(ω / (1 − ω)). PBO = the share of
/// combinations with λ ≤ 0.
public struct CSCV: Sendable, Equatable {
  /// The largest S accepted: C(20, 10) = 184,756 combinations.
  public static let maximumBlocks = 20

  /// S.
  public let blocks: Int
  /// λ of every combination, in enumeration order.
  public let logits: [Double]

  /// C(S, S/2).
  public var combinations: Int { logits.count }
  /// The share of combinations with λ ≤ 0.
  public var pbo: Double { Double(logits.count(where: { $0 <= 0 })) / Double(logits.count) }

  /// - Precondition: `blocks` even, 2 … `maximumBlocks`, and at most `matrix.periods`.
  /// - Complexity: O(T·N) once, then O(S·N) per combination: each combination's
  ///   Sharpe ratios come from per-block aggregates, never from the rows.
  public init(matrix: PnLMatrix, blocks: Int) {
    precondition(blocks >= 2 && blocks % 2 == 0 && blocks <= Self.maximumBlocks && blocks <= matrix.periods, "CSCV: \(blocks) blocks")
    self.blocks = blocks
    let moments = BlockMoments(matrix: matrix, blocks: blocks)
    let cells = matrix.cells
    var outOfSample = [Double](repeating: 0, count: cells)
    var logits: [Double] = []
    var chosen = Array(0..<blocks / 2)
    while true {
      let inSample = chosen.reduce(UInt32(0)) { $0 | 1 << UInt32($1) }
      var best = 0
      var bestSharpe = -Double.infinity
      for n in 0..<cells {
        let (sharpeIn, sharpeOut) = moments.sharpe(cell: n, inSample: inSample)
        if n == 0 || sharpeIn > bestSharpe { (best, bestSharpe) = (n, sharpeIn) }
        outOfSample[n] = sharpeOut
      }
      let score = outOfSample[best]
      var below = 0, equal = 0
      for value in outOfSample { if value < score { below += 1 } else if value == score { equal += 1 } }
      let rank = Double(below) + Double(equal + 1) / 2
      let omega = rank / Double(cells + 1)
      logits.append(log(omega / (1 - omega)))
      guard Self.advance(&chosen, blocks: blocks) else { break }
    }
    self.logits = logits
  }

  /// The next combination in lexicographic order; `false` after the last.
  static func advance(_ chosen: inout [Int], blocks: Int) -> Bool {
    let size = chosen.count
    var i = size - 1
    while i >= 0 && chosen[i] == blocks - size + i { i -= 1 }
    guard i >= 0 else { return false }
    chosen[i] += 1
    for j in i + 1..<size { chosen[j] = chosen[j - 1] + 1 }
    return true
  }
}

/// Per cell and block: the sum, the mean, Σ (x − block mean)², the least and the
/// greatest value. A union of blocks then gets its count, mean and M2 by Chan's
/// pairwise formula, M2 = Σ_b (M2_b + k_b (mean_b − mean)²), which keeps the accuracy
/// of a two-pass variance; it is all equal exactly when its least value equals its
/// greatest.
struct BlockMoments {
  let blocks: Int
  let counts: [Double]
  /// `[cell · blocks + block]`.
  let sums: [Double], means: [Double], m2s: [Double], least: [Double], greatest: [Double]

  init(matrix: PnLMatrix, blocks: Int) {
    self.blocks = blocks
    let bounds = matrix.blockBounds(blocks)
    counts = (0..<blocks).map { Double(bounds[$0 + 1] - bounds[$0]) }
    var sums: [Double] = [], means: [Double] = [], m2s: [Double] = [], least: [Double] = [], greatest: [Double] = []
    for n in 0..<matrix.cells {
      let column = matrix.column(n)
      for b in 0..<blocks {
        let rows = column[column.startIndex + bounds[b]..<column.startIndex + bounds[b + 1]]
        let sum = rows.reduce(0, +)
        let mean = sum / counts[b]
        sums.append(sum)
        means.append(mean)
        m2s.append(rows.reduce(0) { $0 + ($1 - mean) * ($1 - mean) })
        least.append(rows.min()!)
        greatest.append(rows.max()!)
      }
    }
    (self.sums, self.means, self.m2s, self.least, self.greatest) = (sums, means, m2s, least, greatest)
  }

  /// S(J, n) and S(J̄, n) for J = the blocks whose bit is set in `inSample`.
  @inline(__always)
  func sharpe(cell: Int, inSample: UInt32) -> (Double, Double) {
    let base = cell * blocks
    var count = (0.0, 0.0), sum = (0.0, 0.0)
    var low = (Double.infinity, Double.infinity), high = (-Double.infinity, -Double.infinity)
    for b in 0..<blocks {
      let k = base + b
      if inSample >> UInt32(b) & 1 == 1 {
        count.0 += counts[b]; sum.0 += sums[k]; low.0 = min(low.0, least[k]); high.0 = max(high.0, greatest[k])
      } else {
        count.1 += counts[b]; sum.1 += sums[k]; low.1 = min(low.1, least[k]); high.1 = max(high.1, greatest[k])
      }
    }
    let mean = (sum.0 / count.0, sum.1 / count.1)
    var m2 = (0.0, 0.0)
    for b in 0..<blocks {
      let k = base + b
      if inSample >> UInt32(b) & 1 == 1 {
        m2.0 += m2s[k] + counts[b] * (means[k] - mean.0) * (means[k] - mean.0)
      } else {
        m2.1 += m2s[k] + counts[b] * (means[k] - mean.1) * (means[k] - mean.1)
      }
    }
    // All equal: the mean is that value exactly, and the std 0.
    let inSampleSharpe = PeriodSharpe.ratio(mean: low.0 == high.0 ? low.0 : mean.0, variance: low.0 == high.0 ? 0 : m2.0 / (count.0 - 1))
    let outOfSampleSharpe = PeriodSharpe.ratio(mean: low.1 == high.1 ? low.1 : mean.1, variance: low.1 == high.1 ? 0 : m2.1 / (count.1 - 1))
    return (inSampleSharpe, outOfSampleSharpe)
  }
}
