/// How much of a sweep's best cell survives out of sample, from its period PnL matrix
/// alone: the CSCV probability of backtest overfitting, the deflated Sharpe ratio and,
/// when asked, walk-forward windows and a block bootstrap of the best cell's period
/// PnL. `arbkit validate` prints it and `arbkit report` lays it out (definitions in
/// docs/definitions.md).
public struct OutOfSampleEvidence: Sendable, Equatable {
  public let matrix: PnLMatrix
  public let cscv: CSCV
  public let deflated: DeflatedSharpe
  public let walkForward: WalkForward?
  public let bootstrap: BlockBootstrap?

  /// - Parameters:
  ///   - blocks: the even number of CSCV blocks, at most the matrix's periods.
  ///   - walkForward: TRAIN and TEST periods of the walk-forward windows, and whether the train windows are anchored.
  ///   - bootstrap: resamples, mean block length (nil: the cube root of the periods, rounded) and seed.
  public init(
    matrix: PnLMatrix, blocks: Int, walkForward: (train: Int, test: Int, anchored: Bool)?,
    bootstrap: (resamples: Int, blockLength: Int?, seed: UInt64)?
  ) {
    self.matrix = matrix
    cscv = CSCV(matrix: matrix, blocks: blocks)
    deflated = DeflatedSharpe(matrix: matrix)
    self.walkForward = walkForward.map { WalkForward(matrix: matrix, train: $0.train, test: $0.test, anchored: $0.anchored) }
    self.bootstrap = bootstrap.map {
      BlockBootstrap(
        column: matrix.column(matrix.bestCell), resamples: $0.resamples,
        blockLength: $0.blockLength ?? BlockBootstrap.defaultBlockLength(periods: matrix.periods), seed: $0.seed)
    }
  }

  /// Whether the best cell's edge survives out of sample: PBO below 0.5, a deflated
  /// Sharpe ratio of at least 0.95 and, with walk-forward windows, a positive
  /// out-of-sample PnL. An undefined figure does not survive.
  public var survives: Bool {
    guard cscv.pbo < 0.5, let dsr = deflated.deflated, dsr >= 0.95 else { return false }
    guard let walkForward else { return true }
    return (walkForward.outOfSamplePnL ?? 0) > 0
  }
}
