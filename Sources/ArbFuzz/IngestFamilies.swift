import ArbCore
import ArbIngest
import Foundation

/// Targets that read whole files through `Ingest.read(bytes:path:options:)`, the path
/// every recorded file takes.
enum IngestFamilies {
  /// Name of every input (messages must carry it).
  static let path = "fuzz-input.csv"

  /// Options of the two passes over each input: the defaults (stop at the first bad
  /// row), then skipping bad rows, sorting, on the exchange clock.
  static func passes(format: RecordFormat?) -> [IngestOptions] {
    var strict = IngestOptions()
    strict.format = format
    strict.splitLargeFiles = false
    var lenient = strict
    lenient.badRows = .skip
    lenient.quarantinePath = "/dev/null"
    lenient.sort = true
    lenient.clock = .exchange
    return [strict, lenient]
  }

  static func lines(_ bytes: [UInt8]) -> [String] {
    passes(format: nil).flatMap { ingest(bytes, $0) }
  }

  static func tardisL2(_ bytes: [UInt8]) -> [String] {
    passes(format: .tardisIncrementalL2).flatMap { ingest(bytes, $0) }
  }

  static func freqtrade(_ bytes: [UInt8]) -> [String] {
    passes(format: .freqtradeOHLCV).flatMap { ingest(bytes, $0) }
  }

  static func rest(_ bytes: [UInt8]) -> [String] {
    passes(format: .restSnapshots).flatMap { ingest(bytes, $0) }
  }

  static func cryptofeed(_ bytes: [UInt8]) -> [String] {
    passes(format: .cryptofeed).flatMap { ingest(bytes, $0) }
  }

  static func orderBook(_ bytes: [UInt8]) -> [String] {
    passes(format: .orderBookLines).flatMap { ingest(bytes, $0) }
  }

  /// A Parquet file, with a 1 MiB decompression floor so that a small bomb reaches its
  /// limit quickly.
  static func parquet(_ bytes: [UInt8]) -> [String] {
    passes(format: .parquet).flatMap { options in
      var bounded = options
      bounded.decompression = DecompressionLimit(ratio: 250, floor: 1 << 20)
      return ingest(bytes, bounded)
    }
  }

  /// The spec is everything before the first NUL byte; a spec that does not decode is
  /// a clean rejection.
  static func columns(_ bytes: [UInt8]) -> [String] {
    let cut = bytes.firstIndex(of: 0) ?? bytes.count
    guard let spec = try? ColumnSpec.decode(Data(bytes[..<cut]), path: "fuzz-spec.json") else { return [] }
    let data = Array(bytes[min(cut + 1, bytes.count)...])
    return passes(format: .columns(spec)).flatMap { ingest(data, $0) }
  }

  /// Read as lines with a 1 MiB decompression floor and 64 KiB lines, so that a
  /// small bomb reaches its limit quickly. A gzip input is read twice, inflated whole
  /// in memory (ISA-L) and streamed (zlib): the two reads must agree.
  static func compressed(_ bytes: [UInt8]) -> [String] {
    var options = passes(format: nil)[1]
    options.decompression = DecompressionLimit(ratio: 250, floor: 1 << 20)
    options.maxLineBytes = 1 << 16
    let (problems, outcome) = read(bytes, options)
    guard bytes.starts(with: [0x1f, 0x8b]) else { return problems }
    options.gzipInMemoryLimit = 0
    let (streamProblems, streamed) = read(bytes, options)
    return problems + streamProblems + (outcome == streamed ? [] : ["in memory: \(outcome); streamed: \(streamed)"])
  }

  /// Reads `bytes` and checks the outcome: a file with consistent accounting and
  /// clean columns, or an `IngestError` placed inside the input.
  static func ingest(_ bytes: [UInt8], _ options: IngestOptions) -> [String] { read(bytes, options).problems }

  /// The problems `ingest` finds, and the outcome in short: the error, or the row
  /// counts and a checksum of every series.
  static func read(_ bytes: [UInt8], _ options: IngestOptions) -> (problems: [String], outcome: String) {
    do {
      let file = try Ingest.read(bytes: bytes, path: path, options: options)
      let report = file.report
      let series = file.series.map { s in
        let sum = zip(s.time, zip(s.bid, s.ask)).reduce(UInt64(0)) { sum, row in
          sum &* 31 &+ UInt64(bitPattern: row.0) &+ row.1.0.bitPattern &* 7 &+ row.1.1.bitPattern
        }
        return "\(s.instrument) \(s.field.rawValue) \(s.count) \(sum)"
      }
      let outcome = "\(report.rowsRead) read, \(report.rowsAccepted) accepted, \(report.rowsRejected) rejected; \(series)"
      return (Invariants.check(file, options: options), outcome)
    } catch {
      return (checkError(error, bytes), "\(error)")
    }
  }

  static func checkError(_ error: any Error, _ bytes: [UInt8]) -> [String] {
    if let error = error as? ParquetError {
      return error.path == path && !error.reason.isEmpty ? [] : ["Parquet error without the input's name or a reason: \(error)"]
    }
    guard let error = error as? IngestError else {
      return error is FileError ? [] : ["unexpected error type \(type(of: error)): \(error)"]
    }
    return Invariants.check(error, in: bytes, path: path)
  }
}
