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
