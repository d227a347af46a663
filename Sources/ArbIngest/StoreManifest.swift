#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore
import Foundation

/// `store.json` of a store: its clock, the sources it was converted from, and every
/// series with its partitions. Keys are snake_case in the file (docs/formats.md,
/// "Store").
struct StoreManifest: Codable, Equatable {
  static let formatName = "arbkit.store"
  static let currentVersion = 1
  static let fileName = "store.json"

  var format = formatName
  var version = currentVersion
  /// Byte order of every column file: always `little`.
  var byteOrder = "little"
  var clock: String
  var sources: [StoreSource] = []
  var series: [StoreSeries] = []

  /// The manifest's bytes: pretty-printed JSON with sorted keys.
  func encoded() throws -> Data { try StoreJSON.encode(self) }

  /// Reads the manifest at `path`, checking the format name and version first, then
  /// every field (`problem()`).
  /// - Throws: `StoreError.corrupt`, `StoreError.unsupportedVersion`, `FileError`.
  static func load(path: String) throws -> StoreManifest {
    let manifest = try StoreJSON.load(StoreManifest.self, path: path, format: formatName, version: currentVersion)
    if let problem = manifest.problem() { throw StoreError.corrupt(file: path, reason: problem) }
    return manifest
  }

  /// The first field that no store written by `arbkit convert` has, by its key path
  /// (`series.0.partitions.1.rows`), or `nil`. Checked before any partition is opened.
  func problem() -> String? {
    func count(_ key: String, _ value: Int, max: Int = StoreJSON.maxRows) -> String? {
      (0...max).contains(value) ? nil : "'\(key)' is \(value), expected 0 to \(max)"
    }
    if Clock(rawValue: clock) == nil { return "'clock' is '\(clock)', expected local or exchange" }
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
    for (k, entry) in series.enumerated() {
      if let problem = entry.problem(key: "series.\(k)", sources: sources.count) { return problem }
    }
    let identities = series.map(\.folder)
    if Set(identities).count != identities.count { return "two series share a folder" }
    return nil
  }
}

/// One file a store was converted from: its stamp and row accounting.
struct StoreSource: Codable, Equatable {
  /// The absolute path, links resolved.
  var path: String
  var size: Int
  var mtimeNs: Int64
  /// `xxh64:` and 16 hex digits, over the file's bytes as stored (compressed or not).
  var checksum: String
  var format: String
  var rowsRead: Int
  var rowsAccepted: Int
  var rowsRejected: Int
  /// Rows collapsed into a later row of the same time, and rows of a partition that
  /// held exactly what the store already held (not stored twice).
  var rowsCollapsed: Int
  var rejected: [Rejection]

  struct Rejection: Codable, Equatable {
    var kind: String
    var count: Int
  }
}

/// One series of a store (instrument and field) and its partitions, one per UTC day.
struct StoreSeries: Codable, Equatable {
  var venue: String
  var market: String
  var symbol: String
  var field: String
  var priceSource: String
  /// The series' folder, relative to the store: `venue/market/symbol/field`, each part
  /// made safe for a file name (`StoreLayout.folderName`).
  var folder: String
  /// The columns every partition holds, in `StoreColumn.all` order; empty while the
  /// series has no partition.
  var columns: [String]
  /// Ascending by day; each starts after the one before ends.
  var partitions: [StorePartition]

  var rows: Int { partitions.reduce(0) { $0 + $1.rows } }

