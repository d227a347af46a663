#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore

/// A Parquet file that cannot be read: a broken footer, page or value, with the row group
/// and column it is in.
public struct ParquetError: Error, Sendable, Equatable, CustomStringConvertible {
  public var path: String
  public var rowGroup: Int?
  public var column: String?
  public var reason: String

  public var description: String {
    var place: [String] = []
    if let rowGroup { place.append("row group \(rowGroup)") }
    if let column { place.append("column '\(column)'") }
    return "\(path): error: \(place.isEmpty ? "" : place.joined(separator: ", ") + ": ")\(reason)"
  }
}

/// Reads a Parquet file as the CSV of the same table would be read.
///
/// The footer (Thrift compact protocol) gives the schema and the row groups. The table
/// is told by its column names: a CSV header ArbKit knows (Tardis, Binance, …), a
/// `ParquetTable`, or a column spec naming the columns. Row groups are read one at a
/// time, only the columns the table's layout uses; a file of several row groups and at
/// least `parallelRows` rows is read as two parts of whole row groups on two threads
/// (`Ingest.readInTwoParts`, as a large CSV file is). Their values are written as the CSV
/// text of the same table (`ParquetText`) and read row by row by `FileReader`, so every
/// CSV rule holds: validation, bad rows, instruments, order. A bad row's position is
/// `path:line:column` of that CSV (the header is line 1, row `k` of the file line `k + 2`).
enum ParquetReader {
  /// Whether the file at `path` starts with `PAR1`.
  static func hasMagic(path: String) -> Bool {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var head: UInt32 = 0
    return Glibc.read(fd, &head, 4) == 4 && head == magic
  }

  /// Whether the file at `path` is read as Parquet: named so (`--input-format parquet`,
  /// `@parquet`), or starting with `PAR1`.
  static func reads(path: String, format: RecordFormat?) -> Bool { format == .parquet || hasMagic(path: path) }

  /// `PAR1`, little-endian.
  private static let magic = UInt32(0x3152_4150)

  /// Files of at least this many rows (and two row groups) are read on two threads.
  static let parallelRows: Int64 = 1 << 16

  /// Reads the Parquet file at `path` (mapped, its pages read as touched).
  static func read(path: String, options: IngestOptions) throws -> IngestedFile {
    let file = try MappedFile(path: path, readAhead: false)
    return try file.withBytes { try read($0, path: path, options: options) }
  }

  /// Reads the Parquet file `bytes` (of `path`).
  static func read(_ bytes: UnsafeRawBufferPointer, path: String, options: IngestOptions) throws -> IngestedFile {
    // Read by both parts' threads, which only read it.
    let table = try ParquetTableSource(bytes, path: path, options: options)
    let expectedRows = max(1024, Int(clamping: min(table.footer.metadata.rows, Int64(bytes.count))))
    if options.splitLargeFiles, var reader = try readInTwoParts(table, expectedRows: expectedRows) { return try reader.finish() }
    var reader = FileReader(path: path, options: table.options, expectedRows: expectedRows)
    try table.readHeader(into: &reader)
    _ = try table.feed(0..<table.footer.metadata.rowGroups.count, from: 2, into: &reader)
    return try reader.finish()
  }

  /// The table's rows read as two parts on two threads (`Ingest.readInTwoParts`): the
  /// row groups before the middle row (at least one), and the others; the reader of both,
  /// not finished (with `countsIn`, its series counted in that window, no point kept).
  /// `nil` when the table is too small to share (`parallelRows`), or the parts cannot be
  /// joined: the caller reads it in one pass.
  static func readInTwoParts(_ table: ParquetTableSource, expectedRows: Int, countsIn: TimeWindow? = nil) throws -> FileReader? {
    let groups = table.footer.metadata.rowGroups
    let rows = table.footer.metadata.rows
    guard groups.count >= 2 && rows >= parallelRows else { return nil }
    var half = 1
    var firstRows = max(0, groups[0].rows)
    while half < groups.count - 1 && firstRows + max(0, groups[half].rows) <= rows / 2 {
      firstRows += max(0, groups[half].rows)
      half += 1
    }
    let secondRows = Int(clamping: max(0, rows - firstRows))
    let (split, groupCount) = (half, groups.count)
    // Read by both parts' threads, which only read it.
    nonisolated(unsafe) let table = table
    return try Ingest.readInTwoParts(
      path: table.path, expectedRows: expectedRows, options: table.options, countsIn: countsIn,
      header: { reader in try table.readHeader(into: &reader) },
      first: { reader in try table.feed(0..<split, from: 2, into: &reader) },
      second: { ({ reader in try table.feed(split..<groupCount, from: 1, into: &reader) }, countsIn == nil ? secondRows : 1 << 12) })
  }

