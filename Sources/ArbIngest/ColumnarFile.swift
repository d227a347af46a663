/// A columnar table file being written: Arrow IPC (`ArrowFileWriter`) or Parquet
/// (`ParquetFileWriter`), a batch of columns at a time.
public protocol ColumnarWriter: AnyObject {
  /// Appends a record batch (Arrow) or a row group (Parquet), one column per field.
  func write(_ columns: [ArrowColumn]) throws
  /// Writes the footer; `FileOutput.commit` puts the file in place.
  func finish() throws -> AtomicFile
  /// Writes the footer and puts the file in place.
  func commit() throws
}

extension ArrowFileWriter: ColumnarWriter {}
extension ParquetFileWriter: ColumnarWriter {}

/// The format of a table file a command writes: CSV, Arrow IPC or Parquet.
public enum TableFormat: String, Sendable, CaseIterable {
  case csv, arrow, parquet

  /// The format `path` names by its extension: `.arrow` or `.feather` Arrow IPC,
  /// `.parquet` Parquet, anything else CSV.
  public init(path: String) {
    let name = path.lowercased()
    if name.hasSuffix(".arrow") || name.hasSuffix(".feather") {
      self = .arrow
    } else if name.hasSuffix(".parquet") {
      self = .parquet
    } else {
      self = .csv
    }
  }
}

/// The writers of the columnar formats.
public enum ColumnarFile {
  /// Whether `path` names a columnar file: `.arrow` or `.feather` (Arrow IPC), `.parquet`.
  public static func isColumnar(_ path: String) -> Bool { TableFormat(path: path) != .csv }

  /// The writer of `path` in `format` (by default the one its name says), with `metadata`
  /// as the file's key/value pairs; `nil` for CSV.
  public static func writer(
    path: String, format: TableFormat? = nil, fields: [ArrowField], metadata: [(String, String)] = []
  ) throws -> (any ColumnarWriter)? {
    switch format ?? TableFormat(path: path) {
    case .csv: nil
    case .arrow: try ArrowFileWriter(path: path, fields: fields, metadata: metadata)
    case .parquet: try ParquetFileWriter(path: path, fields: fields, metadata: metadata)
    }
  }
}

extension ColumnarFile {
  /// The table file at `path` as CSV bytes: a Parquet file (`PAR1`) as the CSV of its
  /// table (`ParquetReader.csv`: timestamps in µs, numbers in their shortest text, a null
  /// empty), any other file as it is. For the tables ArbKit writes and reads back: a
  /// sweep's results and its PnL matrix.
  ///
  /// - Throws: `FileError` for a file that is missing or unreadable, or
  ///   `.unsupportedFormat` for an Arrow IPC file (not read back: write the table as CSV or
  ///   Parquet); `ParquetError` for a broken
  ///   Parquet file.
  public static func csvBytes(path: String) throws -> [UInt8] {
    let bytes = try PnLMatrixFile.contents(of: path)
    if bytes.starts(with: "ARROW1".utf8) {
      throw FileError.unsupportedFormat(path: path, format: "an Arrow IPC file", remedy: "write the table as CSV or Parquet (NAME.csv, NAME.parquet)")
    }
    return bytes.starts(with: "PAR1".utf8) ? try ParquetReader.csv(path: path) : bytes
  }

  /// The key/value metadata of the Parquet file at `path`; `nil` for a file that is not
  /// one (no `PAR1` at its start) or whose footer cannot be read.
  public static func parquetMetadata(path: String) -> [String: String]? {
    guard ParquetReader.hasMagic(path: path), let file = try? MappedFile(path: path, readAhead: false) else { return nil }
    return try? file.withBytes { try ParquetReader.Footer($0, path: path).metadata.keyValues }
  }
}
