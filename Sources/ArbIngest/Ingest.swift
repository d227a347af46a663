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
  /// The quarantine files of the run the options are for: inputs whose rejected lines go
  /// to one file then add to it rather than replace it. `nil`: each file replaces it.
  public var quarantineFiles: QuarantineFiles? = nil
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
  /// Read a large plain file as two halves on two threads. Faster when the other core
  /// is idle; the second half's columns exist twice for a moment while they are
  /// joined, so callers that already read several files at once turn it off.
  public var splitLargeFiles = true
  /// The longest line read, in bytes (a longer one is `lineTooLong`): far above any
  /// real row (a header of thousands of columns fits), low enough that a file without
  /// newlines cannot exhaust memory.
  public var maxLineBytes = 16 << 20
  /// How far a compressed file may inflate (`DecompressionLimit`).
  public var decompression = DecompressionLimit()
  /// The largest gzip file, in inflated bytes, that is inflated in memory with ISA-L
  /// and parsed while it inflates; a larger one (or one ISA-L refuses) streams through
  /// zlib. Never above `decompression`'s limit, so a bomb stops with the same error;
  /// 0 streams every gzip file.
  public var gzipInMemoryLimit = 1 << 31
  /// Keep the book behind each quote (`QuoteSeries.depth`) where the source has one:
  /// every level of a Tardis `book_snapshot_N` row, the best `depthLevels` of a book
  /// rebuilt from `incremental_book_L2`, every level of an order-book line or of a
  /// venue's book response in `rest.snapshots`.
  public var keepDepth = false
  /// Read a trade file's sizes (`RecordFormat.tradeSizeField`) into both sizes of its
  /// series, beside the price in both sides, every trade kept, those at one time too (a
  /// maker leg's trades).
  public var readsTradeSizes = false
  /// Levels per side kept from a rebuilt L2 book.
  public var depthLevels = 25
  /// The columns read from a store (`arbkit convert`).
  public var storeColumns = StoreColumns.all
  /// Only the quotes in this window are kept (`--from`/`--to`): from a store only the
  /// partitions that overlap it are read; from a file the rows outside it are read,
  /// accepted and then dropped, counted in `IngestReport.rowsOutsideWindow`.
  public var window: TimeWindow? = nil
  /// Read a Parquet file's values as the CSV text of the same table even where they can
  /// be read typed (`ParquetTypedPlan`): the reference the typed path is checked against.
  var parquetAsText = false

  public init() {}
}

extension IngestOptions {
  /// The most bytes a gzip file of `compressed` bytes may inflate to in memory.
  func gzipInMemoryBytes(compressed: Int) -> Int {
    min(gzipInMemoryLimit, decompression.bytes(compressed: compressed))
  }
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
  /// `tardis.incremental_book_L2` only: accepted rows of an instrument before its first
  /// snapshot row, which are not applied to the book (see `TardisL2.swift`).
  public var rowsBeforeSnapshot = 0
  /// `tardis.incremental_book_L2` only: instants whose book was crossed after all
  /// their rows, at which no quote is written.
  public var crossedStates = 0
  /// JSON sources: accepted lines that are a venue's error response (Bybit `retCode` ≠
  /// 0, OKX `code` ≠ "0"): counted here, never read as prices.
  public var errorRecords = 0
  /// The first error records, with position and the venue's code and message.
  public var errorRecordSamples: [IngestError] = []
  /// JSON sources: accepted lines holding no series read here (order book deltas,
  /// trades, connection events), by kind, in order of first appearance.
  public var skippedByKind: [(kind: String, count: Int)] = []
  /// Rejections by reason kind, in order of first appearance.
  public var rejectedByKind: [(kind: String, count: Int)] = []
  /// The first rejected rows, with position and reason.
  public var errors: [IngestError] = []
  public var quarantinePath: String? = nil
  /// Points per series (instrument and field), in order of first appearance. A row
  /// feeds one series, or several in a file with several quantities per row.
  public var instruments: [(instrument: Instrument, field: SeriesField, rows: Int)] = []
  public var firstTime: Int64? = nil
  public var lastTime: Int64? = nil
  /// Accepted points (after collapsing) whose time is outside `IngestOptions.window`,
  /// and so in no series: points kept = accepted − collapsed − outside the window (for
  /// a file with one series per row).
  public var rowsOutsideWindow = 0
  /// Notes that did not stop the read (a store whose source file is gone).
  public var warnings: [String] = []
}

