import ArbCore

/// The executable premium at a trade size and its `SizedAnalysis`, from a premium series fed a chunk at a time
/// (`PremiumStream` with `keepUsableQuotes` and `keepSizes`), in memory that does not
/// grow with the series: the sized exec is summarised as `PremiumAnalyzer` summarises
/// the exec, and each band's capacity by merged moments and a spill for its quantiles.
///
/// A leg with books is walked in the book behind its quote (`PremiumChunk.usableBooks`);
/// a leg without is the one level of its usable quote and sizes at each point.
/// Counts, extremes, quantiles, bands and episodes are those of the whole-series
/// figures; means, spreads and the half-life are summed in another order (as
/// `PremiumAnalyzer`).
public final class SizedPremiumAnalyzer {
  public let quantity: Double
  /// The bands of the capacity, percent.
  public let bands: [Double]
  private let legCount: Int
  private let books: [LegBooks]
  /// Per leg, the top level of the point being worked on: bid, bid size, ask, ask size.
  private let tops: UnsafeMutableBufferPointer<Double>
  private let point: SizedPoint
  private var exec: SummaryAccumulator
  /// The durations of the points where the size fills (the half-life's median).
  private let durations: ValueSpill
  private let capacity: CapacityAccumulator
  private var execSide = ExecSideLabel()
  private var validPoints = 0, shortPoints = 0
  private var lastTime: Int64 = 0
  /// Per chunk: the sized exec and its validity, the exec's side labels, the packed durations and capacities.
  private let valid = Scratch<Bool>(), values = Scratch<Double>(), sides = Scratch<Int8>()
  private let weights = Scratch<Double>()

  /// - Parameters:
  ///   - quantity: the trade size, base units (> 0).
  ///   - legCount: the number of legs.
  ///   - options: bands and episode options of the sized exec; its bands are the capacity's.
  ///   - spillMemoryLimit: values of a column held in memory before they go to a temporary file.
  public init(quantity: Double, legCount: Int, options: BandOptions = BandOptions(), spillMemoryLimit: Int = ValueSpill.defaultMemoryLimit) {
    precondition(quantity > 0 && quantity.isFinite, "SizedPremiumAnalyzer: size must be positive")
    self.quantity = quantity
    bands = options.bands
    self.legCount = legCount
    let tops = UnsafeMutableBufferPointer<Double>.allocate(capacity: 4 * legCount)
    tops.initialize(repeating: .nan)
    self.tops = tops
    books = (0..<legCount).map { k in LegBooks(top: tops.baseAddress! + 4 * k) }
    point = SizedPoint(quantity: quantity, bands: options.bands, legCount: legCount)
    exec = SummaryAccumulator(oneSided: true, options: options, spillMemoryLimit: spillMemoryLimit)
    durations = ValueSpill(memoryLimit: spillMemoryLimit)
    capacity = CapacityAccumulator(bands: options.bands.count, spillMemoryLimit: spillMemoryLimit)
  }

  deinit { tops.deallocate() }

  /// Adds the next points; `chunk` carries `usableQuotes`, `usableSizes` and the usable books.
  /// - Throws: `SpillError`.
  public func add(_ chunk: PremiumChunk) throws(SpillError) {
    let n = chunk.count, width = 2 * legCount
    guard n > 0 else { return }
    precondition(
      chunk.usableQuotes.count == n * width && chunk.usableSizes.count == n * width && chunk.usableBookIndex.count == n * legCount,
      "SizedPremiumAnalyzer: the chunk lacks its usable quotes, sizes or books")
    for leg in books { leg.books = chunk.usableBooks }
    let valid = valid.reserve(n), exec = values.reserve(n), sides = sides.reserve(n)
    let weights = weights.reserve(n)
    capacity.reserve(n)
    var packed = 0
    for i in 0..<n {
      var best: (edge: Double, sell: Int, buy: Int)? = nil
      if chunk.valid[i] {
        for k in 0..<legCount {
          point.usable[k] = !chunk.usableQuotes[i * width + k].isNaN
          books[k].index = Int(chunk.usableBookIndex[i * legCount + k])
          let top = tops.baseAddress! + 4 * k
          top[0] = chunk.usableQuotes[i * width + k]
          top[1] = chunk.usableSizes[i * width + k]
          top[2] = chunk.usableQuotes[i * width + legCount + k]
          top[3] = chunk.usableSizes[i * width + legCount + k]
        }
        best = point.evaluate(books)
        capacity.append(UnsafeBufferPointer(point.capacity), duration: chunk.duration[i])
        if best != nil {
          weights[packed] = Double(chunk.duration[i])
          packed += 1
        } else {
          shortPoints += 1
        }
      }
      valid[i] = best != nil
      exec[i] = best?.edge ?? .nan
      let (rich, cheap) = best.map { (Int8($0.sell), Int8($0.buy)) } ?? (-1, -1)
      sides[i] = execSide.next(rich: rich, cheap: cheap)
    }
    validPoints += packed
    lastTime = chunk.time[n - 1]
    let points = ChunkPoints(time: chunk.time, duration: chunk.duration, valid: UnsafeBufferPointer(rebasing: valid[0..<n]))
    let packedWeights = UnsafeBufferPointer(rebasing: weights[0..<packed])
    try durations.append(packedWeights)
    try self.exec.add(UnsafeBufferPointer(rebasing: exec[0..<n]), side: sides, points: points, weights: packedWeights)
    try capacity.flush()
  }

