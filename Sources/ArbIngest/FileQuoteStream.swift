import ArbCore

/// A leg's files (one series, consecutive files of it) read as a stream: lines are
/// parsed a block at a time (a Parquet file's rows a row group at a time) and the leg's
/// points handed out as they are read, so memory depends on the chunk size, not on the
/// length of the files.
///
/// The points, the row accounting and the errors are those of `LegSpec.load` followed by
/// the whole series: the same validation, rows at one time collapsed to the last, only
/// the points in the window kept, consecutive files joined (a file's first point at the
/// last time of the file before replaces it; an earlier one is an error). The other
/// series of a file are counted, not kept. The last point read is held back until the
/// next row shows it is final.
///
/// Only files in time order with one series per row stream (`FileReader.streamsInOrder`),
/// and JSON-lines sources (`rest.snapshots`, `cryptofeed.jsonl`, `orderbook.jsonl`);
/// `open` returns `nil` for others (a whole JSON document, a pipe, `--sort`), which are
/// read whole. A Tardis `incremental_book_L2` file streams the quotes of its rebuilt books,
/// its books carried from row to row. A book snapshot or a rebuilt book read with its
/// depth (`IngestOptions.keepDepth`) hands out the book behind each quote with it
/// (`QuoteChunk.books`).
public final class FileQuoteStream: QuoteStream {
  public private(set) var instrument: Instrument
  /// The field of the leg's series, known once its first rows are read (a column spec's
  /// `field`, for one, applies once the header is read).
  public private(set) var field: SeriesField
  public let clock: Clock
  /// `book` once a row of the leg had a bid or an ask; final when the stream has ended.
  public var priceSource: PriceSource { hasBook || current?.selectedBuilder?.hasBook == true ? .book : .last }
  public var lastTime: Int64? { nil }
  /// The report of each file finished so far: every file's once the stream has ended.
  public private(set) var reports: [IngestReport] = []

  private let leg: LegSpec
  private let options: IngestOptions
  private let window: TimeWindow
  private let keepsSizes: Bool
  /// The other clock's times are handed out (sizes are kept and the first file has them).
  private var keepsOtherTime = false
  /// The books of the quotes are handed out (the files are book snapshots read with depth).
  private var keepsBooks = false
  /// The book of the held point, and of the point being taken (swapped with it; unchecked:
  /// only `take` and `append`, one call at a time, use them).
  @exclusivity(unchecked) private var heldBook = BookBlock()
  @exclusivity(unchecked) private var pointBook = BookBlock()
  private var paths: ArraySlice<String>
  private var current: OpenFile?
  /// The last point kept and not yet handed out: a later row at its time replaces it.
  private var held: HeldPoint?
  /// The held point came from the file before the current one, which has kept no point yet.
  private var heldFromFileBefore = false
  private var hasBook = false
  /// The chunk being handed out.
  private var block = ChunkBlock()

  /// Opens the leg as a stream when every file of it can stream, and reads the first
  /// file until its series is known; `nil` when some file cannot.
  ///
  /// - Parameters:
  ///   - options: as for `LegSpec.load`; its `storeColumns` says whether sizes and the
  ///     other clock are handed out.
  ///   - books: hand out the books of files read with their depth; without, their
  ///     levels are still read and checked (the rows are those of a read with books).
  /// - Throws: as `LegSpec.load`.
  public static func open(_ leg: LegSpec, options: IngestOptions, specOverrides: [String] = [], books: Bool = true) throws -> FileQuoteStream? {
    guard try canStream(leg, options: options, specOverrides: specOverrides) else { return nil }
    return try FileQuoteStream(leg, options: try leg.ingestOptions(options, specOverrides: specOverrides), books: books)
  }

  /// Whether every file of `leg` can stream (what `open` checks): regular files, JSON
  /// lines or in time order of the leg's field, all with books' depth kept or none.
  /// - Throws: as `LegSpec.ingestOptions`.
  public static func canStream(_ leg: LegSpec, options: IngestOptions, specOverrides: [String] = []) throws -> Bool {
    try streamingDepth(leg, options: options, specOverrides: specOverrides) != nil
  }

  /// Whether every file of `leg` can stream without books' depth kept, as a store holds
  /// its quotes (`drain`).
  /// - Throws: as `LegSpec.ingestOptions`.
  public static func canStreamWithoutBooks(_ leg: LegSpec, options: IngestOptions, specOverrides: [String] = []) throws -> Bool {
    try streamingDepth(leg, options: options, specOverrides: specOverrides) == false
  }

