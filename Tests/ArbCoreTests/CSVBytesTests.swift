import ArbCore
import Testing
import TestSupport

/// The CSV rows are written as bytes (`CSVBytes`); these pin the bytes to the text the
/// rows had when they were built from `String`s: `String(value)` for integers, and for a
/// number an integral value below 1e15 as a whole number, any other its `description`.
@Suite("CSV text written as bytes")
struct CSVBytesTests {
  /// The text of a CSV number as it was formatted before `CSVBytes`.
  static func previousText(_ value: Double?) -> String {
    guard let value else { return "" }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }

  static func text(_ value: Double?) -> String {
    var bytes = CSVBytes()
    bytes.append(number: value)
    return bytes.string
  }

  static func text(_ value: Int64) -> String {
    var bytes = CSVBytes()
    bytes.append(value)
    return bytes.string
  }

  /// Zeros, extremes, subnormals, the integral edge at 1e15, powers of ten and 2⁵³.
  static let edgeNumbers: [Double] = {
    var values: [Double] = [
      0, -0.0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 0.3, 1.0 / 3, 2.0 / 3, .pi, 1e-5, 1e-4, 1e-7, -.leastNonzeroMagnitude,
      .leastNonzeroMagnitude, .leastNormalMagnitude, -.leastNormalMagnitude, .leastNormalMagnitude.nextDown,
      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .ulpOfOne, 1 + .ulpOfOne, 1.0.nextDown,
      1e15, -1e15, 1e15 - 1, 1e15.nextDown, 1e15.nextUp, -1e15 + 1, 1e15 + 0.5, 999_999_999_999_999.9,
      1e16, 1e17, 1e21, 1e22, 1e23, 123_456_789_012_345_680, 0x1p53, 0x1p53 + 2,
      -0x1p63, 0x1p63, 0x1p63.nextDown, 65_432.1, 0.000_123, 12_345.678_9,
    ]
    for exponent in -323...308 {
      let power = Double("1e\(exponent)")!
      values += [power, -power, power.nextUp, power.nextDown]
    }
    for k in -2000...2000 { values += [Double(k) * 0.1, Double(k) / 10, Double(k) * 0.01, Double(k)] }
    return values
  }()

  @Test func `edge numbers are written as before`() {
    for value in Self.edgeNumbers where value.isFinite {
      #expect(Self.text(value) == Self.previousText(value), "\(value.bitPattern)")
    }
  }

  @Test func `random numbers are written as before`() {
    var rng = SplitMix64(seed: 41)
    for _ in 0..<200_000 {
      // Any finite bit pattern (subnormals, huge and tiny magnitudes), prices, premiums
      // in percent, and whole numbers around the 1e15 edge.
      let any = Double(bitPattern: rng.next())
      let price = (rng.uniform() * 100_000 * 1e8).rounded() / 1e8
      let premium = rng.normal() * 0.05
      let whole = Double(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64))
      for value in [any, price, -price, premium, whole, whole + 0.5] where value.isFinite {
        #expect(Self.text(value) == Self.previousText(value), "\(value.bitPattern)")
      }
    }
  }

  @Test func `an absent number is an empty field`() {
    #expect(Self.text(nil) == "")
    var row = CSVBytes()
    row.append(Int64(5))
    row.appendField(nil)
    row.appendField(-0.0)
    row.appendField(0.25)
    row.append(ascii: "\n")
    #expect(row.string == "5,,0,0.25\n")
  }

  @Test func `the formatting of JSON and CSV numbers is the bytes' formatting`() {
    for value in Self.edgeNumbers where value.isFinite {
      #expect(JSONValue.format(value) == Self.previousText(value))
      #expect(NumberText.csv(value) == Self.previousText(value))
    }
    #expect(NumberText.csv(nil) == "")
  }

  @Test func `a non-finite number stops the program`() async {
    await #expect(processExitsWith: .failure) {
      var bytes = CSVBytes()
      bytes.append(number: .nan)
    }
  }

  @Test func `integers are written as String(value)`() {
    var rng = SplitMix64(seed: 7)
    var values: [Int64] = [0, 1, -1, 9, 10, -10, .min, .max, .min + 1, .max - 1]
    var power: Int64 = 1
    for _ in 0..<18 {
      power *= 10
      values += [power, power - 1, power + 1, -power, -power + 1]
    }
    for _ in 0..<100_000 {
      let bits = Int64(bitPattern: rng.next())
      values += [bits, bits >> Int64(rng.next() % 64)]
    }
    for value in values { #expect(Self.text(value) == String(value)) }
    var row = CSVBytes()
    row.append(Int(-42))
    #expect(row.string == "-42")
  }

  @Test func `rows accumulate and the buffer empties for the next block`() {
    var rows = CSVBytes()
    rows.append("ts_us,é\n")
    rows.append(Int64(1_700_000_000_000_000))
    rows.appendField(65_432.1)
    rows.append(ascii: "\n")
    #expect(rows.string == "ts_us,é\n1700000000000000,65432.1\n")
    #expect(rows.count == rows.bytes.count && rows.count == rows.string.utf8.count)
    rows.removeAll()
    #expect(rows.count == 0 && rows.string.isEmpty)
  }
}
