#if canImport(Glibc)
@preconcurrency import Glibc
#endif

// A small JSON scanner over bytes: one document (a line of a JSON-lines file, or a
// whole small file) becomes a flat list of nodes in document order. Strings and
// numbers stay byte ranges into the input; numbers are parsed only when asked for,
// with `DecimalParser`. Nesting is bounded, every loop advances, and every failure
// is a `JSONScanError` with the byte offset, so no input can crash or hang it.

/// Why a document is not JSON, and where (byte offset into the scanned bytes).
struct JSONScanError: Error, Equatable {
  var offset: Int
  var expected: String
  var found: String

  /// The offset as a 1-based line and column in `bytes` (columns count bytes).
  func lineAndColumn(in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
    var line = 1, lineStart = 0
    for k in 0..<min(offset, bytes.count) where bytes[k] == 10 {
      line += 1
      lineStart = k + 1
    }
    return (line, offset - lineStart + 1)
  }
}

/// One value of a scanned document.
struct JSONNode {
  enum Kind: UInt8 { case object, array, string, number, bool, null }
  var kind: Kind
  /// Byte range of the value; a string's range excludes its quotes.
  var start: Int
  var end: Int
  /// Index of the first node after this value's subtree (its next sibling, if any).
  var after: Int
  /// A string holding at least one backslash escape.
  var escaped = false
}

/// The nodes of one document. Node 0 is the root; an object's children alternate key
/// (a string) and value.
struct JSONScanner {
  /// Deepest nesting accepted; deeper documents are an error, not a stack overflow.
  static let maxDepth = 32

  private(set) var nodes: [JSONNode] = []
  private var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
  private var i = 0

  init() { nodes.reserveCapacity(256) }

  /// Scans `input` as one JSON value surrounded by optional whitespace.
  mutating func scan(_ input: UnsafeBufferPointer<UInt8>) throws(JSONScanError) {
    nodes.removeAll(keepingCapacity: true)
    bytes = input
    i = 0
    skipWhitespace()
    try value(depth: 0)
    skipWhitespace()
    if i < bytes.count { throw error("end of input after the value") }
  }

  private func error(_ expected: String) -> JSONScanError {
    let found: String
    if i >= bytes.count {
      found = "end of input"
    } else if bytes[i] >= 0x20 && bytes[i] < 0x7F {
      found = String(UnicodeScalar(bytes[i]))
    } else {
      found = "byte 0x" + String(bytes[i], radix: 16)
    }
    return JSONScanError(offset: i, expected: expected, found: found)
  }

  private mutating func skipWhitespace() {
    while i < bytes.count, case let b = bytes[i], b == 32 || b == 9 || b == 10 || b == 13 { i += 1 }
  }

  private mutating func value(depth: Int) throws(JSONScanError) {
    guard i < bytes.count else { throw error("a value") }
    switch bytes[i] {
    case UInt8(ascii: "{"): try container(object: true, depth: depth)
    case UInt8(ascii: "["): try container(object: false, depth: depth)
    case UInt8(ascii: "\""): try string()
    case UInt8(ascii: "t"): try literal("true", .bool)
    case UInt8(ascii: "f"): try literal("false", .bool)
    case UInt8(ascii: "n"): try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
    default: throw error("a value")
    }
  }

  private mutating func container(object: Bool, depth: Int) throws(JSONScanError) {
    guard depth < Self.maxDepth else { throw error("nesting at most \(Self.maxDepth) deep") }
    let index = nodes.count
    nodes.append(JSONNode(kind: object ? .object : .array, start: i, end: i, after: 0))
    let close = UInt8(ascii: object ? "}" : "]")
    i += 1
    skipWhitespace()
    if i < bytes.count && bytes[i] == close {
      i += 1
    } else {
      while true {
        skipWhitespace()
        if object {
          guard i < bytes.count && bytes[i] == UInt8(ascii: "\"") else { throw error("a key string") }
          try string()
          skipWhitespace()
          guard i < bytes.count && bytes[i] == UInt8(ascii: ":") else { throw error("':' after a key") }
          i += 1
          skipWhitespace()
        }
        try value(depth: depth + 1)
        skipWhitespace()
        guard i < bytes.count else { throw error(object ? "',' or '}'" : "',' or ']'") }
        if bytes[i] == UInt8(ascii: ",") {
          i += 1
          continue
        }
        guard bytes[i] == close else { throw error(object ? "',' or '}'" : "',' or ']'") }
        i += 1
        break
      }
    }
    nodes[index].end = i
    nodes[index].after = nodes.count
  }

  private mutating func string() throws(JSONScanError) {
    i += 1
    let start = i
    var escaped = false
    while true {
      guard i < bytes.count else { throw error("'\"' closing the string") }
      let b = bytes[i]
      if b == UInt8(ascii: "\"") { break }
      if b < 0x20 { throw error("a string character (control bytes must be escaped)") }
      if b == UInt8(ascii: "\\") {
        escaped = true
        i += 1
        guard i < bytes.count else { throw error("an escape character") }
        switch bytes[i] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
          UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
          i += 1
        case UInt8(ascii: "u"):
          i += 1
          for _ in 0..<4 {
            guard i < bytes.count, Self.hexValue(bytes[i]) != nil else { throw error("4 hex digits after \\u") }
            i += 1
          }
        default: throw error("an escape character")
        }
        continue
      }
      i += 1
    }
    nodes.append(JSONNode(kind: .string, start: start, end: i, after: nodes.count + 1, escaped: escaped))
    i += 1
  }

  private mutating func literal(_ word: StaticString, _ kind: JSONNode.Kind) throws(JSONScanError) {
    let start = i
    let n = word.utf8CodeUnitCount
    guard bytes.count - i >= n, memcmp(bytes.baseAddress! + i, word.utf8Start, n) == 0 else {
      throw error("a value")
    }
    i += n
    nodes.append(JSONNode(kind: kind, start: start, end: i, after: nodes.count + 1))
  }

  /// The strict JSON number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  private mutating func number() throws(JSONScanError) {
    let start = i
    if bytes[i] == UInt8(ascii: "-") { i += 1 }
    guard i < bytes.count, Self.isDigit(bytes[i]) else { throw error("a digit") }
    if bytes[i] == UInt8(ascii: "0") { i += 1 } else { skipDigits() }
    if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
      i += 1
      guard i < bytes.count, Self.isDigit(bytes[i]) else { throw error("a digit after '.'") }
      skipDigits()
    }
    if i < bytes.count && (bytes[i] | 0x20) == UInt8(ascii: "e") {
      i += 1
      if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
      guard i < bytes.count, Self.isDigit(bytes[i]) else { throw error("a digit in the exponent") }
      skipDigits()
    }
    nodes.append(JSONNode(kind: .number, start: start, end: i, after: nodes.count + 1))
  }

  private mutating func skipDigits() { while i < bytes.count && Self.isDigit(bytes[i]) { i += 1 } }

  private static func isDigit(_ b: UInt8) -> Bool { b &- 48 < 10 }

  static func hexValue(_ b: UInt8) -> UInt32? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - 48)
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - 87)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - 55)
    default: nil
    }
  }
}
