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
  /// Reads `document` (node 0 is the line's value), appending its points to `points`.
  mutating func read(_ document: JSONDocument, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome
  /// Keeps the state the last `read` prepared (a ticker's merged values), once its
  /// line is accepted; a rejected line leaves the state as it was.
  mutating func commit()
}

extension JSONLineHandler {
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

/// The series of a JSON source, one builder per (instrument, field), and the checks a
/// line's points pass before they are appended.
struct JSONSeriesSink {
  let clock: Clock
  let sort: Bool
  let keepsOtherTime: Bool
  private(set) var builders: [SeriesBuilder] = []
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
  /// unless sorting, a book not crossed), then appends them all. On a fault nothing is
  /// appended; the fault points at `offset`.
  mutating func append(_ points: [JSONPoint], at offset: Int) throws(JSONFault) {
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
        var builder = SeriesBuilder(instrument: point.instrument, field: point.field, clock: clock, keepsOtherTime: keepsOtherTime, expectedRows: 1024)
        // A series' points all carry their book or none does (one handler, one option).
        if point.depth != nil { builder.series.depth = BookDepth() }
        builders.append(builder)
        wholeBooks.append(key.wholeBook)
        k = builders.count - 1
        index[key] = k
      }
      builders[k].append(time: time, otherTime: other ?? 0, bid: point.bid, ask: point.ask, bidSize: point.bidSize, askSize: point.askSize)
      if let book = point.depth { builders[k].series.depth!.append(contentsOf: book) }
      if point.book { builders[k].hasBook = true }
    }
  }

  /// The finished series, entered into `report`: price series first (a leg naming an
  /// instrument takes its first series), an instrument's whole-book series before its
  /// ticker's book series before its last series, otherwise in order of first
  /// appearance.
  mutating func finish(into report: inout IngestReport) -> [QuoteSeries] {
    var series: [QuoteSeries] = []
    func key(_ k: Int) -> (Int, Int, Int, Int) {
      let s = builders[k].series
      let rank = builders.firstIndex { $0.series.field == s.field && $0.series.instrument == s.instrument } ?? k
      return (s.field == .price ? 0 : 1, rank, wholeBooks[k] ? 0 : builders[k].hasBook ? 1 : 2, k)
    }
    let order = builders.indices.sorted { key($0) < key($1) }
    for k in order {
      let (finished, collapsed) = builders[k].finish(order: sort ? .unsorted : .ascending)
      report.rowsCollapsed += collapsed
      report.instruments.append((finished.instrument, finished.field, finished.count))
      if let first = finished.time.first { report.firstTime = min(report.firstTime ?? first, first) }
      if let last = finished.time.last { report.lastTime = max(report.lastTime ?? last, last) }
      series.append(finished)
    }
    builders = []
    wholeBooks = []
    index = [:]
    return series
  }
}

/// Reads a JSON-lines file with a handler: row accounting, rejections with line and
/// column, quarantine of rejected lines.
struct JSONLinesReader<Handler: JSONLineHandler> {
  let path: String
  let options: IngestOptions
  var handler: Handler
  var report: IngestReport
  private var sink: JSONSeriesSink
  private var scanner = JSONScanner()
  private var points: [JSONPoint] = []
  private var quarantine: [UInt8] = []
  private var sawAnyLine = false
  /// A line whose JSON ends before its value does (`{"recv_ts_us": 17`): rejected once
  /// another line follows it; when it is the file's last line (a recorder killed in the
  /// middle of a write) it is dropped and counted as the skipped kind `torn last line`.
  private var cutShort: (line: [UInt8], number: Int, reason: IngestError.Reason, column: Int)?

  init(path: String, options: IngestOptions, format: RecordFormat, handler: Handler) {
    self.path = path
    self.options = options
    self.handler = handler
    report = IngestReport(path: path, format: format.id)
    sink = JSONSeriesSink(clock: options.clock, sort: options.sort, keepsOtherTime: handler.hasExchangeTime)
  }

  /// Reads the whole file at `path` line by line.
  static func read(path: String, options: IngestOptions, format: RecordFormat, handler: Handler) throws -> IngestedFile {
    try read(source: try Compression.open(path: path, limit: options.decompression), path: path, options: options, format: format, handler: handler)
  }

  /// Reads every line of `source` (a file, or bytes in memory named `path`).
  static func read(source: ByteSource, path: String, options: IngestOptions, format: RecordFormat, handler: Handler) throws -> IngestedFile {
    var reader = JSONLinesReader(path: path, options: options, format: format, handler: handler)
    var lines = LineReader(source: source, maxLineBytes: options.maxLineBytes)
    defer { lines.close() }
    try lines.forEachLine { line, number throws(IngestError) in try reader.consume(line: line, number: number) }
    return try reader.finish()
  }

  mutating func consume(line: UnsafeBufferPointer<UInt8>, number: Int) throws(IngestError) {
    sawAnyLine = true
    guard line.contains(where: { $0 != 32 && $0 != 9 }) else { return }
    if let earlier = cutShort {
      cutShort = nil
      try reject(earlier.reason, line: earlier.line, number: earlier.number, column: earlier.column)
    }
    report.rowsRead += 1
    do {
      try scanner.scan(line)
    } catch {
      let (_, column) = error.lineAndColumn(in: line)
      let reason = IngestError.Reason.malformedJSON(expected: error.expected, found: error.found)
      if error.offset >= line.count {
        cutShort = (Array(line), number, reason, column)
        return
      }
      return try reject(reason, line: line, number: number, column: column)
    }
    points.removeAll(keepingCapacity: true)
    do {
      let document = JSONDocument(bytes: line, nodes: scanner.nodes)
      let outcome = try handler.read(document, into: &points)
      try sink.append(points, at: 0)
      handler.commit()
      report.rowsAccepted += 1
      switch outcome {
      case .points: break
      case .skipped(let kind): report.addSkipped(kind: kind)
      case .errorRecord(let detail):
        report.countErrorRecord(IngestError(.errorRecord(detail: detail), at: SourcePosition(path: path, line: number, column: 1)), keep: options.keptErrors)
      }
    } catch {
      try reject(error.reason, line: line, number: number, column: error.offset + 1)
    }
  }

  private mutating func reject(_ reason: IngestError.Reason, line: some Sequence<UInt8>, number: Int, column: Int) throws(IngestError) {
    let error = IngestError(reason, at: SourcePosition(path: path, line: number, column: column))
    if options.badRows == .fail { throw error }
    report.countRejection(error, keep: options.keptErrors)
    quarantine.append(contentsOf: line)
    quarantine.append(10)
  }

  mutating func finish() throws -> IngestedFile {
    if !sawAnyLine { throw IngestError(.emptyFile, at: SourcePosition(path: path, line: 1, column: 1)) }
    if cutShort != nil {
      cutShort = nil
      report.rowsAccepted += 1
      report.addSkipped(kind: "torn last line")
    }
    let series = sink.finish(into: &report)
    if report.rowsRejected > 0 {
      report.quarantinePath = try options.writeQuarantine(of: path, suffix: ".rejected.jsonl", header: [], lines: quarantine)
    }
    return IngestedFile(report: report, series: series)
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