  /// Whether the files of `leg`, which all stream, keep their books' depth; `nil` when
  /// some file cannot stream or they do not all agree.
  private static func streamingDepth(_ leg: LegSpec, options: IngestOptions, specOverrides: [String]) throws -> Bool? {
    let fileOptions = try leg.ingestOptions(options, specOverrides: specOverrides)
    var depth: Bool? = nil
    for path in leg.paths {
      guard let reader = Self.streamingReader(path: path, leg: leg, options: fileOptions), depth == nil || depth == reader.keepsBookDepth else {
        return nil
      }
      depth = reader.keepsBookDepth
    }
    return depth
  }

  private init(_ leg: LegSpec, options: IngestOptions, books: Bool) throws {
    self.leg = leg
    self.options = options
    window = options.window ?? TimeWindow()
    keepsSizes = options.storeColumns == .all
    clock = options.clock
    paths = leg.paths[...]
    let first = try OpenFile(path: paths.removeFirst(), options: options)
    field = first.reader.layout.field
    instrument = Instrument(venue: "unknown", market: .spot, symbol: "unknown")
    current = first
    try readUntilChosen()
    instrument = leg.instrument ?? current!.selectedBuilder!.series.instrument
    field = current!.selectedBuilder!.series.field
    keepsOtherTime = keepsSizes && current!.selectedBuilder!.keepsOtherTime
    // A JSON source's series of a ticker's tops has no books beside its whole books; the
    // whole read keeps a leg's books only when every file gives them.
    keepsBooks =
      books && current!.selectedBuilder!.series.depth != nil
      && (current!.reader.json == nil || paths.allSatisfy { Self.givesBooks(path: $0, leg: leg, window: window, options: options) })
  }

  /// A reader of the file at `path`, its header read, when the file can stream: a regular
  /// file of JSON lines, or one whose header (or first row) shows rows in time order of
  /// the leg's field; else `nil`. Any error is left to the whole read, which reports it.
  private static func streamingReader(path: String, leg: LegSpec, options: IngestOptions) -> FileReader? {
    guard let file = try? FileSource(path: path), !file.isStream else { return nil }
    var reader: FileReader
    if ParquetReader.reads(path: path, format: options.format) {
      guard let mapped = try? MappedFile(path: path, readAhead: false),
        let table = try? ParquetTableSource(mapped.bytes, path: path, options: options)
      else { return nil }
      reader = FileReader(path: path, options: table.options, expectedRows: 0)
      guard (try? table.readHeader(into: &reader)) != nil else { return nil }
    } else {
      let json: RecordFormat?
      do { json = try JSONSources.format(path: path, size: file.size, named: options.format) } catch { return nil }
      if let json {
        // A JSON document (freqtrade, a daily history) is read whole.
        var lineOptions = options
        lineOptions.format = json
        reader = FileReader(path: path, options: lineOptions, expectedRows: 0)
        return reader.json != nil && reader.streamsInOrder ? reader : nil
      }
      guard let source = try? Compression.open(path: path, limit: options.decompression) else { return nil }
      reader = FileReader(path: path, options: options, expectedRows: 0)
      var lines = LineReader(source: source, chunkSize: 1 << 16, maxLineBytes: options.maxLineBytes)
      defer { lines.close() }
      do {
        _ = try lines.read { line, number throws(IngestError) in
          try reader.consume(line: line, number: number)
          return false
        }
      } catch { return nil }
    }
    return reader.streamsInOrder && (leg.field == nil || leg.field == reader.layout.field) ? reader : nil
  }

  deinit {
    if var file = current { file.rows.close() }
  }

  public func next(maxRows: Int) throws -> QuoteChunk? {
    precondition(maxRows > 0, "a chunk holds at least one row")
    // Whoever reads a chunk of books copies them on: a few thousand at a time.
    let maxRows = keepsBooks ? min(maxRows, BookChunk.rowsAtATime) : maxRows
    block.removeAll()
    while block.count < maxRows {
      guard current != nil else {
        // Every file is read: the held point is final.
        if let held {
          append(held)
          self.held = nil
        }
        break
      }
      if current!.pendingPoints > 0 {
        try take(from: &current!, maxRows: maxRows)
      } else if !current!.atEnd {
        // One point more than fits, since the last read is held back.
        try read(&current!) { $0.pendingPoints > maxRows - block.count }
      } else {
        try finish(&current!)
        current = nil
        if let path = paths.popFirst() {
          current = try OpenFile(path: path, options: options)
          try readUntilChosen()
          if keepsBooks && current!.selectedBuilder!.series.depth == nil {
            // `givesBooks` found books in every file before the first was handed out.
            throw LegSpecError(message: "\(path) has no books for the leg, which the files before it have; read them with --sort, which reads the leg whole")
          }
        }
      }
    }
    return block.count > 0 ? block.chunk(0..<block.count, otherTime: keepsOtherTime, sizes: keepsSizes, books: keepsBooks) : nil
  }

