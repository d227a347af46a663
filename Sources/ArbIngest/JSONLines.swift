import ArbCore

// The shared machinery of the JSON sources: a line (or array element) is scanned by
// `JSONScanner`, handed to a format's handler, which turns it into points, an error
// record or a skipped message; the points go to one `SeriesBuilder` per (instrument,
// series field). A line's points are appended all or none.

/// One value for one series, as a handler reads it from a line.
struct JSONPoint {
  var instrument: Instrument
  var field: SeriesField
  /// The recorder's receive time (µs), the `local` clock.
  var time: Int64
  /// The venue's own time (µs), the `exchange` clock, when the message has one.
  var exchangeTime: Int64?
  var bid: Double
  var ask: Double
  var bidSize = Double.nan
  var askSize = Double.nan
  /// Bid and ask from a book (else one price: `bid = ask`).
  var book: Bool
  /// The quote is the top of a whole order book (a venue's book response), not a
  /// ticker's best bid and ask: its own series, so that a leg can take the one with
  /// depth.
  var wholeBook = false
  /// The whole book of the quote (one closed book), when its depth is kept.
  var depth: BookDepth? = nil
}

/// What a handler made of one line.
enum JSONLineOutcome: Equatable {
  /// Points were appended (possibly none: a message that changed no value read here).
  case points
  /// A message of a kind not read as a series (`bybit orderbook.200`), counted by kind.
  case skipped(String)
  /// A venue's error response: counted and reported, never read as prices.
  case errorRecord(String)
}

/// A bad value in a line: the reason and the byte offset in the line it points at.
struct JSONFault: Error {
  var reason: IngestError.Reason
  var offset: Int
}

/// Turns one scanned line into points.
protocol JSONLineHandler {
  /// Whether the format has an exchange clock besides the receive time.
  var hasExchangeTime: Bool { get }
  /// Whether the points of whole books carry their depth (`JSONPoint.depth`).
  var keepsDepth: Bool { get }
  /// Reads `document` (node 0 is the line's value), appending its points to `points`.
  mutating func read(_ document: JSONDocument, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome
  /// Keeps the state the last `read` prepared (a ticker's merged values), once its
  /// line is accepted; a rejected line leaves the state as it was.
  mutating func commit()
}

extension JSONLineHandler {
  var keepsDepth: Bool { false }
  mutating func commit() {}
}

extension JSONDocument {
  /// A positive finite price at `node`, or a fault naming `column` (`nil` when absent
  /// and `optional`).
  func price(_ node: Int?, _ column: String, optional: Bool = false) throws(JSONFault) -> Double? {
    let at = node.map { nodes[$0].start } ?? 0
    switch number(node) {
    case .absent:
      if optional { return nil }
      throw JSONFault(reason: .missingPrice(column: column), offset: at)
    case .invalid: throw JSONFault(reason: .invalidNumber(column: column, text: text(node)), offset: at)
    case .value(let v):
      guard v.isFinite else { throw JSONFault(reason: .nonFinite(column: column, text: text(node)), offset: at) }
      guard v > 0 else { throw JSONFault(reason: .nonPositivePrice(column: column, text: text(node)), offset: at) }
      return v
    }
  }

  /// A finite signed rate at `node`, `nil` when absent (`""`, `null`, missing).
  func rate(_ node: Int?, _ column: String) throws(JSONFault) -> Double? {
    let at = node.map { nodes[$0].start } ?? 0
    switch number(node) {
    case .absent: return nil
    case .invalid: throw JSONFault(reason: .invalidNumber(column: column, text: text(node)), offset: at)
    case .value(let v):
      guard v.isFinite else { throw JSONFault(reason: .nonFinite(column: column, text: text(node)), offset: at) }
      return v
    }
  }

