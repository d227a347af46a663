import ArbCore
import Foundation

/// The period PnL matrix that `arbkit sweep --pnl-matrix` writes: a header
/// `period_start_us,0,1,…,N-1` (the cells' 0-based numbers in grid order), then one row
/// per period in time order, the period's start in microseconds and each cell's PnL.
/// Read into columns: cell n's periods are `values[n·T ..< (n + 1)·T]`.
public struct PnLMatrixFile: Sendable {
  /// Each row's `period_start_us`, increasing.
  public let periodStarts: [Int64]
  /// N, the cell columns.
  public let cells: Int
  /// Column-major PnL, `periodStarts.count × cells` values, all finite.
  public let values: [Double]

  /// Reads `path` (CSV, or Parquet as the CSV of its table), which must have a column for each of `cells` cells.
  ///
  /// - Throws: `FileError.missing` or `.unreadable`; `PnLMatrixError` for bad content.
  public static func read(path: String, cells: Int) throws -> PnLMatrixFile {
    try PnLMatrixFile(bytes: ColumnarFile.csvBytes(path: path), path: path, cells: cells)
  }

  /// The bytes of the file at `path`, a small input named on the command line.
  ///
  /// - Throws: `FileError.missing`, or `.unreadable` for a folder or a file that
  ///   cannot be opened.
  public static func contents(of path: String) throws(FileError) -> [UInt8] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw FileError.missing(path: path) }
    guard !isFolder.boolValue, let data = FileManager.default.contents(atPath: path) else {
      throw FileError.unreadable(path: path, reason: isFolder.boolValue ? "a folder, not a file" : "cannot open")
    }
    return [UInt8](data)
  }

  /// Parses the bytes of a matrix file named `path` (for messages).
  ///
  /// - Throws: `PnLMatrixError` with the position of the first bad field: an empty
  ///   file, a header that is not `period_start_us,0,…,cells-1`, a row with another
  ///   field count, a period start that is not an integer or does not increase, a
  ///   PnL that is not a finite number.
  public init(bytes: [UInt8], path: String, cells: Int) throws(PnLMatrixError) {
    var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { $0.last == 13 ? $0.dropLast() : $0 }
    if lines.last?.isEmpty == true { lines.removeLast() }
    func at(_ line: Int, _ column: Int) -> SourcePosition { SourcePosition(path: path, line: line, column: column) }
    guard let header = lines.first, !header.isEmpty else { throw PnLMatrixError(.emptyFile, at: at(1, 1)) }
    let headerFields = Self.fields(header)
    for (k, field) in headerFields.enumerated() {
      let expected = k == 0 ? "period_start_us" : String(k - 1)
      let text = String(decoding: field.bytes, as: UTF8.self)
      guard text == expected else {
        throw PnLMatrixError(.header(field: k + 1, expected: expected, found: text), at: at(1, field.column))
      }
    }
    guard headerFields.count - 1 == cells else {
      throw PnLMatrixError(.cellCount(header: headerFields.count - 1, sweep: cells), at: at(1, header.count + 1))
    }
    let periods = lines.count - 1
    var starts: [Int64] = []
    // Row by row as the rows check out, so that memory follows the file's bytes, never
    // a header's claim; turned column-major at the end.
    var rowMajor: [Double] = []
    for (t, line) in lines.dropFirst().enumerated() {
      let number = t + 2
      let fields = Self.fields(line)
      guard fields.count == cells + 1 else {
        throw PnLMatrixError(.wrongFieldCount(expected: cells + 1, found: fields.count), at: at(number, 1))
      }
      let startText = fields[0].bytes
      guard !startText.isEmpty, let start = startText.withUnsafeBufferPointer({ DecimalParser.parseInt64($0.baseAddress!, $0.count) }) else {
        throw PnLMatrixError(.invalidPeriod(text: String(decoding: fields[0].bytes, as: UTF8.self)), at: at(number, 1))
      }
      if let previous = starts.last, start <= previous {
        throw PnLMatrixError(.periodNotIncreasing(previous: previous, found: start), at: at(number, 1))
      }
      starts.append(start)
      for n in 0..<cells {
        let field = fields[n + 1]
        guard !field.bytes.isEmpty, let value = field.bytes.withUnsafeBufferPointer({ DecimalParser.parse($0.baseAddress!, $0.count) }),
          value.isFinite
        else {
          throw PnLMatrixError(.invalidNumber(cell: n, text: String(decoding: field.bytes, as: UTF8.self)), at: at(number, field.column))
        }
        rowMajor.append(value)
      }
    }
    periodStarts = starts
    self.cells = cells
    values = (0..<cells * periods).map { rowMajor[($0 % periods) * cells + $0 / periods] }
  }

  /// The comma-separated fields of `line` with their 1-based columns.
  private static func fields(_ line: ArraySlice<UInt8>) -> [(bytes: [UInt8], column: Int)] {
    var result: [(bytes: [UInt8], column: Int)] = []
    var start = line.startIndex
    for index in line.indices where line[index] == UInt8(ascii: ",") {
      result.append((Array(line[start..<index]), start - line.startIndex + 1))
      start = index + 1
    }
    result.append((Array(line[start...]), start - line.startIndex + 1))
    return result
  }
}

/// A period PnL matrix that cannot be used, at `path:line:column`.
public struct PnLMatrixError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Reason: Sendable, Equatable {
    case emptyFile
    /// Header field `field` (1-based) is not `expected`.
    case header(field: Int, expected: String, found: String)
    /// The header has columns for `header` cells, the sweep has `sweep`.
    case cellCount(header: Int, sweep: Int)
    case wrongFieldCount(expected: Int, found: Int)
    case invalidPeriod(text: String)
    case periodNotIncreasing(previous: Int64, found: Int64)
    /// Cell `cell`'s value is empty, not a number or not finite.
    case invalidNumber(cell: Int, text: String)
    /// Fewer rows than the blocks asked for.
    case fewerPeriodsThanBlocks(periods: Int, blocks: Int)

    /// A lowercase fragment naming what is wrong and showing the value.
    public var message: String {
      switch self {
      case .emptyFile: "empty file, expected the header period_start_us,0,1,…"
      case .header(let field, let expected, let found):
        "header field \(field) should be '\(expected)' (period_start_us, then the cell numbers from 0 in grid order), was '\(found)'"
      case .cellCount(let header, let sweep): "the header has columns for \(header) cells, the sweep has \(sweep) cells"
      case .wrongFieldCount(let expected, let found): "wrong field count, expected \(expected), was \(found)"
      case .invalidPeriod(let text): "invalid period_start_us, expected an integer, was '\(text)'"
      case .periodNotIncreasing(let previous, let found): "period_start_us does not increase, previous \(previous), was \(found)"
      case .invalidNumber(let cell, let text): "invalid PnL of cell \(cell), expected a finite number, was '\(text)'"
      case .fewerPeriodsThanBlocks(let periods, let blocks): "\(periods) periods, fewer than the \(blocks) blocks asked for"
      }
    }
  }

  public var reason: Reason
  public var position: SourcePosition

  public init(_ reason: Reason, at position: SourcePosition) {
    self.reason = reason
    self.position = position
  }

  public var description: String { "\(position): error: \(reason.message)" }
}

extension PnLMatrixError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }
}