  /// Hands out the held point `point`, with its book when books are kept.
  private func append(_ point: HeldPoint) {
    block.append(point)
    if keepsBooks { block.appendBook(heldBook.all, 0) }
  }

  /// Reads the current file until the series the leg takes from it is known. Series that
  /// the leg may take if no exact match follows are kept while they hold up to
  /// `undecidedLimit` points; beyond, a scan of the whole file (keeping no point)
  /// decides, so that memory does not grow with the file.
  private func readUntilChosen() throws {
    try read(&current!) { $0.selected != nil || $0.undecidedPoints > Self.undecidedLimit }
    if current!.selected == nil && !current!.atEnd {
      current!.decide(try Self.pickAfterScan(path: current!.path, leg: leg, window: window, options: options))
      try read(&current!) { $0.selected != nil }
    }
    if current!.selected == nil {
      do { try current!.choose(leg: leg) } catch {
        // As the whole read, which writes the rejected rows before it finds no series to take.
        try current!.reader.writeQuarantine()
        throw error
      }
    }
    heldFromFileBefore = held != nil
  }

  /// Points kept of series the leg may take before a scan of the file decides.
  static let undecidedLimit = 1 << 16

  /// Reads lines of `file` until `enough` or its end, sorting each new series into kept or
  /// counted as it appears.
  /// (`enough` takes the file `inout`, by reference: it is asked after every row, and a
  /// file passed by value would be copied each time.)
  private func read(_ file: inout OpenFile, until enough: (inout OpenFile) -> Bool) throws {
    try Self.read(&file, leg: leg, window: window, options: options, until: enough)
  }

  private static func read(
    _ file: inout OpenFile, leg: LegSpec, window: TimeWindow, options: IngestOptions, until enough: (inout OpenFile) -> Bool
  ) throws {
    if let k = file.selected, file.taken > 0 {
      file.reader.builders[k].dropFirst(file.taken)
      file.taken = 0
    }
    do {
      while !file.atEnd && !enough(&file) {
        let seen = file.reader.builders.count
        /// After each row: read on while no new series appeared and not `enough`.
        func goesOn() -> Bool { file.reader.builders.count == seen && !enough(&file) }
        let more: Bool
        switch file.rows {
        case .lines(var lines):
          // The lines are taken out of `file` while they are consumed into `file.reader`.
          defer { file.rows = .lines(lines) }
          more = try lines.read { line, number throws(IngestError) in
            try file.reader.consume(line: line, number: number)
            return goesOn()
          }
        case .parquet(let rows, _):
          more = try rows.read(
            typed: { row, number in
              try file.reader.consume(row, number: number) { row.line(into: &$0) }
              return goesOn()
            },
            line: { line, number in
              try file.reader.consume(line: line, number: number)
              return goesOn()
            })
        }
        if !more {
          file.atEnd = true
          // A rebuilt book's last instants close with the file.
          file.reader.endOfRows()
        }
        for k in seen..<file.reader.builders.count { try file.sort(builder: k, leg: leg, window: window) }
        if file.ambiguous {
          // Every series of a file that streams is of one field: a leg naming no
          // instrument cannot take one of several.
          _ = try pickAfterScan(path: file.path, leg: leg, window: window, options: options)
          preconditionFailure("a leg that names no instrument of a file holding several is refused")
        }
      }
    } catch let error as IngestError where !error.reason.isStreamFault && file.compression != .none {
      try Ingest.verifyStream(path: file.path, options: options)
      throw error
    }
  }

  /// Moves the pending points of the chosen series into the block, up to `maxRows`:
  /// collapsed, inside the window, joined to the file before, the last one held back.
  private func take(from file: inout OpenFile, maxRows: Int) throws {
    let k = file.selected!
    file.reader.builders[k].flush()
    let series = file.reader.builders[k].series
    guard keepsBooks else { return try take(from: &file, series, books: nil, maxRows: maxRows) }
    try series.depth!.withChunk { books in try take(from: &file, series, books: books, maxRows: maxRows) }
  }

  /// `take` from the chosen `series`, whose books are `books` when they are kept.
  private func take(from file: inout OpenFile, _ series: QuoteSeries, books: BookChunk?, maxRows: Int) throws {
    let rows = series.count
    var r = file.taken
    defer { file.taken = r }
    while r < rows && block.count < maxRows {
      let time = series.time[r]
      let kind = file.tally.add(time)
      let point = HeldPoint(series, r)
      r += 1
      guard kind != .dropped else { continue }
      if let books {
        pointBook.removeAll()
        pointBook.append(books, r - 1)
      }
      if kind == .kept, let before = held {
        if heldFromFileBefore {
          heldFromFileBefore = false
          if point.time < before.time {
            throw IngestError(
              .timestampNotIncreasing(previous: before.time, found: point.time), at: SourcePosition(path: file.path, line: 2, column: 1))
          }
          if point.time > before.time { append(before) }
        } else {
          append(before)
        }
      }
      held = point
      swap(&heldBook, &pointBook)
    }
  }

