import ArbCore
@testable import ArbAnalytics
import Testing
import TestSupport

@Suite("Kimchi premium and per-leg staleness")
struct KimchiTests {
  static let hour: Int64 = 3_600_000_000
  static let day: Int64 = 86_400_000_000
  /// Friday 2025-07-25 00:00 UTC.
  static let friday: Int64 = 1_753_401_600_000_000

  /// Hourly KRW and USDT prices from Friday to Monday 12:00, and FX rates on Friday and
  /// Monday only (business days).
  static func weekend() -> (krw: QuoteSeries, usd: QuoteSeries, fx: QuoteSeries) {
    let hours = (0...(3 * 24 + 12)).map { friday + Int64($0) * hour }
    let krw = quoteLeg(.spot, hours.map { ($0, 160_000_000, 160_000_000) }, symbol: "KRW-BTC")
    let usd = quoteLeg(.spot, hours.map { ($0, 115_000, 115_000) })
    let fx = quoteLeg(.fx, [(friday, 1380, 1380), (friday + 3 * day, 1390, 1390)], symbol: "USDKRW")
    return (krw, usd, fx)
  }

  @Test func `Friday's rate carries over the weekend within the FX limit`() throws {
    let (krw, usd, fx) = Self.weekend()
    let s = try KimchiSeries(krw: krw, usd: usd, fx: fx, fxMaxStale: 4 * Self.day)
    #expect(s.premium.count == 85 && s.premium.validPoints == 85 && s.fxStalePoints == 0)
    // Sunday 12:00 (point 60) uses Friday's 1380; Monday 00:00 (point 72) Monday's 1390.
    #expect(isClose(s.premium.mid[60], (160_000_000 / (115_000 * 1380.0) - 1) * 100))
    #expect(isClose(s.premium.mid[60], 0.8191556396, rel: 1e-9))  // 160e6 / 158.7e6 − 1
    #expect(s.rate[60] == 1380 && s.rate[72] == 1390)
    #expect(isClose(s.premium.mid[72], (160_000_000 / (115_000 * 1390.0) - 1) * 100))
  }

  @Test func `an FX rate older than its limit makes the point invalid`() throws {
    let (krw, usd, fx) = Self.weekend()
    // One day: Friday's rate holds until Saturday 00:00 (age exactly 1 d), then nothing until Monday.
    let s = try KimchiSeries(krw: krw, usd: usd, fx: fx, options: AlignmentOptions(maxStale: 0), fxMaxStale: Self.day)
    #expect(s.fxStalePoints == 47)  // Saturday 01:00 … Sunday 23:00
    #expect(s.premium.validPoints == 85 - 47)
    #expect(s.premium.valid[24] && !s.premium.valid[25] && !s.premium.valid[71] && s.premium.valid[72])
    #expect(s.rate[25].isNaN)
    // The price legs' limit is not the FX leg's: 0 s would make every FX point stale.
    let summary = SeriesSummary(signed: s.premium, column: s.premium.mid)
    #expect(summary.statistics.count == 38)
  }

  @Test func `the USDT term and the premium in USD terms`() throws {
    let (krw, usd, fx) = Self.weekend()
    let usdt = quoteLeg(.spot, [(Self.friday, 0.9990, 0.9992)], symbol: "USDTUSD")
    let s = try KimchiSeries(krw: krw, usd: usd, fx: fx, usdtUSD: usdt, fxMaxStale: 4 * Self.day)
    let term = try #require(s.usdtTerm), inUSD = try #require(s.kimchiUSD)
    #expect(isClose(term[0], -0.09, rel: 1e-9))  // mid 0.9991
    #expect(isClose(inUSD[0], (160_000_000 / (115_000 * 0.9991 * 1380) - 1) * 100))
    // The premium itself still takes USDT as 1 USD.
    #expect(isClose(s.premium.mid[0], (160_000_000 / (115_000 * 1380.0) - 1) * 100))
    #expect(try KimchiSeries(krw: krw, usd: usd, fx: fx).usdtTerm == nil)
  }