extension IngestReport {
  /// Counts one rejected row: by its reason's kind, and keeps its error while fewer
  /// than `keep` are kept.
  mutating func countRejection(_ error: IngestError, keep: Int) {
    rowsRejected += 1
    addRejections(kind: error.reason.kind, count: 1)
    if errors.count < keep { errors.append(error) }
  }

  /// Adds `count` rejections of `kind` to the per-kind tally (first appearance first).
  mutating func addRejections(kind: String, count: Int) {
    if let k = rejectedByKind.firstIndex(where: { $0.kind == kind }) {
      rejectedByKind[k].count += count
    } else {
      rejectedByKind.append((kind, count))
    }
  }
}

/// One file read into columns: a series per instrument it holds, and the report.
public struct IngestedFile: Sendable {
  public var report: IngestReport
  public var series: [QuoteSeries]
}

/// Reads recorded files into `QuoteSeries`.
public enum Ingest {
  /// Reads the file at `path`, plain or compressed. A gzip file up to
  /// `IngestOptions.gzipInMemoryLimit` is inflated in memory by ISA-L (`InflatedGzip`)
  /// and parsed while it inflates; other compressed files are streamed in chunks. A
  /// large plain or inflated file is read as two parts on two threads (same result,
  /// same row accounting). A JSON source (named, or detected by `JSONSources`) goes
  /// to its JSON reader; a store folder (`arbkit convert`) is opened by `Store`,
  /// reading only the partitions in `options.window`. From a file, the quotes outside
  /// the window are dropped after the read. A pipe or FIFO (`<(…)`, `/dev/stdin`) is read once, as a stream
  /// (`readStream`); a device is refused.
  ///
  /// - Throws: `FileError` when the file cannot be opened or is neither a regular file
  ///   nor a stream; `IngestError` for a bad header, a bad row under
  ///   `BadRowPolicy.fail`, or a broken compressed stream.
  /// - Complexity: O(bytes); memory is the kept columns plus a 1 MiB buffer, and the
  ///   inflated file for a gzip file inflated in memory.
  public static func read(path: String, options: IngestOptions = IngestOptions()) throws -> IngestedFile {
    if Store.isStore(path: path) {
      return try Store.open(path: path).read(clock: options.clock, window: options.window ?? TimeWindow(), columns: options.storeColumns)
    }
    let file = try readFile(path: path, options: options)
    return options.window.map(file.keeping) ?? file
  }

  /// Reads a file that is not a store, every row.
  static func readFile(path: String, options: IngestOptions) throws -> IngestedFile {
    let file = try FileSource(path: path)
    if file.isStream { return try readStream(file, options: options) }
    if ParquetReader.reads(path: path, format: options.format) { return try ParquetReader.read(path: path, options: options) }
    let size = file.size
    let compression = try Compression.detect(path: path)
    return try checkingStream(path: path, compression: compression, options: options) { () throws -> IngestedFile in
      // JSON sources are not CSV lines: named, or detected from their first bytes.
      if let json = try JSONSources.format(path: path, size: size, named: options.format) {
        return try JSONSources.read(json, path: path, options: options)
      }
      switch compression {
      case .none: return try read(PlainFile(path: path, count: size), options: options)
      case .gzip:
        if let inflated = InflatedGzip(path: path, limit: options.gzipInMemoryBytes(compressed: size)),
          let file = try read(inflated, options: options)
        {
          return file
        }
      case .zip, .zstd: break
      }
      return try readSequentially(path: path, options: options, size: size)
    }
  }

  /// Runs `read` on a file of `compression`; when the file is compressed and `read`
  /// rejects a row (thrown, or counted under `BadRowPolicy.skip`), the stream is
  /// decompressed again to its end first: a damaged stream (a flipped byte inflates to
  /// garbage until the CRC at the member's end) is reported as such, at the line it
  /// breaks in, rather than as the bad rows it made.
  static func checkingStream(
    path: String, compression: Compression, options: IngestOptions, _ read: () throws -> IngestedFile
  ) throws -> IngestedFile {
    guard compression != .none else { return try read() }
    let file: IngestedFile
    do { file = try read() } catch let error as IngestError where !error.reason.isStreamFault {
      try verifyStream(path: path, options: options)
      throw error
    }
    if file.report.rowsRejected > 0 { try verifyStream(path: path, options: options) }
    return file
  }

