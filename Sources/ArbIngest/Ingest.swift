#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore

/// What to do with a row that fails validation.
public enum BadRowPolicy: String, Sendable, CaseIterable {
  /// Stop at the first bad row with its position (the default).
  case fail
  /// Keep going; count rejections by reason and write the raw lines to a quarantine file.
  case skip
}

/// How to read one file.
public struct IngestOptions: Sendable {
  public var badRows: BadRowPolicy = .fail
  /// Where `skip` writes rejected raw lines (after the file's header line). Default:
  /// `<file name>.rejected.csv` in the current folder.
  public var quarantinePath: String? = nil
  /// The clock that orders rows and drives alignment (receive time by default).
  public var clock: Clock = .local
  /// Sort rows by time (stable) instead of rejecting rows that go backwards.
  public var sort = false
  /// The format; `nil` detects it from the header.
  public var format: RecordFormat? = nil
  /// Names the instrument of a file that does not name its own (a leg's prefix).
  public var instrument: Instrument? = nil
  public var registry: ExchangeRegistry = .builtin
  /// How many rejected rows are kept with their full error for the report.
  public var keptErrors = 20

  public init() {}
}

/// The row accounting of one file: `rowsRead = rowsAccepted + rowsRejected`.
public struct IngestReport: Sendable {
  public var path: String
  public var format: String
  public var rowsRead = 0
  public var rowsAccepted = 0
  public var rowsRejected = 0
  /// Accepted rows that share a timestamp with a later row and collapse into it.
  public var rowsCollapsed = 0
  /// Rejections by reason kind, in order of first appearance.
  public var rejectedByKind: [(kind: String, count: Int)] = []
  /// The first rejected rows, with position and reason.
  public var errors: [IngestError] = []
  public var quarantinePath: String? = nil
  /// Accepted rows per instrument, in order of first appearance.
  public var instruments: [(instrument: Instrument, rows: Int)] = []
  public var firstTime: Int64? = nil
  public var lastTime: Int64? = nil
}

/// One file read into columns: a series per instrument it holds, and the report.
public struct IngestedFile: Sendable {
  public var report: IngestReport
  public var series: [QuoteSeries]
}

/// Reads recorded files into `QuoteSeries`.
public enum Ingest {
  /// Reads the file at `path`, plain or gzip, streamed in chunks.
  ///
  /// - Throws: `FileError` when the file cannot be opened; `IngestError` for a bad
  ///   header, a bad row under `BadRowPolicy.fail`, or a broken compressed stream.
  /// - Complexity: O(bytes); memory is the kept columns plus a 1 MiB buffer.
  public static func read(path: String, options: IngestOptions = IngestOptions()) throws -> IngestedFile {
    let source = try Compression.open(path: path)
    let sizeHint = (try? FileSource(path: path).size) ?? 0
    var reader = FileReader(path: path, options: options, expectedRows: max(1024, sizeHint / 48))
    var lines = LineReader(source: source)
    defer { lines.close() }
    try lines.forEachLine { line, number throws(IngestError) in
      try reader.consume(line: line, number: number)
    }
    return try reader.finish()
  }
}

/// The per-file state of one read: layout, builders, counters.
private struct FileReader {
  let path: String
  let options: IngestOptions
  let expectedRows: Int
  var format: RecordFormat?
  /// Set from the header (or first line); a placeholder until then.
  var layout = RecordLayout(names: [], fieldCount: nil, time: 0, timeForm: .epochMicros)
  var keyFields: [Int] = []
  var minimumFields = 1
  var splitter = FieldSplitter()
  var report: IngestReport
  var builders: [SeriesBuilder] = []
  var keys: [[UInt8]] = []
  var lastBuilder = -1
  var lastKey: [UInt8] = []
  var headerLine: [UInt8] = []
  var quarantine: [UInt8] = []
  var sawAnyLine = false
  var scratch = [UInt8](repeating: 0, count: 64)

  init(path: String, options: IngestOptions, expectedRows: Int) {
    self.path = path
    self.options = options
    self.expectedRows = expectedRows
    format = options.format
    report = IngestReport(path: path, format: options.format?.id ?? "unknown")
  }

  mutating func consume(line: UnsafeBufferPointer<UInt8>, number: Int) throws(IngestError) {
    sawAnyLine = true
    if number == 1 {
      if let known = format, !known.hasHeader {
        try prepare(format: known, headerNames: nil)
      } else {
        try readHeader(line)
        return
      }
    }
    if line.isEmpty { return }
    report.rowsRead += 1
    if let (reason, field) = decodeRow(line) {
      try reject(reason, line: line, number: number, field: field)
    } else {
      report.rowsAccepted += 1
    }
  }

