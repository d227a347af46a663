import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// Mid and executable premiums (`PremiumSeries`) and the board shares of `PremiumAnalysis`.
@Suite("Premium series")
struct PremiumTests {
  /// Percent premiums are (r − 1) · 100 with r ≈ 1: an ulp of r is ≈ 2e-14 percent, so
  /// compare with an absolute floor of 1e-12 percent as well as 1e-12 relative.
  static func close(_ a: Double, _ b: Double?) -> Bool { isClose(a, b, rel: 1e-12, abs: 1e-12) }

  @Test("two legs, hand-worked")
  func twoLegs() throws {
    // t = 0: A 101/102 (mid 101.5), B 99/100 (mid 99.5).
    //   mid  = (101.5/99.5 − 1)·100        = 2.01005025125629
    //   e_AB = (101/100 − 1)·100           = 1.0000000000000009 (sell A, buy B)
    //   e_BA = (99/102 − 1)·100            = −2.941176470588236 → exec e_AB, rich A, cheap B
    // t = 10: A 99.9/100.1 (mid 100), B 100.3/100.4 (mid 100.35).
    //   mid  = (100/100.35 − 1)·100        = −0.34877927254608476
    //   e_AB = (99.9/100.4 − 1)·100        = −0.4980079681274896
    //   e_BA = (100.3/100.1 − 1)·100       = 0.19980019980019303 → exec e_BA, rich B, cheap A
    let a = QuoteSeries.leg("a", [0, 10], bid: [101, 99.9], ask: [102, 100.1])
    let b = QuoteSeries.leg("b", [0, 10], bid: [99, 100.3], ask: [100, 100.4])
    let p = PremiumSeries(aligned: try AlignedLegs(legs: [a, b]), legs: [a, b])
    #expect(p.legCount == 2 && p.validPoints == 2 && p.time == [0, 10] && p.duration == [10, 0])
    #expect(Self.close(p.mid[0], 2.01005025125629) && Self.close(p.mid[1], -0.34877927254608476))
    #expect(Self.close(p.exec[0], 1.0000000000000009) && Self.close(p.exec[1], 0.19980019980019303))
    #expect(p.rich == [0, 1] && p.cheap == [1, 0])
    #expect(p.top == [0, 1] && p.bottom == [1, 0])
    let packed = p.validValues(p.mid)
    #expect(packed.values == p.mid && packed.weights == [10, 0])
  }

  @Test("three legs, hand-worked board")
  func threeLegs() throws {
    // Mids (b + a)/2; max premium (max/min − 1)·100; exec the best bid_k/ask_c over k ≠ c.
    // t = 0:  A 100/100.2 (100.1), B 100.4/100.6 (100.5), C 99.8/100 (99.9)
    //         top B, bottom C: (100.5/99.9 − 1)·100 = 0.6006006006005871;
    //         best sell B 100.4 / buy C 100 → 0.40000000000000036.
    // t = 10: A 100.9/101 (100.95), B same, C 100.1/100.2 (100.15)
    //         top A, bottom C: 0.7988017973040495; sell A 100.9 / buy C 100.2 → 0.698602794411185.
    // t = 20: A 99.5/99.7 (99.6), B, C same
    //         top B, bottom A: 0.9036144578313365; sell B 100.4 / buy A 99.7 → 0.7021063189568633.
    let a = QuoteSeries.leg("a", [0, 10, 20], bid: [100, 100.9, 99.5], ask: [100.2, 101, 99.7])
    let b = QuoteSeries.leg("b", [0], bid: [100.4], ask: [100.6])
    let c = QuoteSeries.leg("c", [0, 10], bid: [99.8, 100.1], ask: [100, 100.2])
    let legs = [a, b, c]
    let p = PremiumSeries(aligned: try AlignedLegs(legs: legs), legs: legs)
    #expect(p.legCount == 3 && p.time == [0, 10, 20])
    for (got, expected) in zip(p.mid, [0.6006006006005871, 0.7988017973040495, 0.9036144578313365]) {
      #expect(Self.close(got, expected))
    }
    for (got, expected) in zip(p.exec, [0.40000000000000036, 0.698602794411185, 0.7021063189568633]) {
      #expect(Self.close(got, expected))
    }
    #expect(p.top == [1, 0, 1] && p.bottom == [2, 2, 0])
    #expect(p.rich == [1, 0, 1] && p.cheap == [2, 2, 0])
    // Board shares over 3 valid points: top A once, B twice; bottom A once, C twice.
    let analysis = PremiumAnalysis(premium: p)
    #expect(zip(analysis.topShare, [1.0 / 3, 2.0 / 3, 0]).allSatisfy { isClose($0, $1, rel: 1e-15) })
    #expect(zip(analysis.bottomShare, [1.0 / 3, 0, 2.0 / 3]).allSatisfy { isClose($0, $1, rel: 1e-15) })
    #expect(analysis.topShare.count == 3 && analysis.bottomShare.count == 3)
  }

