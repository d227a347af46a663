import Foundation

/// Combinatorially symmetric cross-validation: the probability of backtest overfitting
/// (Bailey, Borwein, López de Prado, Zhu, "The probability of backtest overfitting",
/// J. Computational Finance 2017), as `docs/definitions.md` ("CSCV") defines it.
///
/// The T rows are cut into S blocks (`PnLMatrix.blockBounds`). For every combination C
/// of S/2 blocks, in lexicographic order of the sorted block indices, J = the rows of C
/// (in sample) and J̄ = the other rows; n* = the cell with the highest S(J, n) (ties: the
/// lowest number; ratios within `PeriodSharpe.tieTolerance` are tied); r = the average
/// rank (1 lowest … N highest, ties averaged) of
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
      let others = (0..<blocks).filter { !chosen.contains($0) }
      let countIn = chosen.reduce(0) { $0 + moments.counts[$1] }, countOut = Double(matrix.periods) - countIn
      var best = 0
      var bestSharpe = -Double.infinity
      for n in 0..<cells {
        let sharpeIn = moments.sharpe(cell: n, of: chosen, count: countIn)
        if n == 0 || PeriodSharpe.above(sharpeIn, bestSharpe) { (best, bestSharpe) = (n, sharpeIn) }
        outOfSample[n] = moments.sharpe(cell: n, of: others, count: countOut)
      }
      let rank = PeriodSharpe.averageRank(of: outOfSample[best], among: outOfSample)
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

/// Per cell and block, side by side: the sum, the sum of squares, the least and the
/// greatest value. A union of blocks then gets its Sharpe ratio in one pass over the
/// blocks, never the rows: mean = Σ sum / k, variance = (Σ squares − k·mean²) / (k − 1),
/// and all equal exactly when its least value equals its greatest. Rows that are equal
/// in two cells give them bit-equal ratios, so ties stay ties; the variance's rounding
/// is about 1e-16 · (1 + S²) relative, far below any difference that ranks cells.
struct BlockMoments {
  let blocks: Int
  /// Rows per block.
  let counts: [Double]
  /// `[(cell · blocks + block) · 4 + k]`, k: sum, sum of squares, least, greatest.
  let moments: [Double]

  init(matrix: PnLMatrix, blocks: Int) {
    self.blocks = blocks
    let bounds = matrix.blockBounds(blocks)
    counts = (0..<blocks).map { Double(bounds[$0 + 1] - bounds[$0]) }
    var moments: [Double] = []
    moments.reserveCapacity(matrix.cells * blocks * 4)
    for n in 0..<matrix.cells {
      for b in 0..<blocks {
        let rows = matrix.column(n, rows: bounds[b]..<bounds[b + 1])
        moments += [rows.reduce(0, +), rows.reduce(0) { $0 + $1 * $1 }, rows.min()!, rows.max()!]
      }
    }
    self.moments = moments
  }

  /// S(J, n) for J = the rows of the blocks `blockSet`, `count` rows in all.
  @inline(__always)
  func sharpe(cell: Int, of blockSet: [Int], count: Double) -> Double {
    let base = cell * blocks
    var sum = 0.0, squares = 0.0, low = Double.infinity, high = -Double.infinity
    moments.withUnsafeBufferPointer { m in
      for b in blockSet {
        let k = (base + b) * 4
        sum += m[k]
        squares += m[k + 1]
        low = min(low, m[k + 2])
        high = max(high, m[k + 3])
      }
    }
    // All equal: the mean is that value exactly, and the std 0.
    if low == high { return PeriodSharpe.ratio(mean: low, variance: 0) }
    let mean = sum / count
    return PeriodSharpe.ratio(mean: mean, variance: (squares - count * mean * mean) / (count - 1))
  }
}
