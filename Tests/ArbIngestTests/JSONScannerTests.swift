import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// The byte-level JSON scanner: valid documents against Foundation's parser as the
// oracle, errors with their offsets worked out by hand, the nesting bound, and
// generated garbage that must end in a value or an error (never a crash or a hang).

/// Scans `text`; the nodes, or the error.
func scanJSON(_ text: String) -> Result<[JSONNode], JSONScanError> {
  var scanner = JSONScanner()
  let bytes = Array(text.utf8)
  return bytes.withUnsafeBufferPointer { buffer in
    do throws(JSONScanError) {
      try scanner.scan(buffer)
      return .success(scanner.nodes)
    } catch {
      return .failure(error)
    }
  }
}

/// Calls `body` with the document of `text` (which must scan).
func withDocument<T>(_ text: String, _ body: (JSONDocument) throws -> T) throws -> T {
  var scanner = JSONScanner()
  let bytes = Array(text.utf8)
  return try bytes.withUnsafeBufferPointer { buffer in
    try scanner.scan(buffer)
    return try body(JSONDocument(bytes: buffer, nodes: scanner.nodes))
  }
}

@Suite("JSON scanner")
struct JSONScannerTests {
  @Test(
    "valid documents scan, and agree with JSONSerialization on validity",
    arguments: [
      "{}", "[]", "0", "-0.5e-3", "\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\"", "true", " null ",
      "{\"a\":[1,2,{\"b\":\"c\"}],\"d\":false,\"e\":null}", "[[1.5,\"2\"],[],{}]", "1E+2",
    ])
  func valid(text: String) throws {
    guard case .success(let nodes) = scanJSON(text) else {
      Issue.record("\(text) did not scan")
      return
    }
    #expect(nodes.first?.after == nodes.count, "the root spans every node")
    #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil)
  }

  @Test(
    "invalid documents fail at the offending byte",
    arguments: [
      ("{\"a\":1,:}", 7, "a key string"), ("[1 2]", 3, "',' or ']'"), ("01", 1, "end of input after the value"),
      ("-", 1, "a digit"), ("1.", 2, "a digit after '.'"), ("1e", 2, "a digit in the exponent"),
      ("\"abc", 4, "'\"' closing the string"), ("\"a\\x\"", 3, "an escape character"), ("\"\\u12g4\"", 5, "4 hex digits after \\u"),
      ("[1,2", 4, "',' or ']'"), ("tru", 0, "a value"), ("{\"a\" 1}", 5, "':' after a key"), ("", 0, "a value"),
      ("\"a\u{01}b\"", 2, "a string character (control bytes must be escaped)"), ("[1] x", 4, "end of input after the value"),
      ("NaN", 0, "a value"), ("+1", 0, "a value"),
    ])
  func invalid(c: (text: String, offset: Int, expected: String)) {
    guard case .failure(let error) = scanJSON(c.text) else {
      Issue.record("\(c.text) scanned")
      return
    }
    #expect(error.offset == c.offset && error.expected == c.expected, "\(c.text): \(error)")
    #expect((try? JSONSerialization.jsonObject(with: Data(c.text.utf8), options: .fragmentsAllowed)) == nil)
  }

  @Test("an error's line and column count lines from 1 and bytes from 1")
  func lineAndColumn() {
    let text = "[\n  1,\n  x]"
    guard case .failure(let error) = scanJSON(text) else {
      Issue.record("scanned")
      return
    }
    let position = Array(text.utf8).withUnsafeBufferPointer { error.lineAndColumn(in: $0) }
    #expect(error.offset == 9 && position == (3, 3))
  }

  @Test("nesting deeper than the bound is an error, not a stack overflow")
  func depth() {
    let ok = String(repeating: "[", count: JSONScanner.maxDepth) + String(repeating: "]", count: JSONScanner.maxDepth)
    let deep = String(repeating: "[", count: 100_000)
    if case .failure(let error) = scanJSON(ok) { Issue.record("\(error)") }
    guard case .failure(let error) = scanJSON(deep) else {
      Issue.record("scanned")
      return
    }
    #expect(error.offset == JSONScanner.maxDepth && error.expected.contains("nesting"))
  }