  /// The CSV of the flat table in the Parquet file at `path`: the header line, then a line
  /// per row, each value as `ParquetText` writes it (a timestamp in µs, a null empty).
  /// For the small tables ArbKit writes and reads back (a sweep, a PnL matrix).
  static func csv(path: String) throws -> [UInt8] {
    let file = try MappedFile(path: path, readAhead: false)
    return try file.withBytes { bytes in
      let footer = try Footer(bytes, path: path)
      var text = Array((headerLine(footer.leaves.map(\.name)) + "\n").utf8)
      let forms = footer.leaves.map { form(of: $0, timeUnits: 1_000_000, nautilus: false) }
      let rows = ParquetRowFeed(
        footer: footer, path: path, groups: 0..<footer.metadata.rowGroups.count, firstLine: 2, forms: forms,
        used: forms.map { _ in true }, typed: false, reader: nil, budget: DecompressionLimit().bytes(compressed: bytes.count))
      _ = try rows.read(
        typed: { _, _ in preconditionFailure("the table is read as text") },
        line: { line, _ in
          text += line
          text.append(10)
          return true
        })
      return text
    }
  }

  /// The header line of a table with columns `names`, as its CSV would have it.
  static func headerLine(_ names: [String]) -> String {
    names.map { name in
      name.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) ? "\"" + name.reduce(into: "") { $0 += $1 == "\"" ? "\"\"" : String($1) } + "\"" : name
    }.joined(separator: ",")
  }

  /// The format the table is read in: a named CSV format or column spec as given (a
  /// column spec's time read from a TIMESTAMP column as µs); else the CSV format whose
  /// header the column names make, or the `ParquetTable` they make.
  static func resolve(footer: Footer, path: String, named: RecordFormat?) throws -> RecordFormat {
    let names = footer.leaves.map(\.name)
    if case .columns(var spec) = named {
      (spec.delimiter, spec.quote, spec.thousands, spec.header) = (",", "\"", nil, true)
      let time: Int?
      switch spec.time.column {
      case .name(let name): time = names.firstIndex(of: name)
      case .position(let position): time = position >= 1 && position <= names.count ? position - 1 : nil
      }
      if let time, case .timestamp = footer.leaves[time].logical, ![TimeForm.epochSeconds, .epochMillis, .epochMicros, .epochNanos].contains(spec.time.form) {
        spec.time.form = .epochMicros
      }
      return .columns(spec)
    }
    if let named, named != .parquet { return named }
    let header = Array(headerLine(names).utf8)
    if let detected = header.withUnsafeBufferPointer({ RecordFormat.detect(headerLine: $0) }) { return BinanceFiles.refine(detected, path: path) }
    if let table = ParquetTable.detect(names: names, metadata: footer.metadata.keyValues) { return .parquetTable(table) }
    throw IngestError(.unknownFormat(firstLine: String(headerLine(names).prefix(160))), at: SourcePosition(path: path, line: 1, column: 1))
  }

  /// Which columns the rows need: those the layout names; every one for the formats
  /// that read fields by position beyond their layout (book levels).
  static func usedColumns(_ layout: RecordLayout, format: RecordFormat, count: Int) -> [Bool] {
    switch format {
    case .tardisBookSnapshot, .tardisIncrementalL2: return [Bool](repeating: true, count: count)
    default: break
    }
    var used = [Bool](repeating: false, count: count)
    let named = [
      layout.venue, layout.market, layout.symbol, layout.time, layout.otherTime, layout.bid, layout.ask, layout.bidSize, layout.askSize, layout.tradeSize,
    ]
    for k in named.compactMap({ $0 }) + [layout.price, layout.fundingIntervalHours].compactMap({ $0 }) + layout.values.map(\.column)
      + (layout.venueColumns ?? []).map(\.field) where k < count
    {
      used[k] = true
    }
    return used
  }

  /// How column `k` is written as text: its timestamps in the unit the layout reads them
  /// in (µs unless the time column's form is whole s, ms or ns), nautilus_trader's
  /// fixed-point columns as decimals.
  static func form(of leaf: ParquetLeaf, column k: Int, layout: RecordLayout, format: RecordFormat) -> ParquetValueForm {
    var target: Int64 = 1_000_000
    switch k == layout.time ? layout.timeForm : k == layout.otherTime ? layout.otherTimeForm : nil {
    case .epochSeconds?: target = 1
    case .epochMillis?: target = 1000
    case .epochNanos?: target = 1_000_000_000
    default: break
    }
    var nautilus = false
    if case .parquetTable(let table) = format { nautilus = table.isNautilus }
    return form(of: leaf, timeUnits: target, nautilus: nautilus)
  }

  /// How a column is written as text: timestamps in `timeUnits` per second, fixed-length
  /// integers of 8 or 16 bytes as nautilus_trader's fixed-point decimals when `nautilus`.
  private static func form(of leaf: ParquetLeaf, timeUnits: Int64, nautilus: Bool) -> ParquetValueForm {
    switch (leaf.type, leaf.logical) {
    case (.int32?, .timestamp(let units)?), (.int64?, .timestamp(let units)?): return .timestamp(from: units, to: timeUnits)
    case (_, .decimal(let scale, _)?): return .decimal(scale: scale)
    case (.int32?, .integer(_, let signed)?), (.int64?, .integer(_, let signed)?): return .integer(signed: signed)
    case (.int32?, _), (.int64?, _): return .integer(signed: true)
    case (.float?, _), (.double?, _): return .floating
    case (.boolean?, _): return .boolean
    case (.fixedLenByteArray?, nil) where leaf.typeLength == 8 || leaf.typeLength == 16:
      return nautilus ? .fixedPoint(scale: leaf.typeLength == 8 ? 9 : 16) : .text
    default: return .text
    }
  }

  /// The footer, parsed and checked, with the schema's leaf columns.
  struct Footer {
    let metadata: ParquetFileMetadata
    let leaves: [ParquetLeaf]
    /// The bytes before the footer, where every page lies.
    let data: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer, path: String) throws {
      func fail(_ reason: String) -> ParquetError { ParquetError(path: path, reason: reason) }
      guard bytes.count >= 12, bytes.loadUnaligned(as: UInt32.self) == ParquetReader.magic,
        bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self) == ParquetReader.magic
      else { throw fail("not a Parquet file, or a truncated one: no PAR1 at its start and end") }
      let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt32.self)))
      guard length <= bytes.count - 12 else { throw fail("footer of \(length) bytes is longer than the file (truncated?)") }
      let start = bytes.count - 8 - length
      do {
        metadata = try ParquetFileMetadata(UnsafeRawBufferPointer(rebasing: bytes[start..<bytes.count - 8]))
        leaves = try Self.leaves(metadata.schema)
      } catch {
        throw fail("footer: \(error.reason)")
      }
      data = UnsafeRawBufferPointer(rebasing: bytes[0..<start])
    }

    /// The leaf columns of the schema tree (its first element is the root), in order.
    private static func leaves(_ schema: [ParquetSchemaElement]) throws(ParquetFault) -> [ParquetLeaf] {
      guard let root = schema.first else { throw ParquetFault("empty schema") }
      var leaves: [ParquetLeaf] = []
      var next = 1
      func walk(children: Int32, path: [String], definition: Int, repetition: Int) throws(ParquetFault) {
        guard children >= 0, Int(children) <= schema.count - next, path.count < ThriftReader.maxDepth else {
          throw ParquetFault("schema tree does not match its element count")
        }
        for _ in 0..<children {
          let element = schema[next]
          next += 1
          let names = path + [element.name]
          let d = definition + (element.repetition == 0 ? 0 : 1), r = repetition + (element.repetition == 2 ? 1 : 0)
          if element.children > 0 {
            try walk(children: element.children, path: names, definition: d, repetition: r)
          } else {
            leaves.append(
              ParquetLeaf(
                name: names.joined(separator: "."), type: element.type.flatMap(ParquetType.init), typeLength: Int(element.typeLength ?? 0),
                logical: element.logical, maxDefinition: d, maxRepetition: r))
          }
        }
      }
      try walk(children: root.children, path: [], definition: 0, repetition: 0)
      guard next == schema.count else { throw ParquetFault("schema holds \(schema.count - next) elements outside its tree") }
      return leaves
    }
  }
}