  private mutating func readHeader(_ line: UnsafeBufferPointer<UInt8>) throws(IngestError) {
    headerLine = Array(line) + [10]
    let start = SourcePosition(path: path, line: 1, column: 1)
    guard let chosen = format ?? RecordFormat.detect(headerLine: line) else {
      let text = String(decoding: line.prefix(160), as: UTF8.self)
      throw IngestError(.unknownFormat(firstLine: text), at: start)
    }
    if case .columns(let spec) = chosen {
      var headerSplitter = FieldSplitter(delimiter: spec.delimiter?.utf8.first ?? UInt8(ascii: ","), quote: spec.quote?.utf8.first ?? UInt8(ascii: "\""))
      guard let count = headerSplitter.split(line) else { throw IngestError(.unterminatedQuote, at: start) }
      let names = (0..<count).map { k in
        String(decoding: UnsafeBufferPointer(rebasing: line[headerSplitter.starts[k]..<headerSplitter.ends[k]]), as: UTF8.self)
          .trimmingSpaces()
      }
      try prepare(format: chosen, headerNames: names)
    } else {
      let expected = RecordFormat.named.first { $0.format == chosen }!.header
      guard expected.utf8.elementsEqual(line) else { throw IngestError(.missingHeader(expected: expected), at: start) }
      try prepare(format: chosen, headerNames: nil)
    }
  }

  private mutating func prepare(format chosen: RecordFormat, headerNames: [String]?) throws(IngestError) {
    format = chosen
    report.format = chosen.id
    let built = try chosen.layout(clock: options.clock, headerNames: headerNames, path: path)
    layout = built
    keyFields = built.keyFields
    minimumFields = built.minimumFields
    splitter = FieldSplitter(delimiter: built.delimiter, quote: built.quote)
  }

  private mutating func reject(_ reason: IngestError.Reason, line: UnsafeBufferPointer<UInt8>, number: Int, field: Int?) throws(IngestError) {
    var column = 1
    if let field { column = splitter.starts[field] + 1 }
    if case .wrongFieldCount = reason { column = line.count + 1 }
    let error = IngestError(reason, at: SourcePosition(path: path, line: number, column: column))
    if options.badRows == .fail { throw error }
    report.rowsRejected += 1
    if let k = report.rejectedByKind.firstIndex(where: { $0.kind == reason.kind }) {
      report.rejectedByKind[k].count += 1
    } else {
      report.rejectedByKind.append((reason.kind, 1))
    }
    if report.errors.count < options.keptErrors { report.errors.append(error) }
    quarantine.append(contentsOf: line)
    quarantine.append(10)
  }

  /// Validates and appends one row; returns the reason and field index when rejected.
  @inline(__always)
  private mutating func decodeRow(_ line: UnsafeBufferPointer<UInt8>) -> (IngestError.Reason, Int?)? {
    guard let count = splitter.split(line) else { return (.unterminatedQuote, nil) }
    if let expected = layout.fieldCount, count != expected { return (.wrongFieldCount(expected: expected, found: count), nil) }
    if count < minimumFields { return (.wrongFieldCount(expected: minimumFields, found: count), nil) }
    let base = line.baseAddress!

    // Time first: every row needs it.
    let t0 = splitter.starts[layout.time], t1 = splitter.ends[layout.time]
    guard var time = TimeParser.parse(base + t0, t1 - t0, form: layout.timeForm, defaultOffset: layout.timeOffset) else {
      return (.invalidTimestamp(column: layout.name(layout.time), text: text(line, layout.time)), layout.time)
    }
    time += layout.timeShift
    var other: Int64? = nil
    if let o = layout.otherTime {
      let o0 = splitter.starts[o], o1 = splitter.ends[o]
      guard let value = DecimalParser.parseInt64(base + o0, o1 - o0) else {
        return (.invalidTimestamp(column: layout.name(o), text: text(line, o)), o)
      }
      other = value
    }

    // Prices: a book (bid/ask, sides may be empty for Tardis), or one price.
    var bid = Double.nan, ask = Double.nan, bidSize = Double.nan, askSize = Double.nan
    var isBook = false
    if let b = layout.bid, let a = layout.ask {
      switch readPrice(line, b, optional: true) {
      case .failure(let failure): return failure
      case .success(let value): bid = value ?? .nan
      }
      switch readPrice(line, a, optional: true) {
      case .failure(let failure): return failure
      case .success(let value): ask = value ?? .nan
      }
      isBook = !bid.isNaN || !ask.isNaN
      if !layout.emptySidesAllowed || layout.priceIsFallback {
        if bid.isNaN != ask.isNaN { return (.missingPrice(column: layout.name(bid.isNaN ? b : a)), bid.isNaN ? b : a) }
      }
      if !isBook && !layout.priceIsFallback && !layout.emptySidesAllowed { return (.missingPrice(column: layout.name(b)), b) }
      if isBook && bid > ask { return (.crossedBook(bid: bid, ask: ask), b) }
      if let k = layout.bidSize {
        switch readSize(line, k) {
        case .failure(let failure): return failure
        case .success(let value): bidSize = value
        }
      }
      if let k = layout.askSize {
        switch readSize(line, k) {
        case .failure(let failure): return failure
        case .success(let value): askSize = value
        }
      }
    }
    if !isBook, let p = layout.price {
      switch readPrice(line, p, optional: layout.bid != nil && layout.emptySidesAllowed) {
      case .failure(let failure): return failure
      case .success(let value):
        guard let value else { return (.missingPrice(column: layout.name(p)), p) }
        bid = value
        ask = value
      }
    }
    if !isBook && layout.price == nil && !layout.emptySidesAllowed {
      return (.missingPrice(column: layout.name(layout.bid ?? 0)), layout.bid)
    }

    // Which instrument, then the order check against its last accepted row.
    let index: Int
    switch builderIndex(line) {
    case .failure(let failure): return failure
    case .success(let value): index = value
    }
    let previous = builders[index].lastTime
    if previous != .min && !options.sort {
      if layout.descending ? time > previous : time < previous {
        return (.timestampNotIncreasing(previous: previous, found: time), layout.time)
      }
    }
    if isBook { builders[index].hasBook = true } else { builders[index].hasLast = true }
    builders[index].append(time: time, otherTime: other, bid: bid, ask: ask, bidSize: bidSize, askSize: askSize)
    return nil
  }

