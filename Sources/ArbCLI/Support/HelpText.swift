/// Formats option lists for `--help`: flags in a 24-column gutter, descriptions
/// wrapped at 80 columns.
enum HelpText {
  static let gutter = 26

  /// `options` as aligned lines, one entry per (flag, description).
  static func options(_ options: [(flag: String, text: String)]) -> String {
    options.map { option($0.flag, $0.text) }.joined(separator: "\n")
  }

  static func option(_ flag: String, _ text: String) -> String {
    var lines: [String] = []
    var line = "  " + flag
    if line.count >= gutter - 1 { lines.append(line); line = "" }
    line = line.padding(gutter)
    var first = true
    for word in text.split(separator: " ") {
      if !first && line.count + 1 + word.count > 80 {
        lines.append(line)
        line = "".padding(gutter)
        first = true
      }
      line += (first ? "" : " ") + word
      first = false
    }
    lines.append(line)
    return lines.joined(separator: "\n")
  }
}

extension String {
  fileprivate func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
