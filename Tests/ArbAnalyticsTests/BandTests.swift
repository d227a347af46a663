import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// Band occupancy and episodes (`BandStatistics`), hand-worked and against the oracle.
@Suite("Bands")
struct BandTests {
  // Two-sided fixture, band 0.1 (times in seconds):
  //   i  0     1     2     3      4     5          6     7     8     9
  //   t  0     1     3     4      6     7          8     10    11    14
  //   x  0.05  0.12  0.15  −0.11  0.11  (invalid)  0.10  0.20  0.09  −0.25
  //   w  1     2     1     2      1     1          2     1     3     0
  // Valid 9; beyond the band (|x| ≥ 0.1, 0.10 included) 1 2 3 4 6 7 9 → 7/9;
  // positive 1 2 4 6 7 → 5/9; negative 3 9 → 2/9. Time: in 2+1+2+1+2+1+0 = 9 of 13.
  // Episodes: [1 2]+ to t3 = 4 → 3 s, peak 0.15; [3]− (sign change) to 6 → 2 s, 0.11;
  // [4]+ ended by the invalid point at 7 → 1 s, 0.11; [6 7]+ to t8 = 11 → 3 s, 0.20;
  // [9]− at the end of data → 0 s, 0.25. Durations 3 2 1 3 0: mean 1.8, median 2, max 3.
  // Peaks: mean 0.82/5, max 0.25.
  static let seconds: [Int64] = [0, 1, 3, 4, 6, 7, 8, 10, 11, 14]
  static let time = seconds.map { $0 * 1_000_000 }
  static let duration = time.indices.map { $0 + 1 < time.count ? time[$0 + 1] - time[$0] : 0 }
  static let values: [Double] = [0.05, 0.12, 0.15, -0.11, 0.11, 0.5, 0.10, 0.20, 0.09, -0.25]
  static let valid = values.indices.map { $0 != 5 }
  static let sign: [Int8] = values.map { $0 < 0 ? -1 : 1 }

  static func twoSided(hysteresis: Double = 0, minEpisode: Int64 = 0) -> BandStatistics {
    BandStatistics(
      band: 0.1, values: values, valid: valid, side: sign, time: time, duration: duration, oneSided: false,
      hysteresis: hysteresis, minEpisode: minEpisode)
  }

  func expectOccupancy(_ s: BandStatistics) {
    #expect(isClose(s.shareEvents, 7.0 / 9, rel: 1e-15))
    #expect(isClose(s.shareEventsPositive, 5.0 / 9, rel: 1e-15))
    #expect(isClose(s.shareEventsNegative, 2.0 / 9, rel: 1e-15))
    #expect(isClose(s.shareTime, 9.0 / 13, rel: 1e-15))
  }

  @Test("two-sided fixture: occupancy and episodes")
  func twoSidedFixture() {
    let s = Self.twoSided()
    #expect(s.band == 0.1)
    expectOccupancy(s)
    #expect(s.episodes == 5)
    #expect(isClose(s.durationMean, 1.8, rel: 1e-15) && s.durationMedian == 2 && s.durationMax == 3)
    #expect(isClose(s.peakMean, 0.164, rel: 1e-15) && s.peakMax == 0.25)
  }

  @Test("hysteresis keeps an episode open down to b − h on the same side")
  func hysteresis() {
    // h = 0.03 (exit below 0.07): x8 = 0.09 keeps [6 7] open, x9 = −0.25 (other side)
    // ends it at t9 = 14 → 14 − 8 = 6 s. [1 2] still ends at the sign change, [4] at the
    // invalid point. Durations 3 2 1 6 0: mean 2.4, median 2, max 6; peaks unchanged.
    let s = Self.twoSided(hysteresis: 0.03)
    expectOccupancy(s)
    #expect(s.episodes == 5)
    #expect(isClose(s.durationMean, 2.4, rel: 1e-15) && s.durationMedian == 2 && s.durationMax == 6)
    #expect(isClose(s.peakMean, 0.164, rel: 1e-15) && s.peakMax == 0.25)
    // Even a wide hysteresis (exit below 0.04) never bridges an invalid point or a sign change.
    let wide = Self.twoSided(hysteresis: 0.06)
    #expect(wide.episodes == 5)
  }

