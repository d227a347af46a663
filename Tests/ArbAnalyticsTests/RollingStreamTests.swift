import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// `RollingStream` and `RollingAnalyzer` over chunks against the same series in one
/// piece and against the whole-series definitions.
@Suite("Rolling figures streamed in chunks")
struct RollingStreamTests {
  /// A walk with constant runs (z and fits undefined there) and gaps wider than any
  /// time window (windows of one point), times in µs.
  static func series(_ n: Int, seed: UInt64) -> (x: [Double], t: [Int64]) {
    var rng = SplitMix64(seed: seed)
    var x: [Double] = [], t: [Int64] = []
    var now: Int64 = 1_700_000_000_000_000, level = 0.2
    for k in 0..<n {
      now += Int64(1 + rng.uniform() * 2_000_000) + (k % 700 == 0 ? 900_000_000 : 0)
      level += -0.05 * level + rng.normal() * 0.01
      x.append(k % 400 < 15 ? 0.25 : level)
      t.append(now)
    }
    return (x, t)
  }

  /// Feeds `x` in chunks of `sizes` (cycled) and joins each column.
  static func chunked(_ stream: RollingStream, _ x: [Double], _ t: [Int64], sizes: [Int]) -> RollingPoints {
    var joined = RollingPoints()
    var start = 0, k = 0
    while start < x.count {
      let end = min(x.count, start + sizes[k % sizes.count])
      let part = x[start..<end].withUnsafeBufferPointer { xs in t[start..<end].withUnsafeBufferPointer { ts in stream.add(values: xs, time: ts) } }
      joined.mean += part.mean
      joined.std += part.std
      joined.z += part.z
      joined.ewmaMean += part.ewmaMean
      joined.ewmaStd += part.ewmaStd
      joined.beta += part.beta
      joined.halfLifePoints += part.halfLifePoints
      joined.halfLifeSeconds += part.halfLifeSeconds
      (start, k) = (end, k + 1)
    }
    return joined
  }

