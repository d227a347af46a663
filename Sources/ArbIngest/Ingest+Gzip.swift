import ArbCore

extension Ingest {
  /// Reads a gzip file while ISA-L inflates it (`InflatedGzip`): the header once the
  /// first chunk is in, then the rows on two threads (`readInTwoParts`). The first
  /// thread parses the bytes as they are inflated; the other inflates the rest, then
  /// ends the first thread's part at a line break near the middle of what it has not
  /// read yet and parses the remainder itself. Without `splitLargeFiles`, when the
  /// parts cannot be joined or when the first chunk holds the whole file, the file is
  /// inflated whole and read in one pass.
  ///
  /// Returns `nil` when ISA-L refuses the file, whatever the parse found: the caller
  /// then streams it through zlib, which gives its rows or its error as it always did.
  static func read(_ gzip: InflatedGzip, options: IngestOptions) throws -> IngestedFile? {
    let window = 1 << 16
    var parsed: IngestedFile? = nil
    do {
      // A file inflated whole in its first chunk is read in one pass.
      if options.splitLargeFiles && gzip.inflate(until: window) && !gzip.isWhole {
        let parts = try readInTwoParts(
          path: gzip.path, head: gzip.bytes(0..<min(gzip.count, window)), expectedRows: max(1024, gzip.sizeHint / 48),
          options: options, first: { gzip.follower(from: $0) },
          second: {
            guard gzip.inflate(until: .max), let rest = gzip.split() else { return nil }
            return (gzip.source(rest), rest.count / 48)
          })
        if var reader = parts { parsed = try reader.finish() }
      }
    } catch {
      // An error counts only in a file ISA-L accepts in full.
      guard gzip.inflate(until: .max) else { return nil }
      throw error
    }
    guard gzip.inflate(until: .max) else { return nil }
    if let parsed { return parsed }
    return try readLines(gzip.source(0..<gzip.count), options: options, expectedRows: max(1024, gzip.count / 48))
  }
}