  @Test("min-episode drops short episodes, not occupancy")
  func minEpisode() {
    // d = 2 s keeps 3 2 3 (peaks 0.15 0.11 0.20) and drops 1 and 0.
    let s = Self.twoSided(minEpisode: 2_000_000)
    expectOccupancy(s)
    #expect(s.episodes == 3)
    #expect(isClose(s.durationMean, 8.0 / 3, rel: 1e-15) && s.durationMedian == 3 && s.durationMax == 3)
    #expect(isClose(s.peakMean, 0.46 / 3, rel: 1e-15) && s.peakMax == 0.2)
    // Exactly 3 s is long enough; 3 s + 1 µs is not.
    #expect(Self.twoSided(minEpisode: 3_000_000).episodes == 2)
    #expect(Self.twoSided(minEpisode: 3_000_001).episodes == 0)
  }

  @Test("one-sided (executable) fixture with direction changes")
  func oneSided() {
    //   i    0     1     2     3     4     5     6
    //   t    0     1     3     4     6     7     8
    //   x    0.12  0.15  0.11  −0.2  0.10  0.13  0.13
    //   dir  A     A     B     B     B     B     A
    // Beyond (x ≥ 0.1 only; −0.2 is out): 0 1 2 4 5 6 → 6/7, all positive, none negative.
    // Time: weights 1 2 1 2 1 1 0, in 1+2+1+1+1+0 = 6 of 8.
    // Episodes: [0 1]A to t2 = 3 → 3 s, peak 0.15; [2]B to t3 = 4 → 1 s, 0.11;
    // [4 5]B to t6 = 8 → 2 s, 0.13; [6]A at the end → 0 s, 0.13.
    let t: [Int64] = [0, 1, 3, 4, 6, 7, 8].map { $0 * 1_000_000 }
    let w = t.indices.map { $0 + 1 < t.count ? t[$0 + 1] - t[$0] : 0 }
    let s = BandStatistics(
      band: 0.1, values: [0.12, 0.15, 0.11, -0.2, 0.10, 0.13, 0.13], valid: [Bool](repeating: true, count: 7),
      side: [1, 1, 2, 2, 2, 2, 1], time: t, duration: w, oneSided: true)
    #expect(isClose(s.shareEvents, 6.0 / 7, rel: 1e-15) && isClose(s.shareEventsPositive, 6.0 / 7, rel: 1e-15))
    #expect(s.shareEventsNegative == 0)
    #expect(s.shareTime == 0.75)
    #expect(s.episodes == 4)
    #expect(s.durationMean == 1.5 && s.durationMedian == 1.5 && s.durationMax == 3)
    #expect(isClose(s.peakMean, 0.13, rel: 1e-15) && s.peakMax == 0.15)
  }

  @Test("no valid point, no weight, no episode")
  func degenerate() {
    let none = BandStatistics(band: 0.1, values: [], valid: [], side: [], time: [], duration: [], oneSided: false)
    #expect(none.shareEvents == nil && none.shareTime == nil && none.episodes == 0 && none.durationMean == nil)
    // One valid point in band at the end of data: an episode of 0 s, and zero total weight.
    let one = BandStatistics(band: 0.1, values: [.nan, 0.3], valid: [false, true], side: [1, 1], time: [0, 5], duration: [5, 0], oneSided: false)
    #expect(one.shareEvents == 1 && one.shareTime == nil && one.episodes == 1 && one.durationMax == 0 && one.peakMax == 0.3)
    // Two points, both out of band.
    let two = BandStatistics(band: 0.1, values: [0.01, -0.02], valid: [true, true], side: [1, -1], time: [0, 5], duration: [5, 0], oneSided: false)
    #expect(two.shareEvents == 0 && two.shareTime == 0 && two.episodes == 0 && two.peakMean == nil)
  }