  @Test("members, elements, numbers written as strings, absent values, unescaped text")
  func documentAccess() throws {
    let text = #"{"a":"93512.40","b":1.5e2,"c":"","d":null,"e":"x","f":[1,[2],3],"g\"":1,"h":"caf\u00e9 \"q\""}"#
    try withDocument(text) { d throws in
      guard case .value(let a) = d.number(d.member(0, "a")), case .value(let b) = d.number(d.member(0, "b")) else {
        Issue.record("numbers")
        return
      }
      #expect(a == 93512.4 && b == 150)
      if case .absent = d.number(d.member(0, "c")) {} else { Issue.record("\"\" is absent") }
      if case .absent = d.number(d.member(0, "d")) {} else { Issue.record("null is absent") }
      if case .absent = d.number(d.member(0, "missing")) {} else { Issue.record("a missing key is absent") }
      if case .invalid = d.number(d.member(0, "e")) {} else { Issue.record("a word is invalid") }
      #expect(d.member(0, "f").map { d.elements($0).count } == 3)
      #expect(d.member(0, "g") == nil, "an escaped key does not match its unescaped text")
      #expect(d.text(d.member(0, "h")) == "café \"q\"")
    }
  }

  @Test("base64 decodes as Foundation does, and rejects what is not base64")
  func base64() {
    var random = SplitMix64(seed: 7)
    for length in 0..<40 {
      let data = Data((0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) })
      let text = Array(data.base64EncodedString().utf8)
      var out: [UInt8] = []
      #expect(text.withUnsafeBufferPointer { Base64.decode($0, into: &out) } && out == Array(data))
    }
    for bad in ["abc", "a=bc", "ab!d", "a==="] {
      var out: [UInt8] = []
      #expect(!Array(bad.utf8).withUnsafeBufferPointer { Base64.decode($0, into: &out) }, "\(bad)")
    }
  }

  @Test("generated garbage and mutated lines end in a document or an error, and agree with JSONSerialization")
  func fuzz() {
    var random = SplitMix64(seed: 2026)
    let seeds = [
      #"{"topic":"tickers.BTCUSDT","type":"delta","data":{"symbol":"BTCUSDT","bid1Price":"65114.2"},"ts":1786310819834}"#,
      #"[{"market":"KRW-BTC","trade_price":137250000.0,"units":[[1,2],[3,4]]},null,true,"\u00e9"]"#,
    ].map { Array($0.utf8) }
    let alphabet = Array(#"{}[]",:\ \u0-9eE.+-truefalsn"#.utf8) + [0, 0x1F, 0xFF, 10]
    var disagreements: [String] = []
    for round in 0..<20_000 {
      var bytes = seeds[round % seeds.count]
      for _ in 0...(random.next() % 4) {
        let at = Int(random.next() % UInt64(bytes.count + 1))
        switch random.next() % 3 {
        case 0: if at < bytes.count { bytes.remove(at: at) }
        case 1: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
        default: if at < bytes.count { bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))] }
        }
      }
      let ours = bytes.withUnsafeBufferPointer { buffer -> Bool in
        var scanner = JSONScanner()
        do throws(JSONScanError) {
          try scanner.scan(buffer)
          return scanner.nodes.first?.after == scanner.nodes.count
        } catch {
          #expect(error.offset <= buffer.count)
          return false
        }
      }
      // Where the oracle is known to differ: Foundation takes a trailing comma (`[1,]`)
      // and refuses invalid UTF-8, which the scanner passes through inside strings, and
      // numbers out of Double's range, which are grammatical JSON.
      let text = String(decoding: bytes, as: UTF8.self)
      let validUTF8 = String(validating: bytes, as: UTF8.self) != nil
      let trailingComma = text.replacingOccurrences(of: " ", with: "").contains(",]") || text.replacingOccurrences(of: " ", with: "").contains(",}")
      let hugeExponent = text.range(of: "[0-9][eE][+-]?[0-9]{3,}", options: .regularExpression) != nil
      guard validUTF8 && !trailingComma && !hugeExponent else { continue }
      let foundation = (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil
      if ours != foundation && disagreements.count < 5 { disagreements.append(text) }
    }
    #expect(disagreements.isEmpty, "\(disagreements)")
  }
}
