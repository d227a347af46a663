#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Parses numbers straight from bytes, giving exactly the `Double` that `strtod` gives.
///
/// Fast path (Clinger): a decimal written with at most 19 digits whose integer
/// mantissa `m ≤ 2⁵³` and whose decimal exponent `k` has `|k| ≤ 22` is `m × 10ᵏ` or
/// `m ÷ 10⁻ᵏ`, one correctly rounded operation on exact operands, hence exact. Every
/// other valid number goes to `strtod` on a NUL-terminated copy. Digits are read eight
/// at a time where eight bytes of the text remain (`eightDigits`). The grammar is
/// strict: `[+-]? digits [. digits] [(e|E) [+-]? digits]` (digits on at least one side
/// of the point), or the words `nan`, `inf`, `infinity` in any case, which parse to
/// non-finite values so that the caller can reject them by name.
package enum DecimalParser {
  private static let exactPowers: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// The value of the bytes `p[0..<n]`, or `nil` when they are not a number.
  ///
  /// - Complexity: O(n), no allocation.
  @inline(__always)
  package static func parse(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
    var i = 0
    var negative = false
    if n > 0 && (p[0] == UInt8(ascii: "-") || p[0] == UInt8(ascii: "+")) {
      negative = p[0] == UInt8(ascii: "-")
      i = 1
    }
    if i < n && (p[i] | 0x20) >= UInt8(ascii: "a") && (p[i] | 0x20) <= UInt8(ascii: "z") {
      return parseWord(p + i, n - i, negative: negative)
    }
    // Every digit goes into the mantissa (leading zeros too: they add nothing); more
    // than 19 digits could overflow and go to strtod.
    var mantissa: UInt64 = 0
    let integerStart = i
    accumulateDigits(p, &i, n, &mantissa)
    var digits = i - integerStart
    var exponent = 0
    if i < n && p[i] == UInt8(ascii: ".") {
      i += 1
      let fractionStart = i
      accumulateDigits(p, &i, n, &mantissa)
      exponent = fractionStart - i
      digits += i - fractionStart
    }
    if digits == 0 { return nil }
    if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
      i += 1
      var exponentNegative = false
      if i < n && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) {
        exponentNegative = p[i] == UInt8(ascii: "-")
        i += 1
      }
      var e = 0
      var exponentDigits = 0
      while i < n, case let d = p[i] &- 48, d < 10 {
        if e < 100_000 { e = e * 10 + Int(d) }
        exponentDigits += 1
        i += 1
      }
      if exponentDigits == 0 { return nil }
      exponent += exponentNegative ? -e : e
    }
    if i != n { return nil }
    if digits <= 19 && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
      let m = Double(mantissa)
      let value = exponent < 0 ? m / exactPowers[-exponent] : m * exactPowers[exponent]
      return negative ? -value : value
    }
    return viaStrtod(p, n)
  }

  private static let digitPowers: [UInt64] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]

  /// Appends the run of digits at `p[i..<n]` to `value` (`value × 10 + digit`, wrapping
  /// past 2⁶⁴) and moves `i` past it.
  @inline(__always)
  static func accumulateDigits(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, _ value: inout UInt64) {
    while n - i >= 8 {
      let (run, count) = eightDigits(p + i)
      value = value &* digitPowers[count] &+ run
      i += count
      if count < 8 { return }
    }
    while i < n, case let d = p[i] &- 48, d < 10 {
      value = value &* 10 &+ UInt64(d)
      i += 1
    }
  }

  /// The leading digits of the eight bytes at `p`, as a number, and how many there are
  /// (0–8), found and converted in one 64-bit word (SWAR): a byte is a digit when
  /// neither `(b & 0x7F) + 0x46` nor `b` has its high bit set and `(b & 0x7F) + 0x50`
  /// has (no carry crosses bytes); the digits are shifted to the word's top, the
  /// bytes below becoming leading zeros, and combined pairwise (simdjson's
  /// `parse_eight_digits_unrolled`).
  @inline(__always)
  static func eightDigits(_ p: UnsafePointer<UInt8>) -> (value: UInt64, count: Int) {
    let word = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
    let low = word & 0x7F7F_7F7F_7F7F_7F7F
    let above = low &+ 0x4646_4646_4646_4646
    let atLeast = low &+ 0x5050_5050_5050_5050
    let notDigit = (above | ~atLeast | word) & 0x8080_8080_8080_8080
    let count = notDigit.trailingZeroBitCount >> 3
    guard count > 0 else { return (0, 0) }
    // Subtracting '0' borrows only out of non-digit bytes, above the digits: shifted out.
    var v = (word &- 0x3030_3030_3030_3030) &<< UInt64(64 - 8 * count)
    v = v &* 10 &+ (v >> 8)
    let mask: UInt64 = 0x0000_00FF_0000_00FF
    let pairs: UInt64 = (v & mask) &* 0x000F_4240_0000_0064  // 100 + 10⁶ << 32
    let quads: UInt64 = ((v >> 16) & mask) &* 0x0000_2710_0000_0001  // 1 + 10⁴ << 32
    return ((pairs &+ quads) >> 32, count)
  }

  private static func parseWord(_ p: UnsafePointer<UInt8>, _ n: Int, negative: Bool) -> Double? {
    func matches(_ word: StaticString) -> Bool {
      guard n == word.utf8CodeUnitCount else { return false }
      for k in 0..<n where p[k] | 0x20 != word.utf8Start[k] { return false }
      return true
    }
    if matches("nan") { return .nan }
    if matches("inf") || matches("infinity") { return negative ? -.infinity : .infinity }
    return nil
  }

  private static func viaStrtod(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buffer in
      for k in 0..<n { buffer[k] = CChar(bitPattern: p[k]) }
      buffer[n] = 0
      return strtod(buffer.baseAddress!, nil)
    }
  }

  /// A signed decimal integer, or `nil` on any other byte or on overflow.
  @inline(__always)
  package static func parseInt64(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int64? {
    var i = 0
    var negative = false
    if n > 0 && (p[0] == UInt8(ascii: "-") || p[0] == UInt8(ascii: "+")) {
      negative = p[0] == UInt8(ascii: "-")
      i = 1
    }
    guard i < n else { return nil }
    var value: Int64 = 0
    if n - i <= 18 {
      // At most 18 digits cannot overflow: no check per digit.
      var magnitude: UInt64 = 0
      accumulateDigits(p, &i, n, &magnitude)
      guard i == n else { return nil }
      value = Int64(magnitude)
      return negative ? -value : value
    }
    while i < n {
      let d = p[i] &- 48
      guard d < 10 else { return nil }
      // Accumulate towards the sign, so that Int64.min (19 digits) is in range.
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (sum, o2) = negative ? times10.subtractingReportingOverflow(Int64(d)) : times10.addingReportingOverflow(Int64(d))
      if o1 || o2 { return nil }
      value = sum
      i += 1
    }
    return value
  }

  /// A decimal number of units scaled by `10^scale` and rounded half away from zero to
  /// an integer, computed exactly in integers: `1735689600.0974` with scale 6 is
  /// `1735689600097400`. Used for fractional-second timestamps.
  package static func parseScaled(_ p: UnsafePointer<UInt8>, _ n: Int, scale: Int) -> Int64? {
    var i = 0
    var negative = false
    if n > 0 && (p[0] == UInt8(ascii: "-") || p[0] == UInt8(ascii: "+")) {
      negative = p[0] == UInt8(ascii: "-")
      i = 1
    }
    var unit: Int64 = 1
    for _ in 0..<scale { unit *= 10 }
    var value: Int64 = 0
    var digits = 0
    while i < n, case let d = p[i] &- 48, d < 10 {
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(Int64(d))
      if o1 || o2 { return nil }
      value = sum
      digits += 1
      i += 1
    }
    let (scaled, overflow) = value.multipliedReportingOverflow(by: unit)
    if overflow { return nil }
    value = scaled
    if i < n && p[i] == UInt8(ascii: ".") {
      i += 1
      var place = unit
      var roundUp = false
      var first = true
      while i < n, case let d = p[i] &- 48, d < 10 {
        if place > 1 {
          place /= 10
          let (sum, overflow) = value.addingReportingOverflow(Int64(d) * place)
          if overflow { return nil }
          value = sum
        } else if first {
          roundUp = d >= 5
          first = false
        }
        digits += 1
        i += 1
      }
      if roundUp {
        let (sum, overflow) = value.addingReportingOverflow(1)
        if overflow { return nil }
        value = sum
      }
    }
    guard i == n, digits > 0 else { return nil }
    return negative ? -value : value
  }
}
