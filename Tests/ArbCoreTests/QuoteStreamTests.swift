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

  /// A wrapper reports its base's row count and last time, seen as itself or as any
  /// stream, unless it changes them (a cut before the last quote, a clock offset).
  @Test func wrappersForwardExpectedRowsAndLastTime() {
    let base = { SeriesQuoteStream(self.series(rows: 10, sizes: false)) }
    let counting = CountingQuoteStream(base()) { _ in }
    #expect(counting.expectedRows == 10 && counting.lastTime == 90)
    let wrappers: [(stream: any QuoteStream, rows: Int?, last: Int64?)] = [
      (counting, 10, 90),
      (TruncatedQuoteStream(base(), before: 1_000), 10, 90),
      (TruncatedQuoteStream(base(), before: 50), nil, nil),
      (ShiftedQuoteStream(base(), by: 5), 10, 95),
      (QuoteTee(base(), rows: 4).branch(), 10, 90),
    ]
    for (stream, rows, last) in wrappers {
      #expect(stream.expectedRows == rows && stream.lastTime == last, "\(type(of: stream))")
      #expect(stream.instrument.symbol == "BTCUSDT" && stream.priceSource == .book)
    }
  }

  /// Every branch of a tee reads the whole series, whatever the order and the sizes its
  /// reads come in; a chunk stays valid until its own branch reads again, however far
  /// the other branches run ahead.
  @Test(arguments: [1, 4, 64])
  func teeBranchesReadTheWholeSeriesAtTheirOwnPace(sourceRows: Int) throws {
    let whole = series(rows: 500, sizes: true)
    let tee = QuoteTee(SeriesQuoteStream(whole), rows: sourceRows)
    let branches = (0..<3).map { _ in tee.branch() }
    var read: [[Int64]] = [[], [], []]
    var sizes: [[Double]] = [[], [], []]
    var held: [QuoteChunk?] = [nil, nil, nil]
    var ended = [false, false, false]
    var state: UInt64 = 7
    while ended.contains(false) {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let b = Int(state >> 33) % 3
      guard !ended[b] else { continue }
      // The chunk this branch holds is still what it was when read.
      if let chunk = held[b] { #expect(Array(chunk.time) == Array(read[b].suffix(chunk.count))) }
      guard let chunk = try branches[b].next(maxRows: 1 + Int(state >> 40) % 9) else {
        ended[b] = true
        continue
      }
      read[b] += chunk.time
      sizes[b] += chunk.askSize
      held[b] = chunk
    }
    for b in 0..<3 {
      #expect(read[b] == whole.time, "branch \(b)")
      #expect(sizes[b] == whole.askSize, "branch \(b)")
      #expect(try branches[b].next(maxRows: 5) == nil)
    }
    #expect(branches[0].instrument == whole.instrument && branches[0].priceSource == .book)
  }
}
