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

  /// Shortest round-trip text for CSV (empty when absent), as `CSVBytes.append(number:)`
  /// writes it.
  public static func csv(_ value: Double?) -> String {
    var text = CSVBytes()
    text.append(number: value)
    return text.string
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

/// CSV text built as UTF-8 bytes in one reusable buffer, with no `String` per row or
/// field: integers written digit by digit, numbers in their shortest round-trip digits.
/// Writers append rows and hand `bytes` to the file in large blocks.
public struct CSVBytes: TextOutputStream {
  /// The text so far, UTF-8.
  public private(set) var bytes: [UInt8] = []

  /// An empty buffer.
  public init() {}

  /// The number of bytes so far.
  public var count: Int { bytes.count }

  /// The text so far as a `String`.
  public var string: String { String(decoding: bytes, as: UTF8.self) }

  /// Empties the buffer, keeping its storage for the next rows.
  public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

  /// Appends `text` (a header, a name) as UTF-8.
  public mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

  /// Appends one ASCII character (a separator, the end of a line).
  public mutating func append(ascii character: Unicode.Scalar) {
    precondition(character.isASCII, "not ASCII: \(character)")
    bytes.append(UInt8(truncatingIfNeeded: character.value))
  }

  /// Appends `value` in decimal (`String(value)`).
  public mutating func append(_ value: Int64) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var rest = value.magnitude
    let start = bytes.count
    repeat {
      bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10))
      rest /= 10
    } while rest > 0
    bytes[start...].reverse()
  }

  /// Appends `value` in decimal.
  public mutating func append(_ value: Int) { append(Int64(value)) }

  /// Appends the shortest text that reads back to `value`, nothing when absent: an
  /// integral value below 1e15 in magnitude without a fraction (`3`, `0` for -0.0), any
  /// other the digits of `value.description` (`0.1`, `1e+15`, `5e-324`).
  /// - Precondition: `value` is finite (results are checked with `checkedFinite()` first).
  public mutating func append(number value: Double?) {
    guard let value else { return }
    precondition(value.isFinite, "non-finite number reached the output: check results with checkedFinite() first")
    if value == value.rounded() && abs(value) < 1e15 { return append(Int64(value)) }
    // The standard library writes the digits of `description` through `_writeASCII`.
    value.write(to: &self)
  }

  /// Appends a comma, then `value` (`append(number:)`): the next field of a row.
  public mutating func appendField(_ value: Double?) {
    append(ascii: ",")
    append(number: value)
  }

  /// Appends `text` as UTF-8 (`TextOutputStream`).
  public mutating func write(_ text: String) { append(text) }

  /// Appends ASCII bytes (`TextOutputStream`: how `Double.write(to:)` hands over the
  /// digits of its `description`, without making a `String`).
  public mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
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
