/// Occupancy and episodes of a premium series around one band
/// (`docs/definitions.md`, "Bands").
///
/// - occupancy: `shareEvents = #{|x| ≥ b} / count`, `shareTime = Σ_{|x|≥b} w / Σ w` over
///   valid points, and per sign. For a one-sided series (the executable premium) the
///   test is `x ≥ b` and the negative share is 0.
/// - episode: a maximal run of consecutive valid points beyond the band on the same
///   side (sign, or trade direction for the executable premium); an invalid point ends
///   it. Duration: from its first point to the first point after it (to its last point
///   at the end of data). Peak: its largest |x|.
/// - `hysteresis` h: an episode that started at `|x| ≥ b` ends only when `|x| < b − h`.
///   `minEpisode` d: shorter episodes are not counted (occupancy is unchanged).
public struct BandStatistics: Sendable, Equatable {
  public var band: Double
  public var shareEvents: Double?
  public var shareTime: Double?
  public var shareEventsPositive: Double?
  public var shareEventsNegative: Double?
  public var episodes: Int
  /// Seconds.
  public var durationMean: Double?
  public var durationMedian: Double?
  public var durationMax: Double?
  public var peakMean: Double?
  public var peakMax: Double?
  /// Each counted episode's duration, seconds, in time order (the durations above
  /// summarise these).
  public var episodeDurations: [Double]

  /// Band figures of `values` (one per clock point; only points with `valid` count).
  ///
  /// - Parameters:
  ///   - side: per point, the side an episode must keep (sign of x, or trade direction).
  ///   - oneSided: test `x ≥ b` only (executable premium).
  ///   - duration: each point's weight in µs; by default the time to the next point.
  /// - Complexity: O(points).
  public init(
    band: Double, values: [Double], valid: [Bool], side: [Int8], time: [Int64], duration: [Int64]? = nil,
    oneSided: Bool, hysteresis: Double = 0, minEpisode: Int64 = 0
  ) {
    precondition(
      values.count == valid.count && values.count == side.count && values.count == time.count && (duration?.count ?? time.count) == time.count,
      "BandStatistics: column lengths differ")
    var accumulator = BandAccumulator(band: band, oneSided: oneSided, hysteresis: hysteresis, minEpisode: minEpisode)
    let n = values.count
    for i in 0..<n {
      let w = duration?[i] ?? (i + 1 < n ? time[i + 1] - time[i] : 0)
      accumulator.add(values[i], valid: valid[i], side: side[i], time: time[i], duration: w)
    }
    self = accumulator.finish(lastTime: time.last ?? 0)
  }

  /// The figures of a finished `BandAccumulator`.
  init(band: Double, count: Int, positive: Int, negative: Int, weightAll: Double, weightIn: Double, durations: [Double], peaks: [Double]) {
    self.band = band
    if count > 0 {
      shareEvents = Double(positive + negative) / Double(count)
      shareEventsPositive = Double(positive) / Double(count)
      shareEventsNegative = Double(negative) / Double(count)
    }
    if weightAll > 0 { shareTime = weightIn / weightAll }
    episodes = durations.count
    episodeDurations = durations
    if !durations.isEmpty {
      durationMean = durations.reduce(0, +) / Double(durations.count)
      durationMedian = Quantiles.compute(durations, probabilities: [0.5])![0]
      durationMax = durations.max()
      peakMean = peaks.reduce(0, +) / Double(peaks.count)
      peakMax = peaks.max()
    }
  }
}

/// `BandStatistics` built one point at a time, in time order, so that a series can be
/// fed in chunks: it carries the occupancy sums and the open episode across them. The
/// same arithmetic in the same order as the whole-column `BandStatistics.init`, which
/// runs through it, so the figures are identical for any chunking.
public struct BandAccumulator: Sendable {
  public let band: Double
  let oneSided: Bool
  let exitLevel: Double
  let minEpisode: Int64
  var count = 0, positive = 0, negative = 0
  var weightAll = 0.0, weightIn = 0.0
  var durations: [Double] = []
  var peaks: [Double] = []
  /// The first time of the open episode, if one is open.
  var openTime: Int64? = nil
  var openSide: Int8 = 0
  var peak = 0.0

  public init(band: Double, oneSided: Bool, hysteresis: Double = 0, minEpisode: Int64 = 0) {
    self.band = band
    self.oneSided = oneSided
    exitLevel = band - hysteresis
    self.minEpisode = minEpisode
  }

  /// Adds the next point: its value (read only when `valid`), the side an episode
  /// keeps, its time and its weight `duration` (µs).
  @inline(__always)
  public mutating func add(_ x: Double, valid: Bool, side: Int8, time: Int64, duration: Int64) {
    guard valid else {
      if openTime != nil { close(at: time) }
      return
    }
    let magnitude = oneSided ? x : abs(x)
    count += 1
    let w = Double(duration)
    weightAll += w
    if magnitude >= band {
      weightIn += w
      if x >= band { positive += 1 } else { negative += 1 }
    }
    if openTime != nil {
      if side == openSide && magnitude >= exitLevel {
        peak = Swift.max(peak, abs(x))
        return
      }
      close(at: time)
    }
    if magnitude >= band {
      openTime = time
      openSide = side
      peak = abs(x)
    }
  }

  /// Ends the open episode at `end`: the time of the first point after it.
  private mutating func close(at end: Int64) {
    let micros = end - openTime!
    if micros >= minEpisode {
      durations.append(Double(micros) / 1e6)
      peaks.append(peak)
    }
    openTime = nil
  }

  /// The figures, an episode still open ending at `lastTime` (the series' last point).
  public func finish(lastTime: Int64) -> BandStatistics {
    var done = self
    if done.openTime != nil { done.close(at: lastTime) }
    return BandStatistics(
      band: band, count: done.count, positive: done.positive, negative: done.negative, weightAll: done.weightAll,
      weightIn: done.weightIn, durations: done.durations, peaks: done.peaks)
  }
}
