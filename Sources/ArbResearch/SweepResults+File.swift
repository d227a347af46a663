import ArbIngest

extension SweepResults {
  /// The sweep results in the file at `path`: a sweep CSV (`arbkit sweep --out`,
  /// `arbkit merge`) or Parquet file (read as its CSV), or the output of `arbkit sweep
  /// --format json`, told apart by the first byte that is not white space (`{`).
  ///
  /// - Throws: `FileError` for a file that is missing or cannot be read (an Arrow IPC file);
  ///   `ParquetError` for a broken Parquet file;
  ///   `SweepResultsError` for one that is neither.
  public static func read(_ path: String) throws -> SweepResults {
    let bytes = try ColumnarFile.csvBytes(path: path)
    if bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
      return try SweepResults(json: bytes, path: path)
    }
    return try SweepResults(csv: String(decoding: bytes, as: UTF8.self), path: path)
  }
}
