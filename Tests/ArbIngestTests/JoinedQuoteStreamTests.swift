import ArbCore
import TestSupport
import Testing

@testable import ArbIngest

// Series of one instrument from several inputs streamed one after another, against
// `QuoteSeries.join` of the whole series in order of their first times.

@Suite("Joined quote stream")
struct JoinedQuoteStreamTests {
  /// A part: `count` quotes from `start`, 1…`gap` µs apart, with sizes (NaN one time in 5).
  static func part(_ g: inout SplitMix64, start: Int64, count: Int, gap: Int, source: PriceSource = .book) -> QuoteSeries {
    var series = QuoteSeries(instrument: Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT"), priceSource: source)
    var t = start
    for _ in 0..<count {
      let bid = 100 + Double(g.next() % 1000) / 100
      let size = g.next() % 5 == 0 ? Double.nan : Double(g.next() % 20) / 4
      series.time.append(t)
      (series.bid, series.ask) = (series.bid + [bid], series.ask + [bid + 0.01])
      (series.bidSize, series.askSize) = (series.bidSize + [size], series.askSize + [size])
      t += 1 + Int64(g.next() % UInt64(gap))
    }
    return series
  }

  /// The whole-series join of `parts` (named `paths`), sorted by first time.
  static func joined(_ parts: [QuoteSeries], paths: [String]) throws(IngestError) -> QuoteSeries {
    let sorted = zip(parts, paths).filter { !$0.0.time.isEmpty }.sorted { $0.0.time.first! < $1.0.time.first! }
    var whole = sorted[0].0
    for (part, path) in sorted.dropFirst() { try whole.join(part, path: path, sort: false) }
    return whole
  }

  static func stream(_ parts: [QuoteSeries], paths: [String]) throws -> JoinedQuoteStream {
    try JoinedQuoteStream(zip(parts, paths).map { part, path in ({ SeriesQuoteStream(part) }, path) })
  }

  @Test("days, given in any order, touching or apart, stream as their join", arguments: [1, 3, 64, 10_000])
  func days(rows: Int) throws {
    var g = SplitMix64(seed: UInt64(rows))
    for round in 0..<20 {
      var parts: [QuoteSeries] = []
      var start: Int64 = 1_000
      for _ in 0..<Int(1 + g.next() % 5) {
        let part = Self.part(&g, start: start, count: Int(g.next() % 40), gap: 9, source: g.next() % 3 == 0 ? .last : .book)
        parts.append(part)
        // The next day starts after this one, or at its last quote (a duplicate that collapses).
        start = (part.time.last ?? start) + (g.next() % 3 == 0 ? 0 : 1 + Int64(g.next() % 50))
      }
      guard parts.contains(where: { !$0.time.isEmpty }) else { continue }
      parts.shuffle(using: &g)
      let paths = parts.indices.map { "day-\($0).csv" }
      let whole = try Self.joined(parts, paths: paths)
      let collapsed = try JoinedQuoteStream.check(zip(parts, paths).map { ($0.time.first, $0.time.last, $1) })
      #expect(parts.reduce(0) { $0 + $1.count } - collapsed == whole.count, "round \(round)")
      let got = try drained(try Self.stream(parts, paths: paths), rows: rows)
      #expect(got.time == whole.time && got.bid == whole.bid && got.ask == whole.ask, "round \(round)")
      #expect(bits(got.bidSize) == bits(whole.bidSize) && bits(got.askSize) == bits(whole.askSize), "round \(round)")
      #expect(got.priceSource == whole.priceSource, "round \(round)")
    }
  }

  @Test func `an overlap is the join's error, at the later part's first data line`() throws {
    var g = SplitMix64(seed: 9)
    let (a, b) = (Self.part(&g, start: 100, count: 30, gap: 5), Self.part(&g, start: 150, count: 30, gap: 5))
    let paths = ["b.csv", "a.csv"]
    let expected = #expect(throws: IngestError.self) { try Self.joined([b, a], paths: paths) }
    let error = #expect(throws: IngestError.self) { try drained(try Self.stream([b, a], paths: paths), rows: 7) }
    #expect(error?.reason == expected?.reason && error?.position == expected?.position)
    #expect(error?.position == SourcePosition(path: "b.csv", line: 2, column: 1))
    // Found from the parts' first and last times alone, before any is read.
    let checked = #expect(throws: IngestError.self) {
      try JoinedQuoteStream.check([(b.time.first, b.time.last, "b.csv"), (a.time.first, a.time.last, "a.csv")])
    }
    #expect(checked?.reason == expected?.reason && checked?.position == expected?.position)
  }
}
