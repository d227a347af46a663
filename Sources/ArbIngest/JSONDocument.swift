#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Read access to a scanned JSON document: members by key, array elements, numbers
/// (JSON numbers or numbers written as strings) and text. Valid while the scanned
/// bytes are.
struct JSONDocument {
  let bytes: UnsafeBufferPointer<UInt8>
  let nodes: [JSONNode]

  /// A number read from a node.
  enum Number {
    case value(Double)
    /// `null`, `""` or a missing member: the venue gives no value.
    case absent
    /// Anything else (a word, an object, a malformed number string).
    case invalid
  }

  func kind(_ node: Int) -> JSONNode.Kind { nodes[node].kind }

  /// The value of member `key` of object `node`, or `nil`. Keys are compared as raw
  /// bytes (a key written with escapes does not match).
  func member(_ node: Int, _ key: StaticString) -> Int? {
    guard nodes[node].kind == .object else { return nil }
    var k = node + 1
    let end = nodes[node].after
    let n = key.utf8CodeUnitCount
    while k < end {
      let name = nodes[k]
      if name.end - name.start == n && memcmp(bytes.baseAddress! + name.start, key.utf8Start, n) == 0 { return k + 1 }
      k = nodes[k + 1].after
    }
    return nil
  }

  /// Follows a path of member keys from `node`.
  func member(_ node: Int, _ first: StaticString, _ second: StaticString) -> Int? {
    member(node, first).flatMap { member($0, second) }
  }

  /// The element nodes of array `node` (empty for anything else).
  func elements(_ node: Int) -> [Int] {
    guard nodes[node].kind == .array else { return [] }
    var result: [Int] = []
    var k = node + 1
    while k < nodes[node].after {
      result.append(k)
      k = nodes[k].after
    }
    return result
  }

  /// Each member of object `node` as (key node, value node).
  func members(_ node: Int) -> [(key: Int, value: Int)] {
    guard nodes[node].kind == .object else { return [] }
    var result: [(Int, Int)] = []
    var k = node + 1
    while k < nodes[node].after {
      result.append((k, k + 1))
      k = nodes[k + 1].after
    }
    return result
  }

  /// The number held by `node`, a JSON number or a string such as `"93512.4"`.
  func number(_ node: Int?) -> Number {
    guard let node else { return .absent }
    let n = nodes[node]
    switch n.kind {
    case .null: return .absent
    case .number, .string:
      if n.kind == .string && n.start == n.end { return .absent }
      if n.escaped { return .invalid }
      return DecimalParser.parse(bytes.baseAddress! + n.start, n.end - n.start).map(Number.value) ?? .invalid
    default: return .invalid
    }
  }

  /// The integer `node` holds (number or string) times 10^`scale`, exact; `nil` when it
  /// holds none (`1786310817.601629` with scale 6 is µs).
  func scaled(_ node: Int?, scale: Int) -> Int64? {
    guard let node, nodes[node].kind == .number || (nodes[node].kind == .string && !nodes[node].escaped) else { return nil }
    return DecimalParser.parseScaled(bytes.baseAddress! + nodes[node].start, nodes[node].end - nodes[node].start, scale: scale)
  }

  /// The raw bytes of `node` (a string without its quotes, escapes not decoded).
  func raw(_ node: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: bytes[nodes[node].start..<nodes[node].end])
  }

  /// Whether `node` is a string equal to `word` (raw bytes).
  func isString(_ node: Int?, _ word: StaticString) -> Bool {
    guard let node, nodes[node].kind == .string else { return false }
    let n = word.utf8CodeUnitCount
    return nodes[node].end - nodes[node].start == n && memcmp(bytes.baseAddress! + nodes[node].start, word.utf8Start, n) == 0
  }

  /// The text of `node`: a string decoded, any other value as written (cut at 200 bytes).
  func text(_ node: Int?) -> String {
    guard let node else { return "" }
    if nodes[node].kind == .string && nodes[node].escaped {
      var out: [UInt8] = []
      JSONDocument.unescape(raw(node), into: &out)
      return String(decoding: out.prefix(200), as: UTF8.self)
    }
    return String(decoding: raw(node).prefix(200), as: UTF8.self)
  }

  /// Decodes the escapes of string contents `source` (already validated by the
  /// scanner) and appends the bytes to `out`. A `\u` escape that is not a valid
  /// scalar (a lone surrogate) becomes U+FFFD.
  static func unescape(_ source: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
    var i = 0
    let n = source.count
    func hex4(_ at: Int) -> UInt32? {
      guard at + 4 <= n else { return nil }
      var v: UInt32 = 0
      for k in at..<at + 4 {
        guard let h = JSONScanner.hexValue(source[k]) else { return nil }
        v = v << 4 | h
      }
      return v
    }
    while i < n {
      let b = source[i]
      guard b == UInt8(ascii: "\\"), i + 1 < n else {
        out.append(b)
        i += 1
        continue
      }
      let e = source[i + 1]
      i += 2
      switch e {
      case UInt8(ascii: "b"): out.append(8)
      case UInt8(ascii: "f"): out.append(12)
      case UInt8(ascii: "n"): out.append(10)
      case UInt8(ascii: "r"): out.append(13)
      case UInt8(ascii: "t"): out.append(9)
      case UInt8(ascii: "u"):
        var scalar = hex4(i) ?? 0xFFFD
        i += 4
        if scalar >= 0xD800 && scalar < 0xDC00, i + 6 <= n, source[i] == UInt8(ascii: "\\"), source[i + 1] == UInt8(ascii: "u"),
          let low = hex4(i + 2), low >= 0xDC00 && low < 0xE000
        {
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          i += 6
        }
        out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8))
      default: out.append(e)
      }
    }
  }
}
