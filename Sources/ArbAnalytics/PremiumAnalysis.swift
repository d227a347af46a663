import Dispatch
import Synchronization

/// Options of a premium analysis: the bands and how episodes are counted.
public struct BandOptions: Sendable {
  /// Band levels in percent (default 0.05 and 0.1).
  public var bands: [Double] = [0.05, 0.1]
  public var hysteresis: Double = 0
  /// µs.
  public var minEpisode: Int64 = 0

  public init(bands: [Double] = [0.05, 0.1], hysteresis: Double = 0, minEpisode: Int64 = 0) {
    self.bands = bands
    self.hysteresis = hysteresis
    self.minEpisode = minEpisode
  }
}

/// Statistics, half-life and bands of one premium series.
public struct SeriesSummary: Sendable, Codable {
  public var statistics: SeriesStatistics
  public var halfLife: HalfLife?
  public var bands: [BandStatistics]

  public init(statistics: SeriesStatistics, halfLife: HalfLife?, bands: [BandStatistics]) {
    self.statistics = statistics
    self.halfLife = halfLife
    self.bands = bands
  }

  /// Summarises `column` (one value per point of `premium`) over its valid points.
  ///
  /// Statistics and half-life of the packed valid values run on one thread (one packed
  /// buffer at a time), bands and episodes over the full column on another.
  /// - Parameters:
  ///   - side: per point, the side an episode keeps (sign, or trade direction).
  ///   - oneSided: bands test `x ≥ b` only.
  public init(premium: PremiumSeries, column: [Double], side: [Int8], oneSided: Bool, options: BandOptions = BandOptions()) {
    let ((statistics, halfLife), bands) = twoTasks(
      {
        // One packed buffer at a time: the values (slope, moments, quantiles in place),
        // then the durations of the valid points (their median, in place).
        let (statistics, beta) = {
          let values = premium.packed(column)
          let beta = HalfLife.slope(values)
          return (SeriesStatistics(values: consume values, validOf: premium), beta)
        }()
        return (statistics, beta.flatMap { HalfLife(beta: $0, durations: premium.packedDurations()) })
      },
      // The full column: bands and episodes.
      {
        BandStatistics.bands(
          options.bands, values: column, valid: premium.valid, side: side, time: premium.time, oneSided: oneSided,
          hysteresis: options.hysteresis, minEpisode: options.minEpisode)
      })
    self.statistics = statistics
    self.halfLife = halfLife
    self.bands = bands
  }
}

extension SeriesSummary {
  /// Summarises a signed one-column series (a basis, a kimchi premium): bands on both
  /// signs, an episode keeps its sign.
  public init(signed premium: PremiumSeries, column: [Double], options: BandOptions = BandOptions()) {
    let side = column.map { $0 < 0 ? Int8(-1) : Int8(1) }
    self.init(premium: premium, column: column, side: side, oneSided: false, options: options)
  }
}

/// Everything `arbkit premium` reports about aligned legs.
public struct PremiumAnalysis: Sendable, Codable {
  public var mid: SeriesSummary
  public var exec: SeriesSummary
  /// With more than two legs: per leg, the share of valid points at which it was the
  /// top (highest mid) and the bottom (lowest mid).
  public var topShare: [Double]
  public var bottomShare: [Double]

  /// Analyses `premium` with `options`.
  public init(premium: PremiumSeries, options: BandOptions = BandOptions()) {
    let legs = premium.legCount
    // Mid: two legs are signed (sign is the side); a max premium (N legs, the board) is ≥ 0.
    let midSide = premium.mid.map { $0 < 0 ? Int8(-1) : Int8(1) }
    mid = SeriesSummary(premium: premium, column: premium.mid, side: midSide, oneSided: premium.maxPremium, options: options)
    exec = SeriesSummary(premium: premium, column: premium.exec, side: Self.execSide(premium), oneSided: true, options: options)
    var top = [Int](repeating: 0, count: legs), bottom = [Int](repeating: 0, count: legs)
    for i in 0..<premium.count where premium.valid[i] {
      top[Int(premium.top[i])] += 1
      bottom[Int(premium.bottom[i])] += 1
    }
    let validCount = Double(premium.validPoints)
    topShare = premium.validPoints > 0 ? top.map { Double($0) / validCount } : []
    bottomShare = premium.validPoints > 0 ? bottom.map { Double($0) / validCount } : []
  }
}

extension PremiumAnalysis {
  /// The side of each point for episodes of the executable premium: the trade
  /// direction (rich, cheap). An open episode goes on only while every point keeps the
  /// direction of the point before, and rich·N + cheap does not fit Int8 beyond 16
  /// legs, so the side is a label that flips at every change.
  static func execSide(_ premium: PremiumSeries) -> [Int8] {
    var side = [Int8](repeating: 0, count: premium.count)
    for i in premium.rich.indices.dropFirst() {
      let changed = premium.rich[i] != premium.rich[i - 1] || premium.cheap[i] != premium.cheap[i - 1]
      side[i] = changed ? 1 - side[i - 1] : side[i - 1]
    }
    return side
  }
}

/// Runs two independent computations on two threads and returns both results.
func twoTasks<A: Sendable, B: Sendable>(_ first: @Sendable () -> A, _ second: @Sendable () -> B) -> (A, B) {
  let a = Mutex<A?>(nil), b = Mutex<B?>(nil)
  DispatchQueue.concurrentPerform(iterations: 2) { k in
    if k == 0 { let value = first(); a.withLock { $0 = value } } else { let value = second(); b.withLock { $0 = value } }
  }
  return (a.withLock { $0! }, b.withLock { $0! })
}
