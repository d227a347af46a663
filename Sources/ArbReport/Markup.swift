import ArbCore
import Foundation

/// Escaping of text from data and scenarios for the report's HTML, SVG and Markdown.
public enum Markup {
  /// Text and attribute values of HTML and SVG: `& < > " '` as entities, control
  /// characters (other than tab and newline) dropped, so no string can open a tag,
  /// close an attribute or start a script.
  public static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      case "\t", "\n": out.unicodeScalars.append(scalar)
      case _ where scalar.value < 0x20 || scalar.value == 0x7F: break
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Text for a Markdown paragraph or table cell: `& < >` as entities (Markdown
  /// passes raw HTML through, so no tag can form), Markdown punctuation
  /// backslash-escaped, line breaks as spaces, control characters dropped.
  public static func markdown(_ text: String) -> String {
    var out = text.hasPrefix("#") ? "\\" : ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\\", "`", "*", "_", "[", "]", "|", "{", "}", "~": out += "\\" + String(scalar)
      case "\n", "\t": out += " "
      case _ where scalar.value < 0x20 || scalar.value == 0x7F: break
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

/// Numbers as the report prints them.
public enum ReportNumber {
  /// `value` with `digits` decimals (never `-0.00`), or `–` when absent.
  public static func fixed(_ value: Double?, _ digits: Int) -> String {
    guard let value else { return "–" }
    precondition(value.isFinite, "non-finite number reached the report")
    var text = String(format: "%.\(digits)f", value)
    if text.hasPrefix("-"), text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { text.removeFirst() }
    return text
  }

  /// A share in 0…1 as a percentage with two decimals.
  public static func percent(_ share: Double?) -> String {
    guard let share else { return "–" }
    return fixed(share * 100, 2) + " %"
  }

  /// An integer with thousands separators (`30,240`).
  public static func count(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (k, digit) in digits.enumerated() {
      if k > 0 && (digits.count - k) % 3 == 0 { out += "," }
      out.append(digit)
    }
    return (value < 0 ? "-" : "") + out
  }

  /// A duration in seconds in a readable unit (`TimeText.readableDuration`: `45.0 s`,
  /// `12.5 min`, `3.2 h`, `2.1 d`), or `–` when absent.
  public static func duration(_ seconds: Double?) -> String {
    seconds.map { TimeText.readableDuration(seconds: $0) } ?? "–"
  }
}
