import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// DecimalParser must give bitwise the double that `strtod` gives (formats.md §0), on
// every price of the shipped real files and on seeded random decimals.

@Suite("DecimalParser against strtod")
struct DecimalParserTests {
  // MARK: Real files

  @Test("every numeric field of the Binance.US candle file")
  func binanceUSFields() throws {
    let lines = try textLines(Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv"))
    #expect(lines[0] == "open_time,open,high,low,close,volume")
    let fields = lines.dropFirst().filter { !$0.isEmpty }.flatMap { $0.split(separator: ",").dropFirst().map(String.init) }
    #expect(fields.count == 30240 * 5)
    #expect(strtodMismatches(fields) == [])
  }

  @Test("every field of the gzipped Kraken slice, read through Ingest's own gzip reader")
  func krakenFields() throws {
    let lines = try readLines(Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz"), chunkSize: 1 << 20)
    let fields = lines.flatMap { String(decoding: $0, as: UTF8.self).split(separator: ",").map(String.init) }
    #expect(lines.count == 15719)
    #expect(fields.count == 15719 * 7)
    #expect(strtodMismatches(fields) == [])
  }

  static let investingFiles: [(name: String, rows: Int)] = [
    ("upbit_BTC_KRW_daily.csv", 2720), ("bithumb_BTC_KRW_daily.csv", 2994),
    ("coinone_BTC_KRW_daily.csv", 2911), ("bitstamp_BTC_USD_daily.csv", 2232),
    ("USD_KRW_daily.csv", 3806),
  ]

  @Test("every number of the Investing.com files, thousands separators removed", arguments: investingFiles)
  func investingFields(file: (name: String, rows: Int)) throws {
    let lines = try textLines(Repository.data("samples/investing/" + file.name)).dropFirst()
    #expect(lines.count == file.rows)
    var fields: [String] = []
    for line in lines {
      // "date","close","open","high","low","volume","change %"
      let cells = line.dropFirst().dropLast().components(separatedBy: "\",\"")
      try #require(cells.count == 7, "\(line)")
      fields += cells[1...4].map { $0.replacingOccurrences(of: ",", with: "") }
      let volume = cells[5].replacingOccurrences(of: ",", with: "")
      if let unit = volume.last, "KMB".contains(unit) { fields.append(String(volume.dropLast())) }
      fields.append(String(cells[6].dropLast()))  // "-0.75%"
    }
    #expect(fields.count >= file.rows * 5)
    #expect(strtodMismatches(fields) == [])
  }

  /// The plain CSV files under `folder`, at any depth.
  static func csvFiles(under folder: String) -> [String] {
    let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    return names.filter { $0.hasSuffix(".csv") }.sorted().map { folder + "/" + $0 }
  }

  @Test("every decimal field of every plain CSV fixture and sample")
  func everyFixtureField() throws {
    let files = Self.csvFiles(under: fixture("")) + Self.csvFiles(under: Repository.data("samples"))
    #expect(files.count >= 20)
    let numeric = Set("0123456789.eE+-".utf8)
    var fields: [String] = []
    for file in files {
      for line in try textLines(file) {
        for cell in line.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "\t" }) {
          let text = cell.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
          if text.utf8.contains(where: { $0 >= 48 && $0 <= 57 }) && text.utf8.allSatisfy(numeric.contains) && strtodValue(text) != nil {
            fields.append(text)
          }
        }
      }
    }
    #expect(fields.count > 100_000)
    #expect(strtodMismatches(fields) == [])
  }

  // MARK: Seeded random decimals