  /// Decompresses the file at `path` to its end, counting lines; throws the stream's
  /// error, placed at the line it breaks in, if it has one.
  static func verifyStream(path: String, options: IngestOptions) throws {
    let source = try Compression.open(path: path, limit: options.decompression)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    defer { buffer.deallocate() }
    var lines = 0
    while true {
      let n: Int
      do { n = try source.read(into: buffer) } catch {
        var located = error
        located.position = SourcePosition(path: path, line: lines + 1, column: 1)
        throw located
      }
      if n == 0 { return }
      lines += buffer[0..<n].reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
    }
  }

  /// Reads a stream, which can be read only once: its first bytes are read to detect
  /// the compression, then its first `JSONSources.detectionBytes` decompressed bytes
  /// to detect the format, and both are handed out again to the reader, which goes on
  /// reading the same stream in one pass.
  static func readStream(_ stream: ByteSource, options: IngestOptions) throws -> IngestedFile {
    let path = stream.path
    let (head, source) = ReplaySource.peek(Compression.open(stream: stream, limit: options.decompression), count: JSONSources.detectionBytes)
    if let json = JSONSources.format(head: head, named: options.format) {
      return try JSONSources.read(json, source: source, path: path, options: options)
    }
    return try readLines(source, options: options, expectedRows: 1024)
  }

  /// Reads a plain file: in two halves on two threads when large (and they can be
  /// joined), in one pass otherwise.
  static func read(_ input: PlainFile, options: IngestOptions) throws -> IngestedFile {
    if options.splitLargeFiles && input.count >= parallelThreshold, var reader = try readInTwoHalves(input, options: options) {
      return try reader.finish()
    }
    return try readLines(input.source(0..<input.count), options: options, expectedRows: max(1024, input.count / 48))
  }

  /// Reads the file in one pass on the calling thread.
  static func readSequentially(path: String, options: IngestOptions, size: Int) throws -> IngestedFile {
    let source = try Compression.open(path: path, limit: options.decompression)
    return try readLines(source, options: options, expectedRows: max(1024, size / 48))
  }

  /// Reads a line-based file from `source`, line after line, starting with a buffer of
  /// `chunkSize` bytes.
  static func readLines(_ source: ByteSource, options: IngestOptions, expectedRows: Int, chunkSize: Int = 1 << 20) throws -> IngestedFile {
    let path = source.path
    var reader = FileReader(path: path, options: options, expectedRows: expectedRows)
    var lines = LineReader(source: source, chunkSize: chunkSize, maxLineBytes: options.maxLineBytes)
    defer { lines.close() }
    try lines.forEachLine { line, number throws(IngestError) in
      try reader.consume(line: line, number: number)
    }
    return try reader.finish()
  }
}

/// The per-file state of one read: layout, builders, counters.
struct FileReader {
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
  /// One group of builders per instrument: one builder, or one per entry of
  /// `layout.values`, at `group * groupSize + k`. The group's first builder keeps the
  /// times of the instrument's rows for the order check.
  var builders: [SeriesBuilder] = []
  var groupSize = 1
  /// The values of the current row, one per entry of `layout.values` (`nan` = empty).
  var rowValues: [Double] = []
  /// The levels of the current book snapshot row (`FileReader.readDepth`).
  var depthRow: [Double] = []
  /// The instrument key of each group.
  var keys: [[UInt8]] = []
  var lastGroup = -1
  var lastKey: [UInt8] = []
  var headerLine: [UInt8] = []
  var quarantine: [UInt8] = []
  var sawAnyLine = false
  /// The first line (header, or first row of a headerless file) has been seen.
  var headerDone = false
  var scratch = [UInt8](repeating: 0, count: 64)
  /// Details of the last crossed book / backwards timestamp, for the error message.
  var crossed: (bid: Double, ask: Double) = (0, 0)
  var backwards: (previous: Int64, found: Int64) = (0, 0)
  /// The order books of a `tardis.incremental_book_L2` file, one per builder.
  var books: [L2Book]? = nil
  /// The time of the last accepted row of a wide file, whose rows may add no point.
  var lastWideRowTime: Int64 = .min
  /// When set, every series is counted in this window as it is read, and no point kept
  /// (`FileQuoteStream.count`).
  var countsIn: TimeWindow? = nil
  /// The state of a JSON-lines source, when `options.format` is one.
  var json: JSONLineRows?

