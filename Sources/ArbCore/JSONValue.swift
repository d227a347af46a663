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

  /// A number, or `null` when absent.
  public static func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }

  public static func int(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
  public static func int(_ value: Int64?) -> JSONValue { value.map { .int($0) } ?? .null }

  /// The first number that is not finite (depth first) and where it is (`mid.std`,
  /// `daily.3.pnl`); `nil` when every number is finite.
  public func firstNonFinite() -> NonFiniteResult? {
    switch self {
    case .number(let value) where !value.isFinite: return NonFiniteResult(key: "", value: value)
    case .array(let items):
      for (k, item) in items.enumerated() { if let found = item.firstNonFinite() { return found.inside(String(k)) } }
    case .object(let members):
      for (key, value) in members { if let found = value.firstNonFinite() { return found.inside(key) } }
    default: break
    }
    return nil
  }

  /// This value, after checking that every number in it is finite: the one check a
  /// command's result passes before any of its formats (table, CSV, JSON) is written.
  ///
  /// - Throws: `NonFiniteResult` naming the first number that is not.
  public func checkedFinite() throws(NonFiniteResult) -> JSONValue {
    if let found = firstNonFinite() { throw found }
    return self
  }

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
  /// a fraction (`3`, not `3.0`): `CSVBytes.append(number:)`.
  public static func format(_ value: Double) -> String { NumberText.csv(value) }

  public static func quote(_ text: String, into out: inout String) {
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

/// A computed figure that is not a finite number (an overflow, or 0/0, on extreme
/// data): refused before any output is written (exit 65), never printed as `inf` or `nan`.
public struct NonFiniteResult: Diagnostic {
  /// Where the figure is in the command's JSON output (`mid.std`, `daily.3.pnl`).
  public var key: String
  public var value: Double

  public init(key: String, value: Double) {
    self.key = key
    self.value = value
  }

  /// The same figure one level down, under `parent`.
  public func inside(_ parent: String) -> NonFiniteResult { NonFiniteResult(key: key.isEmpty ? parent : parent + "." + key, value: value) }

  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { false }

  public var description: String {
    let what = value.isNaN ? "undefined (0/0 or ∞ − ∞)" : "an overflow"
    return "\(key) is not a finite number but \(what): the input's prices or amounts are too extreme for double arithmetic"
  }
}
