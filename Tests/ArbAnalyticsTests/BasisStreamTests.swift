import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// The basis streamed in chunks: the same columns as `BasisSeries` to the bit, and
/// summaries equal to the whole-series ones (counts, extremes, quantiles, bands and
/// episodes exactly; moments and the half-life to 1e-12).
@Suite("Basis streamed in chunks")
struct BasisStreamTests {
  /// Every column of the stream, joined over its chunks.
  static func collect(
    _ stream: BasisStream
  ) throws -> (time: [Int64], valid: [Bool], basis: [Double], open: [Double], close: [Double], yearly: [Double], before: [Bool]) {
    var out: (time: [Int64], valid: [Bool], basis: [Double], open: [Double], close: [Double], yearly: [Double], before: [Bool]) = (
      [], [], [], [], [], [], []
    )
    while let chunk = try stream.next() {
      out.time += chunk.time
      out.valid += chunk.valid
      out.basis += chunk.basis
      out.open += chunk.open
      out.close += chunk.close
      out.yearly += chunk.annualised
      out.before += chunk.beforeExpiry
    }
    return out
  }

  static func same(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern } }

  @Test("random legs, chunks of 1 to 65536 points", arguments: [(5, nil), (40, 30), (3, 2)] as [(Int, Int64?)])
  func chunks(maxGap: Int, maxStale: Int64?) throws {
    var rng = SplitMix64(seed: UInt64(maxGap * 31))
    let bands = BandOptions(bands: [0.02, 0.1, 0.3, 1], hysteresis: 0.01, minEpisode: 2)
    for round in 0..<3 {
      let spot = rng.leg("spot", count: rng.int(300...900), start: Int64(rng.int(0...20)), maxGap: maxGap)
      let perp = rng.leg("perp", count: rng.int(300...900), start: Int64(rng.int(0...20)), maxGap: maxGap, level: 100.3)
      let options = AlignmentOptions(maxStale: maxStale)
      let expiry: Int64? = round == 0 ? nil : spot.time[spot.count / 2]
      let whole = try BasisSeries(derivative: perp, reference: spot, expiry: expiry, options: options)
      let summaries = [
        SeriesSummary(signed: whole.basis, column: whole.basis.mid, options: bands), SeriesSummary(signed: whole.basis, column: whole.open, options: bands),
        SeriesSummary(signed: whole.basis, column: whole.close, options: bands),
      ]
      #expect(summaries.contains { $0.bands.contains { $0.episodes > 3 } })
      for chunk in [1, 3, 64, 1 << 16] {
        let comment: Comment = "round \(round), chunk \(chunk)"
        let stream = try BasisStream(
          derivative: SeriesQuoteStream(perp), reference: SeriesQuoteStream(spot), expiry: expiry, options: options, chunkPoints: chunk,
          legChunkRows: chunk)
        let got = try Self.collect(stream)
        #expect(got.time == whole.basis.time && got.valid == whole.basis.valid, comment)
        #expect(Self.same(got.basis, whole.basis.mid) && Self.same(got.open, whole.open) && Self.same(got.close, whole.close), comment)
        #expect(Self.same(got.yearly, whole.annualised?.mid ?? []) && got.before == (whole.annualised?.valid ?? []), comment)
        #expect(stream.pointsAfterExpiry == whole.pointsAfterExpiry && (expiry == nil || whole.pointsAfterExpiry > 0), comment)
        // The summaries of the columns fed a chunk at a time.
        let streamed = SignedSummaryStream(columns: 3, options: bands, spillMemoryLimit: chunk == 1 ? 7 : 1 << 20)
        let again = try BasisStream(
          derivative: SeriesQuoteStream(perp), reference: SeriesQuoteStream(spot), expiry: expiry, options: options, chunkPoints: chunk)
        while let part = try again.next() {
          try streamed.add([part.basis, part.open, part.close], valid: part.valid, time: part.time, duration: part.duration)
        }
        for (s, w) in zip(try streamed.finish(), summaries) { PremiumStreamTests.expectEquivalent(s, w, comment) }
      }
    }
  }

  @Test("the carry from a streamed basis equals the carry from the whole series", arguments: [1, 5, 1 << 16])
  func carry(chunk: Int) throws {
    var rng = SplitMix64(seed: UInt64(chunk) + 3)
    let hour: Int64 = 3_600_000_000
    let spot = rng.leg("spot", count: 3000, start: 5 * hour, maxGap: 120_000_000)
    let perp = rng.leg("perp", count: 2500, start: 7 * hour, maxGap: 140_000_000, level: 100.4)
    // Funding every hour or two from before the legs to after them.
    var events: [(Int64, Double, Double)] = []
    var t = 3 * hour
    while t < spot.time[spot.count - 1] + 4 * hour {
      let rate = 0.0001 * rng.normal()
      events.append((t, rate, rate))
      t += hour * Int64(rng.int(1...2))
    }
    let funding = FundingEvents(quoteLeg(.linear, events, field: .fundingRate))
    for (window, maxStale) in [(hour, nil), (4 * hour, Int64(60_000_000)), (2 * hour, Int64(30_000_000))] as [(Int64, Int64?)] {
      let options = AlignmentOptions(maxStale: maxStale)
      let whole = try BasisSeries(derivative: perp, reference: spot, options: options)
      let expected = FundingCarry(events: funding, basis: whole.basis, perp: perp, settlement: .linear, window: window)
      #expect(expected.windows.count > 5 && expected.windows.contains { $0.basisStart != nil })
      let stream = try BasisStream(
        derivative: SeriesQuoteStream(perp), reference: SeriesQuoteStream(spot), expiry: nil, options: options, chunkPoints: chunk)
      var edges = CarryEdges(events: funding, window: window)
      while let part = try stream.next() { for i in 0..<part.count { edges.add(time: part.time[i], valid: part.valid[i], basis: part.basis[i]) } }
      let mids = try FundingCarry.mids(SeriesQuoteStream(perp), asOf: funding.time)
      let got = FundingCarry(
        events: funding, basisSpan: edges.span, settlement: .linear, window: window, basisAsOf: { edges.basis(asOf: $0) },
        perpMid: { time in mids[funding.time.firstIndex(of: time)!] })
      #expect(got.windows == expected.windows, "chunk \(chunk), window \(window)")
      #expect(got.net == expected.net && got.carryPerContract == expected.carryPerContract)
    }
  }

  @Test func `an expiry further than a duration from the first point is refused at the first chunk`() throws {
    let spot = quoteLeg(.spot, [(-9_000_000_000_000_000_000, 100, 101), (0, 100, 101)])
    let perp = quoteLeg(.linear, [(-9_000_000_000_000_000_000, 101, 102), (0, 101, 102)])
    let stream = try BasisStream(
      derivative: SeriesQuoteStream(perp), reference: SeriesQuoteStream(spot), expiry: 9_000_000_000_000_000_000, chunkPoints: 1)
    #expect(throws: AlignmentError.self) { try stream.next() }
  }
}
