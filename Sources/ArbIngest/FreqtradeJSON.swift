import ArbCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

// freqtrade OHLCV JSON (`user_data/data/<exchange>/…-<tf>[-futures|-mark].json`):
// one JSON array of `[open_time_ms, open, high, low, close, volume]` rows, volume may
// be `null`. Not line-based: a byte-level reader walks the array from the streamed
// (possibly compressed) source, without JSONSerialization and without a `String` per
// number. Time = element 0 (integer ms, or a decimal such as `1637193600017.0`,
// exact to the µs), price = element 4 (close), at the candle open. The file name tells
// what the candles are: `-mark.json` mark prices (close), `-funding_rate.json` funding
// rates (the rate in element 1, `open`; the other elements 0; the time snapped to the
// funding grid, `FundingGrid`), anything else prices.

/// Detection, instrument naming and reading of freqtrade OHLCV JSON files.
enum FreqtradeJSON {
  /// Names of the six elements of a row, for messages.
  static let names = ["open_time", "open", "high", "low", "close", "volume"]

  /// Whether `head`, the start of the decompressed stream, is the start of an array of
  /// arrays: `[`, optional whitespace, `[` (after optional leading whitespace).
  static func looksLikeOHLCV(head: ArraySlice<UInt8>) -> Bool {
    var seen = 0
    for byte in head {
      if byte == 32 || byte == 9 || byte == 10 || byte == 13 { continue }
      if byte != UInt8(ascii: "[") { return false }
      seen += 1
      if seen == 2 { return true }
    }
    return false
  }

  /// What a file's candles hold, from its name: `…-funding_rate.json` (also `.json.gz`)
  /// funding rates, `…-mark.json` mark prices, anything else prices.
  static func field(path: String) -> SeriesField {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    if name.contains("-funding_rate.json") { return .fundingRate }
    if name.contains("-mark.json") { return .mark }
    return .price
  }

  /// The element holding the value: `open` (1) for a funding rate, else `close` (4).
  static func valueElement(_ field: SeriesField) -> Int { field == .fundingRate ? 1 : 4 }

  /// The instrument of a freqtrade file name, which never names the exchange: venue
  /// `unknown`; `XRP_USDT_USDT-5m-futures.json` (the `BASE_QUOTE_SETTLE` futures pair
  /// form) is `linear` (`inverse` when the settle coin is the base), `XRP_USDT-5m.json`
  /// `spot`; the symbol is base + quote (`XRPUSDT`), or `unknown` when the name has no
  /// pair.
  static func instrument(path: String) -> Instrument {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let stem = name.split(separator: "-", maxSplits: 1).first.map(String.init) ?? name
    let parts = stem.split(separator: stem.contains(":") ? ":" : "_", omittingEmptySubsequences: false).flatMap {
      $0.split(separator: "_", omittingEmptySubsequences: false)
    }
    guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) } })
    else { return Instrument(venue: "unknown", market: .spot, symbol: "unknown") }
    let market: MarketKind = parts.count == 2 ? .spot : parts[2] == parts[0] ? .inverse : .linear
    return Instrument(venue: "unknown", market: market, symbol: String(parts[0] + parts[1]))
  }

  /// Reads the file into one series with the usual row accounting (`rowsRead =
  /// rowsAccepted + rowsRejected`). A row with a bad value, a wrong element count or a
  /// time going backwards is rejected as a CSV row would be (`skip` quarantines its raw
  /// JSON text, one row per line); a broken array structure always fails. Positions
  /// are `line:column` of the offending byte (a one-line file: column = offset + 1).
  ///
  /// - Throws: `FileError` when the file cannot be opened; `IngestError` for an empty
  ///   file, malformed JSON (`malformedJSON`), a bad row under `BadRowPolicy.fail`, or
  ///   a broken compressed stream.
  /// - Complexity: O(bytes); memory is the kept columns plus a 1 MiB buffer.
  static func read(source: ByteSource, path: String, options: IngestOptions) throws -> IngestedFile {
    var reader = FreqtradeReader(path: path, options: options, source: source)
    defer { reader.close() }
    try reader.readAll()
    return try reader.finish()
  }
}

/// The state of one freqtrade JSON read: the byte cursor with its line and column, the
/// builder and the counters.
struct FreqtradeReader {
  let path: String
  let options: IngestOptions
  private let source: ByteSource
  private var buffer: UnsafeMutableRawBufferPointer
  private var start = 0, end = 0, atEnd = false
  /// Absolute offset of the next byte, line number and offset where that line starts.
  private var offset = 0, line = 1, lineStart = 0
  private var builder: SeriesBuilder
  private var report: IngestReport
  private var quarantine: [UInt8] = []
  /// The current row's raw bytes, kept only under `skip`.
  private var row: [UInt8] = []
  private let recording: Bool
  /// What the candles hold, and the element that holds it.
  private let field: SeriesField
  private let valueElement: Int
  /// One token's bytes (a number is short; longer tokens are cut for messages).
  private var token: [UInt8] = []

