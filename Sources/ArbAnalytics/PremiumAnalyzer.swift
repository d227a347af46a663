import Dispatch
import Synchronization

/// `PremiumAnalysis` of a premium series fed a chunk at a time (`PremiumStream`), in
/// memory that does not grow with the series: the moments are merged chunk by chunk,
/// the bands and episodes carry their state across chunks (`BandAccumulator`), the
/// half-life's regression sums are merged too, and the valid values are kept in a
/// `ValueSpill` for exact quantiles.
///
/// Counts, extremes, quantiles, bands and episodes are identical to the whole-series
/// `PremiumAnalysis`; means, spreads, skew, kurtosis and the half-life are the same
/// figures summed in another order (each chunk two-pass, then merged: Chan et al. and
/// Pébay's formulas), equal to about 1e-14 relative (`docs/definitions.md`, "Streaming").
public final class PremiumAnalyzer {
  private let legCount: Int
  private let maxPremium: Bool
  private var mid: SummaryAccumulator
  private var exec: SummaryAccumulator
  private let durations: ValueSpill
  private var top: [Int]
  private var bottom: [Int]
  private var validPoints = 0
  private var lastTime: Int64 = 0
  private var execSide = ExecSideLabel()
  /// Per chunk: each point's side for the mid and the exec episodes, the valid points' durations.
  private let midSide = Scratch<Int8>(), execSideLabels = Scratch<Int8>(), weights = Scratch<Double>()

  /// - Parameters:
  ///   - maxPremium: `mid` is a max premium (≥ 0, one-sided bands), as `PremiumSeries.maxPremium`.
  ///   - spillMemoryLimit: values of a column held in memory before they go to a temporary file.
  public init(legCount: Int, maxPremium: Bool, options: BandOptions = BandOptions(), spillMemoryLimit: Int = ValueSpill.defaultMemoryLimit) {
    self.legCount = legCount
    self.maxPremium = maxPremium
    mid = SummaryAccumulator(oneSided: maxPremium, options: options, spillMemoryLimit: spillMemoryLimit)
    exec = SummaryAccumulator(oneSided: true, options: options, spillMemoryLimit: spillMemoryLimit)
    durations = ValueSpill(memoryLimit: spillMemoryLimit)
    top = Array(repeating: 0, count: legCount)
    bottom = Array(repeating: 0, count: legCount)
  }

  /// Adds the next points.
  /// - Throws: `SpillError`.
  public func add(_ chunk: PremiumChunk) throws(SpillError) {
    let n = chunk.count
    guard n > 0 else { return }
    let midSide = midSide.reserve(n), execSides = execSideLabels.reserve(n), packedWeights = weights.reserve(n)
    var packed = 0
    // The walk's state in locals: a class's stored `var` costs an access check per use.
    var (execSide, top, bottom) = (execSide, top, bottom)
    for i in 0..<n {
      midSide[i] = chunk.mid[i] < 0 ? -1 : 1
      execSides[i] = execSide.next(rich: chunk.rich[i], cheap: chunk.cheap[i])
      if chunk.valid[i] {
        packedWeights[packed] = Double(chunk.duration[i])
        packed += 1
        top[Int(chunk.top[i])] += 1
        bottom[Int(chunk.bottom[i])] += 1
      }
    }
    (self.execSide, self.top, self.bottom) = (execSide, top, bottom)
    validPoints += packed
    lastTime = chunk.time[n - 1]
    let weights = UnsafeBufferPointer(rebasing: packedWeights[0..<packed])
    try durations.append(weights)
    // The two columns are independent: one per core.
    let (midColumn, execColumn) = (mid, exec)
    nonisolated(unsafe) let (midSides, execSidesShared, weightsShared) = (midSide, execSides, weights)
    let (midResult, execResult) = twoTasks(
      { () -> Result<SummaryAccumulator, SpillError> in
        var column = midColumn
        return Result { () throws(SpillError) in
          try column.add(chunk.mid, side: midSides, points: ChunkPoints(chunk), weights: weightsShared); return column
        }
      },
      { () -> Result<SummaryAccumulator, SpillError> in
        var column = execColumn
        return Result { () throws(SpillError) in
          try column.add(chunk.exec, side: execSidesShared, points: ChunkPoints(chunk), weights: weightsShared); return column
        }
      })
    mid = try midResult.get()
    exec = try execResult.get()
  }

