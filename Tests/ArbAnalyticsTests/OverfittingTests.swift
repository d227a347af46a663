@testable import ArbAnalytics
import Foundation
import TestSupport
import Testing

/// CSCV, deflated Sharpe, walk-forward and the block bootstrap (`docs/definitions.md`,
/// "Out of sample"): a matrix worked on paper, the oracle on seeded random matrices,
/// and the edge cases.
@Suite("Out-of-sample statistics")
struct OverfittingTests {
  /// Rows are periods, columns cells: c0 = 1 3 2 4, c1 = 0 1 2 3, c2 = 2 0 1 1.
  static let paper: [[Double]] = [[1, 0, 2], [3, 1, 0], [2, 2, 1], [4, 3, 1]]

  static func matrix(_ rows: [[Double]]) -> PnLMatrix {
    let cells = rows[0].count
    return PnLMatrix(periods: rows.count, cells: cells, values: (0..<cells).flatMap { n in rows.map { $0[n] } })
  }

  static func random(periods: Int, cells: Int, seed: UInt64) -> [[Double]] {
    var g = SplitMix64(seed: seed)
    let drift = (0..<cells).map { _ in 0.2 * g.normal() }
    return (0..<periods).map { _ in (0..<cells).map { drift[$0] + g.normal() } }
  }

  /// 4 blocks of one row; each half has two rows, and the Sharpe ratio of two values
  /// (a, b) is ((a + b)/2) / (|a − b|/√2) = (a + b) / (√2·|a − b|); two equal values
  /// give +∞ (positive mean). Writing s(a, b) for it:
  ///
  ///     C      J    in sample c0, c1, c2            n*  J̄    out of sample c0, c1, c2     r    ω     λ
  ///     {0,1}  0,1  s(1,3)=1.41 s(0,1)=.71 s(2,0)=.71  0  2,3  s(2,4)=2.12 s(2,3)=3.54 +∞    1   1/4   ln(1/3)
  ///     {0,2}  0,2  s(1,2)=2.12 s(0,2)=.71 s(2,1)=2.12 0  1,3  s(3,4)=4.95 s(1,3)=1.41 s(0,1)=.71  3  3/4  ln 3
  ///     {0,3}  0,3  s(1,4)=1.18 s(0,3)=.71 s(2,1)=2.12 2  1,2  3.54 2.12 s(0,1)=.71           1   1/4   ln(1/3)
  ///     {1,2}  1,2  s(3,2)=3.54 s(1,2)=2.12 s(0,1)=.71 0  0,3  s(1,4)=1.18 s(0,3)=.71 s(2,1)=2.12  2  1/2  0
  ///     {1,3}  1,3  s(3,4)=4.95 s(1,3)=1.41 s(0,1)=.71 0  0,2  s(1,2)=2.12 s(0,2)=.71 s(2,1)=2.12  2.5 5/8 ln(5/3)
  ///     {2,3}  2,3  s(2,4)=2.12 s(2,3)=3.54 +∞         2  0,1  s(1,3)=1.41 s(0,1)=.71 s(2,0)=.71  1.5 3/8 ln(3/5)
  ///
  /// {0,2}: c0 and c2 tie in sample (the same two values), the lowest number wins.
  /// {1,3}: c0 ties c2 out of sample: ranks 2 and 3 averaged. {2,3}: c1 ties c2: 1.5.
  /// λ ≤ 0 in {0,1}, {0,3}, {1,2}, {2,3}: PBO = 4/6.
  @Test func `CSCV of the paper matrix`() {
    let cscv = CSCV(matrix: Self.matrix(Self.paper), blocks: 4)
    let expected = [log(1.0 / 3), log(3.0), log(1.0 / 3), 0, log(5.0 / 3), log(3.0 / 5)]
    #expect(cscv.combinations == 6)
    #expect(zip(cscv.logits, expected).allSatisfy { isClose($0, $1, rel: 1e-14) })
    #expect(cscv.pbo == 4.0 / 6)
  }

