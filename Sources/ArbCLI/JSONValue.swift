/// A JSON value with object keys kept in the order written, so output is stable and
/// reads in the order `docs/cli.md` lists.
public indirect enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case int(Int64)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered() == rhs.rendered() }

  /// A number, or `null` when absent. Non-finite values never reach the output: they
  /// are a bug upstream and trap here.
  static func number(_ value: Double?) -> JSONValue {
    guard let value else { return .null }
    precondition(value.isFinite, "non-finite number reached the JSON output")
    return .number(value)
  }

  static func int(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
  static func int(_ value: Int64?) -> JSONValue { value.map { .int($0) } ?? .null }

  /// Compact JSON text; `indent` > 0 pretty-prints.
  public func rendered(indent: Int = 2) -> String {
    var out = ""
    write(to: &out, indent: indent, level: 0)
    return out
  }

  private func write(to out: inout String, indent: Int, level: Int) {
    let newline = indent > 0 ? "\n" + String(repeating: " ", count: indent * (level + 1)) : ""
    let closing = indent > 0 ? "\n" + String(repeating: " ", count: indent * level) : ""
    switch self {
    case .null: out += "null"
    case .bool(let value): out += value ? "true" : "false"
    case .int(let value): out += String(value)
    case .number(let value): out += Self.format(value)
    case .string(let value): Self.quote(value, into: &out)
    case .array(let items):
      if items.isEmpty { out += "[]"; return }
      out += "["
      for (k, item) in items.enumerated() {
        out += (k > 0 ? "," : "") + newline
        item.write(to: &out, indent: indent, level: level + 1)
      }
      out += closing + "]"
    case .object(let members):
      if members.isEmpty { out += "{}"; return }
      out += "{"
      for (k, (key, value)) in members.enumerated() {
        out += (k > 0 ? "," : "") + newline
        Self.quote(key, into: &out)
        out += indent > 0 ? ": " : ":"
        value.write(to: &out, indent: indent, level: level + 1)
      }
      out += closing + "}"
    }
  }

  /// Shortest text that reads back to the same double; integral values print without
  /// a fraction (`3`, not `3.0`).
  static func format(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }

  static func quote(_ text: String, into out: inout String) {
    out += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}