  /// The analysis of every point added (`SummaryAccumulator.finish`: the spills read
  /// back concurrently).
  /// - Throws: `SpillError` when a spilled column cannot be read back.
  public func finish() throws(SpillError) -> PremiumAnalysis {
    let summaries = try SummaryAccumulator.finish([mid, exec], durations: durations, lastTime: lastTime)
    let count = Double(validPoints)
    return PremiumAnalysis(
      mid: summaries[0],
      exec: summaries[1],
      topShare: validPoints > 0 ? top.map { Double($0) / count } : [],
      bottomShare: validPoints > 0 ? bottom.map { Double($0) / count } : [])
  }

}

extension PremiumAnalysis {
  init(mid: SeriesSummary, exec: SeriesSummary, topShare: [Double], bottomShare: [Double]) {
    self.mid = mid
    self.exec = exec
    self.topShare = topShare
    self.bottomShare = bottomShare
  }
}

/// The side label of each point for episodes of the executable premium, point after
/// point across chunks: it flips at every change of the trade's legs
/// (`PremiumAnalysis.execSide`).
struct ExecSideLabel {
  private var label: Int8 = 0
  private var lastRich: Int8? = nil
  private var lastCheap: Int8 = 0

  /// The label of the next point, whose trade sells on `rich` and buys on `cheap`.
  @inline(__always)
  mutating func next(rich: Int8, cheap: Int8) -> Int8 {
    if let lastRich, rich != lastRich || cheap != lastCheap { label = 1 - label }
    (lastRich, lastCheap) = (rich, cheap)
    return label
  }
}

/// A buffer reused from chunk to chunk, grown when a chunk is larger.
final class Scratch<Element> {
  private var buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: 0)

  /// The buffer, at least `count` long (its contents undefined).
  func reserve(_ count: Int) -> UnsafeMutableBufferPointer<Element> {
    if buffer.count < count {
      buffer.deallocate()
      buffer = .allocate(capacity: count)
    }
    return buffer
  }

  deinit { buffer.deallocate() }
}

/// The points of a chunk as a summary reads them: times, durations to the next point,
/// and validity.
struct ChunkPoints: @unchecked Sendable {
  let time: UnsafeBufferPointer<Int64>
  let duration: UnsafeBufferPointer<Int64>
  let valid: UnsafeBufferPointer<Bool>

  init(time: UnsafeBufferPointer<Int64>, duration: UnsafeBufferPointer<Int64>, valid: UnsafeBufferPointer<Bool>) {
    (self.time, self.duration, self.valid) = (time, duration, valid)
  }

  init(_ chunk: PremiumChunk) { self.init(time: chunk.time, duration: chunk.duration, valid: chunk.valid) }

  var count: Int { time.count }
}

/// One column's `SeriesSummary`, accumulated chunk by chunk. Sendable to the one thread
/// that works on it at a time (`PremiumAnalyzer.add` hands each column to its own).
struct SummaryAccumulator: @unchecked Sendable {
  var moments = MomentAccumulator()
  var slope = SlopeAccumulator()
  var bands: [BandAccumulator]
  let values: ValueSpill
  /// The last valid value so far (the half-life's regression pairs consecutive valid values).
  var previous: Double? = nil
  /// Per chunk: the valid values packed, and the half-life's regressor and response.
  let packed = Scratch<Double>(), lags = Scratch<Double>(), changes = Scratch<Double>()

  init(oneSided: Bool, options: BandOptions, spillMemoryLimit: Int) {
    bands = options.bands.map { BandAccumulator(band: $0, oneSided: oneSided, hysteresis: options.hysteresis, minEpisode: options.minEpisode) }
    values = ValueSpill(memoryLimit: spillMemoryLimit)
  }

