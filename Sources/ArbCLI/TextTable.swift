import ArbCore

/// A plain aligned text table for the terminal: a header row, a rule, then rows.
/// Columns whose header is right-aligned (numbers) are padded on the left.
struct TextTable {
  var headers: [String]
  var rightAligned: Set<Int>
  var rows: [[String]] = []

  init(_ headers: [String], rightAligned: Set<Int>? = nil) {
    self.headers = headers
    self.rightAligned = rightAligned ?? Set(1..<max(headers.count, 1))
  }

  mutating func add(_ row: [String]) { rows.append(row) }

  func rendered(indent: String = "") -> String {
    var widths = headers.map(\.count)
    for row in rows {
      for (k, cell) in row.enumerated() where k < widths.count { widths[k] = max(widths[k], Self.visibleWidth(cell)) }
    }
    func line(_ cells: [String]) -> String {
      var text = indent
      for (k, cell) in cells.enumerated() {
        let pad = String(repeating: " ", count: widths[k] - Self.visibleWidth(cell))
        text += (k > 0 ? "  " : "") + (rightAligned.contains(k) ? pad + cell : cell + (k == cells.count - 1 ? "" : pad))
      }
      return text
    }
    var lines = [line(headers), indent + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
    lines += rows.map(line)
    return lines.joined(separator: "\n")
  }

  /// Characters a cell shows: ANSI colour sequences (`ESC [ … m`) take no column.
  static func visibleWidth(_ cell: String) -> Int {
    var width = 0, escaped = false
    for character in cell {
      if escaped {
        if character == "m" { escaped = false }
      } else if character == "\u{1B}" {
        escaped = true
      } else {
        width += 1
      }
    }
    return width
  }
}

/// Cell colours of the premium board: grey at or above the lowest band, orange at or
/// above the highest.
enum CellColour {
  static let grey = "\u{1B}[90m"
  static let orange = "\u{1B}[38;5;208m"
  static let reset = "\u{1B}[0m"

  /// `text` coloured for `value` against `bands` (percent), or as is.
  static func premium(_ text: String, _ value: Double?, bands: [Double], enabled: Bool) -> String {
    guard enabled, let value, let low = bands.min(), let high = bands.max() else { return text }
    if high > low && value >= high { return orange + text + reset }
    if value >= low { return grey + text + reset }
    return text
  }
}

/// Number text for tables and CSV.
enum NumberText {
  /// `value` with `digits` decimals, or `-` when absent (the board's missing value).
  static func fixed(_ value: Double?, _ digits: Int) -> String {
    guard let value else { return "-" }
    precondition(value.isFinite, "non-finite number reached the output: check results with checkedFinite() first")
    var text = String(format: digits, value)
    if text == "-" + String(format: digits, 0) { text.removeFirst() }
    return text
  }

  /// A duration in seconds in a readable unit (`TimeText.readableDuration`), or `-`.
  static func duration(_ seconds: Double?) -> String {
    seconds.map { TimeText.readableDuration(seconds: $0) } ?? "-"
  }

  /// A share in 0…1 as a percentage with two decimals.
  static func percent(_ share: Double?) -> String {
    guard let share else { return "-" }
    return fixed(share * 100, 2) + "%"
  }

  /// Shortest round-trip text for CSV (empty when absent).
  static func csv(_ value: Double?) -> String {
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
