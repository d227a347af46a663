import Dispatch
import Synchronization

/// `SeriesSummary(signed:column:options:)` of columns that share their points and
/// validity, fed a chunk of points at a time, in memory that does not grow with the
/// series: the moments and the half-life's sums merged per chunk, bands and episodes
/// carried across chunks, the valid values spilled for exact quantiles and the valid
/// points' durations (one spill for every column) for the median duration, as
/// `PremiumAnalyzer` does (`docs/definitions.md`, "Streaming"). The columns are worked
/// on concurrently.
public final class SignedSummaryStream {
  private var columns: [SummaryAccumulator]
  private let durations: ValueSpill
  private let sides: [Scratch<Int8>]
  private let weights = Scratch<Double>()
  private var lastTime: Int64 = 0

  /// A stream of `columns` columns.
  /// - Parameter spillMemoryLimit: values of a column held in memory before they go to a temporary file.
  public init(columns: Int, options: BandOptions = BandOptions(), spillMemoryLimit: Int = ValueSpill.defaultMemoryLimit) {
    self.columns = (0..<columns).map { _ in SummaryAccumulator(oneSided: false, options: options, spillMemoryLimit: spillMemoryLimit) }
    sides = (0..<columns).map { _ in Scratch<Int8>() }
    durations = ValueSpill(memoryLimit: spillMemoryLimit)
  }

  /// Adds the next points: each of `values` holds a value per point (one buffer per
  /// column), read where `valid`; `duration` is each point's time to the next point (0
  /// for the series' last).
  /// - Throws: `SpillError`.
  public func add(
    _ values: [UnsafeBufferPointer<Double>], valid: UnsafeBufferPointer<Bool>, time: UnsafeBufferPointer<Int64>, duration: UnsafeBufferPointer<Int64>
  ) throws(SpillError) {
    let n = time.count
    precondition(
      values.count == columns.count && values.allSatisfy { $0.count == n } && valid.count == n && duration.count == n,
      "SignedSummaryStream: columns of one chunk")
    guard n > 0 else { return }
    let packed = weights.reserve(n)
    var count = 0
    for i in 0..<n where valid[i] {
      packed[count] = Double(duration[i])
      count += 1
    }
    let packedWeights = UnsafeBufferPointer(rebasing: packed[0..<count])
    try durations.append(packedWeights)
    let points = ChunkPoints(time: time, duration: duration, valid: valid)
    nonisolated(unsafe) let (values, sides, weights) = (values, sides, packedWeights)
    let results = Mutex<[Result<SummaryAccumulator, SpillError>?]>(Array(repeating: nil, count: columns.count))
    let before = columns
    DispatchQueue.concurrentPerform(iterations: columns.count) { c in
      var column = before[c]
      let side = sides[c].reserve(n)
      // The sign is the side an episode keeps (`SeriesSummary(signed:)`).
      for i in 0..<n { side[i] = values[c][i] < 0 ? -1 : 1 }
      let result = Result { () throws(SpillError) in
        try column.add(values[c], side: side, points: points, weights: weights)
        return column
      }
      results.withLock { $0[c] = result }
    }
    var added: [SummaryAccumulator] = []
    for result in results.withLock({ $0 }) { added.append(try result!.get()) }
    columns = added
    lastTime = time[n - 1]
  }

  /// The summary of each column, of every point added (`SummaryAccumulator.finish`: the
  /// spills read back concurrently).
  /// - Throws: `SpillError` when a spilled column cannot be read back.
  public func finish() throws(SpillError) -> [SeriesSummary] {
    try SummaryAccumulator.finish(columns, durations: durations, lastTime: lastTime)
  }
}