  /// TRAIN 2 / TEST 1 over T = 4: windows k = 0 (train 0..<2, test 2) and k = 1 (train
  /// 1..<3, test 3). k = 0: s(1,3) = √2, s(0,1) = s(2,0) = 1/√2 → c0, test PnL 2.
  /// k = 1: s(3,2) = 5/√2, s(1,2) = 3/√2, s(0,1) = 1/√2 → c0, test PnL 4.
  /// oos_pnl = 6; oos_sharpe = s(2,4) = 6/(√2·2) = 3/√2; the all-rows best is c0
  /// (c0 = 1 3 2 4: mean 2.5, std √(5/3), 1.94 against 1.16 and 1.22): in_sample_pnl = 6.
  /// Anchored TRAIN 1 / TEST 2: one window, train row 0 where c0 (1) and c2 (2) are +∞
  /// and tie → c0; test rows 1, 2: 3 + 2 = 5, s(3,2) = 5/√2.
  @Test func `walk-forward of the paper matrix`() {
    let rolling = WalkForward(matrix: Self.matrix(Self.paper), train: 2, test: 1, anchored: false)
    #expect(rolling.windows.map(\.train) == [0..<2, 1..<3])
    #expect(rolling.windows.map(\.test) == [2..<3, 3..<4])
    #expect(rolling.windows.map(\.bestCell) == [0, 0])
    #expect(isClose(rolling.windows[0].trainSharpe, 2.0.squareRoot()) && isClose(rolling.windows[1].trainSharpe, 5 / 2.0.squareRoot()))
    #expect(rolling.windows.map(\.testPnL) == [2, 4])
    #expect(rolling.outOfSamplePnL == 6 && rolling.inSamplePnL == 6)
    #expect(isClose(rolling.outOfSampleSharpe, 3 / 2.0.squareRoot()))
    let anchored = WalkForward(matrix: Self.matrix(Self.paper), train: 1, test: 2, anchored: true)
    #expect(anchored.windows.count == 1)
    #expect(anchored.windows[0].trainSharpe == .infinity && anchored.windows[0].bestCell == 0)
    #expect(anchored.outOfSamplePnL == 5 && isClose(anchored.outOfSampleSharpe, 5 / 2.0.squareRoot()))
  }

  /// c0 = 1 3 2 4: SR = 2.5 / √(5/3); deviations ±1.5, ±0.5: m2 = 1.25, m3 = 0,
  /// m4 = 2.5625, so g3 = 0 and g4 = 2.5625 / 1.5625 = 1.64; radicand 1 + 0.16·SR² = 1.6.
  /// V = the variance of (1.936, 1.162, 1.225), N' = 3; SR0 and DSR as recomputed with
  /// Python's statistics.NormalDist: 0.366893240639290 and 0.984193148602546.
  @Test func `deflated Sharpe of the paper matrix`() {
    let deflated = DeflatedSharpe(matrix: Self.matrix(Self.paper))
    #expect(deflated.bestCell == 0 && deflated.trials == 3)
    #expect(isClose(deflated.sharpe, 2.5 / (5.0 / 3).squareRoot()))
    #expect(deflated.skewness == 0 && isClose(deflated.kurtosis, 1.64))
    #expect(isClose(deflated.expectedMaximum, 0.36689324063928996, rel: 1e-12))
    #expect(isClose(deflated.deflated, 0.9841931486025455, rel: 1e-12))
  }

  static let shapes: [(periods: Int, cells: Int, blocks: Int)] = [(8, 1, 2), (16, 5, 4), (37, 7, 6), (64, 12, 8), (100, 3, 10), (9, 4, 8)]

  @Test("the fast CSCV matches the oracle", arguments: shapes)
  func cscvMatchesOracle(shape: (periods: Int, cells: Int, blocks: Int)) {
    let rows = Self.random(periods: shape.periods, cells: shape.cells, seed: UInt64(shape.periods * 31 + shape.cells))
    let fast = CSCV(matrix: Self.matrix(rows), blocks: shape.blocks)
    let slow = OverfittingOracle.logits(rows, blocks: shape.blocks)
    #expect(fast.logits.count == slow.count)
    #expect(zip(fast.logits, slow).allSatisfy { isClose($0, $1, rel: 1e-12) })
    #expect(fast.pbo == OverfittingOracle.pbo(slow))
  }

  @Test("deflated Sharpe and walk-forward match the oracle", arguments: shapes)
  func othersMatchOracle(shape: (periods: Int, cells: Int, blocks: Int)) {
    let rows = Self.random(periods: shape.periods, cells: shape.cells, seed: UInt64(shape.periods * 17 + shape.cells))
    let matrix = Self.matrix(rows)
    let deflated = DeflatedSharpe(matrix: matrix)
    let expected = OverfittingOracle.deflatedSharpe(rows)
    #expect(isClose(deflated.sharpe, expected.sharpe))
    #expect(isClose(deflated.expectedMaximum, expected.sr0, rel: 1e-9))
    #expect(isClose(deflated.deflated, expected.dsr, rel: 1e-9))
    for (train, test, anchored) in [(3, 2, false), (shape.periods / 2, 1, true), (1, 1, false), (shape.periods, 1, false)] {
      let fast = WalkForward(matrix: matrix, train: train, test: test, anchored: anchored)
      let slow = OverfittingOracle.walkForward(rows, train: train, test: test, anchored: anchored)
      #expect(fast.windows.map(\.train) == slow.windows.map(\.train))
      #expect(fast.windows.map(\.bestCell) == slow.windows.map(\.best))
      #expect(zip(fast.windows, slow.windows).allSatisfy { isClose($0.testPnL, $1.testPnL) && isClose($0.trainSharpe, $1.trainSharpe) })
      #expect(isClose(fast.outOfSamplePnL, slow.oosPnL) && isClose(fast.outOfSampleSharpe, slow.oosSharpe))
      #expect(isClose(fast.inSamplePnL, slow.inSamplePnL))
    }
  }

