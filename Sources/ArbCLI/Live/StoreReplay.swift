import ArbCore
import ArbIngest

/// A finished recording read in the order of its receive times, one line (or one
/// quote) at a time, for `board --follow --speed`.
protocol QuoteReplay {
  /// The time of the next quotes, `nil` at the end.
  mutating func nextTime() throws -> Int64?
  /// The next quotes (one line's, all of one time), `nil` at the end.
  mutating func next() throws -> [LiveQuote]?
  /// Lines not read: torn, too long, or in files that could not be read.
  var tornLines: Int { get }
}

/// A store (`arbkit convert --out`) replayed in time order: each price series streamed
/// a chunk at a time (`Store.stream`), the series merged by the time of their next
/// quote. Memory: one chunk per series.
struct StoreReplay: QuoteReplay {
  private var streams: [Cursor]
  let tornLines = 0
  /// Quotes per chunk read from a series.
  static let chunkRows = 4096

  /// One series: its stream, and the quotes of its current chunk not handed out yet.
  private struct Cursor {
    let stream: StoreQuoteStream
    var quotes: [LiveQuote] = []
    var index = 0

    /// The next quote, reading a chunk when the current one is used up.
    mutating func head() throws -> LiveQuote? {
      if index == quotes.count {
        guard let chunk = try stream.next(maxRows: StoreReplay.chunkRows) else { return nil }
        let instrument = stream.instrument
        quotes = chunk.time.indices.map { LiveQuote(instrument: instrument, time: chunk.time[$0], bid: chunk.bid[$0], ask: chunk.ask[$0]) }
        index = 0
      }
      return quotes[index]
    }
  }

  /// Opens the store at `path`.
  ///
  /// - Throws: the store's errors (stale, corrupt).
  init(path: String) throws {
    let store = try Store.open(path: path)
    streams = store.series.filter { $0.field == .price }.map { Cursor(stream: store.stream($0)) }
  }

  mutating func nextTime() throws -> Int64? {
    try earliest()?.time
  }

  mutating func next() throws -> [LiveQuote]? {
    guard let (k, _) = try earliest() else { return nil }
    defer { streams[k].index += 1 }
    return [try streams[k].head()!]
  }

  /// The series whose next quote is earliest (the first such on a tie), and that time.
  private mutating func earliest() throws -> (index: Int, time: Int64)? {
    var best: (index: Int, time: Int64)?
    for k in streams.indices {
      if let time = try streams[k].head()?.time, best.map({ time < $0.time }) ?? true { best = (k, time) }
    }
    return best
  }
}
