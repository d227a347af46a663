import Foundation

/// A JSON value as read from a file or built from `--set` text: the typed tree a
/// scenario is overridden and checked on before it becomes a `Scenario`.
///
/// A boolean is never a number nor the other way round: `true` is `.bool`, `1` is
/// `.number`.
public enum JSONTree: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONTree])
  case object([String: JSONTree])

  public var string: String? { if case .string(let value) = self { value } else { nil } }
  public var number: Double? { if case .number(let value) = self { value } else { nil } }
  public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
  public var array: [JSONTree]? { if case .array(let value) = self { value } else { nil } }
  public var object: [String: JSONTree]? { if case .object(let value) = self { value } else { nil } }

  /// An array of strings only; `nil` for anything else.
  public var strings: [String]? {
    guard let array else { return nil }
    let strings = array.compactMap(\.string)
    return strings.count == array.count ? strings : nil
  }
}

extension JSONTree: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONTree].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONTree].self))
    }
  }
}

extension JSONTree: CustomStringConvertible {
  /// The value as it would be written: a whole number without a fraction, a string quoted.
  public var description: String {
    switch self {
    case .null: "null"
    case .bool(let value): "\(value)"
    case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    case .string(let value): "\"\(value)\""
    case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
    case .object(let members): "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
    }
  }
}

extension JSONTree: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
  ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  public init(nilLiteral: ()) { self = .null }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(stringLiteral value: String) { self = .string(value) }
  public init(arrayLiteral elements: JSONTree...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONTree)...) { self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last })) }
}
