/// `SeriesSummary(signed:column:options:)` of a column fed a chunk of points at a time,
/// in memory that does not grow with the series: the moments and the half-life's sums
/// merged per chunk, bands and episodes carried across chunks, the valid values and
/// durations spilled for exact quantiles and the median duration (as `PremiumAnalyzer`;
/// `docs/definitions.md`, "Streaming").
public final class SignedSummaryStream {
  private var summary: SummaryAccumulator
  private let durations: ValueSpill
  private let sides = Scratch<Int8>(), weights = Scratch<Double>()
  private var lastTime: Int64 = 0

  /// - Parameter spillMemoryLimit: values held in memory before they go to a temporary file.
  public init(options: BandOptions = BandOptions(), spillMemoryLimit: Int = ValueSpill.defaultMemoryLimit) {
    summary = SummaryAccumulator(oneSided: false, options: options, spillMemoryLimit: spillMemoryLimit)
    durations = ValueSpill(memoryLimit: spillMemoryLimit)
  }

  /// Adds the next points: `column` holds a value per point, read where `valid`;
  /// `duration` is each point's time to the next point (0 for the series' last).
  /// - Throws: `SpillError`.
  public func add(
    _ column: UnsafeBufferPointer<Double>, valid: UnsafeBufferPointer<Bool>, time: UnsafeBufferPointer<Int64>,
    duration: UnsafeBufferPointer<Int64>
  ) throws(SpillError) {
    let n = column.count
    precondition(valid.count == n && time.count == n && duration.count == n, "SignedSummaryStream: columns of one chunk")
    guard n > 0 else { return }
    let side = sides.reserve(n), packed = weights.reserve(n)
    var count = 0
    for i in 0..<n {
      // The sign is the side an episode keeps (`SeriesSummary(signed:)`).
      side[i] = column[i] < 0 ? -1 : 1
      if valid[i] {
        packed[count] = Double(duration[i])
        count += 1
      }
    }
    let packedWeights = UnsafeBufferPointer(rebasing: packed[0..<count])
    try durations.append(packedWeights)
    try summary.add(column, side: side, points: ChunkPoints(time: time, duration: duration, valid: valid), weights: packedWeights)
    lastTime = time[n - 1]
  }

  /// The summary of every point added.
  /// - Throws: `SpillError` when a spilled column cannot be read back.
  public func finish() throws(SpillError) -> SeriesSummary {
    try summary.finish(lastTime: lastTime) { () throws(SpillError) in try durations.quantiles([0.5])?[0] }
  }
}