  /// A constant positive column is +∞ everywhere, a zero column 0: the zero column
  /// ranks in the middle, the constant one wins every in-sample choice; ties are by
  /// the lowest number. T = S: blocks of one row.
  @Test func `constant columns, ties and T equal to S`() {
    var g = SplitMix64(seed: 11)
    let rows = (0..<8).map { _ in [0.0, 0.1, g.normal(), g.normal(), 0.1] }
    let matrix = Self.matrix(rows)
    let cscv = CSCV(matrix: matrix, blocks: 8)
    #expect(zip(cscv.logits, OverfittingOracle.logits(rows, blocks: 8)).allSatisfy { isClose($0, $1, rel: 1e-12) })
    // n* is always cell 1 (+∞, tied with cell 4), whose out-of-sample +∞ ties cell 4 at
    // the top: rank (4 + 5) / 2 = 4.5, ω = 4.5 / 6, λ = ln 3.
    #expect(cscv.logits.allSatisfy { isClose($0, log(3.0), rel: 1e-14) })
    #expect(cscv.pbo == 0)
    #expect(matrix.sharpeRatios[0] == 0 && matrix.sharpeRatios[1] == .infinity && matrix.bestCell == 1)
    let deflated = DeflatedSharpe(matrix: matrix)
    #expect(deflated.sharpe == .infinity && deflated.trials == 3 && deflated.deflated == nil && deflated.skewness == nil)
  }

  /// Cells 1 and 2 share their first four rows (values no binary fraction holds
  /// exactly): on those rows their Sharpe ratios are equal to the bit, and the combination
  /// {0,1,2,3} picks cell 1, as the oracle over rows does.
  @Test func `equal rows tie exactly`() {
    var g = SplitMix64(seed: 21)
    var rows = (0..<8).map { _ in [g.normal(), 1 + g.normal() / 3, 1 + g.normal() / 3] }
    for t in 0..<4 { rows[t][2] = rows[t][1] }
    let cscv = CSCV(matrix: Self.matrix(rows), blocks: 8)
    #expect(cscv.logits == OverfittingOracle.logits(rows, blocks: 8))
    let moments = BlockMoments(matrix: Self.matrix(rows), blocks: 8)
    #expect(moments.sharpe(cell: 1, of: [0, 1, 2, 3], count: 4) == moments.sharpe(cell: 2, of: [0, 1, 2, 3], count: 4))
  }

  /// With one cell every rank is 1 of 1: ω = 1/2, λ = 0 and PBO = 1; N' = 1 leaves
  /// SR0 and the DSR undefined.
  @Test func `one cell`() {
    let rows = Self.random(periods: 10, cells: 1, seed: 3)
    let cscv = CSCV(matrix: Self.matrix(rows), blocks: 4)
    #expect(cscv.combinations == 6 && cscv.logits.allSatisfy { $0 == 0 } && cscv.pbo == 1)
    let deflated = DeflatedSharpe(matrix: Self.matrix(rows))
    #expect(deflated.trials == 1 && deflated.expectedMaximum == nil && deflated.deflated == nil)
  }

  @Test func `blocks drop no row`() {
    let matrix = Self.matrix(Self.random(periods: 17, cells: 2, seed: 1))
    #expect(matrix.blockBounds(4) == [0, 4, 8, 12, 17])
    #expect(matrix.blockBounds(16).first == 0 && matrix.blockBounds(16).last == 17)
  }

  @Test func `walk-forward without a whole window`() {
    let walk = WalkForward(matrix: Self.matrix(Self.paper), train: 3, test: 2, anchored: false)
    #expect(walk.windows.isEmpty && walk.outOfSamplePnL == nil && walk.outOfSampleSharpe == nil && walk.inSamplePnL == nil)
    // Windows far longer than the matrix: none, and no arithmetic overflow on the way.
    for (train, test) in [(Int.max, Int.max), (1, Int.max), (Int.max, 1)] {
      #expect(WalkForward(matrix: Self.matrix(Self.paper), train: train, test: test, anchored: false).windows.isEmpty)
    }
  }

