#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore
import Foundation

/// `manifest.json` of a columnar cache: what each column file holds and where the
/// data came from. Keys are snake_case in the file (see docs/formats.md, "Columnar
/// cache").
struct ColumnarManifest: Codable, Equatable {
  static let formatName = "arbkit.columnar"
  static let currentVersion = 1

  var format = formatName
  var version = currentVersion
  /// Byte order of every column file: always `little`.
  var byteOrder = "little"
  var rows: Int
  var firstTsUs: Int64?
  var lastTsUs: Int64?
  var sources: [Source]
  var series: [Series]

  /// One file the cache was converted from, with its stamp and row accounting.
  struct Source: Codable, Equatable {
    var path: String
    var size: Int
    var mtimeNs: Int64
    /// `xxh64:` and 16 hex digits, over the file's bytes as stored (compressed or not).
    var checksum: String
    var format: String
    var rowsRead: Int
    var rowsAccepted: Int
    var rowsRejected: Int
    var rowsCollapsed: Int
    var rejected: [Rejection]
  }

  struct Rejection: Codable, Equatable {
    var kind: String
    var count: Int
  }

  /// One `QuoteSeries`: its identity and its non-empty columns.
  struct Series: Codable, Equatable {
    /// Index into `sources`.
    var source: Int
    var venue: String
    var market: String
    var symbol: String
    var field: String
    var priceSource: String
    var clock: String
    var rows: Int
    var firstTsUs: Int64?
    var lastTsUs: Int64?
    var columns: [Column]
  }

  /// One column file: `name` is the `QuoteSeries` column, `file` is relative to the
  /// cache folder, `dtype` is numpy's spelling (`<i8`, `<f8`).
  struct Column: Codable, Equatable {
    var name: String
    var file: String
    var dtype: String
  }

  /// The manifest's bytes: pretty-printed JSON with sorted keys.
  func encoded() throws -> Data {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(self)
  }

  /// Reads the manifest at `path`, checking the format name and version first.
  static func load(path: String) throws -> ColumnarManifest {
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
      throw FileError.unreadable(path: path, reason: "cannot read the manifest")
    }
    struct Header: Decodable { var format: String?; var version: Int? }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    guard let header = try? decoder.decode(Header.self, from: data) else {
      throw CacheError.corrupt(file: path, reason: "not a JSON object")
    }
    guard header.format == formatName else {
      throw CacheError.corrupt(file: path, reason: "format is '\(header.format ?? "missing")', expected '\(formatName)'")
    }
    guard header.version == currentVersion else {
      throw CacheError.unsupportedVersion(file: path, found: header.version ?? 0, supported: currentVersion)
    }
    let manifest: ColumnarManifest
    do { manifest = try decoder.decode(ColumnarManifest.self, from: data) } catch {
      throw CacheError.corrupt(file: path, reason: "manifest does not match version \(currentVersion): \(describe(error))")
    }
    if let problem = manifest.problem() { throw CacheError.corrupt(file: path, reason: problem) }
    return manifest
  }

  /// The most rows a column file can hold: `rows × 8` bytes must be an `Int`.
  static let maxRows = Int.max / 8

  /// The first field of the manifest that no cache written by `arbkit convert` has,
  /// named by its key path (`series.0.rows`), or `nil`: counts that are negative or
  /// whose sums overflow, a series' unknown market, price source, field or clock, a
  /// source index out of range, a column file outside the cache. Checked before any
  /// column file is opened; each file's size is checked against `rows` before it is
  /// mapped (`StoredColumn.read`).
  func problem() -> String? {
    func count(_ key: String, _ value: Int, max: Int = ColumnarManifest.maxRows) -> String? {
      (0...max).contains(value) ? nil : "'\(key)' is \(value), expected 0 to \(max)"
    }
    // Counts are summed into the report: each is at most its source's rows read, and
    // the rows read of all sources add up without overflow.
    var total = 0
    for (k, source) in sources.enumerated() {
      let key = "sources.\(k)"
      if let problem = count("\(key).size", source.size, max: .max) ?? count("\(key).rows_read", source.rowsRead, max: .max - total)
        ?? count("\(key).rows_accepted", source.rowsAccepted, max: source.rowsRead)
        ?? count("\(key).rows_rejected", source.rowsRejected, max: source.rowsRead - source.rowsAccepted)
        ?? count("\(key).rows_collapsed", source.rowsCollapsed, max: source.rowsAccepted)
      {
        return problem
      }
      total += source.rowsRead
      var rejected = 0
      for (r, rejection) in source.rejected.enumerated() {
        if let problem = count("\(key).rejected.\(r).count", rejection.count, max: source.rowsRejected - rejected) { return problem }
        rejected += rejection.count
      }
    }
    var seriesRows = 0
    for (k, entry) in series.enumerated() {
      let key = "series.\(k)"
      if let problem = count("\(key).rows", entry.rows) { return problem }
      seriesRows = min(seriesRows + entry.rows, Self.maxRows + 1)
      if !sources.indices.contains(entry.source) { return "'\(key).source' is \(entry.source), expected an index into the \(sources.count) sources" }
      let words: [(String, String, [String])] = [
        ("market", entry.market, MarketKind.allCases.map(\.rawValue)), ("price_source", entry.priceSource, PriceSource.allCases.map(\.rawValue)),
        ("field", entry.field, SeriesField.allCases.map(\.rawValue)), ("clock", entry.clock, Clock.allCases.map(\.rawValue)),
      ]
      for (name, value, known) in words where !known.contains(value) {
        return "'\(key).\(name)' is '\(value)', expected one of \(known.joined(separator: ", "))"
      }
      for (c, column) in entry.columns.enumerated() where column.file.hasPrefix("/") || column.file.split(separator: "/").contains("..") {
        return "'\(key).columns.\(c).file' is '\(column.file)', outside the cache folder"
      }
    }
    if seriesRows != rows { return "'rows' is \(rows), the series hold \(seriesRows > Self.maxRows ? "more" : "\(seriesRows)")" }
    return nil
  }

  private static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    switch error {
    case .keyNotFound(let key, let context):
      return "missing key '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'"
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      return "bad value at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
    @unknown default:
      return "\(error)"
    }
  }
}