/// A Parquet file's table, ready to be read row by row: its footer, the format its columns
/// are read in (named, or told by their names), the columns that format uses and how each
/// is written as text.
struct ParquetTableSource {
  let path: String
  let footer: ParquetReader.Footer
  /// The caller's options with the table's format.
  let options: IngestOptions
  private let forms: [ParquetValueForm]
  private let used: [Bool]
  private let header: [UInt8]
  /// Bytes and values each reader of the file may decode.
  private let limit: Int

  /// The table of the Parquet file `bytes` (of `path`), valid while `bytes` are.
  init(_ bytes: UnsafeRawBufferPointer, path: String, options: IngestOptions) throws {
    self.path = path
    footer = try ParquetReader.Footer(bytes, path: path)
    let names = footer.leaves.map(\.name)
    let format = try ParquetReader.resolve(footer: footer, path: path, named: options.format)
    var tableOptions = options
    tableOptions.format = format
    self.options = tableOptions
    var layout = try format.layout(clock: options.clock, headerNames: names, path: path)
    if options.readsTradeSizes { layout.tradeSize = format.tradeSizeField }
    used = ParquetReader.usedColumns(layout, format: format, count: names.count)
    forms = footer.leaves.enumerated().map { [layout] k, leaf in ParquetReader.form(of: leaf, column: k, layout: layout, format: format) }
    header = Array(ParquetReader.headerLine(names).utf8)
    limit = options.decompression.bytes(compressed: bytes.count)
  }

