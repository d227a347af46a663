import ArbCore
import ArbIngest
import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// The shipped Binance.US / Kraken BTCUSDC minute pair (2023-03-01 … 21), end to end.
@Suite("Real data", .serialized)
struct RealDataTests {
  static let binancePath = Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv")
  static let krakenPath = Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz")

  static func load(binance: String = binancePath) throws -> [QuoteSeries] {
    let specs = [
      "binanceus:spot:BTCUSDC=\(binance)@\(Repository.data("formats/binanceus-kline-1m.json"))",
      "kraken:spot:BTCUSDC=\(krakenPath)@\(Repository.data("formats/kraken-ohlcvt-1m.json"))",
    ]
    return try specs.map { try LegSpec(parsing: $0).load(options: IngestOptions()).series }
  }

  static let options = AlignmentOptions(maxStale: 60_000_000)

  @Test("statistics and bands equal the oracle's", .tags(.slow))
  func againstOracle() throws {
    let legs = try Self.load()
    #expect(legs.map(\.priceSource) == [.last, .last])
    let aligned = try AlignedLegs(legs: legs, options: Self.options)
    let expectedAligned = try #require(Oracle.align(legs, maxStale: 60_000_000))
    #expect(aligned.time == expectedAligned.time)
    #expect(aligned.valid == expectedAligned.valid)
    #expect(aligned.perLeg.map { $0.map(Int.init) } == expectedAligned.state)
    // Kraken has no candle in quiet minutes: some points are more than a minute stale.
    #expect(aligned.validPoints > 20_000 && aligned.stalePoints > 0)

    let premium = PremiumSeries(aligned: aligned, legs: legs)
    let analysis = PremiumAnalysis(premium: premium)
    let expected = Oracle.premium(expectedAligned, legs)
    let weights = expectedAligned.time.indices.filter { expectedAligned.valid[$0] }.map { Double(expectedAligned.duration[$0]) }
    let mid = expected.mid.compactMap { $0 }, exec = expected.exec.compactMap { $0 }
    #expect(mid.count == aligned.validPoints)

    // Premiums of a few tenths of a percent, ~3e4 points summed in different orders
    // (BLAS blocks vs compensated): the mean, a cancelling sum, is held to 1e-10
    // relative; spreads, moments and shares to 1e-11.
    for (name, got, values) in [("mid", analysis.mid, mid), ("exec", analysis.exec, exec)] {
      let o = Oracle.statistics(values, weights), s = got.statistics
      #expect(s.count == o.count, "\(name)")
      #expect(isClose(s.mean, o.mean, rel: 1e-10) && isClose(s.meanTW, o.meanTW, rel: 1e-10), "\(name)")
      #expect(isClose(s.std, o.std, rel: 1e-11) && isClose(s.stdTW, o.stdTW, rel: 1e-11), "\(name)")
      #expect(isClose(s.skew, o.skew, rel: 1e-11) && isClose(s.kurtosis, o.kurtosis, rel: 1e-11), "\(name)")
      #expect(isClose(s.min, o.min, rel: 1e-12) && isClose(s.max, o.max, rel: 1e-12), "\(name)")
      #expect(zip(s.quantiles, o.quantiles).allSatisfy { isClose($0, $1, rel: 1e-12) }, "\(name)")
      let h = got.halfLife, oh = Oracle.halfLife(values, durations: weights)
      #expect((h == nil) == (oh == nil), "\(name)")
      #expect(isClose(h?.beta, oh?.beta, rel: 1e-9) && isClose(h?.seconds, oh?.seconds, rel: 1e-9), "\(name)")
    }
    #expect(analysis.exec.halfLife != nil)

    // Bands: the oracle runs on its own premiums and its own sides.
    let midSide = expected.mid.map { ($0 ?? 0) < 0 ? -1 : 1 }
    let execSide = expected.rich.indices.map { expected.rich[$0] * 1000 + expected.cheap[$0] }
    for (index, band) in [0.05, 0.1].enumerated() {
      let oMid = Oracle.bands(
        band: band, values: expected.mid, side: midSide, time: expectedAligned.time, duration: expectedAligned.duration,
        oneSided: false)
      let oExec = Oracle.bands(
        band: band, values: expected.exec, side: execSide, time: expectedAligned.time,
        duration: expectedAligned.duration, oneSided: true)
      #expect(analysis.mid.bands[index].band == band)
      expectEqual(analysis.mid.bands[index], oMid, "mid band \(band)")
      expectEqual(analysis.exec.bands[index], oExec, "exec band \(band)")
      #expect(oMid.episodes > 10 && oExec.episodes > 10)
    }
    #expect(analysis.everyFigure.allSatisfy { $0.value.map(\.isFinite) ?? true })
  }

  @Test("reading the Binance.US file gzipped gives identical results")
  func gzipped() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let copy = folder.path + "/binanceus.csv"
    try FileManager.default.copyItem(atPath: Self.binancePath, toPath: copy)
    let gzip = ["/usr/bin/gzip", "/bin/gzip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    let status = try runProgram(try #require(gzip), ["-k", copy])
    #expect(status == 0)
    let plain = try Self.load(), zipped = try Self.load(binance: copy + ".gz")
    #expect(plain[0].time == zipped[0].time && plain[0].bid == zipped[0].bid && plain[0].ask == zipped[0].ask)

    func analyse(_ legs: [QuoteSeries]) throws -> (PremiumSeries, PremiumAnalysis) {
      let premium = PremiumSeries(aligned: try AlignedLegs(legs: legs, options: Self.options), legs: legs)
      return (premium, PremiumAnalysis(premium: premium))
    }
    let (p1, a1) = try analyse(plain), (p2, a2) = try analyse(zipped)
    #expect(p1.time == p2.time && p1.valid == p2.valid && p1.rich == p2.rich)
    // Same bytes in, same arithmetic: equal to the last bit (NaN at invalid points compared as bits).
    #expect(p1.mid.map(\.bitPattern) == p2.mid.map(\.bitPattern) && p1.exec.map(\.bitPattern) == p2.exec.map(\.bitPattern))
    let f1 = a1.everyFigure, f2 = a2.everyFigure
    #expect(f1.map(\.name) == f2.map(\.name))
    #expect(f1.map(\.value) == f2.map(\.value))
    #expect(a1.mid.statistics == a2.mid.statistics && a1.exec.bands == a2.exec.bands)
  }
}
