/// The summary of a rolling analysis (`docs/definitions.md`, "Rolling and mean
/// reversion"): what `RollingAnalyzer` reports once every point is in.
public struct RollingAnalysis: Sendable {
  /// The figures at the last point.
  public struct Last: Sendable {
    public var time: Int64
    public var value: Double
    /// `nan` where undefined, as in `RollingPoints`.
    public var mean: Double, std: Double, z: Double
    public var ewmaMean: Double?, ewmaStd: Double?
  }

  /// Points analysed.
  public var count = 0
  /// Points with a z-score, and those with |z| ≥ 2 and ≥ 3.
  public var zDefined = 0
  public var zAtLeast2 = 0, zAtLeast3 = 0
  public var last: Last?
  /// The AR(1) half-life of the whole series.
  public var halfLife: HalfLife?
  /// Windows with a fit, and those with −1 < β < 0.
  public var windows = 0, meanReverting = 0
  /// Quantiles of the rolling half-life in seconds and in points, at the analyzer's
  /// levels; `nil` without a mean-reverting window.
  public var halfLifeSeconds: [Double]?, halfLifePoints: [Double]?
  /// `VR(q)` per lag, `nil` where undefined.
  public var varianceRatios: [(q: Int, ratio: VarianceRatio?)] = []
}

/// A rolling analysis of a series fed in chunks of valid points: the per-point figures
/// of `RollingStream`, and the summary of all of them. Memory is bounded by the window
/// and the chunk: the counts run as the points go, the variance ratios and the whole
/// series' half-life merge per-chunk sums (Chan et al.), and the values whose quantiles
/// are asked are kept in `ValueSpill`s (exact).
public final class RollingAnalyzer {
  public let stream: RollingStream
  private let levels: [Double]
  private var ratios: [VarianceRatioAccumulator]
  private var slope = SlopeAccumulator()
  /// The durations between consecutive points (the half-life's median spacing) and the
  /// defined rolling half-lives.
  private let durations: ValueSpill
  private let seconds: ValueSpill
  private let points: ValueSpill
  private var analysis = RollingAnalysis()

  /// - Parameters:
  ///   - varianceRatioLags: the `q` of each variance ratio (≥ 2).
  ///   - quantileLevels: the rolling half-life's quantile levels, in percent.
  ///   - spillMemoryLimit: values of a spilled column held in memory before they go to a temporary file.
  public init(
    window: RollingWindow, ewma: EWMAHalfLife?, varianceRatioLags: [Int], quantileLevels: [Double],
    spillMemoryLimit: Int = ValueSpill.defaultMemoryLimit
  ) {
    stream = RollingStream(window: window, ewma: ewma)
    levels = quantileLevels.map { $0 / 100 }
    ratios = varianceRatioLags.map { VarianceRatioAccumulator(q: $0) }
    durations = ValueSpill(memoryLimit: spillMemoryLimit)
    seconds = ValueSpill(memoryLimit: spillMemoryLimit)
    points = ValueSpill(memoryLimit: spillMemoryLimit)
  }

  /// The per-point figures of the next `values` (at `time`), counted into the summary.
  ///
  /// - Precondition: as `RollingStream.add`.
  /// - Throws: `SpillError`.
  public func add(values: UnsafeBufferPointer<Double>, time: UnsafeBufferPointer<Int64>) throws(SpillError) -> RollingPoints {
    let figures = stream.add(values: values, time: time)
    guard let lastValue = values.last, let lastTime = time.last else { return figures }
    // The whole series' fit pairs each value with the one before it, across chunks.
    let previous = analysis.last.map { (value: $0.value, time: $0.time) }
    var lags: [Double] = [], changes: [Double] = [], gaps: [Double] = []
    lags.reserveCapacity(values.count)
    changes.reserveCapacity(values.count)
    gaps.reserveCapacity(values.count)
    for k in values.indices {
      let before = k > 0 ? (value: values[k - 1], time: time[k - 1]) : previous
      guard let before else { continue }
      lags.append(before.value)
      changes.append(values[k] - before.value)
      gaps.append(Double(time[k] - before.time))
    }
    lags.withUnsafeBufferPointer { lag in changes.withUnsafeBufferPointer { change in slope.add(lag: lag, change: change) } }
    try gaps.withUnsafeBufferPointer { gaps throws(SpillError) in try durations.append(gaps) }
    for k in ratios.indices { ratios[k].add(values) }
    var defined: (seconds: [Double], points: [Double]) = ([], [])
    for j in values.indices {
      if figures.z[j].isFinite {
        analysis.zDefined += 1
        if abs(figures.z[j]) >= 2 { analysis.zAtLeast2 += 1 }
        if abs(figures.z[j]) >= 3 { analysis.zAtLeast3 += 1 }
      }
      if figures.beta[j].isFinite { analysis.windows += 1 }
      if figures.halfLifeSeconds[j].isFinite {
        defined.seconds.append(figures.halfLifeSeconds[j])
        defined.points.append(figures.halfLifePoints[j])
      }
    }
    analysis.meanReverting += defined.seconds.count
    try defined.seconds.withUnsafeBufferPointer { values throws(SpillError) in try seconds.append(values) }
    try defined.points.withUnsafeBufferPointer { values throws(SpillError) in try points.append(values) }
    analysis.count += values.count
    let n = values.count - 1
    analysis.last = RollingAnalysis.Last(
      time: lastTime, value: lastValue, mean: figures.mean[n], std: figures.std[n], z: figures.z[n],
      ewmaMean: stream.ewmaHalfLife == nil ? nil : figures.ewmaMean[n], ewmaStd: stream.ewmaHalfLife == nil ? nil : figures.ewmaStd[n])
    return figures
  }