  /// Feeds the rows of row groups `groups` to `reader` (its header read), the first
  /// numbered `line`; returns the last line's number. Each call may decode up to the
  /// file's limit, with its own column readers (their buffers reused from row group to
  /// row group).
  func feed(_ groups: Range<Int>, from line: Int, into reader: inout FileReader) throws -> Int {
    let rows = rows(groups, firstLine: line, reader: reader)
    _ = try rows.read(
      typed: { row, number in
        try reader.consume(row, number: number) { row.line(into: &$0) }
        return true
      },
      line: { text, number in
        try reader.consume(line: text, number: number)
        return true
      })
    return rows.number - 1
  }

  /// Gives `reader` (made with `options`) the table's header, as the CSV's first line.
  func readHeader(into reader: inout FileReader) throws {
    try header.withUnsafeBufferPointer { try reader.consume(line: $0, number: 1) }
  }

  /// The rows of row groups `groups` for `reader` (its header read), the first numbered
  /// `firstLine`; `readsAhead`: the next row group decoded on a thread of its own.
  func rows(_ groups: Range<Int>, firstLine: Int, reader: FileReader, readsAhead: Bool = false) -> ParquetRowFeed {
    ParquetRowFeed(
      footer: footer, path: path, groups: groups, firstLine: firstLine, forms: forms, used: used, typed: !options.parquetAsText, reader: reader,
      budget: limit, readsAhead: readsAhead)
  }
}
