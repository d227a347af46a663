#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore
import Dispatch
import Synchronization

/// Plain and inflated files of at least this size are parsed as two parts on two threads.
let parallelThreshold = 16 << 20

extension Ingest {
  /// Reads a plain file as two halves in parallel: the rows before and after a line
  /// break near the middle (`readInTwoParts`), into one reader, not finished; with
  /// `countsIn`, its series are counted in that window and no point is kept. `nil` when
  /// there is no line break near the middle or the halves cannot simply be joined: the
  /// caller reads the file in one pass.
  static func readInTwoHalves(_ input: PlainFile, options: IngestOptions, countsIn: TimeWindow? = nil) throws -> FileReader? {
    let size = input.count
    let window = 1 << 16
    let head = try input.bytes(0..<min(size, window))
    guard let headerEnd = head.firstIndex(of: 10) else { return nil }
    let middle = try input.bytes(size / 2..<min(size, size / 2 + window))
    guard let breakOffset = middle.firstIndex(of: 10) else { return nil }
    let split = size / 2 + breakOffset + 1
    guard split > headerEnd + 1, split < size else { return nil }
    return try readInTwoParts(
      path: input.path, head: head, expectedRows: countsIn == nil ? size / 48 : 1 << 12, options: options, countsIn: countsIn,
      first: { try input.source($0..<split) },
      second: { (try input.source(split..<size), (size - split) / 48) })
  }

  /// Reads a line-based file as two parts on two threads: the header (the first line
  /// of `head`, the file's first bytes) on the calling thread, then the rows of the
  /// first part (`first`, given where the header ends) and of the second (`second`,
  /// called on the other thread: the rows after the first part's and how many are
  /// expected, or `nil` when the first part holds them all), each into its own
  /// builders (`readInTwoParts(path:expectedRows:options:countsIn:header:first:second:)`).
  static func readInTwoParts(
    path: String, head: [UInt8], expectedRows: Int, options: IngestOptions, countsIn: TimeWindow? = nil,
    first: @Sendable (Int) throws -> ByteSource, second: @Sendable () throws -> (source: ByteSource, expectedRows: Int)?
  ) throws -> FileReader? {
    guard let headerEnd = head.firstIndex(of: 10) else { return nil }
    return try readInTwoParts(
      path: path, expectedRows: expectedRows, options: options, countsIn: countsIn,
      header: { reader in try reader.consumeHeader(head, end: headerEnd) },
      first: { reader in
        var lines = LineReader(source: try first(headerEnd + 1), firstLineNumber: 2, maxLineBytes: options.maxLineBytes)
        defer { lines.close() }
        return try lines.forEachLine { line, number throws(IngestError) in try reader.consume(line: line, number: number) }
      },
      second: {
        guard let (source, rows) = try second() else { return nil }
        return (
          { reader in
            var lines = LineReader(source: source, atFileStart: false, maxLineBytes: options.maxLineBytes)
            defer { lines.close() }
            return try lines.forEachLine { line, number throws(IngestError) in try reader.consume(line: line, number: number) }
          }, rows
        )
      })
  }

  /// Reads a file's rows as two parts on two threads: `header` gives the header line to
  /// the first reader on the calling thread; then `first` feeds the first part's rows to
  /// it (numbered from 2) and `second`, called on the other thread, gives the feeder of
  /// the second part's rows (numbered from 1 in their part) and how many are expected, or
  /// `nil` when the first part holds them all. Each feeder returns the number of its last
  /// line. The second part's rows then follow the first's (its line numbers shifted by
  /// the first part's line count), and the first part's error comes first. Returns the
  /// reader of both parts, not finished; with `countsIn`, their series are counted in
  /// that window and no point is kept (`FileReader.countsIn`).
  /// Returns `nil` when the parts cannot simply be joined (an order book, a wide file,
  /// a row of the second part going back before the first part's last row, no line
  /// break in `head`), and the caller reads the file in one pass.
  static func readInTwoParts(
    path: String, expectedRows: Int, options: IngestOptions, countsIn: TimeWindow? = nil, header: (inout FileReader) throws -> Void,
    first: @Sendable (inout FileReader) throws -> Int,
    second: @Sendable () throws -> (feed: (inout FileReader) throws -> Int, expectedRows: Int)?
  ) throws -> FileReader? {
    // The second part is appended to the first: room for both from the start.
    var reader = FileReader(path: path, options: options, expectedRows: expectedRows)
    reader.countsIn = countsIn
    try header(&reader)
    guard reader.splits else { return nil }
    return try reader.readTwoParts(first: first, second: second).joined ? reader : nil
  }
}

