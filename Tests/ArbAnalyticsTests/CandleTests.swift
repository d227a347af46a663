import ArbCore
import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// Candles against hand-worked buckets and a slow grouping by bucket key.
@Suite("Candles")
struct CandleTests {
  static let second: Int64 = 1_000_000
  static let seoul: Int64 = 9 * 3600 * second

  @Test func `one-minute buckets by hand`() {
    // 1 at 0:30 holds 20 s, 3 at 0:50 holds 10 s (to the bucket end): mean_tw 50/30.
    // 2 at 1:10 holds to the next point at 2:59 but only 50 s inside its bucket; the
    // invalid point at 2:59 makes no bucket; 5 at 3:00 is the last point (no weight).
    let t = [30, 50, 70, 179, 180].map { Int64($0) * Self.second }
    let v: [Double] = [1, 3, 2, .nan, 5]
    let candles = Candles.make(time: t, values: v, every: 60 * Self.second)
    #expect(
      candles == [
        Candle(start: 0, open: 1, high: 3, low: 1, close: 3, mean: 2, meanTW: 50.0 / 30, count: 2),
        Candle(start: 60 * Self.second, open: 2, high: 2, low: 2, close: 2, mean: 2, meanTW: 2, count: 1),
        Candle(start: 180 * Self.second, open: 5, high: 5, low: 5, close: 5, mean: 5, meanTW: nil, count: 1),
      ])
  }

  @Test func `Seoul days start at 15:00 UTC`() {
    let day: Int64 = 86_400 * Self.second
    let start = Int64(TimeText.daysFromCivil(year: 2023, month: 3, day: 1)) * day  // 2023-03-01T00:00Z
    let t = [start + 14 * 3600 * Self.second, start + 15 * 3600 * Self.second - 1, start + 15 * 3600 * Self.second]
    let seoul = Candles.make(time: t, values: [1, 2, 3], every: day, offset: Self.seoul)
    #expect(seoul.map(\.start) == [start - Self.seoul, start + day - Self.seoul])
    #expect(seoul.map(\.count) == [2, 1] && seoul[0].close == 2)
    let utc = Candles.make(time: t, values: [1, 2, 3], every: day)
    #expect(utc.map(\.start) == [start] && utc[0].count == 3)
  }

  @Test(
    "equal to a slow grouping", arguments: [(Int64(60), Int64(0)), (Int64(600), Int64(0)), (Int64(3600), Int64(9 * 3600)), (Int64(86_400), Int64(9 * 3600))])
  func againstGrouping(every: Int64, offset: Int64) {
    var rng = SplitMix64(seed: 31)
    var t: [Int64] = [], v: [Double] = []
    var now: Int64 = 1_677_628_800 * Self.second - 3_000 * Self.second
    for _ in 0..<5_000 {
      now += Int64(rng.uniform() * 90 * Double(Self.second)) + 1 + (rng.uniform() < 0.01 ? 7_200 * Self.second : 0)
      t.append(now)
      v.append(rng.uniform() < 0.05 ? .nan : 23_000 + rng.normal() * 10)
    }
    let width = every * Self.second, shift = offset * Self.second
    let candles = Candles.make(time: t, values: v, every: width, offset: shift)
    var groups: [Int64: [Int]] = [:]
    for i in t.indices where v[i].isFinite {
      groups[Int64((Double(t[i] + shift) / Double(width)).rounded(.down)), default: []].append(i)
    }
    #expect(candles.count == groups.count)
    for (candle, key) in zip(candles, groups.keys.sorted()) {
      let members = groups[key]!
      let values = members.map { v[$0] }
      let end = key * width - shift + width
      #expect(candle.start == key * width - shift)
      #expect(candle.open == values.first! && candle.close == values.last!)
      #expect(candle.high == values.max()! && candle.low == values.min()! && candle.count == values.count)
      #expect(isClose(candle.mean, values.reduce(0, +) / Double(values.count), rel: 1e-12))
      let weights = members.map { i in i + 1 < t.count ? Double(min(t[i + 1], end) - t[i]) : 0 }
      let total = weights.reduce(0, +)
      #expect(isClose(candle.meanTW, total > 0 ? zip(weights, values).reduce(0) { $0 + $1.0 * $1.1 } / total : nil, rel: 1e-12))
    }
  }
}
