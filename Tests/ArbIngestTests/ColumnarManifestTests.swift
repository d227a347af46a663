import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Every field of a cache manifest is checked before a column file is opened: a count
// that overflows or is negative, a word that names nothing, a file outside the cache is
// a corrupt cache naming the field and its value, never a trap or a misnamed fault.
@Suite("Columnar cache manifest")
struct ColumnarManifestTests {
  /// A cache of a fixture whose manifest `edit` changed; the manifest's path.
  static func editedCache(in folder: TemporaryFolder, _ edit: (inout [String: Any]) -> Void) throws -> (cache: String, manifest: String) {
    let source = folder.write("b.csv", try Data(contentsOf: URL(fileURLWithPath: fixture("BTCUSDT-bookTicker-2024-03-01.csv"))))
    let cache = folder.path + "/cache"
    try ColumnarStore.write([try Ingest.read(path: source)], to: cache)
    let path = cache + "/manifest.json"
    var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    edit(&manifest)
    try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: path))
    return (cache, path)
  }

  /// Sets `key` of the first series (and of the source, for `source.` keys).
  static func setting(_ key: String, _ value: Any, alsoTotal: Bool = false) -> (inout [String: Any]) -> Void {
    { manifest in
      let group = key.hasPrefix("source.") ? "sources" : "series"
      var entries = manifest[group] as! [[String: Any]]
      entries[0][String(key.split(separator: ".").last!)] = value
      manifest[group] = entries
      if alsoTotal { manifest["rows"] = value }
    }
  }

  static let bad: [(key: String, value: Int, alsoTotal: Bool, reason: String)] = [
    ("rows", 1 << 61, true, "'series.0.rows' is 2305843009213693952, expected 0 to 1152921504606846975"),
    ("rows", -1, true, "'series.0.rows' is -1, expected 0 to 1152921504606846975"),
    ("rows", 4, false, "'rows' is 3, the series hold 4"),
    ("source", 1, false, "'series.0.source' is 1, expected an index into the 1 sources"),
    ("source.rows_read", -5, false, "'sources.0.rows_read' is -5, expected 0 to 9223372036854775807"),
    ("source.rows_rejected", 1 << 62, false, "'sources.0.rows_rejected' is 4611686018427387904, expected 0 to 0"),
  ]

  @Test("a count out of range is a corrupt cache naming the field", arguments: bad)
  func badCount(c: (key: String, value: Int, alsoTotal: Bool, reason: String)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (cache, manifest) = try Self.editedCache(in: folder, Self.setting(c.key, c.value, alsoTotal: c.alsoTotal))
    #expect(throws: CacheError.corrupt(file: manifest, reason: c.reason)) { try Ingest.read(path: cache) }
  }

  static let badWords: [(key: String, value: String, reason: String)] = [
    ("market", "perp", "'series.0.market' is 'perp', expected one of spot, linear, inverse, future, fx"),
    ("clock", "wall", "'series.0.clock' is 'wall', expected one of local, exchange"),
    ("price_source", "mid", "'series.0.price_source' is 'mid', expected one of book, last"),
  ]

  @Test("a word that names nothing is named with its field", arguments: badWords)
  func badWord(c: (key: String, value: String, reason: String)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (cache, manifest) = try Self.editedCache(in: folder, Self.setting(c.key, c.value))
    #expect(throws: CacheError.corrupt(file: manifest, reason: c.reason)) { try Ingest.read(path: cache) }
  }

  @Test func `a column file outside the cache folder is refused before it is opened`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (cache, manifest) = try Self.editedCache(in: folder) { manifest in
      var series = manifest["series"] as! [[String: Any]]
      var columns = series[0]["columns"] as! [[String: Any]]
      columns[0]["file"] = "../b.csv"
      series[0]["columns"] = columns
      manifest["series"] = series
    }
    #expect(throws: CacheError.corrupt(file: manifest, reason: "'series.0.columns.0.file' is '../b.csv', outside the cache folder")) {
      try Ingest.read(path: cache)
    }
  }
}
