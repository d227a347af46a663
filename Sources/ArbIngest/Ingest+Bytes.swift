import ArbCore

extension Ingest {
  /// Reads bytes already in memory exactly as a file named `path` holding them is read:
  /// plain, gzip, zip or zstd by their first bytes, within the same limits (a gzip
  /// inflated whole in memory when it fits, as a file is); Parquet by its magic; freqtrade JSON when
  /// `options.format` names it, line-based (format named or detected) otherwise. The
  /// entry point of the fuzz targets and of the corpus replay tests.
  ///
  /// - Throws: `IngestError` as `read(path:options:)` does.
  package static func read(bytes: [UInt8], path: String, options: IngestOptions) throws -> IngestedFile {
    if options.format == .parquet || bytes.starts(with: "PAR1".utf8) {
      return try bytes.withUnsafeBytes { try ParquetReader.read($0, path: path, options: options) }
    }
    let stream = { Compression.open(bytes: bytes, path: path, limit: options.decompression) }
    if let json = options.format, json.isJSONLines {
      return try JSONSources.read(json, source: stream(), path: path, options: options)
    }
    guard options.format == .freqtradeOHLCV else {
      let inflated = InflatedGzip(bytes: bytes, path: path, limit: options.gzipInMemoryBytes(compressed: bytes.count))
      let whole = inflated.flatMap { $0.inflate(until: .max) ? $0.source(0..<$0.count) : nil }
      let source = whole ?? stream()
      // A small input needs no 1 MiB buffer (the buffer grows for longer lines).
      return try readLines(source, options: options, expectedRows: 1024, chunkSize: min(1 << 20, max(4096, bytes.count + 1)))
    }
    var reader = FreqtradeReader(path: path, options: options, source: stream())
    defer { reader.close() }
    try reader.readAll()
    return try reader.finish()
  }
}