  /// A non-negative size at `node`, `nan` when absent.
  func size(_ node: Int?, _ column: String) throws(JSONFault) -> Double {
    let at = node.map { nodes[$0].start } ?? 0
    switch number(node) {
    case .absent: return .nan
    case .invalid: throw JSONFault(reason: .invalidNumber(column: column, text: text(node)), offset: at)
    case .value(let v):
      guard v.isFinite && v >= 0 else { throw JSONFault(reason: .negativeSize(column: column, text: text(node)), offset: at) }
      return v
    }
  }

  /// An epoch-milliseconds time (number or string) at `node` as µs; `nil` when absent
  /// or `0` (how venues write "no time", such as a perpetual's delivery time).
  func millis(_ node: Int?, _ column: String) throws(JSONFault) -> Int64? {
    guard let node else { return nil }
    if case .absent = number(node) { return nil }
    guard let micros = scaled(node, scale: 3), micros >= 0 else {
      throw JSONFault(reason: .invalidTimestamp(column: column, text: text(node)), offset: nodes[node].start)
    }
    return micros == 0 ? nil : micros
  }

  /// The text of a string member that names something (a symbol), or a fault.
  func name(_ node: Int?, _ column: String, at offset: Int) throws(JSONFault) -> String {
    guard let node, kind(node) == .string, nodes[node].end > nodes[node].start else {
      throw JSONFault(reason: .missingColumn(name: column), offset: node.map { nodes[$0].start } ?? offset)
    }
    return text(node)
  }
}

extension [JSONPoint] {
  /// Appends a book quote (both sides) or, with only `last`, a one-price point.
  mutating func appendQuote(
    _ instrument: Instrument, time: Int64, exchangeTime: Int64?,
    bid: Double?, ask: Double?, bidSize: Double = .nan, askSize: Double = .nan, last: Double?
  ) {
    if let bid, let ask {
      append(
        JSONPoint(
          instrument: instrument, field: .price, time: time, exchangeTime: exchangeTime, bid: bid, ask: ask, bidSize: bidSize, askSize: askSize, book: true))
    } else if let last {
      append(JSONPoint(instrument: instrument, field: .price, time: time, exchangeTime: exchangeTime, bid: last, ask: last, book: false))
    }
  }

  /// Appends a one-value point of `field` when `value` is present.
  mutating func appendValue(_ instrument: Instrument, _ field: SeriesField, time: Int64, exchangeTime: Int64?, _ value: Double?) {
    guard let value else { return }
    append(JSONPoint(instrument: instrument, field: field, time: time, exchangeTime: exchangeTime, bid: value, ask: value, book: false))
  }
}

/// How the points of a JSON source go into its series, one builder per (instrument,
/// field, kind of price), and the checks a line's points pass before they are appended.
/// The builders are the reader's (`FileReader.builders`); this keeps which is which.
struct JSONSeriesSink {
  let clock: Clock
  let sort: Bool
  let keepsOtherTime: Bool
  /// Whether each builder's series is of whole books (`JSONPoint.wholeBook`).
  private var wholeBooks: [Bool] = []
  private var index: [SeriesKey: Int] = [:]

  /// A series' identity: what it is of, what its values are, and for prices whether
  /// they are book quotes or last prices (a recording of both trades and book quotes
  /// for one instrument gives two price series). When the books' depth is kept, the
  /// tops of whole books are a series apart from a ticker's tops (which have no depth);
  /// otherwise both are one book series, in the order of the lines.
  private struct SeriesKey: Hashable {
    var instrument: Instrument
    var field: SeriesField
    var book: Bool
    var wholeBook: Bool

    init(_ point: JSONPoint) {
      instrument = point.instrument
      field = point.field
      book = point.field == .price && point.book
      wholeBook = book && point.wholeBook && point.depth != nil
    }
  }

  init(clock: Clock, sort: Bool, keepsOtherTime: Bool) {
    self.clock = clock
    self.sort = sort
    self.keepsOtherTime = keepsOtherTime
  }