  /// The extreme (the only point in band) first or last.
  @Test("an excursion at the first or the last point", arguments: [0, 9])
  func edgeExcursion(at index: Int) {
    var x = [Double](repeating: 0.01, count: 10)
    x[index] = -0.4
    let t = (0..<10).map { Int64($0) * 2_000_000 }
    let s = BandStatistics(
      band: 0.1, values: x, valid: [Bool](repeating: true, count: 10), side: x.map { $0 < 0 ? -1 : 1 }, time: t,
      duration: t.indices.map { $0 < 9 ? 2_000_000 : 0 }, oneSided: false)
    #expect(s.episodes == 1 && s.peakMax == 0.4 && s.shareEventsNegative == 0.1)
    #expect(s.durationMax == (index == 0 ? 2 : 0))  // to the next point, or 0 at the end of data
  }

  /// Executable episodes through `PremiumAnalysis`: the side is the trade direction.
  /// 17 legs, all at 100 except: t = 0 sell leg 0 at 100.5 / buy leg 1 at 99.5; t = 10
  /// sell leg 15 / buy leg 2 at the same prices (exec (100.5/99.5 − 1)·100 ≈ 1.005 both
  /// times, a different direction); t = 20 all at 100 (exec 0). Two episodes of 10 µs.
  @Test("executable episodes split at a change of direction, with many legs too", arguments: [2, 3, 17])
  func execDirection(legCount: Int) throws {
    let (firstRich, firstCheap, secondRich, secondCheap) = legCount == 2 ? (0, 1, 1, 0) : legCount == 3 ? (0, 1, 2, 0) : (0, 1, 15, 2)
    let legs = (0..<legCount).map { k in
      let price = [
        k == firstRich ? 100.5 : k == firstCheap ? 99.5 : 100, k == secondRich ? 100.5 : k == secondCheap ? 99.5 : 100, 100,
      ]
      return QuoteSeries.leg("v\(k)", [0, 10, 20], price: price)
    }
    let p = PremiumSeries(aligned: try AlignedLegs(legs: legs), legs: legs)
    #expect(p.rich.prefix(2) == [Int8(firstRich), Int8(secondRich)] && p.cheap.prefix(2) == [Int8(firstCheap), Int8(secondCheap)])
    let analysis = PremiumAnalysis(premium: p, options: BandOptions(bands: [0.1], hysteresis: 0.05))
    let band = try #require(analysis.exec.bands.first)
    #expect(band.episodes == 2)
    #expect(band.durationMax == 10e-6 && band.durationMedian == 10e-6)
  }

  static let randomCases: [(oneSided: Bool, band: Double, hysteresis: Double, minEpisode: Int64)] = [
    (false, 0.05, 0, 0), (false, 0.1, 0, 0), (true, 0.05, 0, 0), (true, 0.1, 0, 0), (false, 0.05, 0.02, 0),
    (true, 0.1, 0.05, 0), (false, 0.1, 0, 3_000_000), (true, 0.05, 0.01, 2_500_000), (false, 0.05, 0.05, 1_000_000),
  ]

  /// `n` points of an AR(1) premium (`persistence`, `noise`) at random times, with the
  /// side an episode keeps: the sign, or for `oneSided` a trade direction that changes
  /// at a point with probability `directionChanges`.
  static func column(
    _ rng: inout SplitMix64, n: Int, persistence: Double, noise: Double, directionChanges: Double, oneSided: Bool
  ) -> (time: [Int64], x: [Double], side: [Int8]) {
    var t: Int64 = Int64(rng.int(0...1_000_000)), time: [Int64] = [], x: [Double] = [], side: [Int8] = []
    var level = 0.0, direction: Int8 = 1
    for _ in 0..<n {
      time.append(t)
      t += Int64(rng.int(1...2_000_000))
      level = persistence * level + noise * rng.normal()
      if rng.uniform() < directionChanges { direction = Int8(rng.int(1...3)) }
      x.append(level)
      side.append(oneSided ? direction : (level < 0 ? -1 : 1))
    }
    return (time, x, side)
  }