  init(path: String, options: IngestOptions, expectedRows: Int) {
    self.path = path
    self.options = options
    self.expectedRows = expectedRows
    format = options.format
    report = IngestReport(path: path, format: options.format?.id ?? "unknown")
    json = JSONLineRows(format: options.format, options: options)
  }

  mutating func consume(line: UnsafeBufferPointer<UInt8>, number: Int) throws(IngestError) {
    sawAnyLine = true
    if json != nil { return try consumeJSON(line, number: number) }
    if !headerDone {
      headerDone = true
      if let known = format, !known.hasHeader {
        try prepare(format: known, headerNames: nil)
      } else if format?.isBinance ?? true, let fields = BinanceFiles.dataRowFields(line) {
        // A Binance file without a header: its first line is already a row.
        guard let chosen = format ?? BinanceFiles.detect(row: fields).map({ BinanceFiles.refine($0, path: path) }) else {
          let text = String(decoding: line.prefix(160), as: UTF8.self)
          throw IngestError(.unknownFormat(firstLine: text), at: SourcePosition(path: path, line: 1, column: 1))
        }
        try prepare(format: chosen, headerNames: nil, rowFields: fields.count)
      } else {
        try readHeader(line)
        return
      }
    }
    if line.isEmpty { return }
    report.rowsRead += 1
    let rejection = books != nil ? decodeBookRow(line) : layout.venueColumns != nil ? decodeWideRow(line) : decodeRow(line)
    if let (reason, field) = rejection {
      try reject(reason, line: line, number: number, field: field)
    } else {
      report.rowsAccepted += 1
    }
  }

