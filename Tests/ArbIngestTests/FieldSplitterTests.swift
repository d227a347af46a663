import TestSupport
import Testing

@testable import ArbIngest

// The split against `split(separator:)` on seeded random lines, with the delimiter at
// every place of the 8-byte words and lines past 64 bytes; quoted lines by example.

@Suite("FieldSplitter")
struct FieldSplitterTests {
  /// The fields `splitter` finds in `line`, as byte arrays; `nil` for an unterminated quote.
  static func fields(_ splitter: inout FieldSplitter, _ line: [UInt8]) -> [[UInt8]]? {
    line.withUnsafeBufferPointer { buffer in
      guard let count = splitter.split(buffer) else { return nil }
      return (0..<count).map { Array(buffer[splitter.starts[$0]..<splitter.ends[$0]]) }
    }
  }

  @Test("lines without quotes split as split(separator:) splits them", arguments: [UInt8(ascii: ","), UInt8(ascii: ";"), 9])
  func unquoted(delimiter: UInt8) {
    var g = SplitMix64(seed: UInt64(delimiter))
    var plain = FieldSplitter(delimiter: delimiter)
    var quoting = FieldSplitter(delimiter: delimiter, quote: UInt8(ascii: "\""))
    let alphabet = Array("09.-a ,;\t".utf8) + [0x80, 0xFF, 0x00, delimiter ^ 1, delimiter]
    for _ in 0..<50_000 {
      let count = Int(g.next() % 140)
      let line = (0..<count).map { _ in alphabet[Int(g.next() % UInt64(alphabet.count))] }
      let expected = line.split(separator: delimiter, omittingEmptySubsequences: false).map { Array($0) }
      #expect(Self.fields(&plain, line) == expected, "\(line)")
      #expect(Self.fields(&quoting, line) == expected, "\(line)")
    }
  }

  static let quoted: [(line: String, fields: [String]?)] = [
    ("\"a,b\",c", ["a,b", "c"]),
    ("a,\"b\"\"c\",d", ["a", "b\"\"c", "d"]),
    ("0123456789,\"x\",0123456789012345678", ["0123456789", "x", "0123456789012345678"]),
    ("ab\"c,d", ["ab\"c", "d"]),
    ("a,\"b", nil),
    ("\"a\"b,c", nil),
  ]

  @Test("a line with the quote byte is split field by field", arguments: quoted)
  func quotedLine(c: (line: String, fields: [String]?)) {
    var splitter = FieldSplitter(delimiter: UInt8(ascii: ","), quote: UInt8(ascii: "\""))
    #expect(Self.fields(&splitter, Array(c.line.utf8)) == c.fields?.map { Array($0.utf8) })
  }

  @Test("a line of more fields than the capacity is cut there")
  func capacity() {
    var splitter = FieldSplitter()
    let line = [UInt8](repeating: UInt8(ascii: ","), count: FieldOffsets.capacity + 10)
    let count = line.withUnsafeBufferPointer { splitter.split($0) }
    #expect(count == FieldOffsets.capacity)
  }
}
