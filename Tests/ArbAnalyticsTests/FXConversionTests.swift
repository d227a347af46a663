import ArbCore
import ArbAnalytics
import Testing
import TestSupport

@Suite("FX conversion of a leg")
struct FXConversionTests {
  static let s: Int64 = 1_000_000

  /// KRW quotes at 0, 10, 20, 30 and 50 s; rates from 5 s (1000) and 25 s (mid of
  /// 1240/1260 = 1250); rates older than 20 s are stale.
  static func converted(maxStale: Int64?) -> FXConversion {
    var krw = quoteLeg(
      .spot, [(0, 99_000, 99_500), (10 * s, 100_000, 101_000), (20 * s, 102_000, 103_000), (30 * s, 125_000, 127_500), (50 * s, 130_000, 131_000)],
      symbol: "KRW-BTC")
    var depth = BookDepth()
    for j in 0..<krw.count {
      depth.appendLevel(bid: true, price: krw.bid[j], size: 1)
      depth.appendLevel(bid: true, price: krw.bid[j] - 500, size: 2)
      depth.appendLevel(bid: false, price: krw.ask[j], size: 1)
      depth.closeBook()
    }
    krw.depth = depth
    let fx = quoteLeg(.fx, [(5 * s, 1000, 1000), (25 * s, 1240, 1260)], symbol: "USDKRW")
    return FXConversion(krw, by: fx, maxStale: maxStale)
  }

  @Test func `bid and ask divided by the rate in force; no rate yet or a stale rate leaves no price`() throws {
    let c = Self.converted(maxStale: 20 * Self.s)
    // 0 s: no rate yet. 10 s, 20 s: 1000 (5 and 15 s old). 30 s: 1250. 50 s: 1250 is 25 s old.
    #expect(c.series.bid[0].isNaN && c.series.ask[0].isNaN)
    #expect(c.series.bid[1...3].elementsEqual([100, 102, 100]) && c.series.ask[1...3].elementsEqual([101, 103, 102]))
    #expect(c.series.bid[4].isNaN && c.series.ask[4].isNaN)
    #expect(c.unusable == 2)
    #expect(c.rate[1...3].elementsEqual([1000, 1000, 1250]) && c.rate[0].isNaN && c.rate[4].isNaN)
    // Books likewise; sizes, times and the instrument unchanged.
    let depth = try #require(c.series.depth)
    #expect(depth.bidPrice[2...3].elementsEqual([100, 99.5]) && depth.askPrice[1] == 101 && depth.bidPrice[0].isNaN)
    #expect(depth.bidSize == Array(repeating: [1.0, 2.0], count: 5).flatMap { $0 })
    #expect(c.series.time == [0, 10, 20, 30, 50].map { $0 * Self.s } && c.series.instrument.symbol == "KRW-BTC")

    let unlimited = Self.converted(maxStale: nil)
    #expect(unlimited.unusable == 1 && unlimited.series.bid[4] == 104)
  }

  @Test func `a quote without a usable rate makes its points invalid, never 0`() throws {
    let c = Self.converted(maxStale: 20 * Self.s)
    let usd = quoteLeg(.spot, (0...5).map { (Int64($0) * 10 * Self.s, 100, 101) })
    let aligned = try AlignedLegs(legs: [c.series, usd], options: AlignmentOptions())
    // Points 0, 10, 20, 30, 40, 50 s: the KRW quote in force at 0 and 50 s has no price.
    #expect(aligned.count == 6)
    #expect(aligned.valid == [false, true, true, true, true, false])
    let premium = try PremiumSeries(legs: [c.series, usd], options: AlignmentOptions())
    #expect(premium.validPoints == 4)
  }
}