  func problem(key: String, sources: Int) -> String? {
    let words: [(String, String, [String])] = [
      ("market", market, MarketKind.allCases.map(\.rawValue)), ("price_source", priceSource, PriceSource.allCases.map(\.rawValue)),
      ("field", field, SeriesField.allCases.map(\.rawValue)),
    ]
    for (name, value, known) in words where !known.contains(value) {
      return "'\(key).\(name)' is '\(value)', expected one of \(known.joined(separator: ", "))"
    }
    let expected = StoreLayout.seriesFolder(venue: venue, market: market, symbol: symbol, field: field)
    if folder != expected { return "'\(key).folder' is '\(folder)', expected '\(expected)'" }
    let known = StoreColumn.all.map(\.name)
    if let unknown = columns.first(where: { !known.contains($0) }) { return "'\(key).columns' names '\(unknown)', no column of a store" }
    if columns != known.filter(columns.contains) { return "'\(key).columns' is out of order or repeats a column" }
    if !partitions.isEmpty, let missing = StoreColumn.all.first(where: { $0.required && !columns.contains($0.name) }) {
      return "'\(key).columns' lacks '\(missing.name)'"
    }
    var total = 0
    var previous: StorePartition? = nil
    for (p, partition) in partitions.enumerated() {
      let key = "\(key).partitions.\(p)"
      if partition.rows < 1 || partition.rows > StoreJSON.maxRows - total {
        return "'\(key).rows' is \(partition.rows), expected 1 to \(StoreJSON.maxRows - total)"
      }
      total += partition.rows
      if !(0..<sources).contains(partition.source) { return "'\(key).source' is \(partition.source), expected an index into the \(sources) sources" }
      if partition.firstTsUs > partition.lastTsUs { return "'\(key).first_ts_us' is after its 'last_ts_us'" }
      if StoreLayout.day(of: partition.firstTsUs) != partition.day || StoreLayout.day(of: partition.lastTsUs) != partition.day {
        return "'\(key)' holds times outside its day '\(partition.day)'"
      }
      if let previous, partition.firstTsUs <= previous.lastTsUs { return "'\(key)' starts before the partition before it ends" }
      previous = partition
    }
    return nil
  }
}

/// One partition as `store.json` lists it: a series' quotes of one UTC day.
struct StorePartition: Codable, Equatable {
  /// `YYYY-MM-DD`, the UTC day and the partition's folder name.
  var day: String
  var rows: Int
  var firstTsUs: Int64
  var lastTsUs: Int64
  /// Index into the store's `sources`: the file the partition was written from.
  var source: Int
}

/// `partition.json`, beside a partition's column files: enough to read them without
/// `store.json` (numpy.memmap with the dtype and row count given here).
struct PartitionManifest: Codable, Equatable {
  static let formatName = "arbkit.store.partition"
  static let fileName = "partition.json"

  var format = formatName
  var version = StoreManifest.currentVersion
  var venue: String
  var market: String
  var symbol: String
  var field: String
  var priceSource: String
  var clock: String
  var day: String
  var rows: Int
  var firstTsUs: Int64
  var lastTsUs: Int64
  var columns: [Column]
  /// The file the rows were converted from.
  var sources: [SourceReference]

  /// One column file: `name` is the `QuoteSeries` column, `file` its name in the
  /// partition folder, `dtype` numpy's spelling (`<i8`, `<f8`).
  struct Column: Codable, Equatable {
    var name: String
    var file: String
    var dtype: String
  }

  struct SourceReference: Codable, Equatable {
    var path: String
    var checksum: String
  }

  static func load(path: String) throws -> PartitionManifest {
    try StoreJSON.load(PartitionManifest.self, path: path, format: formatName, version: StoreManifest.currentVersion)
  }
}

/// Reading and writing the JSON files of a store.
enum StoreJSON {
  /// The most rows a column file can hold: `rows × 8` bytes must be an `Int`.
  static let maxRows = Int.max / 8