  /// Same bits, `nan` equal to `nan`.
  static func same(_ a: [Double], _ b: [Double]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }
  }

  static let windows: [RollingWindow] = [.points(1), .points(2), .points(60), .time(30_000_000), .time(600_000_000)]

  @Test("any split gives the bits of one chunk", arguments: windows)
  func splits(window: RollingWindow) {
    let (x, t) = Self.series(5_000, seed: 11)
    let ewma: [EWMAHalfLife] = [.points(30), .time(60_000_000)]
    for (k, sizes) in [[1], [2], [3, 1, 7], [64], [999], [5_000]].enumerated() {
      let whole = Self.chunked(RollingStream(window: window, ewma: ewma[k % 2]), x, t, sizes: [x.count])
      let parts = Self.chunked(RollingStream(window: window, ewma: ewma[k % 2]), x, t, sizes: sizes)
      for (name, a, b) in [
        ("mean", whole.mean, parts.mean), ("std", whole.std, parts.std), ("z", whole.z, parts.z), ("ewma mean", whole.ewmaMean, parts.ewmaMean),
        ("ewma std", whole.ewmaStd, parts.ewmaStd), ("beta", whole.beta, parts.beta), ("points", whole.halfLifePoints, parts.halfLifePoints),
        ("seconds", whole.halfLifeSeconds, parts.halfLifeSeconds),
      ] {
        #expect(Self.same(a, b), "\(name), window \(window), chunks \(sizes)")
        #expect(a.count == x.count)
      }
      // Some of every figure is defined, so that equality says something.
      #expect(whole.z.contains(where: \.isFinite) == (window != .points(1)))
      #expect(whole.halfLifeSeconds.contains(where: \.isFinite) == (window != .points(1) && window != .points(2)))
    }
  }

  @Test func `the stream keeps the points of one window, not the series`() {
    let (x, t) = Self.series(20_000, seed: 5)
    let stream = RollingStream(window: .points(50), ewma: .points(10))
    _ = Self.chunked(stream, x, t, sizes: [100])
    #expect(stream.count == x.count)
    #expect(stream.heldPoints <= 50 + 100, "\(stream.heldPoints) points held")
    let timed = RollingStream(window: .time(30_000_000))
    _ = Self.chunked(timed, x, t, sizes: [100])
    // A 30 s window over points about 1 s apart holds about 30 of them.
    #expect(timed.heldPoints <= 100 + 100, "\(timed.heldPoints) points held")
  }

  @Test("the analyzer's summary equals the whole-series figures", arguments: [1, 7, 256, 100_000])
  func analyzer(chunk: Int) throws {
    let (x, t) = Self.series(6_000, seed: 23)
    let window = RollingWindow.points(120)
    let levels: [Double] = [5, 25, 50, 75, 95]
    let analyzer = RollingAnalyzer(
      window: window, ewma: .points(20), varianceRatioLags: [2, 5, 10, 20, 7_000], quantileLevels: levels, spillMemoryLimit: 500)
    var start = 0
    while start < x.count {
      let end = min(x.count, start + chunk)
      _ = try x[start..<end].withUnsafeBufferPointer { xs in try t[start..<end].withUnsafeBufferPointer { ts in try analyzer.add(values: xs, time: ts) } }
      start = end
    }
    let summary = try analyzer.finish()
    // The oracle: the whole-series types on the whole arrays.
    let rolling = RollingStatistics(values: x, time: t, window: window)
    let fits = RollingHalfLife(values: x, time: t, window: window)
    let ewma = EWMA(values: x, time: t, halfLife: .points(20))
    #expect(summary.count == x.count)
    #expect(summary.zDefined == rolling.z.filter(\.isFinite).count && summary.zDefined > 0)
    #expect(summary.zAtLeast2 == rolling.z.filter { abs($0) >= 2 }.count && summary.zAtLeast2 > 0)
    #expect(summary.zAtLeast3 == rolling.z.filter { abs($0) >= 3 }.count)
    #expect(summary.windows == fits.beta.filter(\.isFinite).count)
    #expect(summary.meanReverting == fits.seconds.filter(\.isFinite).count && summary.meanReverting > 0)
    var seconds = fits.seconds.filter(\.isFinite), points = fits.points.filter(\.isFinite)
    #expect(summary.halfLifeSeconds == Quantiles.computeInPlace(&seconds, probabilities: levels.map { $0 / 100 }))
    #expect(summary.halfLifePoints == Quantiles.computeInPlace(&points, probabilities: levels.map { $0 / 100 }))
    let last = try #require(summary.last)
    #expect(last.time == t.last && last.value == x.last)
    #expect(last.mean == rolling.mean.last && last.std.bitPattern == rolling.std.last!.bitPattern)
    #expect(last.ewmaMean == ewma.mean.last && last.ewmaStd == ewma.std.last)
    let durations = t.indices.map { $0 + 1 < t.count ? Double(t[$0 + 1] - t[$0]) : 0 }
    let halfLife = try #require(HalfLife(values: x, durations: durations))
    let streamed = try #require(summary.halfLife)
    #expect(isClose(streamed.beta, halfLife.beta, rel: 1e-12) && isClose(streamed.points, halfLife.points, rel: 1e-12))
    #expect(streamed.seconds != nil && isClose(streamed.seconds!, halfLife.seconds!, rel: 1e-12))
    #expect(summary.varianceRatios.map(\.q) == [2, 5, 10, 20, 7_000])
    for (q, ratio) in summary.varianceRatios {
      guard let expected = VarianceRatio(values: x, q: q) else {
        #expect(ratio == nil && q == 7_000)
        continue
      }
      let streamedRatio = try #require(ratio)
      #expect(isClose(streamedRatio.ratio, expected.ratio, rel: 1e-12) && isClose(streamedRatio.z, expected.z, rel: 1e-12, abs: 1e-12), "q \(q)")
    }
  }

  @Test func `variance ratio of values fed one at a time, by hand`() throws {
    // The hand-worked case of `MeanReversionTests`: VR(2) = 0.5, z = −1.
    var accumulator = VarianceRatioAccumulator(q: 2)
    for value in [0.0, 1, 3, 2, 4] { [value].withUnsafeBufferPointer { accumulator.add($0) } }
    let ratio = try #require(accumulator.ratio)
    #expect(isClose(ratio.ratio, 0.5, rel: 1e-14) && isClose(ratio.z, -1, rel: 1e-14))
    var constant = VarianceRatioAccumulator(q: 2)
    [1.0, 2, 3, 4, 5, 6].withUnsafeBufferPointer { constant.add($0) }
    #expect(constant.ratio == nil)  // constant increments: σ²₁ = 0
  }
}
