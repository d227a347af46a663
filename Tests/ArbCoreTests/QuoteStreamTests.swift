import ArbCore
import Testing

@Suite struct QuoteStreamTests {
  private func series(rows: Int, sizes: Bool) -> QuoteSeries {
    QuoteSeries(
      instrument: Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT"), priceSource: .book,
      time: (0..<rows).map { Int64($0) * 10 }, bid: (0..<rows).map { 100 + Double($0) },
      ask: (0..<rows).map { 101 + Double($0) }, bidSize: sizes ? (0..<rows).map { Double($0) / 2 } : [],
      askSize: sizes ? (0..<rows).map { Double($0) / 3 } : [])
  }

  @Test(arguments: [1, 3, 7, 10, 11, 1000])
  func chunksCoverTheSeriesInOrder(maxRows: Int) throws {
    let whole = series(rows: 10, sizes: true)
    let stream = SeriesQuoteStream(whole)
    var time: [Int64] = [], bid: [Double] = [], ask: [Double] = [], bidSize: [Double] = [], askSize: [Double] = []
    var chunks = 0
    while let chunk = try stream.next(maxRows: maxRows) {
      #expect(chunk.count <= maxRows && chunk.count > 0)
      #expect(chunk.otherTime.isEmpty)
      time += chunk.time
      bid += chunk.bid
      ask += chunk.ask
      bidSize += chunk.bidSize
      askSize += chunk.askSize
      chunks += 1
    }
    #expect(chunks == (10 + maxRows - 1) / maxRows)
    #expect(time == whole.time && bid == whole.bid && ask == whole.ask)
    #expect(bidSize == whole.bidSize && askSize == whole.askSize)
    #expect(try stream.next(maxRows: maxRows) == nil)
  }

  @Test func absentSizesStayEmpty() throws {
    let stream = SeriesQuoteStream(series(rows: 5, sizes: false))
    let chunk = try #require(try stream.next(maxRows: 4))
    #expect(chunk.count == 4 && chunk.bidSize.isEmpty && chunk.askSize.isEmpty)
    #expect(Array(chunk.time) == [0, 10, 20, 30])
  }

  @Test func emptySeriesHasNoChunk() throws {
    #expect(try SeriesQuoteStream(series(rows: 0, sizes: false)).next(maxRows: 8) == nil)
  }
}