  private typealias Failure = (IngestError.Reason, Int?)

  private enum Read<Value> {
    case success(Value)
    case failure(Failure)
  }

  /// A price field: a finite positive number, or `nil` when empty and `optional`.
  @inline(__always)
  private mutating func readPrice(_ line: UnsafeBufferPointer<UInt8>, _ k: Int, optional: Bool) -> Read<Double?> {
    let start = splitter.starts[k], end = splitter.ends[k]
    if start == end {
      return optional ? .success(nil) : .failure((.missingPrice(column: layout.name(k)), k))
    }
    guard let value = number(line, start, end) else {
      return .failure((.invalidNumber(column: layout.name(k), text: text(line, k)), k))
    }
    guard value.isFinite else { return .failure((.nonFinite(column: layout.name(k), text: text(line, k)), k)) }
    guard value > 0 else { return .failure((.nonPositivePrice(column: layout.name(k), text: text(line, k)), k)) }
    return .success(value)
  }

  /// A size field: finite and not negative; empty is unknown (`nan`, never output).
  @inline(__always)
  private mutating func readSize(_ line: UnsafeBufferPointer<UInt8>, _ k: Int) -> Read<Double> {
    let start = splitter.starts[k], end = splitter.ends[k]
    if start == end { return .success(.nan) }
    guard let value = number(line, start, end) else {
      return .failure((.invalidNumber(column: layout.name(k), text: text(line, k)), k))
    }
    guard value.isFinite else { return .failure((.nonFinite(column: layout.name(k), text: text(line, k)), k)) }
    guard value >= 0 else { return .failure((.negativeSize(column: layout.name(k), text: text(line, k)), k)) }
    return .success(value)
  }

  /// Parses bytes `[start, end)` of `line`, dropping the thousands separator if any.
  @inline(__always)
  private mutating func number(_ line: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
    let base = line.baseAddress!
    guard let separator = layout.thousands else { return DecimalParser.parse(base + start, end - start) }
    if scratch.count < end - start { scratch = [UInt8](repeating: 0, count: end - start) }
    return scratch.withUnsafeMutableBufferPointer { buffer in
      var n = 0
      for k in start..<end where base[k] != separator {
        buffer[n] = base[k]
        n += 1
      }
      return DecimalParser.parse(UnsafePointer(buffer.baseAddress!), n)
    }
  }

