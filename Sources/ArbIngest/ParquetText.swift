/// Writes Parquet values as the CSV text the same table's CSV holds, so that the CSV
/// reader's rules apply to them unchanged.
enum ParquetText {
  /// An INT32 (`narrow`) or INT64 value in `form`.
  @inline(__always)
  static func integer(_ value: Int64, _ narrow: Bool, _ form: ParquetValueForm, into out: inout ParquetColumnText) {
    switch form {
    case .integer(let signed):
      if signed {
        digits(value, into: &out.bytes)
      } else {
        unsigned(narrow ? UInt64(UInt32(truncatingIfNeeded: value)) : UInt64(bitPattern: value), into: &out.bytes)
      }
    case .timestamp(let from, _):
      // Units change by a power of ten either way; an overflow keeps the value with its
      // unit, which the time parser then rejects by name.
      if let scaled = form.integer(value, narrow: narrow) {
        digits(scaled, into: &out.bytes)
      } else {
        digits(value, into: &out.bytes)
        append(from == 1_000_000_000 ? "ns" : from == 1_000_000 ? "us" : "ms", to: &out.bytes)
      }
    case .decimal(let scale): decimal(Int128(value), scale: scale, into: &out.bytes)
    default: digits(value, into: &out.bytes)
    }
    out.close()
  }

  /// A FLOAT or DOUBLE value as `CSVBytes.append(number:)` writes it: an integral value
  /// below 1e15 in magnitude as an integer (`3`, as ArbKit's own CSV files hold it), any
  /// other the digits of `description` (without a `String` per value).
  @inline(__always)
  static func double(_ value: Double, into out: inout ParquetColumnText) {
    if value == value.rounded() && abs(value) < 1e15 {
      digits(Int64(value), into: &out.bytes)
    } else {
      value.write(to: &out)
    }
    out.close()
  }

  static func append(_ text: String, into out: inout ParquetColumnText) {
    out.bytes.append(contentsOf: text.utf8)
    out.close()
  }

  /// A BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value in `form`.
  static func bytes(_ value: UnsafeBufferPointer<UInt8>, _ form: ParquetValueForm, into out: inout ParquetColumnText) {
    switch form {
    case .decimal(let scale):
      // A value wider than 16 bytes is written as text that no number parser takes.
      if let unscaled = integer(value, bigEndian: true) { decimal(unscaled, scale: scale, into: &out.bytes) } else { append("wide-decimal", to: &out.bytes) }
    case .fixedPoint(let scale):
      if let unscaled = integer(value, bigEndian: false) {
        decimal(unscaled, scale: scale, into: &out.bytes)
      } else {
        append("wide-fixed-point", to: &out.bytes)
      }
    default: quoted(value, into: &out.bytes)
    }
    out.close()
  }

  /// A two's-complement integer of at most 16 bytes.
  private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool) -> Int128? {
    guard bytes.count <= 16, !bytes.isEmpty else { return bytes.isEmpty ? 0 : nil }
    var value: Int128 = 0
    for k in 0..<bytes.count {
      let byte = bigEndian ? bytes[k] : bytes[bytes.count - 1 - k]
      value = value << 8 | Int128(byte)
    }
    let unused = 128 - 8 * bytes.count
    return unused == 0 ? value : (value << unused) >> unused
  }

  /// `unscaled × 10^-scale` written in full, as `-12.3400`.
  private static func decimal(_ unscaled: Int128, scale: Int, into bytes: inout [UInt8]) {
    var text = Array(unscaled.magnitude.description.utf8)
    if unscaled < 0 { bytes.append(UInt8(ascii: "-")) }
    guard scale > 0 else {
      bytes.append(contentsOf: text)
      if scale < 0 { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: min(-scale, 64))) }
      return
    }
    if text.count <= scale { text.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: scale - text.count + 1), at: 0) }
    bytes.append(contentsOf: text[..<(text.count - scale)])
    bytes.append(UInt8(ascii: "."))
    bytes.append(contentsOf: text[(text.count - scale)...])
  }

  /// Bytes as a CSV field: quoted, with quotes doubled, when they hold a comma, a quote or
  /// a line break.
  private static func quoted(_ value: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
    let needsQuotes = value.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
    guard needsQuotes else {
      bytes.append(contentsOf: value)
      return
    }
    bytes.append(UInt8(ascii: "\""))
    for byte in value {
      bytes.append(byte)
      if byte == UInt8(ascii: "\"") { bytes.append(byte) }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  @inline(__always)
  static func digits(_ value: Int64, into bytes: inout [UInt8]) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    unsigned(value.magnitude, into: &bytes)
  }

  @inline(__always)
  static func unsigned(_ value: UInt64, into bytes: inout [UInt8]) {
    var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
    withUnsafeMutableBytes(of: &scratch) { buffer in
      var v = value, k = buffer.count
      // Two digits a step, from a table of "00" … "99".
      while v >= 10 {
        let pair = Int(v % 100) * 2
        v /= 100
        k -= 2
        buffer[k] = digitPairs[pair]
        buffer[k + 1] = digitPairs[pair + 1]
      }
      // One digit left, or a leading zero of the last pair to drop.
      if v > 0 || k == buffer.count {
        k -= 1
        buffer[k] = UInt8(truncatingIfNeeded: v) + 48
      }
      bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[k...]))
    }
  }

  /// "00", "01", … "99" as ASCII bytes.
  private static let digitPairs: [UInt8] = (0..<100).flatMap { (pair: Int) -> [UInt8] in
    let tens = UInt8(pair / 10), ones = UInt8(pair % 10)
    return [tens + 48, ones + 48]
  }

  private static func append(_ text: String, to bytes: inout [UInt8]) { bytes.append(contentsOf: text.utf8) }

  /// An `Encoding` id's name, for messages.
  static func encodingName(_ id: Int32) -> String {
    let names = [
      0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED", 6: "DELTA_LENGTH_BYTE_ARRAY",
      7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT",
    ]
    return names[Int(id)] ?? "\(id)"
  }
}