  /// Checks every point (its clock's time present, not before the series' last time
  /// unless sorting, a book not crossed), then appends them all to `builders`, a new
  /// series' builder at the end. On a fault nothing is appended; the fault points at
  /// `offset`.
  mutating func append(_ points: [JSONPoint], at offset: Int, to builders: inout [SeriesBuilder]) throws(JSONFault) {
    var seen: [SeriesKey: Int64] = [:]
    for point in points {
      guard let time = clock == .local || !keepsOtherTime ? point.time : point.exchangeTime else {
        throw JSONFault(reason: .invalidTimestamp(column: "exchange time", text: "(none in this message)"), offset: offset)
      }
      if point.book && point.bid > point.ask { throw JSONFault(reason: .crossedBook(bid: point.bid, ask: point.ask), offset: offset) }
      let key = SeriesKey(point)
      var previous = index[key].map { builders[$0].lastTime } ?? .min
      if let earlier = seen[key] { previous = max(previous, earlier) }
      if !sort && previous != .min && time < previous {
        throw JSONFault(reason: .timestampNotIncreasing(previous: previous, found: time), offset: offset)
      }
      if points.count > 1 { seen[key] = time }
    }
    for point in points {
      let local = clock == .local || !keepsOtherTime
      let time = local ? point.time : point.exchangeTime!
      let other = local ? point.exchangeTime : point.time
      let key = SeriesKey(point)
      let k: Int
      if let found = index[key] {
        k = found
      } else {
        // Few rows reserved: a line may name thousands of instruments.
        var builder = SeriesBuilder(instrument: point.instrument, field: point.field, clock: clock, keepsOtherTime: keepsOtherTime, expectedRows: 16)
        // A series' points all carry their book or none does (one handler, one option).
        if point.depth != nil { builder.series.depth = BookDepth() }
        builders.append(builder)
        wholeBooks.append(key.wholeBook)
        k = builders.count - 1
        index[key] = k
      }
      builders[k].append(time: time, otherTime: other ?? 0, bid: point.bid, ask: point.ask, bidSize: point.bidSize, askSize: point.askSize, isBook: point.book)
      // A series only counted keeps no book.
      if let book = point.depth, builders[k].tally == nil { builders[k].series.depth!.append(contentsOf: book) }
    }
  }

  /// The indices of `builders` in the order their series are listed: price series first
  /// (a leg naming an instrument takes its first series), an instrument's whole-book
  /// series before its ticker's book series before its last series, otherwise in order
  /// of first appearance.
  func order(_ builders: [SeriesBuilder]) -> [Int] {
    struct Named: Hashable {
      var instrument: Instrument
      var field: SeriesField
    }
    var first: [Named: Int] = [:]
    for k in builders.indices {
      let named = Named(instrument: builders[k].series.instrument, field: builders[k].series.field)
      if first[named] == nil { first[named] = k }
    }
    let keys = builders.indices.map { k in
      let s = builders[k].series
      return (s.field == .price ? 0 : 1, first[Named(instrument: s.instrument, field: s.field)]!, kind(k, in: builders), k)
    }
    return builders.indices.sorted { keys[$0] < keys[$1] }
  }

  /// The rank of the builder `k`'s series among the series of its instrument and field:
  /// 0 for whole books, 1 for a ticker's books, 2 for last prices (and other fields).
  func kind(_ k: Int, in builders: [SeriesBuilder]) -> Int {
    wholeBooks[k] ? 0 : builders[k].hasBook ? 1 : 2
  }
}

extension RecordFormat {
  /// A JSON format of one message per line, read by `FileReader` (`JSONLineRows`).
  var isJSONLines: Bool { self == .restSnapshots || self == .cryptofeed || self == .orderBookLines }
}

/// The state of a JSON-lines source (`rest.snapshots`, `cryptofeed.jsonl`,
/// `orderbook.jsonl`) read by `FileReader`: each line is scanned and handed to the
/// format's handler, and its points go to the reader's builders all or none.
struct JSONLineRows {
  private var handler: any JSONLineHandler
  private var scanner = JSONScanner()
  private var points: [JSONPoint] = []
  private(set) var sink: JSONSeriesSink
  /// A line whose JSON ends before its value does (`{"recv_ts_us": 17`): rejected once
  /// another line follows it; when it is the file's last line (a recorder killed in the
  /// middle of a write) it is dropped and counted as the skipped kind `torn last line`.
  var cutShort: (line: [UInt8], number: Int, reason: IngestError.Reason, column: Int)?

