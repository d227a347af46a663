@testable import ArbCore
import Foundation
import Testing
import TestSupport
@testable import ArbCLI

@Suite("Output text: JSON numbers and strings, table numbers")
struct OutputTextTests {
  @Test func `json numbers read back to the same double`() throws {
    var rng = SplitMix64(seed: 3)
    for _ in 0..<2000 {
      let x = (rng.uniform() - 0.5) * pow(10, Double(Int(rng.next() % 30)) - 15)
      let text = JSONValue.number(x).rendered(indent: 0)
      #expect(Double(text) == x, "\(x) printed as \(text)")
    }
    #expect(JSONValue.number(3.0).rendered() == "3")
    #expect(JSONValue.number(-0.05).rendered() == "-0.05")
    #expect(JSONValue.number(nil as Double?).rendered() == "null")
  }

  @Test func `json strings escape quotes, backslashes and control characters`() throws {
    let text = "a\"b\\c\nd\te\u{01}é"
    let rendered = JSONValue.string(text).rendered()
    #expect(rendered == "\"a\\\"b\\\\c\\nd\\te\\u0001é\"")
    let parsed = try JSONSerialization.jsonObject(with: Data("[\(rendered)]".utf8)) as? [String]
    #expect(parsed == [text])
  }

  @Test func `objects keep their key order`() {
    let value = JSONValue.object([("z", .int(1)), ("a", .array([.bool(true), .null])), ("m", .object([]))])
    #expect(value.rendered(indent: 0) == "{\"z\":1,\"a\":[true,null],\"m\":{}}")
  }

  static let fixed: [(value: Double?, digits: Int, text: String)] = [
    (0.052345, 4, "0.0523"), (-0.00001, 3, "0.000"), (-1.5, 1, "-1.5"), (123.456, 0, "123"), (nil, 2, "-"),
    (0.99999, 2, "1.00"), (-9.727992, 5, "-9.72799"),
  ]

  @Test("fixed decimals, no negative zero, '-' when missing", arguments: fixed)
  func fixedText(c: (value: Double?, digits: Int, text: String)) {
    #expect(NumberText.fixed(c.value, c.digits) == c.text)
  }

  @Test func `csv fields with commas or quotes are quoted`() {
    #expect(CSV.field("plain") == "plain")
    #expect(CSV.field("a,b") == "\"a,b\"")
    #expect(CSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
  }
}