  /// Whether the JSON-lines file at `path` gives `leg` a series with books: read keeping no
  /// point until a series of the leg's instrument with books appears, else to its end,
  /// the series picked as the whole read picks it. A file that fails is left to the read
  /// that reports it.
  private static func givesBooks(path: String, leg: LegSpec, window: TimeWindow, options: IngestOptions) -> Bool {
    guard var scan = try? OpenFile(path: path, options: options) else { return true }
    scan.keeping = .nothing
    defer { scan.rows.close() }
    do {
      try read(&scan, leg: leg, window: window, options: options) { file in
        file.reader.builders.contains { $0.series.depth != nil && $0.series.instrument == leg.instrument && $0.series.field == .price }
      }
      if !scan.atEnd { return true }
      return scan.reader.builders[try scan.pick(leg: leg)].series.depth != nil
    } catch {
      return true
    }
  }

  /// The builder of the series `leg` takes from the file at `path` (the same in every
  /// read of the file), chosen by `LegSpec.pick` from a
  /// scan of the whole file keeping no point: a bad row fails first, and when the leg
  /// takes none, the rejected rows are quarantined before `pick`'s error (every series of
  /// the file named), as the whole read does.
  private static func pickAfterScan(path: String, leg: LegSpec, window: TimeWindow, options: IngestOptions) throws -> Int {
    var scan = try OpenFile(path: path, options: options)
    scan.keeping = .nothing
    defer { scan.rows.close() }
    try read(&scan, leg: leg, window: window, options: options) { _ in false }
    do {
      return try scan.pick(leg: leg)
    } catch {
      try scan.reader.writeQuarantine()
      throw error
    }
  }

  /// Ends the file: its report, its quarantine file, and its stream checked when rows
  /// were rejected from a compressed file.
  private func finish(_ file: inout OpenFile) throws {
    hasBook = hasBook || file.selectedBuilder!.hasBook
    reports.append(try Self.finish(&file, options: options))
  }

  /// - Parameter tallies: the points taken of each series, when the caller took every
  ///   series (`drain`); else the chosen series' are the file's and the others' their
  ///   builders'.
  private static func finish(_ file: inout OpenFile, options: IngestOptions, tallies: [PointTally]? = nil) throws -> IngestReport {
    let tallies = tallies ?? file.reader.builders.indices.map { k in k == file.selected ? file.tally : file.reader.builders[k].tally! }
    let report = try finish(&file.reader, compression: file.compression, options: options, tallies: tallies)
    file.rows.close()
    return report
  }

  /// The report of a file read to its end, whose series' points were counted in
  /// `tallies`; its quarantine file written, its stream checked when rows were rejected
  /// from a compressed file.
  private static func finish(
    _ reader: inout FileReader, compression: Compression, options: IngestOptions, tallies: [PointTally]
  ) throws -> IngestReport {
    try reader.checkNotEmpty()
    if reader.report.rowsRejected > 0 && compression != .none { try Ingest.verifyStream(path: reader.path, options: options) }
    var report = reader.report
    for k in reader.seriesOrder {
      let (builder, tally) = (reader.builders[k], tallies[k])
      report.rowsCollapsed += tally.collapsed
      report.rowsOutsideWindow += tally.outside
      report.instruments.append((builder.series.instrument, builder.series.field, tally.kept))
      if let first = tally.firstKept { report.firstTime = min(report.firstTime ?? first, first) }
      if let last = tally.lastKept { report.lastTime = max(report.lastTime ?? last, last) }
    }
    reader.report = report
    try reader.writeQuarantine()
    return reader.report
  }

  /// The file `leg` names read to its end keeping no point: its report, every series
  /// counted as the whole read counts it, and each series' price source (in the order of
  /// `report.instruments`), in memory that does not grow with the file; `nil` when the
  /// file cannot stream (see `open`). A plain file of at least `parallelThreshold` bytes
  /// or a Parquet table of at least `ParquetReader.parallelRows` rows in two row groups
  /// or more is counted as two parts on two threads (unless `splitLargeFiles` is off).
  /// What `arbkit inspect` prints.
  public static func count(
    _ leg: LegSpec, options: IngestOptions, specOverrides: [String] = []
  ) throws -> (report: IngestReport, priceSources: [PriceSource])? {
    guard let options = try streamingOptions(leg, options: options, specOverrides: specOverrides) else { return nil }
    let path = leg.paths[0], window = options.window ?? TimeWindow()
    if options.splitLargeFiles, var reader = try countInTwoParts(path: path, options: options, window: window) {
      let report = try finish(&reader, compression: .none, options: options, tallies: reader.builders.map { $0.tally! })
      return (report, reader.priceSources)
    }
    return try readAlone(path, options: options, keeping: .nothing) { file in
      try read(&file, leg: leg, window: window, options: options) { _ in false }
      return try finish(&file, options: options)
    }
  }