  @Test("kimchi agrees with a slow implementation on generated data", arguments: [1, 2, 3])
  func generated(seed: Int) throws {
    var rng = SplitMix64(seed: UInt64(seed) * 104_729)
    func stream(_ n: Int, base: Double, step: Int64, spread: Double) -> [(Int64, Double, Double)] {
      var t: Int64 = 0, price = base
      return (0..<n).map { _ in
        t += 1 + Int64(rng.uniform() * Double(step))
        price *= 1 + 0.002 * rng.normal()
        return (t, price * (1 - spread * rng.uniform()), price * (1 + spread * rng.uniform()))
      }
    }
    let krw = quoteLeg(.spot, stream(300, base: 160e6, step: Self.hour, spread: 1e-4), symbol: "KRW-BTC")
    let usd = quoteLeg(.spot, stream(300, base: 115e3, step: Self.hour, spread: 1e-4))
    let fx = quoteLeg(.fx, stream(20, base: 1385, step: Self.day, spread: 0), symbol: "USDKRW")
    let usdt = quoteLeg(.spot, stream(100, base: 1, step: 3 * Self.hour, spread: 1e-4), symbol: "USDTUSD")
    let (maxStale, fxMaxStale): (Int64, Int64) = (Self.hour / Int64(seed), Self.day * Int64(seed) / 2)
    let s = try KimchiSeries(krw: krw, usd: usd, fx: fx, usdtUSD: usdt, options: AlignmentOptions(maxStale: maxStale), fxMaxStale: fxMaxStale)
    // The oracle: align without limits, then apply each leg's limit by hand.
    let legs = [krw, usd, fx, usdt]
    let aligned = try #require(Oracle.align(legs))
    #expect(s.premium.time == aligned.time)
    var fxStale = 0
    for i in aligned.time.indices {
      let t = aligned.time[i]
      let ages = legs.indices.map { k in aligned.state[k][i] < 0 ? Int64.max : t - legs[k].time[aligned.state[k][i]] }
      let limits = [maxStale, maxStale, fxMaxStale, maxStale]
      if ages[2] > fxMaxStale { fxStale += 1 }
      let valid = aligned.valid[i] && zip(ages, limits).allSatisfy { $0 <= $1 }
      #expect(s.premium.valid[i] == valid)
      guard valid else { continue }
      let mids = legs.indices.map { k in (legs[k].bid[aligned.state[k][i]] + legs[k].ask[aligned.state[k][i]]) / 2 }
      #expect(isClose(s.premium.mid[i], (mids[0] / (mids[1] * mids[2]) - 1) * 100, rel: 1e-9, abs: 1e-12))
      #expect(isClose(s.usdtTerm![i], (mids[3] - 1) * 100, rel: 1e-9, abs: 1e-12))
      #expect(isClose(s.kimchiUSD![i], (mids[0] / (mids[1] * mids[3] * mids[2]) - 1) * 100, rel: 1e-9, abs: 1e-12))
    }
    #expect(s.fxStalePoints == fxStale)
  }

  @Test func `per-leg staleness limits replace the common one for the legs given`() throws {
    let a = quoteLeg(.spot, [(0, 1, 1), (10, 1, 1), (20, 1, 1)])
    let b = quoteLeg(.spot, [(0, 1, 1), (15, 1, 1)])
    let common = try AlignedLegs(legs: [a, b], options: AlignmentOptions(maxStale: 5))
    #expect(common.time == [0, 10, 15, 20] && common.valid == [true, false, true, true])
    let perLeg = try AlignedLegs(legs: [a, b], options: AlignmentOptions(maxStale: 5, legMaxStale: [nil, 10]))
    #expect(perLeg.valid == [true, true, true, true])
    let tighter = try AlignedLegs(legs: [a, b], options: AlignmentOptions(maxStale: nil, legMaxStale: [4]))
    #expect(tighter.valid == [true, true, false, true])
  }
}