  /// Reads the first line: the header (or, in a file without one, the first row) that
  /// tells the format. A first line whose writer quoted its fields (`"exchange","symbol",…`)
  /// tells it by its fields unquoted and joined by commas.
  private mutating func readHeader(_ line: UnsafeBufferPointer<UInt8>) throws(IngestError) {
    headerLine = Array(line) + [10]
    var quoted = FieldSplitter(quote: UInt8(ascii: "\""))
    guard line.contains(UInt8(ascii: "\"")), let count = quoted.split(line) else { return try chooseFormat(header: line, line: line) }
    let names = Array((0..<count).map { quoted.text(line, $0) }.joined(separator: ",").utf8)
    let header = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: names.count)
    defer { header.deallocate() }
    _ = header.initialize(from: names)
    try chooseFormat(header: UnsafeBufferPointer(header), line: line)
  }

  /// Chooses the format of the file whose first `line` reads as `header` (the same bytes
  /// unless its fields were quoted), and prepares the reader for it.
  private mutating func chooseFormat(header: UnsafeBufferPointer<UInt8>, line: UnsafeBufferPointer<UInt8>) throws(IngestError) {
    let start = SourcePosition(path: path, line: 1, column: 1)
    guard let chosen = format ?? RecordFormat.detect(headerLine: header).map({ BinanceFiles.refine($0, path: path) }) else {
      let text = String(decoding: line.prefix(160), as: UTF8.self)
      throw IngestError(.unknownFormat(firstLine: text), at: start)
    }
    if case .columns(let spec) = chosen {
      var headerSplitter = FieldSplitter(delimiter: spec.delimiter?.utf8.first ?? UInt8(ascii: ","), quote: spec.quote?.utf8.first ?? UInt8(ascii: "\""))
      guard let count = headerSplitter.split(line) else { throw IngestError(.unterminatedQuote, at: start) }
      let names = (0..<count).map { headerSplitter.text(line, $0).trimmingSpaces() }
      try prepare(format: chosen, headerNames: names)
    } else {
      guard RecordFormat.accepts(chosen, headerLine: header) else {
        throw IngestError(.missingHeader(expected: RecordFormat.header(of: chosen)), at: start)
      }
      let headerFields = header.reduce(1) { $0 + ($1 == UInt8(ascii: ",") ? 1 : 0) }
      try prepare(format: chosen, headerNames: nil, rowFields: chosen.isBinance ? nil : headerFields)
    }
  }

  private mutating func prepare(format chosen: RecordFormat, headerNames: [String]?, rowFields: Int? = nil) throws(IngestError) {
    format = chosen
    report.format = chosen.id
    var built = try chosen.layout(clock: options.clock, headerNames: headerNames, path: path, rowFields: rowFields)
    if options.readsTradeSizes { built.tradeSize = chosen.tradeSizeField }
    layout = built
    keyFields = built.keyFields
    minimumFields = built.minimumFields
    splitter = FieldSplitter(delimiter: built.delimiter, quote: built.quote)
    groupSize = max(1, built.values.count)
    rowValues = [Double](repeating: .nan, count: built.values.count)
    if chosen == .tardisIncrementalL2 { books = [] }
    if options.keepDepth, case .tardisBookSnapshot(let levels) = chosen { layout.depthLevels = levels }
    if let columns = built.venueColumns { prepareWide(columns) }
  }

  mutating func reject(_ reason: IngestError.Reason, line: UnsafeBufferPointer<UInt8>, number: Int, field: Int?) throws(IngestError) {
    var column = 1
    if let field { column = splitter.starts[field] + 1 }
    if case .wrongFieldCount = reason { column = line.count + 1 }
    try reject(reason, line: line, number: number, column: column)
  }

  /// Rejects the row `line`, numbered `number`, for `reason` at the 1-based `column`:
  /// thrown under `BadRowPolicy.fail`, else counted and quarantined.
  mutating func reject(_ reason: IngestError.Reason, line: some Collection<UInt8>, number: Int, column: Int) throws(IngestError) {
    let error = IngestError(reason, at: SourcePosition(path: path, line: number, column: column))
    if options.badRows == .fail { throw error }
    report.countRejection(error, keep: options.keptErrors)
    quarantine.append(contentsOf: line)
    quarantine.append(10)
  }

  /// The builder group of the row's instrument, creating it on first sight; `nil` when
  /// a market field names no market kind. Rows naming the same instrument as the
  /// previous row (the common case) cost one byte compare.
  @inline(__always)
  mutating func groupIndex(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
    if lastGroup >= 0 && (keyFields.isEmpty || keyMatches(line, lastKey)) { return lastGroup }
    var key: [UInt8] = []
    for k in keyFields {
      key.append(contentsOf: line[splitter.starts[k]..<splitter.ends[k]])
      key.append(0x1F)
    }
    let fields = splitter
    return groupIndex(key: key) { fields.text(line, $0) }
  }

  /// The builder group of the instrument whose naming fields make `key` (each field's
  /// bytes, as its CSV line holds them, then 0x1F), creating it from the fields' texts
  /// (`name(k)`) on first sight; `nil` when a market field names no market kind.
  mutating func groupIndex(key: [UInt8], name: (Int) -> String) -> Int? {
    if let found = keys.firstIndex(of: key) {
      lastGroup = found
      lastKey = key
      return found
    }
    var names: [Int: String] = [:]
    for k in keyFields { names[k] = name(k) }
    guard let value = instrument(names: names) else { return nil }
    newBuilder(value, key: key)
    lastGroup = keys.count - 1
    lastKey = key
    return lastGroup
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

  mutating func newBuilder(_ instrument: Instrument, key: [UInt8]) {
    keys.append(key)
    let fields = layout.values.isEmpty ? [layout.field] : layout.values.map(\.field)
    for field in fields {
      var builder = SeriesBuilder(
        instrument: instrument, field: field, clock: options.clock, keepsOtherTime: layout.otherTime != nil,
        keepsFundingInterval: layout.fundingIntervalHours != nil, expectedRows: builders.isEmpty ? expectedRows : 1024)
      if keepsBookDepth { builder.series.depth = BookDepth() }
      if let countsIn { builder.stopKeeping(window: countsIn) }
      builders.append(builder)
    }
  }

  /// The instrument of a row from its naming fields, the leg's prefix and the format's
  /// fixed names, in that order of precedence.
  private func instrument(names: [Int: String]) -> Instrument? {
    var venue = layout.venue.flatMap { names[$0] } ?? options.instrument?.venue ?? layout.fixedVenue
    var market = options.instrument?.market ?? layout.fixedMarket
    if layout.marketFromBybitSymbol, options.instrument == nil, let s = layout.symbol, let text = names[s] {
      market = BybitFiles.market(symbol: text)
    }
    if let m = layout.market, let text = names[m] {
      guard let kind = MarketKind(rawValue: text) else { return nil }
      market = kind
    }
    if layout.tardisVenue, let id = venue, let resolved = options.registry.tardisMarket(id) {
      venue = resolved.venue
      market = resolved.market
    }
    let symbol = layout.symbol.flatMap { names[$0] } ?? options.instrument?.symbol ?? layout.fixedSymbol
    return Instrument(venue: venue ?? "unknown", market: market ?? .spot, symbol: symbol ?? "unknown")
  }

  mutating func finish() throws -> IngestedFile {
    try checkNotEmpty()
    endOfRows()
    let order: RowOrder = options.sort ? .unsorted : (layout.descending ? .descending : .ascending)
    // A quantity that no row of the instrument had is no series.
    let series = builders.finish(
      in: seriesOrder, rows: order, keepsEqualTimes: json == nil && options.readsTradeSizes, dropsEmpty: !layout.values.isEmpty, into: &report)
    try writeQuarantine()
    return IngestedFile(report: report, series: series)
  }

  /// Ends the rows: a rebuilt book's last instants close; a JSON line cut short at the
  /// end of the file is dropped, counted as the skipped kind `torn last line`.
  mutating func endOfRows() {
    if books != nil { finishBooks() }
    if json?.cutShort != nil {
      json!.cutShort = nil
      report.rowsAccepted += 1
      report.addSkipped(kind: "torn last line")
    }
  }

  /// The indices of `builders` in the order the file's series are listed: the order
  /// they appeared in, but for a JSON source's (`JSONSeriesSink.order`).
  var seriesOrder: [Int] { json.map { $0.sink.order(builders) } ?? Array(builders.indices) }

  /// Whether each series has book quotes, in `seriesOrder`.
  var priceSources: [PriceSource] { seriesOrder.map { builders[$0].hasBook ? .book : .last } }

  /// - Throws: `IngestError.emptyFile` when the file had no line.
  func checkNotEmpty() throws(IngestError) {
    if !sawAnyLine { throw IngestError(.emptyFile, at: SourcePosition(path: path, line: 1, column: 1)) }
  }

  /// Writes the rejected rows (under `BadRowPolicy.skip`), after the header line, to the
  /// quarantine file, and names it in the report.
  mutating func writeQuarantine() throws {
    guard report.rowsRejected > 0 else { return }
    report.quarantinePath = try options.writeQuarantine(
      of: path, suffix: json == nil ? ".rejected.csv" : ".rejected.jsonl", header: headerLine, lines: quarantine)
  }

  /// Whether the file, its header read, holds one series per row in time order, which
  /// `FileQuoteStream` can hand out as it reads: not a wide file, a file of several
  /// quantities per row, a descending file or `sort`. A rebuilt L2 book streams: its
  /// points are the instants its rows close, in time order per instrument.
  /// A JSON-lines source streams unless sorted: each line's points are in time order
  /// per series.
  var streamsInOrder: Bool {
    if json != nil { return !options.sort }
    return headerDone && layout.venueColumns == nil && layout.values.isEmpty && !layout.descending && !options.sort
  }

  /// Whether each point keeps the book behind it (`QuoteSeries.depth`): a book snapshot's
  /// levels, or a rebuilt L2 book's best levels, read with `IngestOptions.keepDepth`; in
  /// a JSON source, the points of whole books (a series of a ticker's tops has none).
  var keepsBookDepth: Bool { layout.depthLevels > 0 || (books != nil && options.keepDepth) || json?.keepsDepth == true }
}

extension IngestError.Reason {
  /// The compressed stream itself is broken, or cannot be read: no row is to blame.
  var isStreamFault: Bool {
    switch self {
    case .truncatedCompressedStream, .corruptCompressedStream, .decompressionLimit, .readFailed, .severalZipEntries: true
    default: false
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