  init(path: String, options: IngestOptions, source: ByteSource) {
    self.path = path
    self.options = options
    self.source = source
    buffer = .allocate(byteCount: 1 << 20, alignment: 64)
    recording = options.badRows == .skip
    field = FreqtradeJSON.field(path: path)
    valueElement = FreqtradeJSON.valueElement(field)
    builder = SeriesBuilder(
      instrument: options.instrument ?? FreqtradeJSON.instrument(path: path), field: field, clock: options.clock,
      keepsOtherTime: false, expectedRows: 1024)
    report = IngestReport(path: path, format: RecordFormat.freqtradeOHLCV.id)
  }

  /// Frees the buffer. Call once when done.
  mutating func close() { buffer.deallocate() }

  private var position: SourcePosition { SourcePosition(path: path, line: line, column: offset - lineStart + 1) }

  /// The next byte without consuming it; `nil` at the end of the stream.
  private mutating func peek() throws(IngestError) -> UInt8? {
    if start == end {
      if atEnd { return nil }
      let n: Int
      do {
        n = try source.read(into: buffer)
      } catch {
        var located = error
        located.position = position
        throw located
      }
      start = 0
      end = n
      if n == 0 {
        atEnd = true
        return nil
      }
    }
    return buffer[start]
  }

  private mutating func advance(_ byte: UInt8) {
    start += 1
    offset += 1
    if recording { row.append(byte) }
    if byte == 10 {
      line += 1
      lineStart = offset
    }
  }

  private mutating func skipWhitespace() throws(IngestError) {
    while let byte = try peek(), byte == 32 || byte == 9 || byte == 10 || byte == 13 { advance(byte) }
  }

  private func malformed(_ expected: String, _ found: UInt8?) -> IngestError {
    let text = found.map { String(decoding: [$0], as: UTF8.self) } ?? "end of file"
    return IngestError(.malformedJSON(expected: expected, found: text), at: position)
  }

  /// Consumes `byte` after optional whitespace, or throws `malformedJSON`.
  private mutating func expect(_ byte: UInt8, _ what: String) throws(IngestError) {
    try skipWhitespace()
    let found = try peek()
    guard found == byte else { throw malformed(what, found) }
    advance(byte)
  }

  /// Reads one value's bytes into `token`: a string with its quotes, or everything up
  /// to the next `,`, `]`, `[` or whitespace.
  private mutating func readToken() throws(IngestError) {
    token.removeAll(keepingCapacity: true)
    guard let first = try peek() else { return }
    if first == UInt8(ascii: "\"") {
      advance(first)
      token.append(first)
      while let byte = try peek() {
        advance(byte)
        if token.count < 64 { token.append(byte) }
        if byte == UInt8(ascii: "\"") { return }
      }
      return
    }
    while let byte = try peek(), byte != UInt8(ascii: ","), byte != UInt8(ascii: "]"), byte != UInt8(ascii: "["),
      byte != 32, byte != 9, byte != 10, byte != 13
    {
      advance(byte)
      if token.count < 64 { token.append(byte) }
    }
  }

  private var tokenText: String { String(decoding: token, as: UTF8.self) }

  /// Walks the whole array, row by row.
  mutating func readAll() throws(IngestError) {
    try skipWhitespace()
    guard let first = try peek() else { throw IngestError(.emptyFile, at: SourcePosition(path: path, line: 1, column: 1)) }
    guard first == UInt8(ascii: "[") else { throw malformed("'['", first) }
    advance(first)
    try skipWhitespace()
    if try peek() == UInt8(ascii: "]") {
      advance(UInt8(ascii: "]"))
    } else {
      while true {
        try readRow()
        try skipWhitespace()
        let next = try peek()
        if next == UInt8(ascii: ",") {
          advance(UInt8(ascii: ","))
          continue
        }
        guard next == UInt8(ascii: "]") else { throw malformed("',' or ']' after a row", next) }
        advance(UInt8(ascii: "]"))
        break
      }
    }
    try skipWhitespace()
    if let extra = try peek() { throw malformed("end of file after the array", extra) }
  }