  /// Φ⁻¹ against Wichura's AS 241 (Python's statistics.NormalDist().inv_cdf).
  static let quantiles: [(p: Double, x: Double)] = [
    (0.5, 0), (0.975, 1.9599639845400536), (0.025, -1.9599639845400538), (0.9, 1.2815515655446008),
    (0.01, -2.3263478740408408), (1e-10, -6.361340902404056), (0.999, 3.090232306167813),
    (0.9996321205588286, 3.375895391061807), (0.02425, -1.9729610513118845), (0.3, -0.5244005127080407),
  ]

  @Test("Φ⁻¹ at known quantiles", arguments: quantiles)
  func inverseNormal(c: (p: Double, x: Double)) {
    #expect(isClose(NormalDistribution.quantile(c.p), c.x, rel: 1e-14, abs: 1e-15))
    #expect(isClose(NormalDistribution.cdf(NormalDistribution.quantile(c.p)), c.p, rel: 1e-13))
  }

  @Test func `Φ⁻¹ at the ends`() {
    #expect(NormalDistribution.quantile(0) == -.infinity && NormalDistribution.quantile(1) == .infinity)
    #expect(NormalDistribution.quantile(1.5).isNaN)
  }

  @Test func `the bootstrap is the oracle's and repeats for a seed`() {
    let rows = Self.random(periods: 50, cells: 1, seed: 8)
    let column = rows.map { $0[0] }
    let first = BlockBootstrap(column: column, resamples: 400, blockLength: 4, seed: 42)
    let again = BlockBootstrap(column: column, resamples: 400, blockLength: 4, seed: 42)
    let other = BlockBootstrap(column: column, resamples: 400, blockLength: 4, seed: 43)
    #expect(first == again && first != other)
    let slow = OverfittingOracle.bootstrap(column, resamples: 400, blockLength: 4, seed: 42)
    #expect(zip(first.pnlQuantiles, slow.pnl).allSatisfy { isClose($0, $1) })
    #expect(zip(first.sharpeQuantiles, slow.sharpe).allSatisfy { isClose($0, $1) })
    #expect(first.sharePnLAtMostZero == slow.shareAtMostZero)
    #expect(BlockBootstrap.defaultBlockLength(periods: 365) == 7 && BlockBootstrap.defaultBlockLength(periods: 1) == 1)
  }

  /// Cell 0 earns about 1 a period, cells 1 to 3 are noise around 0.
  static let robust: [[Double]] = (0..<16).map { t in
    (0..<4).map { n -> Double in
      let noise: Double = 0.3 * sin(Double(7 * t + 3 * n + 1))
      return n == 0 ? 1 + noise : noise
    }
  }

  @Test func `the best cell survives only when PBO, the deflated Sharpe and the walk-forward all say so`() {
    let matrix = Self.matrix(Self.robust)
    let robust = OutOfSampleEvidence(matrix: matrix, blocks: 4, walkForward: (4, 2, false), bootstrap: nil)
    #expect(robust.cscv.pbo < 0.5 && robust.deflated.deflated.map { $0 >= 0.95 } == true && (robust.walkForward?.outOfSamplePnL ?? 0) > 0)
    #expect(robust.survives)
    // Without walk-forward windows, PBO and the deflated Sharpe decide.
    #expect(OutOfSampleEvidence(matrix: matrix, blocks: 4, walkForward: nil, bootstrap: nil).survives)
    // A walk-forward without a window leaves its PnL undefined: no survival.
    let noWindow = OutOfSampleEvidence(matrix: matrix, blocks: 4, walkForward: (16, 1, false), bootstrap: nil)
    #expect(noWindow.walkForward?.outOfSamplePnL == nil && !noWindow.survives)
    // One cell: the deflated Sharpe is undefined (N' < 2) and PBO is 1.
    let single = OutOfSampleEvidence(matrix: Self.matrix(Self.robust.map { [$0[0]] }), blocks: 4, walkForward: nil, bootstrap: nil)
    #expect(single.deflated.deflated == nil && !single.survives)
    // Losing money out of sample: the mirror image of the robust matrix.
    let losing = OutOfSampleEvidence(matrix: Self.matrix(Self.robust.map { $0.map { -$0 } }), blocks: 4, walkForward: (4, 2, false), bootstrap: nil)
    #expect(!losing.survives)
  }
}
