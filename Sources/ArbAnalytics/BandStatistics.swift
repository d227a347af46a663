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
public struct BandStatistics: Sendable, Equatable, Codable {
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
    self =
      Self.bands(
        [band], values: values, valid: valid, side: side, time: time, duration: duration, oneSided: oneSided, hysteresis: hysteresis,
        minEpisode: minEpisode)[0]
  }

  /// The figures of each band of `bands` over the same column (as `init(band:…)` for
  /// each), in one pass: a block of points at a time, each band taking the block while it
  /// is in cache, the points' default durations worked out a block at a time.
  public static func bands(
    _ bands: [Double], values: [Double], valid: [Bool], side: [Int8], time: [Int64], duration: [Int64]? = nil,
    oneSided: Bool, hysteresis: Double = 0, minEpisode: Int64 = 0
  ) -> [BandStatistics] {
    precondition(
      values.count == valid.count && values.count == side.count && values.count == time.count && (duration?.count ?? time.count) == time.count,
      "BandStatistics: column lengths differ")
    var accumulators = bands.map { BandAccumulator(band: $0, oneSided: oneSided, hysteresis: hysteresis, minEpisode: minEpisode) }
    let n = values.count
    let block = 1 << 12
    values.withUnsafeBufferPointer { values in
      valid.withUnsafeBufferPointer { valid in
        side.withUnsafeBufferPointer { side in
          time.withUnsafeBufferPointer { time in
            withUnsafeTemporaryAllocation(of: Int64.self, capacity: block) { durations in
              for start in stride(from: 0, to: n, by: block) {
                let points = start..<min(n, start + block)
                if let duration {
                  for i in points { durations[i - start] = duration[i] }
                } else {
                  for i in points { durations[i - start] = i + 1 < n ? time[i + 1] - time[i] : 0 }
                }
                for b in accumulators.indices {
                  accumulators[b].add(
                    UnsafeBufferPointer(rebasing: values[points]), valid: UnsafeBufferPointer(rebasing: valid[points]),
                    side: UnsafeBufferPointer(rebasing: side[points]), time: UnsafeBufferPointer(rebasing: time[points]),
                    duration: UnsafeBufferPointer(rebasing: durations[0..<points.count]))
                }
              }
            }
          }
        }
      }
    }
    return accumulators.map { $0.finish(lastTime: time.last ?? 0) }
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

  /// Adds the points of a chunk in order, each in time order: `values[i]` (read only
  /// when `valid[i]`), `side[i]`, `time[i]`, `duration[i]`. The state is kept in locals
  /// over the loop, which a stored property's every use would reload.
  public mutating func add(
    _ values: UnsafeBufferPointer<Double>, valid: UnsafeBufferPointer<Bool>, side: UnsafeBufferPointer<Int8>,
    time: UnsafeBufferPointer<Int64>, duration: UnsafeBufferPointer<Int64>
  ) {
    var (count, positive, negative, weightAll, weightIn) = (count, positive, negative, weightAll, weightIn)
    var (openTime, openSide, peak) = (openTime, openSide, peak)
    let (band, exitLevel, oneSided) = (band, exitLevel, oneSided)
    for i in 0..<values.count {
      let t = time[i]
      guard valid[i] else {
        if let start = openTime {
          close(from: start, to: t, peak: peak)
          openTime = nil
        }
        continue
      }
      let x = values[i]
      let magnitude = oneSided ? x : abs(x)
      count += 1
      let w = Double(duration[i])
      weightAll += w
      if magnitude >= band {
        weightIn += w
        if x >= band { positive += 1 } else { negative += 1 }
      }
      if let start = openTime {
        if side[i] == openSide && magnitude >= exitLevel {
          peak = Swift.max(peak, abs(x))
          continue
        }
        close(from: start, to: t, peak: peak)
        openTime = nil
      }
      if magnitude >= band {
        openTime = t
        openSide = side[i]
        peak = abs(x)
      }
    }
    (self.count, self.positive, self.negative, self.weightAll, self.weightIn) = (count, positive, negative, weightAll, weightIn)
    (self.openTime, self.openSide, self.peak) = (openTime, openSide, peak)
  }

  /// Counts the episode from `start` to `end` (the time of the first point after it)
  /// when it lasted `minEpisode` or more.
  private mutating func close(from start: Int64, to end: Int64, peak: Double) {
    let micros = end - start
    if micros >= minEpisode {
      durations.append(Double(micros) / 1e6)
      peaks.append(peak)
    }
  }

  /// Ends the open episode at `end`: the time of the first point after it.
  private mutating func close(at end: Int64) {
    close(from: openTime!, to: end, peak: peak)
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