  @Test("random series against the oracle", arguments: randomCases)
  func random(c: (oneSided: Bool, band: Double, hysteresis: Double, minEpisode: Int64)) {
    var rng = SplitMix64(seed: UInt64(c.band * 1000) + UInt64(c.minEpisode) + (c.oneSided ? 7 : 0))
    for round in 0..<10 {
      let n = rng.int(0...3000)
      // Clusters of band crossings.
      let (time, x, side) = Self.column(&rng, n: n, persistence: 0.9, noise: 0.03, directionChanges: 0.1, oneSided: c.oneSided)
      let valid = (0..<n).map { _ in rng.uniform() < 0.93 }
      let duration = time.indices.map { $0 + 1 < n ? time[$0 + 1] - time[$0] : 0 }
      let got = BandStatistics(
        band: c.band, values: x, valid: valid, side: side, time: time, duration: duration, oneSided: c.oneSided,
        hysteresis: c.hysteresis, minEpisode: c.minEpisode)
      let expected = Oracle.bands(
        band: c.band, values: x.indices.map { valid[$0] ? x[$0] : nil }, side: side.map(Int.init), time: time,
        duration: duration, oneSided: c.oneSided, hysteresis: c.hysteresis, minEpisode: c.minEpisode)
      expectEqual(got, expected, "round \(round), n \(n)")
    }
  }

  @Test("several bands in one pass, over blocks of points, with the durations given or from the times", arguments: randomCases)
  func severalBands(c: (oneSided: Bool, band: Double, hysteresis: Double, minEpisode: Int64)) {
    var rng = SplitMix64(seed: UInt64(c.band * 1000) + UInt64(c.minEpisode) + (c.oneSided ? 11 : 3))
    for round in 0..<4 {
      // Past the pass's blocks of 4,096 points: episodes run across their edges.
      let n = rng.int(4_000...13_000)
      // Long excursions.
      let (time, x, side) = Self.column(&rng, n: n, persistence: 0.995, noise: 0.01, directionChanges: 0, oneSided: c.oneSided)
      let valid = (0..<n).map { _ in rng.uniform() < 0.995 }
      let duration = time.indices.map { $0 + 1 < n ? time[$0 + 1] - time[$0] : 0 }
      let bands = [c.band / 2, c.band, 2 * c.band]
      for given in [nil, duration.map { $0 + 7 }] {
        let got = BandStatistics.bands(
          bands, values: x, valid: valid, side: side, time: time, duration: given, oneSided: c.oneSided, hysteresis: c.hysteresis / 2,
          minEpisode: c.minEpisode)
        for (band, got) in zip(bands, got) {
          let expected = Oracle.bands(
            band: band, values: x.indices.map { valid[$0] ? x[$0] : nil }, side: side.map(Int.init), time: time,
            duration: given ?? duration, oneSided: c.oneSided, hysteresis: c.hysteresis / 2, minEpisode: c.minEpisode)
          #expect(got.band == band)
          expectEqual(got, expected, "round \(round), n \(n), band \(band), durations given \(given != nil)")
        }
      }
    }
  }
}

/// Every band figure of `got` against the oracle's (same summation order: 1e-12 is ample).
func expectEqual(_ got: BandStatistics, _ expected: Oracle.Bands, _ comment: Comment? = nil) {
  #expect(got.shareEvents == expected.shareEvents, comment)
  #expect(got.shareEventsPositive == expected.shareEventsPositive, comment)
  #expect(got.shareEventsNegative == expected.shareEventsNegative, comment)
  #expect(isClose(got.shareTime, expected.shareTime, rel: 1e-12), comment)
  #expect(got.episodes == expected.episodes, comment)
  #expect(isClose(got.durationMean, expected.durationMean, rel: 1e-12), comment)
  #expect(got.durationMedian == expected.durationMedian, comment)
  #expect(got.durationMax == expected.durationMax, comment)
  #expect(isClose(got.peakMean, expected.peakMean, rel: 1e-12), comment)
  #expect(got.peakMax == expected.peakMax, comment)
}