  private func text(_ line: UnsafeBufferPointer<UInt8>, _ k: Int) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: line[splitter.starts[k]..<splitter.ends[k]]), as: UTF8.self)
  }

  /// The builder of the row's instrument, creating it on first sight. Rows naming the
  /// same instrument as the previous row (the common case) cost one byte compare.
  @inline(__always)
  private mutating func builderIndex(_ line: UnsafeBufferPointer<UInt8>) -> Read<Int> {
    if keyFields.isEmpty {
      if builders.isEmpty {
        switch instrument(names: [:], layout) {
        case .failure(let failure): return .failure(failure)
        case .success(let value): newBuilder(value, key: [])
        }
      }
      return .success(0)
    }
    if lastBuilder >= 0 && keyMatches(line, lastKey) { return .success(lastBuilder) }
    var key: [UInt8] = []
    for k in keyFields {
      key.append(contentsOf: line[splitter.starts[k]..<splitter.ends[k]])
      key.append(0x1F)
    }
    if let found = keys.firstIndex(of: key) {
      lastBuilder = found
      lastKey = key
      return .success(found)
    }
    var names: [Int: String] = [:]
    for k in keyFields { names[k] = text(line, k) }
    switch instrument(names: names, layout) {
    case .failure(let failure): return .failure(failure)
    case .success(let value):
      newBuilder(value, key: key)
      lastBuilder = builders.count - 1
      lastKey = key
      return .success(lastBuilder)
    }
  }

  @inline(__always)
  private func keyMatches(_ line: UnsafeBufferPointer<UInt8>, _ key: [UInt8]) -> Bool {
    var offset = 0
    return key.withUnsafeBufferPointer { stored in
      for k in keyFields {
        let start = splitter.starts[k], length = splitter.ends[k] - start
        guard offset + length < stored.count, stored[offset + length] == 0x1F,
          memcmp(line.baseAddress! + start, stored.baseAddress! + offset, length) == 0
        else { return false }
        offset += length + 1
      }
      return offset == stored.count
    }
  }

  private mutating func newBuilder(_ instrument: Instrument, key: [UInt8]) {
    keys.append(key)
    builders.append(SeriesBuilder(instrument: instrument, clock: options.clock, keepsOtherTime: layout.otherTime != nil, expectedRows: builders.isEmpty ? expectedRows : 1024))
  }

  /// The instrument of a row from its naming fields, the leg's prefix and the format's
  /// fixed names, in that order of precedence.
  private func instrument(names: [Int: String], _ layout: RecordLayout) -> Read<Instrument> {
    var venue = layout.venue.flatMap { names[$0] } ?? options.instrument?.venue ?? layout.fixedVenue
    var market = options.instrument?.market ?? layout.fixedMarket
    if let m = layout.market, let text = names[m] {
      guard let kind = MarketKind(rawValue: text) else {
        return .failure((.invalidNumber(column: layout.name(m), text: text), m))
      }
      market = kind
    }
    if layout.tardisVenue, let id = venue, let resolved = options.registry.tardisMarket(id) {
      venue = resolved.venue
      market = resolved.market
    }
    let symbol = layout.symbol.flatMap { names[$0] } ?? options.instrument?.symbol ?? layout.fixedSymbol
    return .success(Instrument(venue: venue ?? "unknown", market: market ?? .spot, symbol: symbol ?? "unknown"))
  }

  mutating func finish() throws -> IngestedFile {
    if !sawAnyLine { throw IngestError(.emptyFile, at: SourcePosition(path: path, line: 1, column: 1)) }
    var series: [QuoteSeries] = []
    let order: RowOrder = options.sort ? .unsorted : (layout.descending ? .descending : .ascending)
    for k in builders.indices {
      let (finished, collapsed) = builders[k].finish(order: order)
      report.rowsCollapsed += collapsed
      report.instruments.append((finished.instrument, finished.count))
      if let first = finished.time.first { report.firstTime = min(report.firstTime ?? first, first) }
      if let last = finished.time.last { report.lastTime = max(report.lastTime ?? last, last) }
      series.append(finished)
    }
    builders = []
    if report.rowsRejected > 0 {
      let target = options.quarantinePath ?? (path.split(separator: "/").last.map(String.init) ?? "input") + ".rejected.csv"
      try writeFile(target, headerLine + quarantine)
      report.quarantinePath = target
    }
    return IngestedFile(report: report, series: series)
  }

  private func writeFile(_ target: String, _ bytes: [UInt8]) throws {
    let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw FileError.unreadable(path: target, reason: "cannot write quarantine file: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var written = 0
    try bytes.withUnsafeBytes { raw in
      while written < raw.count {
        let n = write(fd, raw.baseAddress! + written, raw.count - written)
        guard n > 0 else { throw FileError.unreadable(path: target, reason: "write failed") }
        written += n
      }
    }
  }
}

extension String {
  func trimmingSpaces() -> String {
    var s = Substring(self)
    while s.first == " " { s.removeFirst() }
    while s.last == " " { s.removeLast() }
    return String(s)
  }
}