  /// The summary of every point added.
  /// - Throws: `SpillError` when a spilled column cannot be read back.
  public func finish() throws(SpillError) -> RollingAnalysis {
    var result = analysis
    if let beta = slope.beta, HalfLife.points(beta: beta) != nil {
      // The last point's duration is 0, as in `HalfLife(values:durations:)`.
      try [0.0].withUnsafeBufferPointer { zero throws(SpillError) in try durations.append(zero) }
      result.halfLife = HalfLife(beta: beta, medianDuration: try durations.quantiles([0.5])?[0] ?? 0)
    }
    result.halfLifeSeconds = try seconds.quantiles(levels)
    result.halfLifePoints = try points.quantiles(levels)
    result.varianceRatios = ratios.map { ($0.q, $0.ratio) }
    return result
  }
}

/// `VarianceRatio` of values fed in chunks: the increments and the q-spans are summed
/// per chunk about the chunk's mean and merged (Chan et al.), then taken about the drift
/// `μ = (x_n − x_0) / n` once the last value is known: `Σ (r − μ)² = M2_r + n (r̄ − μ)²`.
/// Closer to the exact sums than one running sum of squares over millions of terms.
struct VarianceRatioAccumulator {
  let q: Int
  /// The last `q` values so far (fewer at the start), and the first value.
  private var recent: [Double] = []
  private var first: Double?
  private var count = 0
  private var increments = CentredSquares()
  private var spans = CentredSquares()

  init(q: Int) { self.q = q }

  mutating func add(_ values: UnsafeBufferPointer<Double>) {
    guard !values.isEmpty else { return }
    first = first ?? values[0]
    let joined = recent + values
    let new = recent.count
    var steps: [Double] = [], differences: [Double] = []
    steps.reserveCapacity(values.count)
    differences.reserveCapacity(values.count)
    for k in new..<joined.count {
      if k >= 1 { steps.append(joined[k] - joined[k - 1]) }
      if k >= q { differences.append(joined[k] - joined[k - q]) }
    }
    steps.withUnsafeBufferPointer { increments.add($0) }
    differences.withUnsafeBufferPointer { spans.add($0) }
    count += values.count
    recent = Array(joined.suffix(q))
  }

  /// `VR(q)`; `nil` unless q ≥ 2, n > q increments and σ²_1 > 0.
  var ratio: VarianceRatio? {
    let n = count - 1
    guard q >= 2, n > q, let first, let last = recent.last else { return nil }
    let mu = (last - first) / Double(n)
    let s1 = increments.sum(about: mu), sq = spans.sum(about: Double(q) * mu)
    return VarianceRatio(q: q, n: n, s1: s1, sq: sq)
  }
}

/// Count, mean and sum of squared deviations of values fed in chunks: each chunk
/// corrected two-pass about its own mean, then merged.
struct CentredSquares {
  private var n = 0.0
  private var mean = 0.0
  private var m2 = 0.0

  mutating func add(_ x: UnsafeBufferPointer<Double>) {
    guard !x.isEmpty else { return }
    let nb = Double(x.count)
    let center = BLAS.sum(x) / nb
    var s1 = 0.0, s2 = 0.0
    for value in x {
      let d = value - center
      s1 += d
      s2 += d * d
    }
    let r = s1 / nb
    let meanB = center + r, m2b = max(s2 - nb * r * r, 0)
    guard n > 0 else { return (n, mean, m2) = (nb, meanB, m2b) }
    let total = n + nb, delta = meanB - mean
    m2 += m2b + delta * delta * n * nb / total
    mean += delta * nb / total
    n = total
  }

  /// `Σ (x − c)²`.
  func sum(about c: Double) -> Double { m2 + n * (mean - c) * (mean - c) }
}
