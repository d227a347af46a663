import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// `PremiumStream.forEachChunk`, which walks the next chunk on another thread: the same
/// chunks as `next()`, and every error where it occurs, with no thread left waiting.
@Suite("Premium read ahead")
struct PremiumReadAheadTests {
  /// Every column of every chunk, end to end (`nan` compared by its bits).
  struct Columns: Equatable {
    var counts: [Int] = []
    var int64s: [Int64] = []
    var bits: [UInt64] = []
    var bytes: [Int8] = []

    mutating func add(_ chunk: PremiumChunk) {
      counts.append(chunk.count)
      for column in [chunk.time, chunk.duration, chunk.quoteTimes] { int64s += Array(column) }
      int64s += chunk.valid.map { $0 ? 1 : 0 }
      for column in [chunk.mid, chunk.exec, chunk.quotes, chunk.usableQuotes] { bits += column.map(\.bitPattern) }
      for column in [chunk.rich, chunk.cheap, chunk.top, chunk.bottom] { bytes += Array(column) }
    }
  }

  static func stream(_ legs: [any QuoteStream], chunk: Int, grid: Int64? = nil) throws -> PremiumStream {
    try PremiumStream(
      legs: legs, options: AlignmentOptions(maxStale: 9, grid: grid), chunkPoints: chunk, legChunkRows: chunk + 3, keepQuotes: true,
      keepUsableQuotes: true)
  }

  @Test("the chunks handed over are those of next(), in order", arguments: [1, 2, 7, 300, 1 << 16])
  func sameChunks(chunk: Int) throws {
    var rng = SplitMix64(seed: UInt64(chunk))
    for grid in [nil, 4] as [Int64?] {
      let legs = (0..<3).map { k in rng.leg("v\(k)", count: rng.int(200...900), start: Int64(rng.int(0...30)), maxGap: 12) }
      var walked = Columns()
      let direct = try Self.stream(legs.map(SeriesQuoteStream.init), chunk: chunk, grid: grid)
      while let next = try direct.next() { walked.add(next) }
      var handed = Columns()
      let ahead = try Self.stream(legs.map(SeriesQuoteStream.init), chunk: chunk, grid: grid)
      try ahead.forEachChunk { handed.add($0) }
      #expect(handed == walked)
      #expect(handed.counts.count > (chunk < 100 ? 2 : 0))
      #expect((ahead.points, ahead.validPoints, ahead.legRows) == (direct.points, direct.validPoints, direct.legRows))
    }
  }

  struct Stop: Error, Equatable {}

  @Test("an error of the body stops the walk at that chunk")
  func bodyThrows() throws {
    var rng = SplitMix64(seed: 5)
    let legs = (0..<2).map { k in rng.leg("v\(k)", count: 2_000, start: 0, maxGap: 3) }
    let stream = try Self.stream(legs.map(SeriesQuoteStream.init), chunk: 10)
    var seen = 0
    #expect(throws: Stop()) {
      try stream.forEachChunk { _ in
        seen += 1
        if seen == 3 { throw Stop() }
      }
    }
    #expect(seen == 3)
  }

  /// A leg that fails after handing out `chunks` chunks.
  final class FailingStream: QuoteStream {
    let inner: SeriesQuoteStream
    var chunks: Int
    init(_ series: QuoteSeries, failingAfter chunks: Int) {
      inner = SeriesQuoteStream(series)
      self.chunks = chunks
    }
    var instrument: Instrument { inner.instrument }
    var priceSource: PriceSource { inner.priceSource }
    var field: SeriesField { inner.field }
    var clock: Clock { inner.clock }
    var lastTime: Int64? { nil }
    func next(maxRows: Int) throws -> QuoteChunk? {
      guard chunks > 0 else { throw Stop() }
      chunks -= 1
      return try inner.next(maxRows: maxRows)
    }
  }

  @Test("an error of a leg reaches the caller after the chunks made before it")
  func legThrows() throws {
    var rng = SplitMix64(seed: 9)
    let legs = (0..<2).map { k in rng.leg("v\(k)", count: 1_000, start: 0, maxGap: 2) }
    let direct = try Self.stream([SeriesQuoteStream(legs[0]), FailingStream(legs[1], failingAfter: 4)], chunk: 16)
    var before = 0
    #expect(throws: Stop()) { while try direct.next() != nil { before += 1 } }
    let ahead = try Self.stream([SeriesQuoteStream(legs[0]), FailingStream(legs[1], failingAfter: 4)], chunk: 16)
    var handed = 0
    #expect(throws: Stop()) { try ahead.forEachChunk { _ in handed += 1 } }
    #expect(before > 0)
    #expect(handed == before)
  }
}
