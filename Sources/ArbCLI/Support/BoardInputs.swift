import ArbCore
import ArbIngest
import CHeap
import Foundation

/// The inputs of `arbkit board`: leg specs naming their instrument
/// (`VENUE:MARKET:SYMBOL=PATH[@FORMAT]`), and files, stores or folders whose rows name
/// their own venue and symbol (Tardis, REST snapshots, cryptofeed, order-book lines), of
/// which every price series is a leg. Series of one instrument from several files (days
/// of one recording) are joined in time order.
///
/// Every leg's instrument is known before its quotes are read (`resolve`), so that the
/// board groups them first and opens each group's legs as its row is worked on (`open`).
struct BoardInputs {
  /// Legs in input order: named legs first, then the other inputs' series by first appearance.
  var legs: [Leg] = []
  /// Instruments given more than once, of which the first was kept (and never opened).
  var duplicates: [Instrument] = []
  /// Entries of a folder that were not read (a FIFO, a device), with why.
  var skipped: [String]
  let ingest: IngestFlags
  /// Every leg's stream yields its quotes' sizes, and a file that cannot stream is read
  /// whole with its books' depth (`--size`).
  let sizes: Bool
  /// Quotes a file leg is parsed ahead by.
  let chunkRows: Int
  /// The row accounting of each input for the warnings: named legs (once opened), then
  /// the files and stores.
  private var reports: [() -> [IngestReport]] = []
  /// The temporary stores the files whose rows name their instruments were streamed
  /// into, kept until the board is done.
  private var spills: [SourceSpill] = []

  init(ingest: IngestFlags, sizes: Bool, chunkRows: Int, skipped: [String]) {
    (self.ingest, self.sizes, self.chunkRows, self.skipped) = (ingest, sizes, chunkRows, skipped)
  }

  /// Names that are not data files when a folder is expanded.
  static func isDataFile(_ name: String) -> Bool {
    !name.hasPrefix(".") && !name.hasSuffix(".md") && !name.hasSuffix(".txt") && !name.hasSuffix(".rejected.csv")
      && !name.hasSuffix(".meta.json")
  }

