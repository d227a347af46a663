import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

#if canImport(Glibc)
import Glibc
#endif

// The columnar cache: a round trip gives back every column bit for bit, the byte layout
// is what docs/formats.md promises, and a changed source, a damaged file or another
// layout version is refused with the file and the reason.
@Suite("Columnar cache")
struct ColumnarStoreTests {
  /// Every fixture that reads (bad rows skipped), and the two demo recordings.
  static var sources: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: fixture(""))) ?? []
    return names.sorted().map { fixture($0) } + [Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz"), Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv")]
  }

  static func options(_ folder: TemporaryFolder) -> IngestOptions {
    var options = IngestOptions()
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.csv"
    return options
  }

  @Test func `xxh64 matches the published test vectors`() {
    let vectors: [(String, UInt64)] = [
      ("", 0xEF46_DB37_51D8_E999), ("a", 0xD24E_C4F1_A98C_6E5B), ("abc", 0x44BC_2CF5_AD77_0999),
      ("Nobody inspects the spammish repetition", 0xFBCE_A83C_8A37_8BF1),
    ]
    for (text, expected) in vectors {
      #expect(Array(text.utf8).withUnsafeBytes { XXHash64.hash($0) } == expected, "\(text)")
    }
  }

  /// A column added to `QuoteSeries` must be added to the cache too, or it would be
  /// lost on the round trip without an error.
  @Test func `the cache stores every column of QuoteSeries`() {
    let series = QuoteSeries(instrument: Instrument(venue: "v", market: .spot, symbol: "s"), priceSource: .book)
    let columns = Mirror(reflecting: series).children.compactMap { child -> String? in
      guard child.value is [Int64] || child.value is [Double], let label = child.label else { return nil }
      return label.reduce(into: "") { name, c in name += c.isUppercase ? "_" + c.lowercased() : String(c) }
    }
    #expect(columns.count >= 6)
    #expect(Set(columns) == Set(StoredColumn.all.map(\.name)))
  }

  @Test func `every series of every fixture comes back bit for bit`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var direct: [IngestedFile] = []
    for path in Self.sources {
      if let file = try? Ingest.read(path: path, options: Self.options(folder)) { direct.append(file) }
    }
    #expect(direct.count >= 20, "most fixtures read")
    #expect(direct.contains { $0.report.rowsRejected > 0 }, "a file with rejected rows is among them")
    try ColumnarStore.write(direct, to: folder.path + "/cache")
    let cached = try Ingest.read(path: folder.path + "/cache")
    let series = direct.flatMap(\.series)
    #expect(cached.series.count == series.count)
    for (a, b) in zip(series, cached.series) {
      #expect(sameColumns(a, b), "\(a.instrument)")
      #expect(a.field == b.field && a.clock == b.clock && a.fundingInterval == b.fundingInterval)
    }
    let report = cached.report
    #expect(report.format == "columnar")
    #expect(report.rowsRead == direct.reduce(0) { $0 + $1.report.rowsRead })
    #expect(report.rowsRejected == direct.reduce(0) { $0 + $1.report.rowsRejected })
    #expect(report.rowsRead == report.rowsAccepted + report.rowsRejected)
    #expect(report.rowsCollapsed == direct.reduce(0) { $0 + $1.report.rowsCollapsed })
    #expect(report.rejectedByKind.reduce(0) { $0 + $1.count } == report.rowsRejected)
    #expect(report.instruments.map(\.rows) == series.map(\.count))
    #expect(report.firstTime == direct.compactMap(\.report.firstTime).min())
    #expect(report.lastTime == direct.compactMap(\.report.lastTime).max())
    #expect(report.warnings.isEmpty)
  }

  @Test func `skipping the sizes and the other clock leaves every other column as it was`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var direct: [IngestedFile] = []
    for path in Self.sources {
      if let file = try? Ingest.read(path: path, options: Self.options(folder)) { direct.append(file) }
    }
    let funding = folder.write("BTCUSDT-fundingRate-2025-01.csv", "calc_time,funding_interval_hours,last_funding_rate\n1735689600001,8,0.0001\n1735718400003,4,-0.00002\n")
    direct.append(try Ingest.read(path: funding))
    try ColumnarStore.write(direct, to: folder.path + "/cache")
    var options = IngestOptions()
    options.cacheColumns = .skippingSizesAndOtherClock
    let partial = try Ingest.read(path: folder.path + "/cache", options: options)
    let series = direct.flatMap(\.series)
    #expect(series.contains { !$0.otherTime.isEmpty } && series.contains { !$0.fundingInterval.isEmpty }, "both clocks and funding intervals are among them")
    #expect(partial.series.count == series.count)
    for (a, b) in zip(series, partial.series) {
      #expect(b.bidSize.isEmpty && b.askSize.isEmpty && b.otherTime.isEmpty, "\(a.instrument)")
      #expect(a.time == b.time && a.fundingInterval == b.fundingInterval, "\(a.instrument)")
      #expect(a.bid.map(\.bitPattern) == b.bid.map(\.bitPattern) && a.ask.map(\.bitPattern) == b.ask.map(\.bitPattern), "\(a.instrument)")
    }
    #expect(partial.report.rowsRead == (try Ingest.read(path: folder.path + "/cache")).report.rowsRead)
  }

  @Test func `a leg of several caches keeps every column to join them`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let file = try Ingest.read(path: fixture("huobi-dm-swap_quotes_BTC-USD.csv"))
    let whole = file.series[0]
    let half = whole.count / 2
    for (name, range) in [("first", 0..<half), ("second", half..<whole.count)] {
      var part = whole
      part.time = Array(whole.time[range])
      part.otherTime = whole.otherTime.isEmpty ? [] : Array(whole.otherTime[range])
      part.bid = Array(whole.bid[range])
      part.ask = Array(whole.ask[range])
      part.bidSize = Array(whole.bidSize[range])
      part.askSize = Array(whole.askSize[range])
      try ColumnarStore.write([IngestedFile(report: file.report, series: [part])], to: folder.path + "/" + name)
    }
    var options = IngestOptions()
    options.cacheColumns = .skippingSizesAndOtherClock
    let joined = try LegSpec(parsing: folder.path + "/first," + folder.path + "/second").load(options: options).series
    #expect(whole.count > 2 && !whole.otherTime.isEmpty)
    #expect(joined.time == whole.time && joined.otherTime == whole.otherTime)
    #expect(joined.bidSize.map(\.bitPattern) == whole.bidSize.map(\.bitPattern) && joined.askSize.map(\.bitPattern) == whole.askSize.map(\.bitPattern))
  }

  @Test func `a funding-rate series keeps its signed rates and per-point intervals`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Binance fundingRate: the interval changes from 8 h to 4 h; one rate is negative.
    let path = folder.write(
      "BTCUSDT-fundingRate-2025-01.csv",
      "calc_time,funding_interval_hours,last_funding_rate\n1735689600001,8,0.00010000\n1735718400003,8,-0.00002500\n1735732800000,4,0\n")
    let direct = try Ingest.read(path: path, options: Self.options(folder))
    let interval = direct.series[0].fundingInterval
    #expect(interval == [8, 8, 4].map { Int64($0) * 3_600_000_000 })
    try ColumnarStore.write([direct], to: folder.path + "/cache")
    let cached = try Ingest.read(path: folder.path + "/cache").series[0]
    #expect(cached.field == .fundingRate && cached.fundingInterval == interval)
    #expect(cached.bid == [0.0001, -0.000025, 0] && cached.time == direct.series[0].time)
  }

  /// The layout read with plain file and JSON calls, as numpy would read it.
  @Test func `column files are raw little-endian values named in the manifest`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let source = fixture("BTCUSDT-bookTicker-2024-03-01.csv")
    let file = try Ingest.read(path: source)
    try ColumnarStore.write([file], to: folder.path + "/cache")
    let data = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/cache/manifest.json"))
    let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(manifest["format"] as? String == "arbkit.columnar" && manifest["version"] as? Int == 1)
    #expect(manifest["byte_order"] as? String == "little")
    let sources = try #require(manifest["sources"] as? [[String: Any]])
    let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
    #expect(sources[0]["size"] as? Int == bytes.count)
    #expect(sources[0]["rows_read"] as? Int == file.report.rowsRead)
    let expectedSum = bytes.withUnsafeBytes { XXHash64.hash($0) }
    #expect(sources[0]["checksum"] as? String == "xxh64:" + String(expectedSum, radix: 16).leftPadded(16))
    let entry = try #require((manifest["series"] as? [[String: Any]])?.first)
    let series = file.series[0]
    #expect(entry["rows"] as? Int == series.count && entry["venue"] as? String == series.instrument.venue)
    #expect(entry["first_ts_us"] as? Int64 == series.time.first && entry["last_ts_us"] as? Int64 == series.time.last)
    let columns = try #require(entry["columns"] as? [[String: String]])
    #expect(columns.map { $0["name"]! } == ["time", "other_time", "bid", "ask", "bid_size", "ask_size"])
    for column in columns {
      let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/cache/" + column["file"]!)))
      #expect(raw.count == series.count * 8)
      let words = (0..<series.count).map { k in (0..<8).reduce(UInt64(0)) { $0 | UInt64(raw[8 * k + $1]) << (8 * $1) } }
      switch column["name"]! {
      case "time": #expect(column["dtype"] == "<i8" && words == series.time.map { UInt64(bitPattern: $0) })
      case "other_time": #expect(column["dtype"] == "<i8" && words == series.otherTime.map { UInt64(bitPattern: $0) })
      case "bid": #expect(column["dtype"] == "<f8" && words == bits(series.bid))
      case "ask": #expect(column["dtype"] == "<f8" && words == bits(series.ask))
      case "bid_size": #expect(words == bits(series.bidSize))
      default: #expect(words == bits(series.askSize))
      }
    }
  }

  /// A copy of a fixture converted to a cache in a fresh folder.
  static func cachedCopy(_ name: String, in folder: TemporaryFolder) throws -> (source: String, cache: String) {
    let source = folder.write(name, try Data(contentsOf: URL(fileURLWithPath: fixture(name))))
    let cache = folder.path + "/cache"
    try ColumnarStore.write([try Ingest.read(path: source)], to: cache)
    return (source, cache)
  }

  static func setModificationTime(_ path: String, seconds: Int) {
    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
  }

  @Test func `a source that changed makes the cache stale; a touched one does not`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (source, cache) = try Self.cachedCopy("BTCUSDT-bookTicker-2024-03-01.csv", in: folder)
    Self.setModificationTime(source, seconds: 1_000_000)
    #expect(try Ingest.read(path: cache).series[0].count == 3, "same bytes, new mtime: still fresh")

    var text = try String(contentsOfFile: source, encoding: .utf8)
    text = text.replacingOccurrences(of: "61505.30", with: "61505.31")  // same size
    try text.write(toFile: source, atomically: false, encoding: .utf8)
    Self.setModificationTime(source, seconds: 2_000_000)
    let error = try #require(throws: CacheError.self) { try Ingest.read(path: cache) }
    guard case .stale(_, let changed, let change) = error else { Issue.record("\(error)"); return }
    #expect(changed.hasSuffix("/BTCUSDT-bookTicker-2024-03-01.csv") && change.hasPrefix("checksum xxh64:"))
    #expect("\(error)".contains("stale cache, source") && "\(error)".contains("run 'arbkit convert' again"))

    try (text + "4012345678999,1,1,2,1,1709251200200,1709251200210\n").write(toFile: source, atomically: false, encoding: .utf8)
    let grown = try #require(throws: CacheError.self) { try Ingest.read(path: cache) }
    #expect("\(grown)".contains("(size 382 -> 432 bytes)"), "\(grown)")
  }

  @Test func `a missing source is a warning and the cached data is still read`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (source, cache) = try Self.cachedCopy("BTCUSDT-bookTicker-2024-03-01.csv", in: folder)
    let direct = try Ingest.read(path: source)
    try FileManager.default.removeItem(atPath: source)
    let cached = try Ingest.read(path: cache)
    #expect(sameColumns(cached.series[0], direct.series[0]))
    #expect(cached.report.warnings.count == 1 && cached.report.warnings[0].contains("is missing"))
  }

  @Test func `a truncated or padded column file is named with its size`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, cache) = try Self.cachedCopy("BTCUSDT-bookTicker-2024-03-01.csv", in: folder)
    let column = cache + "/s0/bid.f64"
    #expect(truncate(column, 20) == 0)
    let error = try #require(throws: CacheError.self) { try Ingest.read(path: cache) }
    #expect(error == .corrupt(file: column, reason: "truncated: 20 bytes, expected 3 rows × 8 = 24"))
    #expect(truncate(column, 32) == 0)
    let long = try #require(throws: CacheError.self) { try Ingest.read(path: cache) }
    #expect("\(long)" == "\(column): error: corrupt cache, too long: 32 bytes, expected 3 rows × 8 = 24; run 'arbkit convert' again")
    try FileManager.default.removeItem(atPath: column)
    #expect(throws: FileError.missing(path: column)) { try Ingest.read(path: cache) }
  }

  @Test func `a time column that disagrees with the manifest is corrupt`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, cache) = try Self.cachedCopy("BTCUSDT-bookTicker-2024-03-01.csv", in: folder)
    let handle = try #require(FileHandle(forWritingAtPath: cache + "/s0/time.i64"))
    try handle.write(contentsOf: Data(repeating: 0, count: 8))
    try handle.close()
    let error = try #require(throws: CacheError.self) { try Ingest.read(path: cache) }
    guard case .corrupt(let file, let reason) = error else { Issue.record("\(error)"); return }
    #expect(file == cache + "/s0/time.i64" && reason.contains("differs from the manifest"))
  }

  @Test func `a manifest of another version or format is refused`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, cache) = try Self.cachedCopy("BTCUSDT-bookTicker-2024-03-01.csv", in: folder)
    let path = cache + "/manifest.json"
    let original = try String(contentsOfFile: path, encoding: .utf8)
    try original.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2").write(toFile: path, atomically: false, encoding: .utf8)
    #expect(throws: CacheError.unsupportedVersion(file: path, found: 2, supported: 1)) { try Ingest.read(path: cache) }
    try original.replacingOccurrences(of: "arbkit.columnar", with: "other").write(toFile: path, atomically: false, encoding: .utf8)
    #expect(throws: CacheError.corrupt(file: path, reason: "format is 'other', expected 'arbkit.columnar'")) { try Ingest.read(path: cache) }
    try original.replacingOccurrences(of: "\"rows\" : 3,", with: "").write(toFile: path, atomically: false, encoding: .utf8)
    let missing = try #require(throws: CacheError.self) { try Ingest.read(path: cache) }
    #expect("\(missing)".contains("manifest does not match version 1: missing key 'rows'"), "\(missing)")
    try "not json".write(toFile: path, atomically: false, encoding: .utf8)
    #expect(throws: CacheError.corrupt(file: path, reason: "not a JSON object")) { try Ingest.read(path: cache) }
  }

  @Test func `a cache keeps its clock and says so when another is asked for`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, cache) = try Self.cachedCopy("BTCUSDT-bookTicker-2024-03-01.csv", in: folder)
    var options = IngestOptions()
    options.clock = .exchange
    #expect(throws: CacheError.clockMismatch(cache: cache, cached: .local, requested: .exchange)) { try Ingest.read(path: cache, options: options) }
  }

  @Test func `a folder that is not a cache is not replaced; an old cache is`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let file = try Ingest.read(path: fixture("BTCUSDT-bookTicker-2024-03-01.csv"))
    folder.write("notes.txt", "keep me")
    #expect(throws: FileError.self) { try ColumnarStore.write([file], to: folder.path) }
    #expect(FileManager.default.fileExists(atPath: folder.path + "/notes.txt"))
    let cache = folder.path + "/cache"
    try ColumnarStore.write([file, file], to: cache)
    try ColumnarStore.write([file], to: cache)
    #expect(try Ingest.read(path: cache).series.count == 1)
    #expect(!FileManager.default.fileExists(atPath: cache + "/s1"))
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