  /// The file at `path` read as two parts on two threads, every series counted in
  /// `window` (`FileReader.countsIn`): a plain file of at least `parallelThreshold`
  /// bytes by halves, a Parquet table by row groups (`ParquetReader.readInTwoParts`).
  /// `nil` for other files, and when the parts cannot be joined: the caller counts the
  /// file in one pass.
  private static func countInTwoParts(path: String, options: IngestOptions, window: TimeWindow) throws -> FileReader? {
    if ParquetReader.reads(path: path, format: options.format) {
      let file = try MappedFile(path: path, readAhead: false)
      return try file.withBytes { bytes in
        try ParquetReader.readInTwoParts(ParquetTableSource(bytes, path: path, options: options), expectedRows: 1 << 12, countsIn: window)
      }
    }
    let size = try FileSource(path: path).size
    guard options.format?.isJSONLines != true, try Compression.detect(path: path) == .none && size >= parallelThreshold else { return nil }
    return try Ingest.readInTwoHalves(PlainFile(path: path, count: size), options: options, countsIn: window)
  }

  /// The file `leg` names read to its end with every series it holds handed to `sink`
  /// as the whole read (`Ingest.read`) gives it: validated, rows at one time collapsed to
  /// the last, inside the window, about `chunkRows` points at a time, so that memory
  /// does not grow with the file. Returns the file's report and each series' price
  /// source, in the order of `report.instruments`: the order of `sink`'s series (numbered
  /// as they first appear) but for a JSON-lines source, whose series the whole read ranks
  /// (`JSONSeriesSink.order`); `nil`, before anything is handed out, when the file cannot
  /// stream (see `open`), has
  /// funding intervals or keeps trades at equal times (`readsTradeSizes`). A plain file
  /// of at least `parallelThreshold` bytes is read by pairs of segments on two threads
  /// (unless `splitLargeFiles` is off; `DrainSegments`).
  /// - Throws: as `Ingest.read`, and what `sink` throws.
  public static func drain(
    _ leg: LegSpec, options: IngestOptions, specOverrides: [String] = [], chunkRows: Int = 1 << 16, into sink: inout some SeriesSink
  ) throws -> (report: IngestReport, priceSources: [PriceSource])? {
    try drain(leg, options: options, specOverrides: specOverrides, chunkRows: chunkRows, segments: DrainSegments(), into: &sink)
  }

  /// `drain`, with the segments a large plain file is read by.
  static func drain(
    _ leg: LegSpec, options: IngestOptions, specOverrides: [String] = [], chunkRows: Int, segments: DrainSegments,
    into sink: inout some SeriesSink
  ) throws -> (report: IngestReport, priceSources: [PriceSource])? {
    precondition(chunkRows > 0, "a chunk holds at least one row")
    guard
      let options = try streamingOptions(
        leg, options: options, specOverrides: specOverrides,
        accepts: { reader in reader.layout.fundingIntervalHours == nil && !reader.options.readsTradeSizes && !reader.keepsBookDepth })
    else { return nil }
    var handOut = SeriesHandOut(window: options.window ?? TimeWindow(), chunkRows: chunkRows)
    let path = leg.paths[0]
    if options.splitLargeFiles, let drained = try drainInSegments(path, options: options, segments: segments, handOut: &handOut, into: &sink) {
      return drained
    }
    return try readAlone(path, options: options, keeping: .every) { file in
      var rowsHandedOut = 0
      while !file.atEnd {
        try read(&file, leg: leg, window: handOut.window, options: options) { $0.reader.report.rowsRead - rowsHandedOut >= chunkRows }
        rowsHandedOut = file.reader.report.rowsRead
        try handOut.take(&file.reader, atEnd: file.atEnd, to: &sink)
      }
      return try finish(&file, options: options, tallies: handOut.tallies)
    }
  }

