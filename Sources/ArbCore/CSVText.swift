/// Text of numbers and CSV for every output: tables, CSV files, JSON.

/// Number text for tables and CSV.
public enum NumberText {
  /// `value` with `digits` decimals, or `-` when absent (the board's missing value).
  public static func fixed(_ value: Double?, _ digits: Int) -> String {
    guard let value else { return "-" }
    precondition(value.isFinite, "non-finite number reached the output: check results with checkedFinite() first")
    var text = String(format: digits, value)
    if text == "-" + String(format: digits, 0) { text.removeFirst() }
    return text
  }

  /// A duration in seconds in a readable unit (`TimeText.readableDuration`), or `-`.
  public static func duration(_ seconds: Double?) -> String {
    seconds.map { TimeText.readableDuration(seconds: $0) } ?? "-"
  }

  /// A share in 0…1 as a percentage with two decimals.
  public static func percent(_ share: Double?) -> String {
    guard let share else { return "-" }
    return fixed(share * 100, 2) + "%"
  }

  /// Shortest round-trip text for CSV (empty when absent).
  public static func csv(_ value: Double?) -> String {
    guard let value else { return "" }
    return JSONValue.format(value)
  }

  private static func String(format digits: Int, _ value: Double) -> Swift.String {
    let scale = (0..<digits).reduce(1.0) { x, _ in x * 10 }
    let rounded = (abs(value) * scale).rounded()
    let negative = value < 0 && rounded > 0
    guard rounded < 9e18 else { return "\(value)" }
    let integer = Int64(rounded)
    let whole = integer / Int64(scale)
    var fraction = Swift.String(integer % Int64(scale))
    if digits > 0 { fraction = Swift.String(repeating: "0", count: digits - fraction.count) + fraction }
    return (negative ? "-" : "") + Swift.String(whole) + (digits > 0 ? "." + fraction : "")
  }
}

/// CSV quoting for text fields.
public enum CSV {
  public static func field(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
  }
}

/// A CSV file of rows that start with text fields and end with numbers, whose numbers are
/// checked before it is written.
public struct CSVTable: Sendable {
  public let header: String
  public private(set) var rows: [(fields: [String], numbers: [Double])] = []

  public init(_ header: String) { self.header = header }

  public mutating func add(_ fields: [String], _ numbers: [Double]) { rows.append((fields, numbers)) }

  /// Header and rows, each line ended by a newline.
  public var text: String {
    var text = header + "\n"
    for row in rows { text += (row.fields + row.numbers.map { NumberText.csv($0) }).joined(separator: ",") + "\n" }
    return text
  }

  /// The first number that is not finite, as `ROW.COLUMN` (rows from 1, after the header).
  public func firstNonFinite() -> NonFiniteResult? {
    let columns = header.split(separator: ",").map(String.init)
    for (k, row) in rows.enumerated() {
      if let j = row.numbers.firstIndex(where: { !$0.isFinite }) {
        return NonFiniteResult(key: columns[row.fields.count + j], value: row.numbers[j]).inside(String(k + 1))
      }
    }
    return nil
  }
}
