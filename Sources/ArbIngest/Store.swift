import ArbCore
import Foundation

/// A store (`arbkit convert`): series partitioned by UTC day into raw column files that
/// are memory-mapped instead of parsed (layout: docs/formats.md, "Store").
///
/// `open` reads `store.json` and checks the sources; a series is then read whole
/// (`read(_:window:columns:)`) or streamed a chunk at a time (`stream(_:window:columns:)`),
/// opening only the partitions that overlap the window.
public struct Store: Sendable {
  /// The `format` an `IngestReport` of a store shows.
  public static let reportFormat = "store"

  /// The store folder as the caller named it.
  public let path: String
  /// The clock every series is ordered by.
  public let clock: Clock
  /// Every series, in the order they were first converted.
  public let series: [Series]
  /// Notes that did not stop the opening (a source file that is gone).
  public let warnings: [String]
  let manifest: StoreManifest

  /// One series of a store (instrument and field).
  public struct Series: Sendable {
    public let instrument: Instrument
    public let field: SeriesField
    public let priceSource: PriceSource
    public let clock: Clock
    /// Quotes in all its partitions.
    public let rows: Int
    public let firstTime: Int64?
    public let lastTime: Int64?
    /// Ascending in time, one per UTC day that has quotes.
    public let partitions: [Partition]
    /// The stored columns (`time`, `bid`, `ask`, and those of `other_time`, `bid_size`,
    /// `ask_size`, `funding_interval` the source had).
    public let columns: [String]
  }

  /// One partition: a series' quotes of one UTC day.
  public struct Partition: Sendable {
    /// `YYYY-MM-DD`.
    public let day: String
    /// The partition's folder.
    public let path: String
    public let rows: Int
    public let firstTime: Int64
    public let lastTime: Int64
    /// The source file it was converted from.
    public let source: String
  }

  /// `path` is a folder holding a `store.json`.
  public static func isStore(path: String) -> Bool {
    var isFolder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
      && FileManager.default.fileExists(atPath: path + "/" + StoreManifest.fileName)
  }

  /// Opens the store in `path`: reads and checks `store.json`, and checks that every
  /// source is as it was converted (size, then checksum when its mtime changed). A
  /// source that is gone is a warning (the store holds all its data).
  /// - Throws: `StoreError.stale` for a changed source, `StoreError.corrupt` or
  ///   `.unsupportedVersion` for a damaged or other-version `store.json`; `FileError`.
  public static func open(path: String) throws -> Store {
    let manifest = try StoreManifest.load(path: path + "/" + StoreManifest.fileName)
    var warnings: [String] = []
    for source in manifest.sources {
      do {
        if let change = try source.change() { throw StoreError.stale(store: path, source: source.path, change: change) }
      } catch FileError.missing {
        warnings.append("source \(source.path) is missing; the store is used as it is")
      }
    }
    let clock = Clock(rawValue: manifest.clock)!  // checked by StoreManifest.problem()
    let series = manifest.series.map { entry in
      Series(
        instrument: Instrument(venue: entry.venue, market: MarketKind(rawValue: entry.market)!, symbol: entry.symbol),
        field: SeriesField(rawValue: entry.field)!, priceSource: PriceSource(rawValue: entry.priceSource)!, clock: clock,
        rows: entry.rows, firstTime: entry.partitions.first?.firstTsUs, lastTime: entry.partitions.last?.lastTsUs,
        partitions: entry.partitions.map { p in
          Partition(
            day: p.day, path: path + "/" + entry.folder + "/" + p.day, rows: p.rows, firstTime: p.firstTsUs, lastTime: p.lastTsUs,
            source: manifest.sources[p.source].path)
        }, columns: entry.columns)
    }
    return Store(path: path, clock: clock, series: series, warnings: warnings, manifest: manifest)
  }

  /// Every column file of every partition.
  public var columnFiles: [String] {
    series.flatMap { s in s.partitions.flatMap { p in s.columns.compactMap(StoreColumn.named).map { p.path + "/" + $0.fileName } } }
  }