  /// Drains the plain file at `path` by pairs of segments, each pair's first segment read
  /// on by the file's reader and its second by a reader of its own on another thread,
  /// then joined (`FileReader.readTwoParts`; when they cannot be, the file's reader reads
  /// the second segment on in order), and handed out. Past a line longer than a segment's
  /// search for its end, the rest is read in order. `nil`, before anything is handed
  /// out, when the file is not plain text (compressed, Parquet, JSON lines) or smaller than
  /// `segments.minimumFileBytes`.
  private static func drainInSegments(
    _ path: String, options: IngestOptions, segments: DrainSegments, handOut: inout SeriesHandOut, into sink: inout some SeriesSink
  ) throws -> (report: IngestReport, priceSources: [PriceSource])? {
    let size = try FileSource(path: path).size
    guard size >= segments.minimumFileBytes, options.format?.isJSONLines != true, !ParquetReader.reads(path: path, format: options.format),
      try Compression.detect(path: path) == .none
    else { return nil }
    let input = PlainFile(path: path, count: size)
    let head = try input.bytes(0..<min(size, 1 << 16))
    guard let headerEnd = head.firstIndex(of: 10) else { return nil }
    var reader = FileReader(path: path, options: options, expectedRows: 1 << 12)
    try reader.consumeHeader(head, end: headerEnd)
    guard reader.splits else { return nil }
    var (offset, lastLine) = (headerEnd + 1, 1)
    while offset < size {
      guard let middle = try input.lineEnd(after: offset + segments.bytes), let end = try input.lineEnd(after: middle + segments.bytes) else {
        // A line too long to find the end of: the rest in order, as one pass reads it.
        var lines = LineReader(source: try input.source(offset..<size), firstLineNumber: lastLine + 1, atFileStart: false, maxLineBytes: options.maxLineBytes)
        defer { lines.close() }
        var more = true
        while more {
          let read = reader.report.rowsRead
          more = try lines.read { line, number throws(IngestError) in
            try reader.consume(line: line, number: number)
            return reader.report.rowsRead - read < handOut.chunkRows
          }
          try handOut.take(&reader, atEnd: !more, to: &sink)
        }
        break
      }
      let (first, second, line) = (offset..<middle, middle..<end, lastLine + 1)
      let (last, joined) = try reader.readTwoParts(
        first: { reader in try input.feed(first, firstLine: line, into: &reader) },
        second: { second.isEmpty ? nil : ({ reader in try input.feed(second, firstLine: 1, into: &reader) }, 1 << 12) })
      lastLine = joined ? last : try input.feed(second, firstLine: last + 1, into: &reader)
      offset = end
      try handOut.take(&reader, atEnd: offset >= size, to: &sink)
    }
    let report = try finish(&reader, compression: .none, options: options, tallies: handOut.tallies)
    return (report, reader.priceSources)
  }

  /// The options the one file `leg` names is read with when it streams and `accepts`
  /// its reader (its header read), naming its format when it is of JSON lines; else `nil`.
  private static func streamingOptions(
    _ leg: LegSpec, options: IngestOptions, specOverrides: [String], accepts: (FileReader) -> Bool = { _ in true }
  ) throws -> IngestOptions? {
    let fileOptions = try leg.ingestOptions(options, specOverrides: specOverrides)
    guard leg.paths.count == 1, let reader = streamingReader(path: leg.paths[0], leg: leg, options: fileOptions), accepts(reader)
    else { return nil }
    return reader.json != nil ? reader.options : fileOptions
  }

  /// Reads the file at `path` to its end with `body`, keeping `keeping` (its rows closed
  /// should `body` throw): the report `body` returns and each series' price source.
  private static func readAlone(
    _ path: String, options: IngestOptions, keeping: OpenFile.Keeping, _ body: (inout OpenFile) throws -> IngestReport
  ) throws -> (report: IngestReport, priceSources: [PriceSource]) {
    var file = try OpenFile(path: path, options: options)
    file.keeping = keeping
    do {
      let report = try body(&file)
      return (report, file.reader.priceSources)
    } catch {
      file.rows.close()
      throw error
    }
  }
}

/// Takes the series of a file `FileQuoteStream.drain` reads, numbered from 0 in the
/// order they first appear.
public protocol SeriesSink {
  /// The series numbered `series` appeared; its points follow.
  mutating func begin(_ series: Int, instrument: Instrument, field: SeriesField) throws
  /// The next points of the series numbered `series`, in ascending time after those
  /// before; `chunk` is valid during the call.
  mutating func append(_ series: Int, _ chunk: QuoteChunk) throws
}

/// How `FileQuoteStream.drain` reads a large plain file on two threads: by pairs of
/// segments of about `bytes` each, when the file has at least `minimumFileBytes`.
struct DrainSegments {
  var bytes = 2 << 20
  var minimumFileBytes = parallelThreshold
}

