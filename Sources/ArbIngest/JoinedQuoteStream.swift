import ArbCore

/// The series of one instrument from several inputs (days of one recording), streamed one
/// after another in the order of their first times, as `QuoteSeries.join` joins them in
/// memory: a part's first quote at the time of the quote before it replaces that quote
/// (duplicates collapse to the last); an earlier one is an error, at that part's first
/// data line. Memory is a chunk, whatever the number and length of the parts.
public final class JoinedQuoteStream: QuoteStream {
  /// One input's series: how to open its stream (once to find its first time, once to
  /// read it, so that one part at a time is open), and the path its errors name.
  public typealias Part = (open: () throws -> any QuoteStream, path: String)

  public let instrument: Instrument
  public let priceSource: PriceSource
  public let field: SeriesField
  public let clock: Clock
  public let lastTime: Int64?
  public let expectedRows: Int?
  /// The parts not yet read, in order.
  private var parts: ArraySlice<Part>
  /// The part being read, and whether its first quote is still to come.
  private var current: (stream: any QuoteStream, path: String)? = nil
  private var starting = false
  /// The last quote read, handed out once the next one is known not to replace it.
  private var held: Quote? = nil
  private var block = ChunkBlock()

  /// One quote, copied out of a chunk.
  private struct Quote {
    var time: Int64, otherTime: Int64?, bid: Double, ask: Double, bidSize: Double?, askSize: Double?

    init(_ chunk: QuoteChunk, _ k: Int) {
      (time, bid, ask) = (chunk.time[k], chunk.bid[k], chunk.ask[k])
      otherTime = chunk.otherTime.isEmpty ? nil : chunk.otherTime[k]
      (bidSize, askSize) = chunk.bidSize.isEmpty ? (nil, nil) : (chunk.bidSize[k], chunk.askSize[k])
    }
  }

  /// Joins `parts`, series of one instrument: each part is opened and its first quote
  /// read to order them (a part without quotes adds nothing). The stream's price source
  /// is `book` when a part's is, as a joined series' is.
  /// - Throws: what a part's stream throws.
  public init(_ parts: [Part]) throws {
    precondition(!parts.isEmpty, "JoinedQuoteStream: at least one part")
    var started: [(part: Part, first: Int64, last: Int64?, rows: Int?)] = []
    var book = false
    var base: (instrument: Instrument, field: SeriesField, clock: Clock, priceSource: PriceSource)? = nil
    // One part open at a time: each is let go of once its first quote is read.
    for part in parts {
      let stream = try part.open()
      base = base ?? (stream.instrument, stream.field, stream.clock, stream.priceSource)
      book = book || stream.priceSource == .book
      while let chunk = try stream.next(maxRows: 1) {
        guard chunk.count > 0 else { continue }
        started.append((part, chunk.time[0], stream.lastTime, stream.expectedRows))
        break
      }
    }
    (instrument, field, clock) = (base!.instrument, base!.field, base!.clock)
    priceSource = book ? .book : base!.priceSource
    // Stable: parts starting at one time keep the order they were given in.
    let ordered = started.enumerated().sorted { ($0.element.first, $0.offset) < ($1.element.first, $1.offset) }.map(\.element)
    self.parts = ordered.map(\.part)[...]
    lastTime = ordered.last?.last
    expectedRows = ordered.contains { $0.rows == nil } ? nil : ordered.reduce(0) { $0 + $1.rows! }
  }

  /// What joining parts with these first and last times gives before any of them is
  /// read: the error `QuoteSeries.join` throws for the first overlap in the order of their
  /// first times (an empty part, without times, adds nothing), else how many quotes
  /// collapse where a part starts at the time the part before it ends.
  /// - Throws: `IngestError.timestampNotIncreasing` at the later part's first data line.
  public static func check(_ parts: [(firstTime: Int64?, lastTime: Int64?, path: String)]) throws(IngestError) -> Int {
    let ordered = parts.enumerated().compactMap { k, part in part.firstTime.map { (first: $0, last: part.lastTime ?? $0, path: part.path, k: k) } }
      .sorted { ($0.first, $0.k) < ($1.first, $1.k) }
    var collapsed = 0
    for (before, part) in zip(ordered, ordered.dropFirst()) where part.first <= before.last {
      guard part.first == before.last else {
        throw IngestError(.timestampNotIncreasing(previous: before.last, found: part.first), at: SourcePosition(path: part.path, line: 2, column: 1))
      }
      collapsed += 1
    }
    return collapsed
  }

  public func next(maxRows: Int) throws -> QuoteChunk? {
    precondition(maxRows > 0, "a chunk holds at least one row")
    block.removeAll()
    var (hasOtherTime, hasSizes) = (true, false)
    func append(_ quote: Quote) {
      hasOtherTime = hasOtherTime && quote.otherTime != nil
      hasSizes = hasSizes || quote.bidSize != nil
      block.append(
        time: quote.time, otherTime: quote.otherTime ?? 0, bid: quote.bid, ask: quote.ask, bidSize: quote.bidSize ?? .nan,
        askSize: quote.askSize ?? .nan)
    }
    while block.count < maxRows {
      if let (stream, path) = current {
        if let chunk = try stream.next(maxRows: maxRows - block.count) {
          for k in 0..<chunk.count {
            let quote = Quote(chunk, k)
            if starting, let previous = held, quote.time <= previous.time {
              guard quote.time == previous.time else {
                throw IngestError(
                  .timestampNotIncreasing(previous: previous.time, found: quote.time), at: SourcePosition(path: path, line: 2, column: 1))
              }
              // A part's first quote replaces the one at its time before it.
              held = nil
            }
            starting = false
            if let held { append(held) }
            held = quote
          }
          continue
        }
        current = nil
      }
      guard let part = parts.popFirst() else { break }
      current = (try part.open(), part.path)
      starting = true
    }
    if block.count == 0, let quote = held {
      // Every part is read: the last quote is handed out.
      append(quote)
      held = nil
    }
    guard block.count > 0 else { return nil }
    return block.chunk(0..<block.count, otherTime: hasOtherTime, sizes: hasSizes)
  }
}