  /// A stream over the quotes of `series` in `window`: chunks are views into the mapped
  /// column files, and only the partitions that overlap the window are opened.
  public func stream(_ series: Series, window: TimeWindow = TimeWindow(), columns: StoreColumns = .all) -> StoreQuoteStream {
    StoreQuoteStream(series, window: window, columns: columns)
  }

  /// The quotes of `series` in `window`, copied into a `QuoteSeries` (the columns
  /// `columns` leaves out are empty).
  /// - Throws: `StoreError.corrupt` naming the damaged file; `FileError`.
  /// - Complexity: O(rows in the window), reading only the partitions that overlap it.
  public func read(_ series: Series, window: TimeWindow = TimeWindow(), columns: StoreColumns = .all) throws -> QuoteSeries {
    var whole = QuoteSeries(instrument: series.instrument, priceSource: series.priceSource, field: series.field, clock: series.clock)
    var lastTime: Int64? = nil
    for partition in series.partitions where window.overlaps(first: partition.firstTime, last: partition.lastTime) {
      let opened = try OpenedPartition(series, partition, columns: columns, readAhead: true)
      let time = opened.values(Int64.self, "time")
      let rows = window.rows(of: time)
      try opened.checkAscending(time[rows], after: lastTime)
      lastTime = time[rows].last ?? lastTime
      whole.time += time[rows]
      for name in opened.columns where name != "time" {
        switch name {
        case "other_time": whole.otherTime += opened.values(Int64.self, name)[rows]
        case "funding_interval": whole.fundingInterval += opened.values(Int64.self, name)[rows]
        case "bid": whole.bid += opened.values(Double.self, name)[rows]
        case "ask": whole.ask += opened.values(Double.self, name)[rows]
        case "bid_size": whole.bidSize += opened.values(Double.self, name)[rows]
        default: whole.askSize += opened.values(Double.self, name)[rows]
        }
      }
    }
    return whole
  }

  /// The row accounting of the store's sources as they were converted (read, accepted,
  /// rejected, collapsed), and the warnings of `open`: the report of a store.
  public func sourceReport() -> IngestReport {
    var report = IngestReport(path: path, format: Self.reportFormat)
    report.warnings = warnings
    for source in manifest.sources {
      report.rowsRead += source.rowsRead
      report.rowsAccepted += source.rowsAccepted
      report.rowsRejected += source.rowsRejected
      report.rowsCollapsed += source.rowsCollapsed
      for rejection in source.rejected { report.addRejections(kind: rejection.kind, count: rejection.count) }
    }
    return report
  }

  /// Every series in `window`, with a report of the sources' row accounting: what
  /// `Ingest.read` gives for a store. Stored quotes outside the window are counted as
  /// `rowsOutsideWindow`.
  /// - Throws: `StoreError.clockMismatch` when `clock` is not the store's; as `read(_:window:columns:)`.
  public func read(clock: Clock, window: TimeWindow = TimeWindow(), columns: StoreColumns = .all) throws -> IngestedFile {
    guard clock == self.clock else { throw StoreError.clockMismatch(store: path, stored: self.clock, requested: clock) }
    var report = sourceReport()
    var all: [QuoteSeries] = []
    for entry in series {
      let quotes = try read(entry, window: window, columns: columns)
      report.rowsOutsideWindow += entry.rows - quotes.count
      report.instruments.append((quotes.instrument, quotes.field, quotes.count))
      report.note(quotes)
      all.append(quotes)
    }
    return IngestedFile(report: report, series: all)
  }
}

/// One partition opened for reading: `partition.json` checked against `store.json`,
/// each column file's size against the rows, and the first and last times against
/// `partition.json`.
struct OpenedPartition {
  let partition: Store.Partition
  /// The columns mapped, in `StoreColumn.all` order.
  let columns: [String]
  private let files: [MappedFile]