  @Test("invalid points carry no premium and no direction")
  func invalidPoints() throws {
    var a = QuoteSeries.leg("a", [0, 10, 20], bid: [100, 100, 100], ask: [101, 101, 101])
    a.ask[1] = .nan
    let b = QuoteSeries.leg("b", [0, 10, 20], price: [100, 100, 100])
    let p = PremiumSeries(aligned: try AlignedLegs(legs: [a, b]), legs: [a, b])
    #expect(p.valid == [true, false, true] && p.validPoints == 2)
    #expect(p.rich[1] == -1 && p.cheap[1] == -1 && p.top[1] == -1 && p.bottom[1] == -1)
    let packed = p.validValues(p.exec)
    #expect(packed.values.count == 2 && packed.values.allSatisfy(\.isFinite) && packed.weights == [10, 0])
  }

  static let randomCases: [(legs: Int, seed: UInt64)] = [(2, 1), (2, 2), (3, 3), (3, 4), (4, 5), (4, 6), (5, 7)]

  @Test("random legs against the oracle", arguments: randomCases)
  func random(c: (legs: Int, seed: UInt64)) throws {
    var rng = SplitMix64(seed: c.seed)
    let legs = (0..<c.legs).map { k in
      // Levels a little apart so that every leg is sometimes the top and the bottom.
      rng.leg("v\(k)", count: 400, start: Int64(rng.int(0...30)), maxGap: 20, level: 100 + rng.uniform(), spread: 0.004)
    }
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: 30))
    let expected = Oracle.premium(try #require(Oracle.align(legs, maxStale: 30)), legs)
    let p = PremiumSeries(aligned: aligned, legs: legs)
    #expect(p.validPoints > 100 && p.validPoints < p.count)
    for i in 0..<p.count {
      guard let mid = expected.mid[i], let exec = expected.exec[i] else {
        #expect(!p.valid[i])
        continue
      }
      #expect(p.valid[i])
      #expect(Self.close(p.mid[i], mid), "point \(i)")
      #expect(Self.close(p.exec[i], exec), "point \(i)")
      #expect(Int(p.rich[i]) == expected.rich[i] && Int(p.cheap[i]) == expected.cheap[i], "point \(i)")
      #expect(Int(p.top[i]) == expected.top[i] && Int(p.bottom[i]) == expected.bottom[i], "point \(i)")
    }
    if c.legs == 2 {
      // Two legs: the signed premium takes both signs; exec is max(e_AB, e_BA).
      #expect(p.mid.contains { $0 > 0 } && p.mid.contains { $0 < 0 })
    } else {
      #expect(p.mid.allSatisfy { $0.isNaN || $0 >= 0 })
    }
    // Bands through PremiumAnalysis: mid signed with two legs (side: sign), one-sided
    // beyond; exec one-sided with the trade direction as its side.
    let options = BandOptions(bands: [0.05, 0.1, 0.5], hysteresis: 0.02)
    let analysis = PremiumAnalysis(premium: p, options: options)
    let execSide = expected.rich.indices.map { expected.rich[$0] * 1000 + expected.cheap[$0] }
    let midSide = expected.mid.map { ($0 ?? 0) < 0 ? -1 : 1 }
    for (index, band) in options.bands.enumerated() {
      let oMid = Oracle.bands(
        band: band, values: expected.mid, side: midSide, time: aligned.time, duration: aligned.duration,
        oneSided: c.legs > 2, hysteresis: 0.02)
      let oExec = Oracle.bands(
        band: band, values: expected.exec, side: execSide, time: aligned.time, duration: aligned.duration,
        oneSided: true, hysteresis: 0.02)
      expectEqual(analysis.mid.bands[index], oMid, "mid band \(band)")
      expectEqual(analysis.exec.bands[index], oExec, "exec band \(band)")
    }
    #expect(analysis.exec.bands[0].episodes > 0)
    let valid = Double(p.validPoints)
    for k in 0..<c.legs {
      let topCount = Double(expected.top.filter { $0 == k }.count), bottomCount = Double(expected.bottom.filter { $0 == k }.count)
      #expect(isClose(analysis.topShare[k], topCount / valid, rel: 1e-15))
      #expect(isClose(analysis.bottomShare[k], bottomCount / valid, rel: 1e-15))
    }
  }
}