  /// What one line came to.
  enum Outcome {
    case accepted(JSONLineOutcome)
    /// Rejected for `reason`, at the 1-based `column`.
    case rejected(IngestError.Reason, column: Int)
    /// The JSON ends before its value does (see `cutShort`).
    case cutShort(IngestError.Reason, column: Int)
  }

  /// The state for `format` read with `options`; `nil` for a format not of JSON lines.
  init?(format: RecordFormat?, options: IngestOptions) {
    switch format {
    case .restSnapshots: handler = RESTSnapshotHandler(keepsDepth: options.keepDepth)
    case .cryptofeed: handler = CryptofeedHandler()
    case .orderBookLines: handler = OrderBookLineHandler(keepsDepth: options.keepDepth)
    default: return nil
    }
    sink = JSONSeriesSink(clock: options.clock, sort: options.sort, keepsOtherTime: handler.hasExchangeTime)
  }

  /// Whether the points of whole books carry their depth.
  var keepsDepth: Bool { handler.keepsDepth }

  /// Reads one line that is not blank, its points appended to `builders` when accepted.
  mutating func read(_ line: UnsafeBufferPointer<UInt8>, to builders: inout [SeriesBuilder]) -> Outcome {
    do {
      try scanner.scan(line)
    } catch {
      let (_, column) = error.lineAndColumn(in: line)
      let reason = IngestError.Reason.malformedJSON(expected: error.expected, found: error.found)
      return error.offset >= line.count ? .cutShort(reason, column: column) : .rejected(reason, column: column)
    }
    points.removeAll(keepingCapacity: true)
    do throws(JSONFault) {
      let outcome = try handler.read(JSONDocument(bytes: line, nodes: scanner.nodes), into: &points)
      try sink.append(points, at: 0, to: &builders)
      handler.commit()
      return .accepted(outcome)
    } catch {
      return .rejected(error.reason, column: error.offset + 1)
    }
  }
}

extension IngestReport {
  /// Counts one accepted message of a kind not read as a series.
  mutating func addSkipped(kind: String) {
    if let k = skippedByKind.firstIndex(where: { $0.kind == kind }) {
      skippedByKind[k].count += 1
    } else {
      skippedByKind.append((kind, 1))
    }
  }

  /// Counts one venue error response, keeping its text while fewer than `keep` are kept.
  mutating func countErrorRecord(_ error: IngestError, keep: Int) {
    errorRecords += 1
    if errorRecordSamples.count < keep { errorRecordSamples.append(error) }
  }
}

extension FileReader {
  /// Reads one line of a JSON-lines source (`json`): a blank line is skipped, uncounted.
  mutating func consumeJSON(_ line: UnsafeBufferPointer<UInt8>, number: Int) throws(IngestError) {
    guard line.contains(where: { $0 != 32 && $0 != 9 }) else { return }
    if let earlier = json!.cutShort {
      json!.cutShort = nil
      try reject(earlier.reason, line: earlier.line, number: earlier.number, column: earlier.column)
    }
    report.rowsRead += 1
    switch json!.read(line, to: &builders) {
    case .accepted(let outcome):
      report.rowsAccepted += 1
      switch outcome {
      case .points: break
      case .skipped(let kind): report.addSkipped(kind: kind)
      case .errorRecord(let detail):
        report.countErrorRecord(IngestError(.errorRecord(detail: detail), at: SourcePosition(path: path, line: number, column: 1)), keep: options.keptErrors)
      }
    case .rejected(let reason, let column): try reject(reason, line: line, number: number, column: column)
    case .cutShort(let reason, let column): json!.cutShort = (Array(line), number, reason, column)
    }
  }
}