/// The series of a drained file handed to a sink: each one's points counted, the last
/// one held back (a later row at its time would replace it) until the file ends.
private struct SeriesHandOut: ~Copyable {
  let window: TimeWindow
  /// The most points handed out at once.
  let chunkRows: Int
  private var series: [DrainedSeries] = []
  private var block = ChunkBlock()

  init(window: TimeWindow, chunkRows: Int) {
    self.window = window
    self.chunkRows = chunkRows
  }

  /// The points taken of each series.
  var tallies: [PointTally] { series.map(\.tally) }

  /// Hands out the points of every series `reader` read so far (telling `sink` of a new
  /// one first) and drops them from its builders; `atEnd`: the file has ended, and the
  /// points held back are final.
  mutating func take(_ reader: inout FileReader, atEnd: Bool, to sink: inout some SeriesSink) throws {
    for k in reader.builders.indices {
      if k == series.count {
        series.append(DrainedSeries(tally: PointTally(window: window)))
        try sink.begin(k, instrument: reader.builders[k].series.instrument, field: reader.builders[k].series.field)
      }
      reader.builders[k].flush()
      let points = reader.builders[k].series
      var start = 0
      repeat {
        let end = min(points.count, start + chunkRows)
        block.removeAll()
        series[k].take(points, rows: start..<end, into: &block)
        start = end
        if start == points.count && atEnd, let held = series[k].held {
          block.append(held)
          series[k].held = nil
        }
        if block.count > 0 { try sink.append(k, block.chunk(0..<block.count, otherTime: reader.builders[k].keepsOtherTime, sizes: true)) }
      } while start < points.count
      reader.builders[k].dropFirst(points.count)
    }
  }
}

/// One series of a drained file: its points counted, the last one held back.
private struct DrainedSeries {
  var tally: PointTally
  var held: HeldPoint? = nil

  /// Moves the points `rows` of `series` into `block` as `FileQuoteStream.take` does:
  /// rows at one time collapsed to the last, outside the window dropped, the last held back.
  mutating func take(_ series: QuoteSeries, rows: Range<Int>, into block: inout ChunkBlock) {
    for r in rows {
      let kind = tally.add(series.time[r])
      guard kind != .dropped else { continue }
      if kind == .kept, let held { block.append(held) }
      held = HeldPoint(series, r)
    }
  }
}

/// One file of a `FileQuoteStream` being read.
private struct OpenFile {
  let path: String
  let compression: Compression
  var reader: FileReader
  var rows: FileRows
  var atEnd = false
  /// The builder of the series the leg takes, once known.
  var selected: Int?
  /// Builders kept until the end of the file decides between them (the leg names an
  /// instrument no series matches exactly).
  var undecided: [Int] = []
  /// The chosen series' points taken so far.
  var tally: PointTally
  /// The builder of the series the leg takes, decided by a scan of the file before it
  /// appeared here.
  var decided: Int? = nil
  /// Which series' points are kept: the leg's, every series' (`drain`) or none (a scan
  /// that counts every series).
  var keeping = Keeping.leg
  /// The file holds several instruments the leg could take, and it names none.
  var ambiguous = false

  enum Keeping {
    case leg, every, nothing
  }

  init(path: String, options: IngestOptions) throws {
    self.path = path
    tally = PointTally(window: options.window ?? TimeWindow())
    if ParquetReader.reads(path: path, format: options.format) {
      let file = try MappedFile(path: path, readAhead: false)
      let table = try ParquetTableSource(file.bytes, path: path, options: options)
      compression = .none
      reader = FileReader(path: path, options: table.options, expectedRows: 1 << 12)
      try table.readHeader(into: &reader)
      rows = .parquet(table.rows(0..<table.footer.metadata.rowGroups.count, firstLine: 2, reader: reader, readsAhead: true), file)
    } else {
      compression = try Compression.detect(path: path)
      var options = options
      if let json = try JSONSources.format(path: path, size: try FileSource(path: path).size, named: options.format) { options.format = json }
      reader = FileReader(path: path, options: options, expectedRows: 1 << 12)
      rows = .lines(LineReader(source: try Compression.open(path: path, limit: options.decompression), maxLineBytes: options.maxLineBytes))
    }
  }

  var selectedBuilder: SeriesBuilder? { selected.map { reader.builders[$0] } }

  /// Points of the chosen series read and not yet taken.
  var pendingPoints: Int { selected.map { reader.builders[$0].pendingPoints - taken } ?? 0 }
  /// The chosen series' points at the front of its builder already taken, dropped
  /// before more lines are read.
  var taken = 0

