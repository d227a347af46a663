import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// A stream read ahead on another thread hands out the wrapped stream's quotes in
// order, whatever the chunk sizes on either side, and its error after the quotes
// that came before it.
@Suite("Prefetched quote stream")
struct PrefetchedQuoteStreamTests {
  /// A series of `count` quotes with sizes and the other clock.
  static func series(_ count: Int) -> QuoteSeries {
    var series = QuoteSeries(instrument: Instrument(venue: "aa", market: .spot, symbol: "BTCUSDC"), priceSource: .book)
    var random = SplitMix64(seed: 11)
    for k in 0..<count {
      let bid = 100 + Double(random.next() % 1000) / 8
      series.time.append(Int64(1_000 + 3 * k))
      series.otherTime.append(Int64(1_005 + 3 * k))
      series.bid.append(bid)
      series.ask.append(bid + 0.5)
      series.bidSize.append(Double(k % 7))
      series.askSize.append(Double(k % 5))
    }
    return series
  }

  /// A stream that hands out `series` and then fails.
  final class FailingStream: QuoteStream {
    struct Broken: Error {}
    let inner: SeriesQuoteStream
    init(_ series: QuoteSeries) { inner = SeriesQuoteStream(series) }
    var instrument: Instrument { inner.instrument }
    var priceSource: PriceSource { inner.priceSource }
    var field: SeriesField { inner.field }
    var clock: Clock { inner.clock }
    var lastTime: Int64? { nil }
    func next(maxRows: Int) throws -> QuoteChunk? {
      if let chunk = try inner.next(maxRows: maxRows) { return chunk }
      throw Broken()
    }
  }

  @Test(arguments: [(1, 1, 2), (7, 3, 2), (300, 64, 3), (1 << 16, 1000, 4)])
  func `the quotes come out as the wrapped stream gives them`(taken: Int, made: Int, slots: Int) throws {
    let series = Self.series(2_345)
    let stream = PrefetchedQuoteStream(SeriesQuoteStream(series), rows: made, slots: slots)
    let joined = try drained(stream, rows: taken)
    #expect(joined.time == series.time && joined.otherTime == series.otherTime)
    #expect(bits(joined.bid) == bits(series.bid) && bits(joined.ask) == bits(series.ask))
    #expect(bits(joined.bidSize) == bits(series.bidSize) && bits(joined.askSize) == bits(series.askSize))
    #expect(stream.instrument == series.instrument && stream.priceSource == .book)
  }

  @Test func `an error comes after every quote read before it`() throws {
    let series = Self.series(1_000)
    let stream = PrefetchedQuoteStream(FailingStream(series), rows: 64)
    var times: [Int64] = []
    #expect(throws: FailingStream.Broken.self) {
      while let chunk = try stream.next(maxRows: 100) { times += chunk.time }
    }
    #expect(times == series.time)
    #expect(try stream.next(maxRows: 100) == nil)
  }

  @Test func `a stream dropped before its end stops its reading thread`() throws {
    for _ in 0..<50 {
      let stream = PrefetchedQuoteStream(SeriesQuoteStream(Self.series(5_000)), rows: 16, slots: 2)
      _ = try stream.next(maxRows: 10)
    }
  }
}