extension FileReader {
  /// Reads the header: the first line of the file's first bytes `head`, which ends at `end`.
  mutating func consumeHeader(_ head: [UInt8], end: Int) throws(IngestError) {
    try head.withUnsafeBufferPointer { bytes throws(IngestError) in
      try consume(line: LineReader.trim(UnsafeMutablePointer(mutating: bytes.baseAddress!), end, first: true), number: 1)
    }
  }

  /// Whether the rows after the header can be read in parts, each by its own reader: not
  /// an order book, which is rebuilt row after row, nor a wide file, whose series are
  /// made from its header, which a later part does not see.
  var splits: Bool { books == nil && layout.venueColumns == nil }

  /// Reads on with `first` on this reader while `second`, called on another thread,
  /// gives the feeder of the rows that follow (numbered from 1 in their part) and how
  /// many are expected, or `nil` when there are none; its rows go to a reader of its
  /// own, made from this one's header, then are joined to this one's (`absorb`). Each
  /// feeder returns the number of its last line; `first` numbers on from this reader's.
  ///
  /// Returns the number of the last line read into this reader, and whether the second
  /// part's rows were joined: `false` when they cannot be (a row going back before its
  /// instrument's last row here), this reader then holding the first part's rows only,
  /// so that the caller reads the second part on in order. The first part's error comes
  /// first; the second part's is thrown (at its line in the file) only when its rows
  /// could be joined up to it, else left to the caller's reading in order.
  mutating func readTwoParts(
    first: @Sendable (inout FileReader) throws -> Int,
    second: @Sendable () throws -> (feed: (inout FileReader) throws -> Int, expectedRows: Int)?
  ) throws -> (lastLine: Int, joined: Bool) {
    precondition(splits, "a file read in parts is neither an order book nor wide")
    // The second part's reader is made from the header's state once its size is known,
    // on the other thread, which only reads this template.
    nonisolated(unsafe) let template = halfReader(expectedRows: 0)
    var secondReader: FileReader? = nil
    let results = Mutex<[Result<Int, any Error>?]>([nil, nil])
    withUnsafeMutablePointer(to: &self) { firstReader in
      withUnsafeMutablePointer(to: &secondReader) { secondReader in
        // Each thread touches only its own reader.
        nonisolated(unsafe) let readers = (firstReader, secondReader)
        // The second part is iteration 0: the first part may wait for what `second`
        // does, never the other way round, so even one thread running both in order
        // finishes.
        DispatchQueue.concurrentPerform(iterations: 2) { k in
          let result = Result<Int, any Error> {
            if k == 1 { return try first(&readers.0.pointee) }
            guard let (feed, rows) = try second() else { return 0 }
            // Its rows would be thrown away after the first part's error.
            if case .failure = results.withLock({ $0[0] }) { return 0 }
            var reader = template.halfReader(expectedRows: rows)
            defer { readers.1.pointee = reader }
            return try feed(&reader)
          }
          results.withLock { $0[1 - k] = result }
        }
      }
    }
    let (firstResult, secondResult) = results.withLock { ($0[0]!, $0[1]!) }
    // The first part's error comes first in the file.
    let firstLines = try firstResult.get()
    // Taken out of the optional, not copied: a second reference would copy its columns
    // when `absorb` flushes them.
    guard var second = secondReader.take() else {
      _ = try secondResult.get()
      return (firstLines, true)
    }
    guard joins(second) else { return (firstLines, false) }
    // The second part's lines are numbered from its own start until shifted.
    let secondLines: Int
    do {
      secondLines = try secondResult.get()
    } catch var error as IngestError {
      error.position.line += firstLines
      throw error
    }
    absorb(&second, lineOffset: firstLines)
    return (firstLines + secondLines, true)
  }

  /// A reader for the second half of the same file: the header's layout, fresh
  /// builders and counters.
  func halfReader(expectedRows: Int) -> FileReader {
    var reader = FileReader(path: path, options: options, expectedRows: expectedRows)
    reader.format = format
    reader.layout = layout
    reader.keyFields = keyFields
    reader.minimumFields = minimumFields
    reader.groupSize = groupSize
    reader.rowValues = rowValues
    reader.splitter = FieldSplitter(delimiter: layout.delimiter, quote: layout.quote)
    reader.headerLine = headerLine
    reader.headerDone = true
    reader.sawAnyLine = true
    reader.countsIn = countsIn
    reader.report.format = report.format
    return reader
  }

  /// Whether the rows `other` read can follow this reader's: no instrument's rows (its
  /// rows, whichever series they fed) go back across the boundary.
  func joins(_ other: FileReader) -> Bool {
    for (theirs, key) in other.keys.enumerated() where !options.sort {
      guard let mine = keys.firstIndex(of: key) else { continue }
      let last = builders[mine * groupSize].lastRowTime, next = other.builders[theirs * groupSize].firstRowTime
      if last == .min || next == .min { continue }
      if layout.descending ? next > last : next < last { return false }
    }
    return true
  }