  /// Decides what the new series at `k` is to the leg, by the rules of `LegSpec.pick`:
  /// the series the leg names exactly is chosen at once, as is the first series of a leg
  /// that names none (a second one is the error `pick` gives); one that might be taken
  /// if no exact match follows is kept until the end; any other is only counted.
  mutating func sort(builder k: Int, leg: LegSpec, window: TimeWindow) throws {
    if keeping == .every { return }
    if keeping == .nothing || decided != nil {
      if selected == nil && k == decided {
        selected = k
      } else {
        reader.builders[k].stopKeeping(window: window)
      }
      return
    }
    if reader.json != nil { return sortRanked(builder: k, leg: leg, window: window) }
    let series = reader.builders[k].series.instrument
    guard let named = leg.instrument else {
      if selected == nil {
        selected = k
      } else if (try? leg.pick(from: reader.builders.map { ($0.series.instrument, $0.series.field) }, path: path)) == nil {
        // Several instruments and none named: the whole read's error, once the file is scanned.
        ambiguous = true
      }
      return
    }
    if selected == nil && series == named {
      selected = k
      for other in undecided { reader.builders[other].stopKeeping(window: window) }
      undecided = []
    } else if selected == nil && (series.symbol == named.symbol || series.symbol == "unknown") {
      undecided.append(k)
    } else {
      reader.builders[k].stopKeeping(window: window)
    }
  }

  /// `sort` for a JSON source, whose series the whole read lists ranked
  /// (`JSONSeriesSink.order`): a series is chosen at once only when no later one can rank
  /// before it (the leg's instrument exactly, of the leg's field or else price, and of
  /// the best kind of price the file can hold); one the leg may take is kept undecided.
  private mutating func sortRanked(builder k: Int, leg: LegSpec, window: TimeWindow) {
    let series = reader.builders[k].series
    guard selected == nil else { return reader.builders[k].stopKeeping(window: window) }
    let best = series.field != .price ? 2 : reader.keepsBookDepth ? 0 : 1
    if let named = leg.instrument, series.instrument == named, series.field == leg.field ?? .price,
      reader.json!.sink.kind(k, in: reader.builders) == best
    {
      selected = k
      for other in undecided { reader.builders[other].stopKeeping(window: window) }
      undecided = []
    } else if leg.instrument.map({ series.instrument.symbol == $0.symbol || series.instrument.symbol == "unknown" }) ?? true {
      undecided.append(k)
    } else {
      reader.builders[k].stopKeeping(window: window)
    }
  }

  /// Points kept of the series not yet decided.
  var undecidedPoints: Int { undecided.reduce(0) { $0 + reader.builders[$1].pendingPoints } }

  /// Takes the builder `chosen`, whose series `LegSpec.pick` chose from a scan of the
  /// whole file: now if it was kept, else when it appears; the others stop keeping.
  mutating func decide(_ chosen: Int) {
    decided = chosen
    selected = undecided.contains(chosen) ? chosen : nil
    for other in undecided where other != selected { reader.builders[other].stopKeeping(window: tally.window) }
    undecided = []
  }

  /// At the end of the file, chooses among the series kept undecided as `LegSpec.pick`
  /// does, or throws its error when none is the leg's.
  mutating func choose(leg: LegSpec) throws {
    let chosen = try pick(leg: leg)
    decide(chosen)
    // Every series `pick` may take was kept undecided.
    selected = chosen
  }

  /// The builder of the series `LegSpec.pick` takes for `leg` from the series read so far,
  /// listed as the whole read lists them.
  func pick(leg: LegSpec) throws -> Int {
    let order = reader.seriesOrder
    let series = order.map { (reader.builders[$0].series.instrument, reader.builders[$0].series.field) }
    return order[try leg.pick(from: series, path: path, rowsRead: reader.report.rowsRead).0]
  }
}

/// Where a file's rows come from: its lines, or the row groups of a Parquet file (kept
/// mapped while they are read).
private enum FileRows {
  case lines(LineReader)
  case parquet(ParquetRowFeed, MappedFile)

  mutating func close() {
    if case .lines(var lines) = self { lines.close() }
  }
}

/// A point held by value across chunks and files.
private struct HeldPoint {
  var time: Int64
  var otherTime: Int64
  var bid: Double
  var ask: Double
  var bidSize: Double
  var askSize: Double

  /// The point at `row` of `series`.
  init(_ series: QuoteSeries, _ row: Int) {
    time = series.time[row]
    otherTime = series.otherTime.isEmpty ? 0 : series.otherTime[row]
    bid = series.bid[row]
    ask = series.ask[row]
    bidSize = series.bidSize[row]
    askSize = series.askSize[row]
  }
}

extension ChunkBlock {
  fileprivate mutating func append(_ point: HeldPoint) {
    append(time: point.time, otherTime: point.otherTime, bid: point.bid, ask: point.ask, bidSize: point.bidSize, askSize: point.askSize)
  }
}
