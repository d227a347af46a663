#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore
import Foundation

#if _endian(big)
#error("the columnar cache layout is little-endian")
#endif

/// The columnar cache: ingested series written as raw column files that open with
/// `mmap` instead of being parsed again.
///
/// Layout of a cache folder (documented in docs/formats.md, "Columnar cache"):
/// `manifest.json`, and per series `k` a folder `s<k>/` holding one file per non-empty
/// column, `time.i64`, `other_time.i64`, `bid.f64`, `ask.f64`, `bid_size.f64`,
/// `ask_size.f64`: little-endian `Int64`/`Float64` values, nothing else, so that a
/// column starts at offset 0 (8-byte aligned) and is `rows × 8` bytes long.
public enum ColumnarStore {
  /// The `format` an `IngestReport` of a cache shows.
  public static let reportFormat = "columnar"

  /// Writes `files` (each read from its `report.path`) as a cache in `folder`.
  ///
  /// The cache is built in a new hidden folder beside `folder` and renamed into place,
  /// replacing an earlier cache in `folder` (see `checkTarget`); nothing that this
  /// call did not create, or that is not part of the cache it replaces, is removed.
  /// - Throws: `FileError` when a source cannot be stamped or a file cannot be written.
  public static func write(_ files: [IngestedFile], to folder: String) throws {
    try checkTarget(folder)
    let fileManager = FileManager.default
    let partial = try makeTemporaryFolder(beside: folder)
    var placed = false
    defer { if !placed { try? fileManager.removeItem(atPath: partial) } }
    var sources: [ColumnarManifest.Source] = []
    var entries: [ColumnarManifest.Series] = []
    for (k, file) in files.enumerated() {
      sources.append(try ColumnarManifest.Source(stamping: file.report.path, report: file.report))
      for series in file.series {
        let name = "s\(entries.count)"
        try makeFolder(partial + "/" + name)
        var columns: [ColumnarManifest.Column] = []
        for column in StoredColumn.all {
          let file = name + "/" + column.fileName
          guard try column.write(series, to: partial + "/" + file) else { continue }
          columns.append(ColumnarManifest.Column(name: column.name, file: file, dtype: column.dtype))
        }
        entries.append(ColumnarManifest.Series(
          source: k, venue: series.instrument.venue, market: series.instrument.market.rawValue,
          symbol: series.instrument.symbol, field: series.field.rawValue, priceSource: series.priceSource.rawValue,
          clock: series.clock.rawValue, rows: series.count, firstTsUs: series.time.first, lastTsUs: series.time.last,
          columns: columns))
      }
    }
    let manifest = ColumnarManifest(
      rows: entries.reduce(0) { $0 + $1.rows }, firstTsUs: entries.compactMap(\.firstTsUs).min(),
      lastTsUs: entries.compactMap(\.lastTsUs).max(), sources: sources, series: entries)
    let manifestBytes = try manifest.encoded()
    try manifestBytes.withUnsafeBytes { raw in try FileOutput.write(partial + "/manifest.json", bytes: raw, named: false) }
    // An earlier cache is moved aside first, and removed once the new one is in place.
    let earlier = fileManager.fileExists(atPath: folder) ? partial + ".replaced" : nil
    if let earlier, rename(folder, earlier) != 0 {
      throw FileError.unwritable(path: folder, reason: "cannot move the earlier cache aside: \(String(cString: strerror(errno)))")
    }
    guard rename(partial, folder) == 0 else {
      let reason = String(cString: strerror(errno))
      if let earlier { rename(earlier, folder) }
      throw FileError.unwritable(path: folder, reason: "cannot move the cache into place: \(reason)")
    }
    placed = true
    if let earlier { try? fileManager.removeItem(atPath: earlier) }
    let parent = open(FileOutput.folder(of: folder), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if parent >= 0 {
      fsync(parent)
      close(parent)
    }
  }

  /// Checks that a cache can be written in `folder`: its parent folder exists, and
  /// `folder` is missing, an empty folder, or a cache whose every file its manifest
  /// lists (so that replacing it removes nothing else).
  /// - Throws: `FileError.unwritable`.
  public static func checkTarget(_ folder: String) throws(FileError) {
    let target = try FileOutput.target(of: folder, named: true)
    var info = stat()
    guard stat(target, &info) == 0 else {
      try FileOutput.checkWritable(target, shown: folder)
      return
    }
    let fileManager = FileManager.default
    guard info.st_mode & S_IFMT == S_IFDIR, let names = try? fileManager.contentsOfDirectory(atPath: target) else {
      throw .unwritable(path: folder, reason: "exists and is not a columnar cache, not replacing it")
    }
    guard !names.isEmpty else { return }
    guard let manifest = try? ColumnarManifest.load(path: target + "/manifest.json") else {
      throw .unwritable(path: folder, reason: "exists and is not a columnar cache, not replacing it")
    }
    // Every file and folder of the cache, relative to it: what its manifest lists.
    let listed = manifest.series.flatMap(\.columns).map(\.file)
    let expected = Set(["manifest.json"] + listed + listed.compactMap { $0.split(separator: "/").first.map(String.init) })
    let found = (fileManager.enumerator(atPath: target)?.allObjects as? [String]) ?? []
    if let stray = found.sorted().first(where: { !expected.contains($0) }) {
      throw .unwritable(path: folder, reason: "holds '\(stray)', which is no part of the columnar cache there; not replacing it")
    }
  }

  /// `path` is a folder holding a `manifest.json`.
  public static func isStore(path: String) -> Bool {
    var isFolder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
      && FileManager.default.fileExists(atPath: path + "/manifest.json")
  }

  /// Opens the cache in `folder`: every series with its columns (all, or those of
  /// `columns`) copied out of the mapped files, and a report summing the sources' row
  /// accounting.
  ///
  /// A source that is missing is a warning in the report (the cache holds all the
  /// data); a source that changed (another size, or another checksum after its mtime
  /// changed) is an error.
  /// - Throws: `CacheError` for a stale source, a damaged or other-version cache, or a
  ///   `clock` other than the one the cache was converted with; `FileError`.
  public static func read(folder: String, clock: Clock, columns: CacheColumns = .all) throws -> IngestedFile {
    let manifest = try ColumnarManifest.load(path: folder + "/manifest.json")
    var report = IngestReport(path: folder, format: reportFormat)
    for source in manifest.sources {
      do {
        if let change = try source.change() { throw CacheError.stale(cache: folder, source: source.path, change: change) }
      } catch FileError.missing {
        report.warnings.append("source \(source.path) is missing; the cache is used as it is")
      }
      report.rowsRead += source.rowsRead
      report.rowsAccepted += source.rowsAccepted
      report.rowsRejected += source.rowsRejected
      report.rowsCollapsed += source.rowsCollapsed
      for rejection in source.rejected { report.addRejections(kind: rejection.kind, count: rejection.count) }
    }
    var series: [QuoteSeries] = []
    for entry in manifest.series {
      let loaded = try load(entry, folder: folder, columns: columns)
      guard loaded.clock == clock else { throw CacheError.clockMismatch(cache: folder, cached: loaded.clock, requested: clock) }
      report.instruments.append((loaded.instrument, loaded.field, loaded.count))
      series.append(loaded)
    }
    report.firstTime = manifest.firstTsUs
    report.lastTime = manifest.lastTsUs
    return IngestedFile(report: report, series: series)
  }

  private static func load(_ entry: ColumnarManifest.Series, folder: String, columns: CacheColumns) throws -> QuoteSeries {
    let manifestPath = folder + "/manifest.json"
    guard let market = MarketKind(rawValue: entry.market), let priceSource = PriceSource(rawValue: entry.priceSource),
      let field = SeriesField(rawValue: entry.field), let clock = Clock(rawValue: entry.clock)
    else {
      preconditionFailure("series of \(entry.venue):\(entry.market):\(entry.symbol) passed ColumnarManifest.problem() with an unknown word")
    }
    var series = QuoteSeries(
      instrument: Instrument(venue: entry.venue, market: market, symbol: entry.symbol), priceSource: priceSource,
      field: field, clock: clock)
    for column in entry.columns {
      guard let stored = StoredColumn.all.first(where: { $0.name == column.name }), stored.dtype == column.dtype else {
        throw CacheError.corrupt(file: manifestPath, reason: "unknown column '\(column.name)' of type '\(column.dtype)'")
      }
      if columns == .skippingSizesAndOtherClock && StoredColumn.sizesAndOtherClock.contains(stored.name) { continue }
      try stored.read(into: &series, from: folder + "/" + column.file, rows: entry.rows)
    }
    if entry.rows > 0 {
      for stored in StoredColumn.all where !stored.optional && !entry.columns.contains(where: { $0.name == stored.name }) {
        throw CacheError.corrupt(file: manifestPath, reason: "series of \(series.instrument) lists no '\(stored.name)' column")
      }
    }
    if series.time.first != entry.firstTsUs || series.time.last != entry.lastTsUs {
      let file = folder + "/" + (entry.columns.first { $0.name == "time" }?.file ?? "")
      throw CacheError.corrupt(file: file, reason: "first/last time \(series.time.first.map(String.init) ?? "-")/\(series.time.last.map(String.init) ?? "-") differs from the manifest's \(entry.firstTsUs.map(String.init) ?? "-")/\(entry.lastTsUs.map(String.init) ?? "-")")
    }
    return series
  }

  /// A new, empty hidden folder beside `folder`, for building a cache in.
  private static func makeTemporaryFolder(beside folder: String) throws(FileError) -> String {
    let base = folder.split(separator: "/").last.map(String.init) ?? "cache"
    var template = Array((FileOutput.folder(of: folder) + "/." + base + ".partial-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else {
      throw .unwritable(path: folder, reason: "cannot create a folder beside it: \(String(cString: strerror(errno)))")
    }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private static func makeFolder(_ path: String) throws {
    guard mkdir(path, 0o755) == 0 else {
      throw FileError.unreadable(path: path, reason: "cannot create folder: \(String(cString: strerror(errno)))")
    }
  }

}

/// One `QuoteSeries` column as the cache stores it. A new column of `QuoteSeries` is
/// stored once it is listed in `all`.
struct StoredColumn {
  enum Values {
    case int64(WritableKeyPath<QuoteSeries, [Int64]>)
    case float64(WritableKeyPath<QuoteSeries, [Double]>)
  }

  let name: String
  let values: Values
  /// May be empty in a series with rows (`other_time` of a file with one clock,
  /// `funding_interval` of anything but a Binance funding-rate series).
  var optional = false

  static var all: [StoredColumn] {
    [
      StoredColumn(name: "time", values: .int64(\.time)),
      StoredColumn(name: "other_time", values: .int64(\.otherTime), optional: true),
      StoredColumn(name: "bid", values: .float64(\.bid)),
      StoredColumn(name: "ask", values: .float64(\.ask)),
      StoredColumn(name: "bid_size", values: .float64(\.bidSize)),
      StoredColumn(name: "ask_size", values: .float64(\.askSize)),
      StoredColumn(name: "funding_interval", values: .int64(\.fundingInterval), optional: true),
    ]
  }

  /// The columns `CacheColumns.skippingSizesAndOtherClock` leaves on disk.
  static let sizesAndOtherClock: Set = ["other_time", "bid_size", "ask_size"]

  var dtype: String {
    switch values {
    case .int64: "<i8"
    case .float64: "<f8"
    }
  }

  var fileName: String {
    switch values {
    case .int64: name + ".i64"
    case .float64: name + ".f64"
    }
  }

  /// Writes the column of `series` to `path`; `false` (nothing written) when it is empty.
  func write(_ series: QuoteSeries, to path: String) throws -> Bool {
    switch values {
    case .int64(let key):
      guard !series[keyPath: key].isEmpty else { return false }
      try series[keyPath: key].withUnsafeBytes { try FileOutput.write(path, bytes: $0, named: false) }
    case .float64(let key):
      guard !series[keyPath: key].isEmpty else { return false }
      try series[keyPath: key].withUnsafeBytes { try FileOutput.write(path, bytes: $0, named: false) }
    }
    return true
  }

  /// Checks that the column file at `path` holds `rows` values (at most
  /// `ColumnarManifest.maxRows`), then maps it and copies them into `series`.
  func read(into series: inout QuoteSeries, from path: String, rows: Int) throws {
    let size = try FileSource(path: path).size
    guard size == rows * 8 else {
      let kind = size < rows * 8 ? "truncated" : "too long"
      throw CacheError.corrupt(file: path, reason: "\(kind): \(size) bytes, expected \(rows) rows × 8 = \(rows * 8)")
    }
    let file = try MappedFile(path: path)
    guard file.count == size else { throw CacheError.corrupt(file: path, reason: "changed while it was read") }
    switch values {
    case .int64(let key): series[keyPath: key] = file.withBytes { Self.copy($0, rows: rows) }
    case .float64(let key): series[keyPath: key] = file.withBytes { Self.copy($0, rows: rows) }
    }
  }

  private static func copy<T: BitwiseCopyable>(_ bytes: UnsafeRawBufferPointer, rows: Int) -> [T] {
    [T](largeCapacity: rows) { buffer in
      if rows > 0 { memcpy(buffer.baseAddress!, bytes.baseAddress!, rows * 8) }
      return rows
    }
  }
}