  /// Appends the rows of `other`, which `joins` this reader, and its counts, errors and
  /// quarantined lines, its line numbers shifted by `lineOffset`: this reader is then as
  /// if it had read them (an instrument new in `other` is added after those here), and
  /// can read on.
  mutating func absorb(_ other: inout FileReader, lineOffset: Int) {
    for k in builders.indices { builders[k].flush() }
    for k in other.builders.indices { other.builders[k].flush() }
    for (theirs, key) in other.keys.enumerated() {
      let group = theirs * groupSize..<(theirs + 1) * groupSize
      guard let mine = keys.firstIndex(of: key) else {
        keys.append(key)
        builders.append(contentsOf: other.builders[group])
        continue
      }
      for (k, t) in zip(mine * groupSize..<(mine + 1) * groupSize, group) {
        let next = other.builders[t]
        if countsIn != nil {
          builders[k].appendCount(next)
        } else {
          builders[k].populate(upTo: builders[k].series.count + next.series.count)
          builders[k].series.append(contentsOf: next.series)
        }
        builders[k].hasBook = builders[k].hasBook || next.hasBook
        if next.lastTime != .min { builders[k].lastTime = next.lastTime }
        if next.lastRowTime != .min { builders[k].lastRowTime = next.lastRowTime }
      }
    }
    report.rowsRead += other.report.rowsRead
    report.rowsAccepted += other.report.rowsAccepted
    report.rowsRejected += other.report.rowsRejected
    for (kind, count) in other.report.rejectedByKind { report.addRejections(kind: kind, count: count) }
    for var error in other.report.errors where report.errors.count < options.keptErrors {
      error.position.line += lineOffset
      report.errors.append(error)
    }
    quarantine += other.quarantine
  }
}

/// A byte range of a file, read with `pread` (so two halves can be read at once).
final class RangeSource: ByteSource {
  private let descriptor: Int32
  private var offset: Int
  private let end: Int
  let path: String

  init(path: String, range: Range<Int>) throws(FileError) {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw errno == ENOENT ? .missing(path: path) : .unreadable(path: path, reason: String(cString: strerror(errno))) }
    descriptor = fd
    offset = range.lowerBound
    end = range.upperBound
    self.path = path
  }

  deinit { close(descriptor) }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    let wanted = min(buffer.count, end - offset)
    guard wanted > 0 else { return 0 }
    while true {
      let n = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
      if n >= 0 {
        offset += n
        return n
      }
      if errno == EINTR { continue }
      throw IngestError(.readFailed(detail: "read failed: \(String(cString: strerror(errno)))"), at: SourcePosition(path: path, line: 0, column: 0))
    }
  }
}

/// Bytes that several readers can read at once, each from its own offset: a plain file
/// or a gzip file inflated in memory.
protocol RangedBytes: Sendable {
  /// The file's path, for messages.
  var path: String { get }
  var count: Int { get }
  /// A source of the bytes in `range`.
  func source(_ range: Range<Int>) throws(FileError) -> ByteSource
}

extension RangedBytes {
  /// The bytes in `range` (small ranges only).
  func bytes(_ range: Range<Int>) throws -> [UInt8] {
    let source = try source(range)
    var bytes = [UInt8](repeating: 0, count: range.count)
    var filled = 0
    while filled < bytes.count {
      let n = try bytes.withUnsafeMutableBytes { raw in try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...])) }
      if n == 0 { break }
      filled += n
    }
    return Array(bytes[0..<filled])
  }
}

/// A plain file, read by ranges with `pread`.
struct PlainFile: RangedBytes {
  let path: String
  /// Size of the file in bytes.
  let count: Int

  func source(_ range: Range<Int>) throws(FileError) -> ByteSource { try RangeSource(path: path, range: range) }

  /// Where the line that `offset` falls in ends (after its line break), the file's end
  /// when `offset` is at or past it; `nil` when no line break is within 64 KiB of it.
  func lineEnd(after offset: Int) throws -> Int? {
    guard offset < count else { return count }
    let window = try bytes(offset..<min(count, offset + (1 << 16)))
    if let found = window.firstIndex(of: 10) { return offset + found + 1 }
    return offset + window.count == count ? count : nil
  }

  /// Feeds the lines in `range` (whole lines) to `reader`, the first numbered
  /// `firstLine`; returns the last one's number.
  func feed(_ range: Range<Int>, firstLine: Int, into reader: inout FileReader) throws -> Int {
    var lines = LineReader(
      source: try source(range), chunkSize: 1 << 18, firstLineNumber: firstLine, atFileStart: false, maxLineBytes: reader.options.maxLineBytes)
    defer { lines.close() }
    return try lines.forEachLine { line, number throws(IngestError) in try reader.consume(line: line, number: number) }
  }
}
