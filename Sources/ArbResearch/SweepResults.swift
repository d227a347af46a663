import ArbCore
import Foundation

/// The CSV an `arbkit sweep` wrote (or `arbkit merge` joined), or its `--format json`
/// output: the grid keys, then the metrics, one row per cell. The grid is rebuilt from the values each key takes,
/// in order of first appearance, so cells missing from the file are `nil`.
public struct SweepResults: Sendable {
  public var grid: SweepGrid
  /// Metric columns, in file order (`trades`, `wins`, `pnl`, `pnl_bps`, …).
  public var metrics: [String]
  /// Per metric, its value in every cell of `grid` (`nil`: empty or no such row).
  public var values: [String: [Double?]]
  /// Rows read.
  public var rows: Int

  /// Parses the CSV text of `path` (for messages).
  public init(csv text: String, path: String) throws(SweepResultsError) {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
    guard !lines.isEmpty else { throw SweepResultsError(path: path, line: 1, message: "empty file: not a sweep CSV") }
    let header = Self.fields(lines.removeFirst())
    try self.init(header: header, rows: lines.map(Self.fields), path: path, at: { $0 + 2 })
  }

  /// Parses the output of `arbkit sweep --format json` (`keys`, `metrics`, `cells`:
  /// one object per cell with the grid values as strings and the metrics as numbers
  /// or null); errors name the cell's position (1-based) as the line.
  public init(json bytes: [UInt8], path: String) throws(SweepResultsError) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
      let keys = object["keys"] as? [String], let metrics = object["metrics"] as? [String], let cells = object["cells"] as? [[String: Any]]
    else {
      throw SweepResultsError(path: path, line: 1, message: "not a sweep JSON: needs keys, metrics and cells")
    }
    var rows: [[String]] = []
    for (k, cell) in cells.enumerated() {
      var row: [String] = []
      for key in keys {
        guard let value = cell[key] as? String else {
          throw SweepResultsError(path: path, line: k + 1, message: "cell \(k + 1): grid key \(key) is missing or not a string")
        }
        row.append(value)
      }
      for metric in metrics {
        switch cell[metric] {
        case is NSNull, nil: row.append("")
        case let number as NSNumber: row.append("\(number.doubleValue)")
        default: throw SweepResultsError(path: path, line: k + 1, message: "cell \(k + 1): \(metric) is not a number")
        }
      }
      rows.append(row)
    }
    try self.init(header: keys + metrics, rows: rows, path: path, at: { $0 + 1 })
  }

  /// The rows of a sweep table whose header is the grid keys then the metrics from
  /// `trades` on; `at` maps a row's index to the line that errors name.
  private init(header: [String], rows: [[String]], path: String, at line: (Int) -> Int) throws(SweepResultsError) {
    guard let first = header.firstIndex(of: "trades"), first > 0 else {
      throw SweepResultsError(path: path, line: 1, message: "no grid key before a 'trades' column: not a sweep CSV")
    }
    let keys = Array(header[..<first])
    metrics = Array(header[first...])
    var axisValues = keys.map { _ in [String]() }
    var parsed: [([String], [Double?])] = []
    for (k, fields) in rows.enumerated() {
      guard fields.count == header.count else {
        throw SweepResultsError(path: path, line: line(k), message: "\(fields.count) fields, the header has \(header.count)")
      }
      var numbers: [Double?] = []
      for (column, text) in fields[first...].enumerated() {
        if text.isEmpty { numbers.append(nil); continue }
        guard let value = Double(text), value.isFinite else {
          throw SweepResultsError(path: path, line: line(k), message: "\(header[first + column]): '\(text)' is not a number")
        }
        numbers.append(value)
      }
      for a in keys.indices where !axisValues[a].contains(fields[a]) { axisValues[a].append(fields[a]) }
      parsed.append((Array(fields[..<first]), numbers))
    }
    guard !parsed.isEmpty else { throw SweepResultsError(path: path, line: line(0), message: "no rows") }
    do {
      grid = try SweepGrid(parsing: zip(keys, axisValues).map { $0 + "=" + $1.joined(separator: ",") })
    } catch {
      throw SweepResultsError(path: path, line: 1, message: error.description)
    }
    let cellCount = grid.cellCount
    var values = Dictionary(uniqueKeysWithValues: header[first...].map { ($0, [Double?](repeating: nil, count: cellCount)) })
    var seen = Set<Int>()
    for (k, (coordinates, numbers)) in parsed.enumerated() {
      let cell = grid.cell(zip(axisValues, coordinates).map { $0.firstIndex(of: $1)! })
      guard seen.insert(cell).inserted else {
        throw SweepResultsError(path: path, line: line(k), message: "cell " + grid.overrides(cell).joined(separator: " ") + " appears twice")
      }
      for (m, metric) in header[first...].enumerated() { values[metric]![cell] = numbers[m] }
    }
    self.values = values
    self.rows = parsed.count
  }

  /// The cell with the largest `metric` (the first in grid order on ties).
  public func best(_ metric: String) -> Int? {
    guard let column = values[metric] else { return nil }
    return column.indices.filter { column[$0] != nil }.max { column[$0]! != column[$1]! ? column[$0]! < column[$1]! : $0 > $1 }
  }

  /// Cells ranked by `metric`, best first.
  public func ranked(_ metric: String) -> [Int] {
    guard let column = values[metric] else { return [] }
    return column.indices.filter { column[$0] != nil }.sorted { column[$0]! != column[$1]! ? column[$0]! > column[$1]! : $0 < $1 }
  }

  /// Mean of `metric` over the cell and its grid neighbours (one step along each
  /// axis), as `arbkit sweep` ranks: a lone spike scores low, a plateau high.
  public func robustness(_ cell: Int, _ metric: String) -> Double? {
    guard let column = values[metric] else { return nil }
    return Self.mean(([cell] + grid.neighbours(cell)).compactMap { column[$0] })
  }

  /// The mean of finite `values`, finite itself (`nil` when empty): where their sum
  /// overflows, the sum of their shares does not.
  public static func mean(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let mean = values.reduce(0, +) / Double(values.count)
    return mean.isFinite ? mean : values.reduce(0) { $0 + $1 / Double(values.count) }
  }

  /// CSV fields of one line (double quotes as `arbkit sweep` writes them).
  static func fields(_ line: String) -> [String] {
    var fields: [String] = []
    var field = ""
    var quoted = false
    var characters = line.makeIterator()
    while let c = characters.next() {
      if quoted {
        if c == "\"" {
          if let next = characters.next() {
            if next == "\"" { field.append("\""); continue }
            quoted = false
            if next == "," { fields.append(field); field = "" } else { field.append(next) }
          } else {
            quoted = false
          }
        } else {
          field.append(c)
        }
      } else if c == "\"" && field.isEmpty {
        quoted = true
      } else if c == "," {
        fields.append(field)
        field = ""
      } else {
        field.append(c)
      }
    }
    fields.append(field)
    return fields
  }
}

/// A sweep file that cannot be read: `path:line: error: message`.
public struct SweepResultsError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var line: Int
  public var message: String
  public var description: String { "\(path):\(line):1: error: \(message)" }
}
