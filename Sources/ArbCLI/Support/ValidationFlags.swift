import ArbAnalytics
import ArbCore
import ArbIngest

/// The out-of-sample flags `arbkit validate` and `arbkit report` share: CSCV blocks,
/// walk-forward windows and the bootstrap, each `nil` when not given (each command
/// applies its own defaults).
struct ValidationFlags {
  static let flags = ["--blocks", "--walk-forward", "--bootstrap", "--seed", "--block-length"]
  static let switches = ["--anchored"]
  static let maximumResamples = 1_000_000

  /// The flags' help, with each command's defaults of `--blocks` and `--seed`.
  static func help(blocks: String, seed: String) -> [(String, String)] {
    [
      ("--blocks S", "the even number of blocks the periods are cut into for CSCV, 2 to \(CSCV.maximumBlocks) (default \(blocks))"),
      ("--walk-forward TRAIN/TEST", "walk-forward windows: choose the best cell on TRAIN periods, score it on the next TEST periods"),
      ("--anchored", "walk-forward train windows all start at the first period"),
      ("--bootstrap B", "B stationary block bootstrap resamples of the best cell's period PnL, 1 to \(Self.maximumResamples)"),
      ("--seed S", "the bootstrap's seed, 0 to 2^63 − 1 (default \(seed))"),
      ("--block-length L", "the bootstrap's mean block length in periods (default: the cube root of the periods, rounded)"),
    ]
  }

  let blocks: Int?
  let walkForward: (train: Int, test: Int)?
  let anchored: Bool
  let resamples: Int?
  let seed: UInt64?
  let blockLength: Int?

  init(_ cursor: ArgumentCursor) throws(UsageError) {
    blocks = try cursor.value("--blocks", "an even number from 2 to \(CSCV.maximumBlocks)") {
      Int($0).flatMap { $0 >= 2 && $0 <= CSCV.maximumBlocks && $0 % 2 == 0 ? $0 : nil }
    }
    walkForward = try cursor.value("--walk-forward", "TRAIN/TEST, two whole numbers of periods of at least 1") { text in
      let parts = text.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, let train = Int(parts[0]), let test = Int(parts[1]), train >= 1, test >= 1 else { return nil }
      return (train, test)
    }
    anchored = cursor.flag("--anchored")
    resamples = try cursor.value("--bootstrap", "a number of resamples from 1 to \(Self.maximumResamples)") {
      Int($0).flatMap { (1...Self.maximumResamples).contains($0) ? $0 : nil }
    }
    seed = try cursor.value("--seed", "a whole number from 0 to \(Int64.max)", { UInt64($0).flatMap { $0 <= Int64.max ? $0 : nil } })
    blockLength = try cursor.value("--block-length", "a whole number of periods of at least 1") { Int($0).flatMap { $0 >= 1 ? $0 : nil } }
  }

  /// Refuses a matrix at `path` with fewer `periods` than the CSCV `blocks` (exit 65, at the line after its last row).
  static func checkPeriods(_ periods: Int, blocks: Int, path: String) throws(PnLMatrixError) {
    guard periods >= blocks else {
      throw PnLMatrixError(.fewerPeriodsThanBlocks(periods: periods, blocks: blocks), at: SourcePosition(path: path, line: periods + 1, column: 1))
    }
  }
}