  /// The files of `path`: itself, or a folder's data files in name order (a store is
  /// one input; subfolders that are not stores are not entered). Entries that
  /// are neither regular files nor stores (a FIFO would block the read until a writer
  /// comes) are not read: each is a note in `skipped`.
  static func expand(_ path: String, skipped: inout [String]) throws -> [String] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
      !Store.isStore(path: path)
    else { return [path] }
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
      throw FileError.unreadable(path: path, reason: "cannot list the folder")
    }
    let folder = path.hasSuffix("/") ? path : path + "/"
    var files: [String] = []
    for file in names.sorted().filter(isDataFile).map({ folder + $0 }) {
      var info = stat()
      guard stat(file, &info) == 0 else { continue }
      switch info.st_mode & S_IFMT {
      case S_IFREG: files.append(file)
      case S_IFDIR: if Store.isStore(path: file) { files.append(file) }
      case S_IFIFO: skipped.append("\(file) is a FIFO, not a data file; skipped")
      default: skipped.append("\(file) is not a regular file; skipped")
      }
    }
    return files
  }

  /// Resolves every input to its legs, named before their quotes are read. Named specs
  /// are legs as for `premium --leg`, opened when their row is worked on; a store's
  /// series of the wanted field (`#FIELD`, `price` by default) are legs from its
  /// manifest; another regular file is streamed into a temporary store (`SourceSpill`,
  /// in the system's temporary folder), whose series are legs as a store's are, so that
  /// memory does not grow with it; a pipe, a file a store cannot hold (book and last
  /// prices of one instrument), or any file when the temporary folder cannot hold the
  /// spill, is read whole. Each file gives one leg per instrument (the first
  /// series of the field of each, the book before last prices). An instrument found in
  /// several files or stores (days of one recording) is streamed from one after another
  /// (`JoinedQuoteStream`, an overlap found here from their first and last times), or
  /// joined in memory with `sort`, when one was read whole or a window cuts a store's.
  /// With `sizes` (`--size`), every stream yields its quotes' sizes, and a file that
  /// cannot stream (a book with depth among them) is read whole, keeping its depth.
  ///
  /// - Throws: ingest and store errors, or `UsageError` for a file that does not name
  ///   the venue and symbol of its rows.
  static func resolve(_ specs: [LegSpec], ingest: IngestFlags, sizes: Bool, chunkRows: Int) throws -> BoardInputs {
    let named = specs.filter { $0.instrument != nil }
    var listed: [(path: String, spec: LegSpec)] = []
    var skipped: [String] = []
    for spec in specs where spec.instrument == nil {
      for path in spec.paths { listed += try expand(path, skipped: &skipped).map { ($0, spec) } }
    }
    let overrides = ingest.specOverrides
    let inputList = listed
    let stores = try inputList.map { input in try Store.isStore(path: input.path) ? Store.open(path: input.path) : nil }
    let files = inputList.indices.filter { stores[$0] == nil }
    let options = LoadedLegs.concurrentOptions(ingest.options, inputs: files.count)
    let read = try concurrently(files.count) { k in
      let input = try FileInput(
        inputList[files[k]].path, spec: inputList[files[k]].spec, options: options, specOverrides: overrides, chunkRows: chunkRows, sizes: sizes)
      // The file's buffers are freed, but the spill's records made after them keep the heap
      // from shrinking: without this, memory grows by about half a MiB a file.
      arb_heap_release_free()
      return input
    }
    var inputs = BoardInputs(ingest: ingest, sizes: sizes, chunkRows: chunkRows, skipped: skipped)
    let streamed: StoreColumns = sizes ? .all : .skippingSizesAndOtherClock
    inputs.spills = read.compactMap(\.spill)
    inputs.legs = named.indices.map { k in Leg(instrument: named[k].instrument!, source: .named(named[k], report: k)) }
    inputs.reports = Array(repeating: { [] }, count: named.count)
    // Each input's series of the wanted field, one per instrument, grouped by instrument.
    var parts: [Instrument: [(piece: Piece, path: String)]] = [:]
    var order: [Instrument] = []
    var unclaimed = read[...]
    for (input, store) in zip(inputList, stores) {
      let wanted = input.spec.field ?? .price
      let pieces: [Piece]
      if let store {
        let fileOptions = try input.spec.ingestOptions(ingest.options, specOverrides: overrides)
        guard fileOptions.clock == store.clock else {
          throw StoreError.clockMismatch(store: store.path, stored: store.clock, requested: fileOptions.clock)
        }
        inputs.reports.append { [store.sourceReport()] }
        let window = fileOptions.window ?? TimeWindow()
        pieces = store.series.filter { $0.field == wanted }.map { series in .stored(store, series, window: window, columns: fileOptions.storeColumns) }
      } else {
        let file = unclaimed.popFirst()!
        inputs.reports.append { [file.report] }
        switch file {
        case .whole(let file): pieces = file.series.filter { $0.field == wanted }.map { Piece.series($0) }
        case .spilled(let spill):
          // The window was applied as the file was read.
          let (store, columns) = (spill.store!, try input.spec.ingestOptions(ingest.options, specOverrides: overrides).storeColumns)
          pieces = store.series.filter { $0.field == wanted }.map { .stored(store, $0, window: TimeWindow(), columns: columns) }
        }
      }
      var seen: Set<Instrument> = []
      for piece in pieces where seen.insert(piece.instrument).inserted {
        let instrument = piece.instrument
        if instrument.venue == "unknown" || instrument.symbol == "unknown" {
          throw UsageError("\(input.path) does not name the venue and symbol of its rows; give it as VENUE:MARKET:SYMBOL=\(input.path)")
        }
        if parts[instrument] == nil { order.append(instrument) }
        parts[instrument, default: []].append((piece, input.path))
      }
    }
    for instrument in order {
      let pieces = parts[instrument]!
      guard pieces.count > 1 else {
        inputs.legs.append(Leg(instrument: instrument, source: pieces[0].piece.source(columns: streamed)))
        continue
      }
      // Several inputs of one instrument: streamed one after another when every one is a
      // store's series (a file was streamed into one), else joined in memory; in time order.
      // (A window that cuts a store's series leaves its first and last times to be read.)
      let stored = pieces.compactMap { piece -> (part: JoinedQuoteStream.Part, series: Store.Series)? in
        guard case .stored(let store, let series, let window, _) = piece.piece, window == TimeWindow() else { return nil }
        return (({ store.stream(series, window: window, columns: streamed) }, piece.path), series)
      }
      if stored.count == pieces.count && !ingest.options.sort {
        // An overlap stops the run here, before any quote is read, as the join in memory does.
        let collapsed = try JoinedQuoteStream.check(stored.map { ($0.series.firstTime, $0.series.lastTime, $0.part.path) })
        let rows = stored.reduce(0) { $0 + $1.series.rows } - collapsed
        inputs.legs.append(Leg(instrument: instrument, source: .joined(stored.map(\.part), rows: rows)))
        continue
      }
      let series = try pieces.map { (series: try $0.piece.read(), path: $0.path) }.sorted {
        ($0.series.time.first ?? 0) < ($1.series.time.first ?? 0)
      }
      var joined = series[0].series
      for piece in series.dropFirst() { try joined.join(piece.series, path: piece.path, sort: ingest.options.sort) }
      inputs.legs.append(Leg(instrument: instrument, source: .series(joined)))
    }
    // The first of an instrument given twice is kept.
    var kept: Set<Instrument> = []
    inputs.legs = inputs.legs.filter { leg in
      if kept.insert(leg.instrument).inserted { return true }
      inputs.duplicates.append(leg.instrument)
      return false
    }
    return inputs
  }

  /// Opens `leg` as a stream of its quotes (with their books, when read with `sizes`
  /// from a source that has them). A named leg's row accounting is reported from then on.
  ///
  /// - Throws: ingest and store errors, or `UsageError` for a named leg that holds a rate.
  mutating func open(_ leg: Leg) throws -> any QuoteStream {
    switch leg.source {
    case .series(let series): return SeriesQuoteStream(series)
    case .stored(let stream): return stream
    case .joined(let parts, _): return try JoinedQuoteStream(parts)
    case .named(let spec, let slot):
      let opened = try StreamedLegs.open([spec], ingest: ingest, sizes: sizes, chunkRows: chunkRows)
      reports[slot] = { opened.legs[0].reports }
      let stream = opened.legs[0].stream
      if stream.field.isRate { throw LegInputs.rateLeg(stream.field, leg.instrument.description) }
      return stream
    }
  }

  /// Prints the row-accounting warnings of every input read or opened, named legs first
  /// (complete for the files a leg finished when the run failed).
  func warn(_ terminal: inout Terminal) {
    for report in reports.flatMap({ $0() }) { IngestSummary.warn(report, terminal: &terminal) }
  }
}