  /// A number as exchanges print it, and around it: optional sign, leading zeros,
  /// 0–20 integer and 0–20 fraction digits (19 and 20 significant digits often),
  /// trailing zeros, sometimes an exponent.
  static func randomExchangeDecimal(_ g: inout SplitMix64) -> String {
    func roll(_ n: Int) -> Int { Int(g.next() % UInt64(n)) }
    func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(roll(10))) }) }
    var text = roll(3) == 0 ? "-" : ""
    if roll(5) == 0 { text += String(repeating: "0", count: 1 + roll(3)) }
    let significant = [19, 20, roll(21)][roll(3)]
    let integer = roll(significant + 1)
    text += digits(integer)
    if integer < significant || roll(3) == 0 { text += "." + digits(significant - integer) }
    if roll(3) == 0 { text += String(repeating: "0", count: 1 + roll(6)) }
    if text.allSatisfy({ $0 == "-" || $0 == "." || $0 == "0" }) { text += "1" }
    if roll(6) == 0 { text += "e" + ["", "-", "+"][roll(3)] + String(roll(30)) }
    return text
  }

  @Test("seeded exchange-shaped decimals parse to strtod's double")
  func randomExchangeDecimals() {
    var g = SplitMix64(seed: 0xE8C4_A11E)
    let texts = (0..<200_000).map { _ in Self.randomExchangeDecimal(&g) }
    #expect(strtodMismatches(texts) == [])
  }

  @Test("seeded halfway cases, exact midpoints between neighbouring doubles, parse to strtod's double")
  func randomHalfwayCases() {
    var g = SplitMix64(seed: 0x4A1F)
    var texts: [String] = []
    for _ in 0..<50_000 {
      // An integer m in [2⁵², 2⁵⁴): its doubles are 1 or 2 apart; m + ½ or m + 1 lies midway.
      let m = (UInt64(1) << 52) + g.next() % (UInt64(3) << 52)
      let sign = g.next() % 2 == 0 ? "" : "-"
      if m < 1 << 53 {
        texts += [sign + "\(m).5", sign + "\(m).5000", sign + "\(m)5e-1", sign + "\(m).4999999", sign + "\(m).5000001"]
      } else {
        let odd = m | 1
        texts += [sign + "\(odd)", sign + "\(odd).0", sign + "\(odd)0e-1", sign + "0.\(odd)e17"]
      }
    }
    #expect(strtodMismatches(texts) == [])
  }

  @Test("digit runs cut at every place of the eight-byte reads")
  func digitRunsAroundWords() {
    var g = SplitMix64(seed: 8)
    let others = Array("./:-+eE ,a".utf8) + [0x00, 0x80, 0xB0, 0xB9, 0xFF]
    var mismatches: [String] = []
    for _ in 0..<200_000 {
      let count = Int(g.next() % 26)
      let bytes = (0..<count).map { _ in g.next() % 5 == 0 ? others[Int(g.next() % UInt64(others.count))] : UInt8(48 + g.next() % 10) }
      let text = String(decoding: bytes, as: UTF8.self)
      let found = bytes.withUnsafeBufferPointer { b in b.baseAddress.map { DecimalParser.parseInt64($0, count) } ?? nil }
      let expected = bytes.allSatisfy { $0 < 0x80 && $0 != 0 } ? Int64(text) : nil
      if found != expected { mismatches.append("int \(bytes)") }
      let value = bytes.withUnsafeBufferPointer { b in b.baseAddress.map { DecimalParser.parse($0, count) } ?? nil }
      if let value, bytes.allSatisfy({ $0 < 0x80 && $0 != 0 }), let oracle = strtodValue(text) {
        if value.bitPattern != oracle.bitPattern && !(value.isNaN && oracle.isNaN) { mismatches.append("decimal \(text)") }
      } else if value != nil {
        mismatches.append("decimal accepted \(bytes)")
      }
    }
    #expect(mismatches == [])
  }

  /// A decimal text: optional sign, leading zeros, 1–25 digits with the point anywhere
  /// (or none), optional exponent with its own sign and leading zeros.
  static func randomDecimal(_ g: inout SplitMix64) -> String {
    func roll(_ n: Int) -> Int { Int(g.next() % UInt64(n)) }
    var text = ["", "", "-", "+"][roll(4)]
    if roll(4) == 0 { text += String(repeating: "0", count: 1 + roll(4)) }
    let count = 1 + roll(25)
    var digits = (0..<count).map { _ in String(roll(10)) }
    if roll(5) == 0 {
      // long runs of zeros or nines, where rounding carries
      let filler = roll(2) == 0 ? "0" : "9"
      for k in 1..<count where roll(4) != 0 { digits[k] = filler }
    }
    if roll(4) != 0 { digits.insert(".", at: roll(count + 1)) }
    text += digits.joined()
    if roll(3) == 0 {
      text += ["e", "E"][roll(2)] + ["", "+", "-"][roll(3)] + (roll(6) == 0 ? "00" : "")
      text += String(roll(3) == 0 ? roll(340) : roll(30))
    }
    return text
  }

  @Test("seeded random decimals parse to strtod's double")
  func randomDecimals() {
    var g = SplitMix64(seed: 0x5EED_DEC1)
    let texts = (0..<200_000).map { _ in Self.randomDecimal(&g) }
    #expect(strtodMismatches(texts) == [])
  }

  @Test("seeded random doubles, printed shortest and with 17 and 25 digits")
  func randomDoubles() {
    var g = SplitMix64(seed: 53)
    var texts: [String] = []
    while texts.count < 60_000 {
      let x = Double(bitPattern: g.next())
      guard x.isFinite else { continue }
      texts += [x.description, String(format: "%.17g", x), String(format: "%.25e", x)]
    }
    #expect(strtodMismatches(texts) == [])
  }

  static let hardCases: [String] = [
    // around 2^53, halfway cases round to even
    "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740994",
    "9007199254740995", "9007199254740993.0", "9007199254740993.000000001", "90071992547409930e-1",
    "4503599627370496.5", "4503599627370497.5", "18014398509481983", "18014398509481985",
    "1.00000000000000011102230246251565404236316680908203125",
    "1.00000000000000011102230246251565404236316680908203124",
    "1.00000000000000011102230246251565404236316680908203126",
    // fast-path edges: 10^22 is the last exact power
    "1e22", "1E22", "1e23", "1e-22", "1e-23", "123456789012345e-22", "9007199254740992e22",
    "1e0000000000000022", "0.1", "0.3", "7.038531e-26",
    // extremes: subnormals, overflow, underflow
    "2.2250738585072011e-308", "2.2250738585072012e-308", "4.9406564584124654e-324",
    "2.4703282292062327e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
    "1.7976931348623158e308", "1.7976931348623159e308", "1e400", "-1e400", "1e-400", "0e999999",
    // zeros, signs, points at the ends, leading zeros
    "0", "-0", "+0", "-0.0", "+0e10", "0.", ".5", "1.", "1.e5", ".5e-3", "-.5E+3",
    "00000000000000000000000000001.5", "0.000000000000000000000000000001",
    "123456789012345678901234567890", "0.1234567890123456789012345", "1234567890123456789",
    "0.000000000000000001", "0000000000000000001.5", "-0000000000000000000.25e1",
    "1" + String(repeating: "0", count: 400) + "e-400",
  ]

  @Test("hard cases are strtod's double", arguments: hardCases)
  func hardCase(text: String) {
    #expect(strtodMismatches([text]) == [])
  }

  static let longCases: [(name: String, text: String)] = [
    // An exponent of 7 digits cancelled by as many fraction zeros: the exponent must
    // not be capped into the fast path (1e900000 is inf, not 1).
    ("0.(99999 zeros)1e1000000", "0." + String(repeating: "0", count: 99_999) + "1e1000000"),
    ("0.(999999 zeros)1e1000001", "0." + String(repeating: "0", count: 999_999) + "1e1000001"),
    ("1(100000 zeros)e-100000", "1" + String(repeating: "0", count: 100_000) + "e-100000"),
    ("(100000 zeros).5", String(repeating: "0", count: 100_000) + ".5"),
  ]

  // A loop, not arguments: a failing case then prints its name, not 100 KB of digits.
  @Test("long texts are strtod's double")
  func longTexts() throws {
    for c in Self.longCases {
      let expected = try #require(strtodValue(c.text))
      #expect(parseDecimal(c.text)?.bitPattern == expected.bitPattern, "\(c.name): strtod gives \(expected)")
    }
  }

  // MARK: Grammar

  static let invalid: [String] = [
    "", "-", "+", ".", "1.2.3", "0x10", "1e", "1e+", "1e-", "12a", " 1", "1 ", "e5", "+-1", "--1",
    "1e5.0", "1,0", ".e1", "-.", "na", "infinit", "nan1", "1_000", "1e5e5", "∞",
  ]

  @Test("invalid texts are rejected", arguments: invalid)
  func rejectsInvalid(text: String) {
    #expect(parseDecimal(text) == nil)
  }

  static let words: [(text: String, isNaN: Bool, sign: FloatingPointSign)] = [
    ("nan", true, .plus), ("NaN", true, .plus), ("-nan", true, .plus), ("inf", false, .plus),
    ("Inf", false, .plus), ("-inf", false, .minus), ("+Infinity", false, .plus),
    ("-Infinity", false, .minus), ("INFINITY", false, .plus),
  ]

  @Test("nan and infinity words parse to non-finite values", arguments: words)
  func nonFiniteWords(c: (text: String, isNaN: Bool, sign: FloatingPointSign)) throws {
    let value = try #require(parseDecimal(c.text))
    #expect(!value.isFinite)
    #expect(value.isNaN == c.isNaN)
    if !c.isNaN { #expect(value.sign == c.sign) }
  }

  // MARK: Integers and scaled decimals

  static let integers: [(text: String, value: Int64?)] = [
    ("0", 0), ("-0", 0), ("+42", 42), ("0001", 1), ("1735689600123456", 1_735_689_600_123_456),
    ("999999999999999999", 999_999_999_999_999_999), ("-999999999999999999", -999_999_999_999_999_999),
    ("1000000000000000000", 1_000_000_000_000_000_000), ("00000000000000000000000000042", 42),
    ("9223372036854775807", .max), ("-9223372036854775808", .min),
    ("9223372036854775808", nil), ("-9223372036854775809", nil), ("99999999999999999999", nil),
    ("", nil), ("-", nil), ("+", nil), ("1.0", nil), (" 1", nil), ("1 ", nil), ("1e3", nil), ("12a", nil),
  ]

  @Test("parseInt64 is exact and rejects overflow", arguments: integers)
  func integer(c: (text: String, value: Int64?)) {
    #expect(parseInt64(c.text) == c.value)
  }

  static let scaled: [(text: String, scale: Int, value: Int64?)] = [
    ("1735689600.0974", 6, 1_735_689_600_097_400),
    ("1735689600", 6, 1_735_689_600_000_000),
    ("1735689600.", 6, 1_735_689_600_000_000),
    (".5", 6, 500_000),
    ("1735689600.1234564", 6, 1_735_689_600_123_456),  // 7th digit 4: down
    ("1735689600.1234565", 6, 1_735_689_600_123_457),  // 7th digit 5: up
    ("0.00000049999999", 6, 0),
    ("0.0000005", 6, 1),
    ("1.9999995", 6, 2_000_000),  // the carry runs through every place
    ("-1.5", 6, -1_500_000),
    ("-0.0000005", 6, -1),  // half away from zero
    ("-1735689600.0974", 6, -1_735_689_600_097_400),
    ("+2.25", 6, 2_250_000),
    ("1.2345", 3, 1235), ("2.5", 0, 3), ("-2.5", 0, -3), ("2.4999", 0, 2),
    ("9223372036854.775807", 6, .max),
    ("9223372036854.775808", 6, nil),  // overflows in the fraction
    ("9223372036854.7758075", 6, nil),  // overflows in the rounding
    ("9223372036855", 6, nil),
    ("", 6, nil), (".", 6, nil), ("-", 6, nil), ("1.2.3", 6, nil), ("1e3", 6, nil), ("abc", 6, nil),
  ]

  @Test("parseScaled scales exactly and rounds the first dropped digit", arguments: scaled)
  func scaledDecimal(c: (text: String, scale: Int, value: Int64?)) {
    #expect(parseScaled(c.text, scale: c.scale) == c.value)
  }
}