  /// Reads one `[t, o, h, l, c, v]` row; validates and appends it, or rejects it.
  private mutating func readRow() throws(IngestError) {
    try skipWhitespace()
    row.removeAll(keepingCapacity: true)
    try expect(UInt8(ascii: "["), "'[' starting a row")
    report.rowsRead += 1
    var count = 0
    var time: Int64? = nil
    var value = Double.nan
    var fault: (IngestError.Reason, SourcePosition)? = nil
    var timePosition = position
    try skipWhitespace()
    if try peek() != UInt8(ascii: "]") {
      while true {
        try skipWhitespace()
        let at = position
        try readToken()
        if token.isEmpty { throw malformed("a value", try peek()) }
        if fault == nil {
          fault = check(element: count, at: at, time: &time, value: &value)
          if count == 0 { timePosition = at }
        }
        count += 1
        try skipWhitespace()
        let next = try peek()
        if next == UInt8(ascii: ",") {
          advance(UInt8(ascii: ","))
          continue
        }
        guard next == UInt8(ascii: "]") else { throw malformed("',' or ']' inside a row", next) }
        break
      }
    }
    let closing = position
    advance(UInt8(ascii: "]"))
    if fault == nil && count != FreqtradeJSON.names.count {
      fault = (.wrongFieldCount(expected: FreqtradeJSON.names.count, found: count), closing)
    }
    if fault == nil, let time {
      let previous = builder.lastTime
      if previous != .min && !options.sort && time < previous {
        fault = (.timestampNotIncreasing(previous: previous, found: time), timePosition)
      } else {
        builder.append(time: time, otherTime: nil, bid: value, ask: value, bidSize: .nan, askSize: .nan)
      }
    }
    if let (reason, at) = fault { try reject(reason, at: at) } else { report.rowsAccepted += 1 }
  }

  /// Checks element `k` held in `token`: the time (0; snapped to the funding grid for
  /// a funding rate), the value (close, or open for a funding rate: finite, and
  /// positive unless a rate), and that every other element is a number or `null`.
  /// Returns the fault, if any.
  private func check(element k: Int, at: SourcePosition, time: inout Int64?, value: inout Double) -> (IngestError.Reason, SourcePosition)? {
    let name = k < FreqtradeJSON.names.count ? FreqtradeJSON.names[k] : "#\(k + 1)"
    let isNull = "null".utf8.elementsEqual(token)
    return token.withUnsafeBufferPointer { bytes -> (IngestError.Reason, SourcePosition)? in
      let p = bytes.baseAddress!, n = bytes.count
      switch k {
      case 0:
        // Milliseconds, possibly with a fraction: exact µs.
        guard !isNull, let micros = DecimalParser.parseScaled(p, n, scale: 3) else {
          return (.invalidTimestamp(column: name, text: tokenText), at)
        }
        guard field == .fundingRate else {
          time = micros
          return nil
        }
        guard let snapped = FundingGrid.snap(micros) else {
          return (.offFundingGrid(column: name, text: tokenText, toleranceMillis: FundingGrid.toleranceMillis), at)
        }
        time = snapped
        return nil
      case valueElement:
        if isNull { return (.missingPrice(column: name), at) }
        guard let parsed = DecimalParser.parse(p, n) else { return (.invalidNumber(column: name, text: tokenText), at) }
        guard parsed.isFinite else { return (.nonFinite(column: name, text: tokenText), at) }
        guard field.isRate || parsed > 0 else { return (.nonPositivePrice(column: name, text: tokenText), at) }
        value = parsed
        return nil
      default:
        if isNull || DecimalParser.parse(p, n) != nil { return nil }
        return (.invalidNumber(column: name, text: tokenText), at)
      }
    }
  }

  private mutating func reject(_ reason: IngestError.Reason, at: SourcePosition) throws(IngestError) {
    let error = IngestError(reason, at: at)
    if options.badRows == .fail { throw error }
    report.countRejection(error, keep: options.keptErrors)
    quarantine.append(contentsOf: row.drop { $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 })
    quarantine.append(10)
  }

  /// The series (one, or none for an empty array) and the report.
  mutating func finish() throws -> IngestedFile {
    var series: [QuoteSeries] = []
    if builder.lastTime != .min {
      let (finished, collapsed) = builder.finish(order: options.sort ? .unsorted : .ascending)
      report.rowsCollapsed += collapsed
      report.instruments.append((finished.instrument, finished.field, finished.count))
      report.firstTime = finished.time.first
      report.lastTime = finished.time.last
      series.append(finished)
    }
    if report.rowsRejected > 0 {
      report.quarantinePath = try options.writeQuarantine(of: path, suffix: ".rejected.json", header: [], lines: quarantine)
    }
    return IngestedFile(report: report, series: series)
  }
}