  /// The figures of every point added.
  /// - Throws: `SpillError` when a spilled column cannot be read back.
  public func finish() throws(SpillError) -> SizedSummary {
    let summary = try SummaryAccumulator.finish([exec], durations: durations, lastTime: lastTime)[0]
    return SizedSummary(
      quantity: quantity, bands: bands, validPoints: validPoints, shortPoints: shortPoints,
      analysis: SizedAnalysis(exec: summary, capacity: try capacity.finish()))
  }
}

/// What is reported of a premium at a trade size: its counts and `SizedAnalysis`.
public struct SizedSummary: Sendable {
  public var quantity: Double
  /// The bands of the capacity, percent.
  public var bands: [Double]
  /// Valid points of the alignment at which a pair of legs fills the size, and those at
  /// which none does.
  public var validPoints: Int
  public var shortPoints: Int
  public var analysis: SizedAnalysis

  public init(quantity: Double, bands: [Double], validPoints: Int, shortPoints: Int, analysis: SizedAnalysis) {
    (self.quantity, self.bands, self.validPoints, self.shortPoints, self.analysis) = (quantity, bands, validPoints, shortPoints, analysis)
  }

}

/// Per band, the statistics of a capacity over the valid points of an alignment, each
/// point weighted by its duration (`SizedAnalysis.capacity`), fed a point at a time and
/// merged a chunk at a time: moments merged, values spilled for the exact quantiles.
final class CapacityAccumulator {
  private var moments: [MomentAccumulator]
  private let values: [ValueSpill]
  /// The chunk's points so far: per band a column of `capacity` values, and their weights.
  private let columnScratch = Scratch<Double>(), weightScratch = Scratch<Double>()
  private var columns = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
  private var weights = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
  private var capacity = 0, count = 0

  init(bands: Int, spillMemoryLimit: Int) {
    moments = Array(repeating: MomentAccumulator(), count: bands)
    values = (0..<bands).map { _ in ValueSpill(memoryLimit: spillMemoryLimit) }
  }

  /// Makes room for a chunk of up to `points` points.
  func reserve(_ points: Int) {
    columns = columnScratch.reserve(points * moments.count)
    weights = weightScratch.reserve(points)
    (capacity, count) = (points, 0)
  }

  /// Adds a point: its capacity in each band, and its duration.
  @inline(__always)
  func append(_ capacities: UnsafeBufferPointer<Double>, duration: Int64) {
    precondition(count < capacity, "CapacityAccumulator: more points than reserved")
    for b in capacities.indices { columns[b * capacity + count] = capacities[b] }
    weights[count] = Double(duration)
    count += 1
  }

  /// Merges the points added since `reserve`.
  /// - Throws: `SpillError`.
  func flush() throws(SpillError) {
    let weights = UnsafeBufferPointer(rebasing: weights[0..<count])
    for b in moments.indices {
      let column = UnsafeBufferPointer(rebasing: columns[(b * capacity)..<(b * capacity + count)])
      moments[b].add(column, weights: weights)
      try values[b].append(column)
    }
    count = 0
  }

  /// Each band's statistics of every point added.
  /// - Throws: `SpillError` when a spill cannot be read back.
  func finish() throws(SpillError) -> [SeriesStatistics] {
    let levels = SeriesStatistics.quantileLevels.map { $0 / 100 }
    var statistics: [SeriesStatistics] = []
    for b in moments.indices { statistics.append(moments[b].statistics(quantiles: try values[b].quantiles(levels) ?? [])) }
    return statistics
  }
}
