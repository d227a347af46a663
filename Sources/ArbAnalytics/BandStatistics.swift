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
    precondition(values.count == valid.count && values.count == side.count && values.count == time.count && (duration?.count ?? time.count) == time.count, "BandStatistics: column lengths differ")
    self.band = band
    let n = values.count
    var count = 0, positive = 0, negative = 0
    var weightAll = 0.0, weightIn = 0.0
    var durations: [Double] = []
    var peaks: [Double] = []
    var open = -1
    var openSide: Int8 = 0
    var peak = 0.0
    let exitLevel = band - hysteresis
    func close(at end: Int) {
      // `end` is the first point after the episode, or n at the end of data.
      let last = end < n ? time[end] : time[n - 1]
      let micros = last - time[open]
      if micros >= minEpisode {
        durations.append(Double(micros) / 1e6)
        peaks.append(peak)
      }
      open = -1
    }
    for i in 0..<n {
      guard valid[i] else {
        if open >= 0 { close(at: i) }
        continue
      }
      let x = values[i]
      let magnitude = oneSided ? x : abs(x)
      count += 1
      let w = Double(duration?[i] ?? (i + 1 < n ? time[i + 1] - time[i] : 0))
      weightAll += w
      if magnitude >= band {
        weightIn += w
        if x >= band { positive += 1 } else { negative += 1 }
      }
      if open >= 0 {
        if side[i] == openSide && magnitude >= exitLevel {
          peak = Swift.max(peak, abs(x))
          continue
        }
        close(at: i)
      }
      if magnitude >= band {
        open = i
        openSide = side[i]
        peak = abs(x)
      }
    }
    if open >= 0 { close(at: n) }
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
