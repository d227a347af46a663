#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore
import ArbIngest
import Foundation

/// Ingest of one venue file layout, plain and gzip, and the columnar cache made from it:
/// open + full scan of every column, next to `cat` of the same column files.
struct FormatMeasurement {
  var kind: VenueFileGenerator.Kind
  var plain: String
  var gzip: String
  var plainBytes: Int
  var gzipBytes: Int
  /// Rows in the file, and series rows after duplicate timestamps collapsed.
  var fileRows: Int
  var seriesRows: Int
  var ingestPlain: [Double]
  var ingestGzip: [Double]
  var cache: String
  var cacheFiles: [String]
  var cacheBytes: Int
  var openScan: [Double]
  var cat: [Double]
  /// The wrapping sum of every column's 64-bit words, to compare with numpy's.
  var scanSum: UInt64

  /// Generates the files of `kind` in `folder` when missing, then measures.
  static func run(_ kind: VenueFileGenerator.Kind, rows: Int, folder: String, repeats: Int) throws -> FormatMeasurement {
    let plain = "\(folder)/\(kind.rawValue)_\(rows).csv"
    if !FileManager.default.fileExists(atPath: plain + ".gz") {
      FileHandle.standardError.write(Data("generating \(plain) and .gz\n".utf8))
      try VenueFileGenerator(rows: rows, seed: 20_240_301).write(kind, to: plain)
      _ = try spawn(["/bin/gzip", "-k", "-f", "-n", plain], stdout: "/dev/null")
    }
    FileHandle.standardError.write(Data("measuring arbkit on \(plain) (plain, gzip, store)\n".utf8))
    var file: IngestedFile? = nil
    let ingestPlain = try (0..<repeats).map { _ in
      try timed {
        file = nil; file = try Ingest.read(path: plain)
      }
    }
    let ingestGzip = try (0..<repeats).map { _ in
      try timed {
        file = nil; file = try Ingest.read(path: plain + ".gz")
      }
    }
    let cache = "\(folder)/\(kind.rawValue)_\(rows).cache"
    let store = try StoreTransaction(path: cache, clock: .local)
    _ = try store.add(file!)
    try store.commit()
    let cacheFiles = try Store.open(path: cache).columnFiles
    let seriesRows = file!.series.reduce(0) { $0 + $1.count }
    let fileRows = file!.report.rowsRead
    file = nil
    var sum: UInt64 = 0
    let openScan = try (0..<repeats).map { _ in try timed { sum = scan(try Ingest.read(path: cache)) } }
    let cat = try (0..<repeats).map { _ in try timed { _ = try spawn(["/bin/cat"] + cacheFiles, stdout: "/dev/null") } }
    return FormatMeasurement(
      kind: kind, plain: plain, gzip: plain + ".gz", plainBytes: size(plain), gzipBytes: size(plain + ".gz"),
      fileRows: fileRows, seriesRows: seriesRows, ingestPlain: ingestPlain, ingestGzip: ingestGzip, cache: cache,
      cacheFiles: cacheFiles, cacheBytes: cacheFiles.reduce(0) { $0 + size($1) }, openScan: openScan, cat: cat, scanSum: sum)
  }

  /// Reads every value of every column once: the wrapping sum of their 64-bit words.
  static func scan(_ file: IngestedFile) -> UInt64 {
    var sum: UInt64 = 0
    func add<T>(_ column: [T]) {
      column.withUnsafeBytes { raw in
        for word in raw.bindMemory(to: UInt64.self) { sum &+= word }
      }
    }
    for series in file.series {
      add(series.time); add(series.otherTime); add(series.bid); add(series.ask); add(series.bidSize); add(series.askSize)
    }
    return sum
  }

  private static func size(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  }
}