  mutating func add(
    _ column: UnsafeBufferPointer<Double>, side: UnsafeMutableBufferPointer<Int8>, points chunk: ChunkPoints,
    weights: UnsafeBufferPointer<Double>
  ) throws(SpillError) {
    let n = chunk.count
    let packedValues = packed.reserve(n), lag = lags.reserve(n), change = changes.reserve(n)
    var count = 0, pairs = 0
    for i in 0..<n where chunk.valid[i] {
      let x = column[i]
      packedValues[count] = x
      count += 1
      if let previous {
        lag[pairs] = previous
        change[pairs] = x - previous
        pairs += 1
      }
      previous = x
    }
    let values = UnsafeBufferPointer(rebasing: packedValues[0..<count])
    moments.add(values, weights: weights)
    slope.add(lag: UnsafeBufferPointer(rebasing: lag[0..<pairs]), change: UnsafeBufferPointer(rebasing: change[0..<pairs]))
    try self.values.append(values)
    for b in bands.indices {
      bands[b].add(column, valid: chunk.valid, side: UnsafeBufferPointer(rebasing: side[0..<n]), time: chunk.time, duration: chunk.duration)
    }
  }

  /// The summaries of `columns`, which share their points and so `durations` (the spill
  /// of their valid points' durations), the last at `lastTime`. Every spill is read back
  /// on a thread of its own: each column's for its quantiles, `durations` for their median
  /// when a column's half-life is defined.
  /// - Throws: `SpillError` when a spill cannot be read back.
  static func finish(_ columns: [SummaryAccumulator], durations: ValueSpill, lastTime: Int64) throws(SpillError) -> [SeriesSummary] {
    let needsMedian = columns.contains { column in column.slope.beta.map { HalfLife.points(beta: $0) != nil } ?? false }
    // The durations first (their many equal values take the most passes), then each
    // column's values, each spill read by one thread only.
    nonisolated(unsafe) let spills = (needsMedian ? [durations] : []) + columns.map(\.values)
    let levels = SeriesStatistics.quantileLevels.map { $0 / 100 }
    let results = Mutex<[Result<[Double], SpillError>?]>(Array(repeating: nil, count: spills.count))
    DispatchQueue.concurrentPerform(iterations: spills.count) { k in
      let result = Result { () throws(SpillError) in try spills[k].quantiles(needsMedian && k == 0 ? [0.5] : levels) ?? [] }
      results.withLock { $0[k] = result }
    }
    var selected: [[Double]] = []
    for result in results.withLock({ $0 }) { selected.append(try result!.get()) }
    let median = needsMedian ? selected.removeFirst().first : nil
    return columns.indices.map { k in
      var halfLife: HalfLife? = nil
      if let beta = columns[k].slope.beta, HalfLife.points(beta: beta) != nil { halfLife = HalfLife(beta: beta, medianDuration: median ?? 0) }
      return SeriesSummary(
        statistics: columns[k].moments.statistics(quantiles: selected[k]), halfLife: halfLife,
        bands: columns[k].bands.map { $0.finish(lastTime: lastTime) })
    }
  }
}

/// Count, extremes and central moments (plain and duration-weighted) merged chunk by
/// chunk: each chunk corrected two-pass as `SeriesStatistics`, then combined with the
/// running figures (Chan et al.; Pébay for the third and fourth moments).
struct MomentAccumulator {
  var n = 0.0
  var mean = 0.0
  /// Sums of the 2nd, 3rd and 4th powers of the deviations from `mean`.
  var m2 = 0.0, m3 = 0.0, m4 = 0.0
  var low = Double.infinity, high = -Double.infinity
  /// Total weight, weighted mean, weighted sum of squared deviations from it.
  var weight = 0.0, weightedMean = 0.0, weightedM2 = 0.0