extension BoardInputs {
  /// A leg, named before its quotes are read.
  struct Leg {
    var instrument: Instrument
    fileprivate var source: Source

    /// How many quotes it holds when known before it is read (a series in memory, a
    /// store's partitions).
    var expectedRows: Int? {
      switch source {
      case .named: nil
      case .series(let series): series.count
      case .stored(let stream): stream.expectedRows
      case .joined(_, let rows): rows
      }
    }
  }

  /// A file input: streamed into a temporary store, or read whole.
  fileprivate enum FileInput: Sendable {
    case spilled(SourceSpill)
    case whole(IngestedFile)

    /// Streams the regular file at `path` into a temporary store (`chunkRows` quotes at a
    /// time); reads it whole when it is not a regular file, when the temporary folder or a
    /// store cannot hold it (book and last prices of one instrument), or with `sizes` when
    /// it cannot stream (a store would drop the depth of its books).
    init(_ path: String, spec: LegSpec, options: IngestOptions, specOverrides: [String], chunkRows: Int, sizes: Bool) throws {
      let fileOptions = try spec.ingestOptions(options, specOverrides: specOverrides)
      var info = stat()
      let streams = try !sizes || FileQuoteStream.canStreamWithoutBooks(spec.file(path), options: options, specOverrides: specOverrides)
      if streams && stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG {
        do {
          let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
          self = .spilled(
            try SourceSpill(spec.file(path), options: options, specOverrides: specOverrides, chunkRows: chunkRows, beside: folder + "/arbkit-board"))
          return
        } catch is FileError {
          // The temporary folder cannot hold it (or the file cannot be read: the whole read says so).
        } catch is StoreError {
          // A store cannot hold it: book and last prices of one instrument.
        }
      }
      self = .whole(try Ingest.read(path: path, options: fileOptions))
    }

    var report: IngestReport {
      switch self {
      case .spilled(let spill): spill.report
      case .whole(let file): file.report
      }
    }

    var spill: SourceSpill? {
      if case .spilled(let spill) = self { spill } else { nil }
    }
  }

  fileprivate enum Source {
    /// A `VENUE:MARKET:SYMBOL=PATH` spec, and the place of its row accounting in `reports`.
    case named(LegSpec, report: Int)
    /// Read whole.
    case series(QuoteSeries)
    /// A store's series.
    case stored(StoreQuoteStream)
    /// Series of one instrument from several stores (or files streamed into them), not
    /// yet read: streamed one after another (`JoinedQuoteStream`).
    case joined([JoinedQuoteStream.Part], rows: Int)
  }

  /// One input's series of an instrument, before the inputs of one instrument are joined.
  fileprivate enum Piece {
    case series(QuoteSeries)
    case stored(Store, Store.Series, window: TimeWindow, columns: StoreColumns)

    var instrument: Instrument {
      switch self {
      case .series(let series): series.instrument
      case .stored(_, let series, _, _): series.instrument
      }
    }

    /// The piece as a leg of its own: a store's series streamed with `columns`.
    func source(columns: StoreColumns) -> Source {
      switch self {
      case .series(let series): .series(series)
      case .stored(let store, let series, let window, _): .stored(store.stream(series, window: window, columns: columns))
      }
    }

    /// The whole series, to be joined with the other pieces of its instrument.
    func read() throws -> QuoteSeries {
      switch self {
      case .series(let series): series
      case .stored(let store, let series, let window, let columns): try store.read(series, window: window, columns: columns)
      }
    }
  }
}