  /// - Throws: `StoreError.corrupt` naming the file; `FileError`.
  init(_ series: Store.Series, _ partition: Store.Partition, columns wanted: StoreColumns, readAhead: Bool) throws {
    self.partition = partition
    let manifestPath = partition.path + "/" + PartitionManifest.fileName
    let manifest = try PartitionManifest.load(path: manifestPath)
    if let mismatch = Self.mismatch(manifest, series, partition) { throw StoreError.corrupt(file: manifestPath, reason: mismatch) }
    self.columns = series.columns.filter(wanted.includes)
    var files: [MappedFile] = []
    for name in self.columns {
      let path = partition.path + "/" + StoreColumn.named(name)!.fileName
      let size = try FileSource(path: path).size
      guard size == partition.rows * 8 else {
        let kind = size < partition.rows * 8 ? "truncated" : "too long"
        throw StoreError.corrupt(file: path, reason: "\(kind): \(size) bytes, expected \(partition.rows) rows × 8 = \(partition.rows * 8)")
      }
      let file = try MappedFile(path: path, readAhead: readAhead)
      guard file.count == size else { throw StoreError.corrupt(file: path, reason: "changed while it was read") }
      files.append(file)
    }
    self.files = files
    let time = values(Int64.self, "time")
    guard time.first == partition.firstTime, time.last == partition.lastTime else {
      throw StoreError.corrupt(
        file: timePath,
        reason: "first/last time \(time.first ?? 0)/\(time.last ?? 0) differs from partition.json's \(partition.firstTime)/\(partition.lastTime)")
    }
  }

  /// How `partition.json` disagrees with what `store.json` says of the partition, or `nil`.
  private static func mismatch(_ manifest: PartitionManifest, _ series: Store.Series, _ partition: Store.Partition) -> String? {
    let folder = StoreLayout.seriesFolder(venue: manifest.venue, market: manifest.market, symbol: manifest.symbol, field: manifest.field)
    if folder != StoreLayout.seriesFolder(series.instrument, series.field) { return "names another series, \(folder)" }
    if manifest.priceSource != series.priceSource.rawValue || manifest.clock != series.clock.rawValue { return "names another price source or clock" }
    if manifest.day != partition.day { return "names the day \(manifest.day)" }
    if manifest.rows != partition.rows { return "holds \(manifest.rows) rows, store.json \(partition.rows)" }
    if manifest.firstTsUs != partition.firstTime || manifest.lastTsUs != partition.lastTime { return "first/last time differs from store.json's" }
    let expected = series.columns.compactMap(StoreColumn.named).map { PartitionManifest.Column(name: $0.name, file: $0.fileName, dtype: $0.dtype) }
    if manifest.columns != expected { return "lists other columns than store.json" }
    return nil
  }

  var timePath: String { partition.path + "/time.i64" }

  /// The values of column `name`, valid while `self` (its mapping) is alive.
  func values<T: BitwiseCopyable>(_ type: T.Type, _ name: String) -> UnsafeBufferPointer<T> {
    let file = files[columns.firstIndex(of: name)!]
    return file.bytes.isEmpty ? UnsafeBufferPointer(start: nil, count: 0) : file.bytes.bindMemory(to: T.self)
  }

  /// Gives the pages of rows `rows` of every column back to the system.
  func release(rows: Range<Int>) {
    for file in files { file.release((rows.lowerBound * 8)..<(rows.upperBound * 8)) }
  }

  /// Checks that `times` ascend without repeats, after `previous` (the last time of the
  /// series before them).
  /// - Throws: `StoreError.corrupt` naming the time file.
  func checkAscending(_ times: Slice<UnsafeBufferPointer<Int64>>, after previous: Int64?) throws {
    var last = previous
    for k in times.indices {
      if let last, times[k] <= last {
        throw StoreError.corrupt(file: timePath, reason: "row \(k) has time \(times[k]), not after the time before it, \(last)")
      }
      last = times[k]
    }
  }
}
