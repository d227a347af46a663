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

/// Picks the columnar format of a table output by its file name.
public enum ColumnarFile {
  /// Whether `path` names a columnar file: `.arrow` or `.feather` (Arrow IPC), `.parquet`.
  public static func isColumnar(_ path: String) -> Bool { isArrow(path) || path.lowercased().hasSuffix(".parquet") }

  private static func isArrow(_ path: String) -> Bool {
    let name = path.lowercased()
    return name.hasSuffix(".arrow") || name.hasSuffix(".feather")
  }

  /// The writer of `path` by its name; `nil` for a name that is no columnar file (a CSV).
  public static func writer(path: String, fields: [ArrowField], metadata: [(String, String)] = []) throws -> (any ColumnarWriter)? {
    guard isColumnar(path) else { return nil }
    if isArrow(path) { return try ArrowFileWriter(path: path, fields: fields, metadata: metadata) }
    return try ParquetFileWriter(path: path, fields: fields, metadata: metadata)
  }
}