  static func encode(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value)
  }

  /// Decodes the file at `path` after checking its `format` and `version`.
  static func load<T: Decodable>(_ type: T.Type, path: String, format: String, version: Int) throws -> T {
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
      if !FileManager.default.fileExists(atPath: path) { throw FileError.missing(path: path) }
      throw FileError.unreadable(path: path, reason: "cannot read the file")
    }
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    guard let header = try? decoder.decode(Header.self, from: data) else {
      throw StoreError.corrupt(file: path, reason: "not a JSON object")
    }
    guard header.format == format else {
      throw StoreError.corrupt(file: path, reason: "format is '\(header.format ?? "missing")', expected '\(format)'")
    }
    guard header.version == version else {
      throw StoreError.unsupportedVersion(file: path, found: header.version ?? 0, supported: version)
    }
    do { return try decoder.decode(T.self, from: data) } catch {
      throw StoreError.corrupt(file: path, reason: "does not match version \(version): \(describe(error))")
    }
  }

  /// The fields every JSON file of a store starts with.
  private struct Header: Decodable {
    var format: String?
    var version: Int?
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

extension StoreSource {
  /// The stamp of the file at `path` now (size, modification time, checksum), with no
  /// row accounting yet.
  init(stamping path: String) throws {
    let file = try MappedFile(path: path, readAhead: false)
    let stamp = try Self.fileStat(path)
    self.init(
      path: Self.absolute(path), size: file.count, mtimeNs: stamp.mtimeNs, checksum: Self.checksum(file), format: "",
      rowsRead: 0, rowsAccepted: 0, rowsRejected: 0, rowsCollapsed: 0, rejected: [])
  }

  /// Takes the row accounting of `report`.
  mutating func account(_ report: IngestReport) {
    format = report.format
    rowsRead = report.rowsRead
    rowsAccepted = report.rowsAccepted
    rowsRejected = report.rowsRejected
    rowsCollapsed += report.rowsCollapsed
    rejected = report.rejectedByKind.map { Rejection(kind: $0.kind, count: $0.count) }
  }

  /// What changed in the source since the store took it: `nil` when it is the same
  /// (same size and mtime, or same checksum). Throws `FileError.missing` when it is gone.
  func change() throws -> String? {
    let now = try Self.fileStat(path)
    if now.size != size { return "size \(size) -> \(now.size) bytes" }
    if now.mtimeNs == mtimeNs { return nil }
    let found = Self.checksum(try MappedFile(path: path, readAhead: false))
    return found == checksum ? nil : "checksum \(checksum) -> \(found)"
  }

  /// The checksum of `file`, each block's pages given back once hashed: memory does not
  /// grow with the file.
  static func checksum(_ file: MappedFile) -> String {
    var released = 0
    let hash = file.withBytes { bytes in
      XXHash64.hash(bytes) { end in
        file.release(released..<end)
        released = end
      }
    }
    let hex = String(hash, radix: 16)
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

  static func absolute(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}

/// A store that cannot be used, or added to, as it is.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A source file changed after it was converted into the store.
  case stale(store: String, source: String, change: String)
  /// A manifest or column file is damaged: truncated, wrong size, values not as recorded.
  case corrupt(file: String, reason: String)
  /// The store was written by another version of the layout.
  case unsupportedVersion(file: String, found: Int, supported: Int)
  /// The store is ordered by another clock than the one asked for.
  case clockMismatch(store: String, stored: Clock, requested: Clock)
  /// A source holds quotes of a series and day that the store holds from another
  /// source with other values, or a series of another kind.
  case conflict(partition: String, source: String, reason: String)

  public var description: String {
    switch self {
    case .stale(let store, let source, let change):
      "\(store): error: stale store, source \(source) changed since it was converted (\(change)); restore it or convert into a new store"
    case .corrupt(let file, let reason):
      "\(file): error: corrupt store, \(reason); convert into a new store"
    case .unsupportedVersion(let file, let found, let supported):
      "\(file): error: store layout version \(found), this arbkit reads version \(supported); convert into a new store"
    case .clockMismatch(let store, let stored, let requested):
      "\(store): error: the store is ordered by the \(stored.rawValue) clock, reading on the \(requested.rawValue) clock needs a store converted on it"
    case .conflict(let partition, let source, let reason):
      "\(partition): error: \(source) \(reason); nothing was added"
    }
  }
}