extension ColumnarManifest.Source {
  /// The stamp of the file at `path` now: size, modification time and checksum.
  init(stamping path: String, report: IngestReport) throws {
    let file = try MappedFile(path: path)
    let stamp = try Self.fileStat(path)
    self.init(
      path: Self.absolute(path), size: file.count, mtimeNs: stamp.mtimeNs, checksum: file.withBytes(Self.checksum),
      format: report.format, rowsRead: report.rowsRead, rowsAccepted: report.rowsAccepted,
      rowsRejected: report.rowsRejected, rowsCollapsed: report.rowsCollapsed,
      rejected: report.rejectedByKind.map { ColumnarManifest.Rejection(kind: $0.kind, count: $0.count) })
  }

  /// What changed in the source since the cache was written: `nil` when it is the same
  /// (same size and mtime, or same checksum). Throws `FileError.missing` when it is gone.
  func change() throws -> String? {
    let now = try Self.fileStat(path)
    if now.size != size { return "size \(size) -> \(now.size) bytes" }
    if now.mtimeNs == mtimeNs { return nil }
    let found = try MappedFile(path: path).withBytes(Self.checksum)
    return found == checksum ? nil : "checksum \(checksum) -> \(found)"
  }

  static func checksum(_ bytes: UnsafeRawBufferPointer) -> String {
    let hex = String(XXHash64.hash(bytes), radix: 16)
    return "xxh64:" + String(repeating: "0", count: 16 - hex.count) + hex
  }

  private static func fileStat(_ path: String) throws(FileError) -> (size: Int, mtimeNs: Int64) {
    var info = stat()
    guard stat(path, &info) == 0 else {
      let code = errno
      throw code == ENOENT || code == ENOTDIR ? .missing(path: path) : .unreadable(path: path, reason: String(cString: strerror(code)))
    }
    return (Int(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
  }

  private static func absolute(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}

/// A columnar cache that cannot be used as it is.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A source file changed after the cache was written.
  case stale(cache: String, source: String, change: String)
  /// A manifest or column file is damaged: truncated, wrong size, values not as recorded.
  case corrupt(file: String, reason: String)
  /// The manifest was written by another version of the layout.
  case unsupportedVersion(file: String, found: Int, supported: Int)
  /// The series were ordered by another clock than the one asked for.
  case clockMismatch(cache: String, cached: Clock, requested: Clock)

  public var description: String {
    switch self {
    case .stale(let cache, let source, let change):
      "\(cache): error: stale cache, source \(source) changed since it was converted (\(change)); run 'arbkit convert' again"
    case .corrupt(let file, let reason):
      "\(file): error: corrupt cache, \(reason); run 'arbkit convert' again"
    case .unsupportedVersion(let file, let found, let supported):
      "\(file): error: cache layout version \(found), this arbkit reads version \(supported); run 'arbkit convert' again"
    case .clockMismatch(let cache, let cached, let requested):
      "\(cache): error: the cache is ordered by the \(cached.rawValue) clock, --clock \(requested.rawValue) needs a cache converted with it"
    }
  }
}