  mutating func add(_ x: UnsafeBufferPointer<Double>, weights w: UnsafeBufferPointer<Double>) {
    let count = x.count
    guard count > 0 else { return }
    let nb = Double(count)
    let center = BLAS.sum(x) / nb
    var (s1, s2, s3, s4, lo, hi, ws, wd) = (0.0, 0.0, 0.0, 0.0, Double.infinity, -Double.infinity, 0.0, 0.0)
    for k in 0..<count {
      let d = x[k] - center, d2 = d * d
      s1 += d
      s2 += d2
      s3 += d2 * d
      s4 += d2 * d2
      lo = Swift.min(lo, x[k])
      hi = Swift.max(hi, x[k])
      ws += w[k]
      wd += w[k] * d
    }
    let r = s1 / nb
    let meanB = center + r
    let m2b = Swift.max(s2 - nb * r * r, 0)
    let m3b = s3 - 3 * r * s2 + 2 * nb * r * r * r
    let m4b = s4 - 4 * r * s3 + 6 * r * r * s2 - 3 * nb * r * r * r * r
    low = Swift.min(low, lo)
    high = Swift.max(high, hi)
    if n == 0 {
      (n, mean, m2, m3, m4) = (nb, meanB, m2b, m3b, m4b)
    } else {
      let na = n, total = na + nb, delta = meanB - mean
      let d2 = delta * delta
      let newM4 =
        m4 + m4b + d2 * d2 * na * nb * (na * na - na * nb + nb * nb) / (total * total * total)
        + 6 * d2 * (na * na * m2b + nb * nb * m2) / (total * total) + 4 * delta * (na * m3b - nb * m3) / total
      let newM3 = m3 + m3b + d2 * delta * na * nb * (na - nb) / (total * total) + 3 * delta * (na * m2b - nb * m2) / total
      m2 += m2b + d2 * na * nb / total
      m3 = newM3
      m4 = newM4
      mean += delta * nb / total
      n = total
    }
    guard ws > 0 else { return }
    let weightedMeanB = center + wd / ws
    var squares = 0.0
    for k in 0..<count {
      let d = x[k] - weightedMeanB
      squares += w[k] * d * d
    }
    if weight == 0 {
      (weight, weightedMean, weightedM2) = (ws, weightedMeanB, squares)
    } else {
      let total = weight + ws, delta = weightedMeanB - weightedMean
      weightedM2 += squares + delta * delta * weight * ws / total
      weightedMean += delta * ws / total
      weight = total
    }
  }

  /// The figures of `SeriesStatistics`, with the `quantiles` computed elsewhere.
  func statistics(quantiles: [Double]) -> SeriesStatistics {
    let count = Int(n)
    guard count > 0 else { return SeriesStatistics(count: 0, quantiles: []) }
    var s = SeriesStatistics(count: count, quantiles: quantiles)
    let constant = low == high
    s.mean = constant ? low : mean
    s.min = low
    s.max = high
    if weight > 0 {
      s.meanTW = constant ? low : weightedMean
      s.stdTW = constant ? 0 : (weightedM2 / weight).squareRoot()
    }
    if count >= 2 { s.std = constant ? 0 : (m2 / (n - 1)).squareRoot() }
    let variance = m2 / n
    if !constant && variance > 0 && variance.squareRoot() > 1e-12 * Swift.max(abs(mean), Double.leastNormalMagnitude) {
      s.skew = (m3 / n) / (variance * variance.squareRoot())
      s.kurtosis = (m4 / n) / (variance * variance) - 3
    }
    return s
  }
}

/// The least-squares slope of `Δx_t` on `x_{t−1}` (`HalfLife.slope`) from pairs fed in
/// chunks: each chunk's centred sums, merged.
struct SlopeAccumulator {
  var n = 0.0
  var meanLag = 0.0, meanChange = 0.0
  /// Σ (lag − mean)², Σ (lag − mean)(change − mean).
  var sxx = 0.0, sxy = 0.0

  mutating func add(lag z: UnsafeBufferPointer<Double>, change y: UnsafeBufferPointer<Double>) {
    guard !z.isEmpty else { return }
    let nb = Double(z.count)
    let zb = BLAS.sum(z) / nb, yb = BLAS.sum(y) / nb
    var xx = 0.0, xy = 0.0
    for k in z.indices {
      let c = z[k] - zb
      xx += c * c
      xy += c * (y[k] - yb)
    }
    if n == 0 {
      (n, meanLag, meanChange, sxx, sxy) = (nb, zb, yb, xx, xy)
      return
    }
    let total = n + nb, dz = zb - meanLag, dy = yb - meanChange
    sxx += xx + dz * dz * n * nb / total
    sxy += xy + dz * dy * n * nb / total
    meanLag += dz * nb / total
    meanChange += dy * nb / total
    n = total
  }

  /// β, or `nil` for fewer than 2 pairs (3 values) or a constant regressor.
  var beta: Double? { n >= 2 && sxx > 0 ? sxy / sxx : nil }
}
