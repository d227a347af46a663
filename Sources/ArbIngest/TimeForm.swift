import ArbCore

/// How a timestamp column is written, and how to turn it into microseconds UTC.
public enum TimeForm: String, Sendable, Codable, CaseIterable {
  /// Integer seconds since the epoch.
  case epochSeconds = "s"
  /// Integer milliseconds since the epoch.
  case epochMillis = "ms"
  /// Integer microseconds since the epoch.
  case epochMicros = "us"
  /// Integer nanoseconds since the epoch.
  case epochNanos = "ns"
  /// Integer epoch time whose unit is read from its size, per value:
  /// `< 1e11` s, `< 1e14` ms, `< 1e17` µs, else ns (robust to Binance's 2025 switch).
  case epochAuto = "auto"
  /// Decimal seconds such as `1735689600.0974` (Bybit trade files), exact to 1 µs.
  case fractionalSeconds = "fractional_s"
  /// ISO-8601 date and time, `T` or space between, optional fraction, optional zone
  /// (`Z`, `+09:00`, `+0900`, ` UTC`; hours at most 14); without a zone the spec's `zone` applies.
  case iso8601
  /// A calendar date (`2025-08-01`, also `2025- 08- 01` as Investing.com writes it),
  /// taken as midnight in the spec's `zone`.
  case date
}

/// Parses timestamps from bytes.
package enum TimeParser {
  /// Microseconds UTC of `p[0..<n]` in `form`; `defaultOffset` (µs east of UTC)
  /// applies to zone-less ISO times and dates. `nil` when the text does not fit.
  @inline(__always)
  package static func parse(_ p: UnsafePointer<UInt8>, _ n: Int, form: TimeForm, defaultOffset: Int64) -> Int64? {
    switch form {
    case .epochMicros, .epochMillis, .epochSeconds, .epochNanos, .epochAuto: return DecimalParser.parseInt64(p, n).flatMap { epoch($0, form: form) }
    case .fractionalSeconds: return DecimalParser.parseScaled(p, n, scale: 6)
    case .iso8601, .date: return parseCalendar(p, n, defaultOffset: defaultOffset, dateOnly: form == .date)
    }
  }

  /// The µs of the whole number `v` in `form`, an epoch form (s, ms, µs, ns or auto);
  /// `nil` when it overflows, or for another form.
  @inline(__always)
  static func epoch(_ v: Int64, form: TimeForm) -> Int64? {
    switch form {
    case .epochMicros: return v
    case .epochMillis: return scaled(v, 1000)
    case .epochSeconds: return scaled(v, 1_000_000)
    case .epochNanos: return v.floorDiv(1000)
    case .epochAuto:
      let magnitude = v.magnitude
      if magnitude < 100_000_000_000 { return scaled(v, 1_000_000) }
      if magnitude < 100_000_000_000_000 { return scaled(v, 1000) }
      if magnitude < 100_000_000_000_000_000 { return v }
      return v.floorDiv(1000)
    case .fractionalSeconds, .iso8601, .date: return nil
    }
  }

  private static func scaled(_ v: Int64, _ factor: Int64) -> Int64? {
    let (r, overflow) = v.multipliedReportingOverflow(by: factor)
    return overflow ? nil : r
  }

  /// Days in `month` (1–12) of `year`, proleptic Gregorian: `2023-02-29` is no date.
  private static func daysInMonth(year: Int, month: Int) -> Int {
    if month == 2 { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28 }
    return [4, 6, 9, 11].contains(month) ? 30 : 31
  }

  private static func parseCalendar(_ p: UnsafePointer<UInt8>, _ n: Int, defaultOffset: Int64, dateOnly: Bool) -> Int64? {
    var i = 0
    func skipSpaces() { while i < n && p[i] == 32 { i += 1 } }
    func number(maxDigits: Int, minDigits: Int = 1) -> Int? {
      var value = 0
      var count = 0
      while i < n && count < maxDigits, case let d = p[i] &- 48, d < 10 {
        value = value * 10 + Int(d)
        count += 1
        i += 1
      }
      return count >= minDigits ? value : nil
    }
    func expect(_ byte: UInt8) -> Bool {
      guard i < n && p[i] == byte else { return false }
      i += 1
      return true
    }
    skipSpaces()
    guard let year = number(maxDigits: 4, minDigits: 4), expect(UInt8(ascii: "-")) else { return nil }
    skipSpaces()
    guard let month = number(maxDigits: 2), expect(UInt8(ascii: "-")) else { return nil }
    skipSpaces()
    guard let day = number(maxDigits: 2), (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day)
    else { return nil }
    var seconds = 0
    var micros: Int64 = 0
    var offset = defaultOffset
    if !dateOnly && i < n && (p[i] == UInt8(ascii: "T") || p[i] == 32) && i + 1 < n && p[i + 1] &- 48 < 10 {
      i += 1
      guard let hour = number(maxDigits: 2, minDigits: 2), hour < 24, expect(UInt8(ascii: ":")),
        let minute = number(maxDigits: 2, minDigits: 2), minute < 60
      else { return nil }
      seconds = hour * 3600 + minute * 60
      if expect(UInt8(ascii: ":")) {
        guard let second = number(maxDigits: 2, minDigits: 2), second < 61 else { return nil }
        seconds += second
        if expect(UInt8(ascii: ".")) || expect(UInt8(ascii: ",")) {
          var place: Int64 = 100_000
          var digits = 0
          while i < n, case let d = p[i] &- 48, d < 10 {
            micros += Int64(d) * place
            place /= 10
            digits += 1
            i += 1
          }
          guard digits > 0 else { return nil }
        }
      }
      if i < n && (p[i] == UInt8(ascii: "Z") || p[i] == UInt8(ascii: "z")) {
        i += 1
        offset = 0
      } else if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) {
        let sign: Int64 = p[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        guard let hours = number(maxDigits: 2, minDigits: 2) else { return nil }
        _ = expect(UInt8(ascii: ":"))
        let minutes = number(maxDigits: 2, minDigits: 2) ?? 0
        // The bounds of a spec's `time.zone` (`RecordLayout.zoneOffset`).
        guard hours <= 14, minutes < 60 else { return nil }
        offset = sign * Int64(hours * 3600 + minutes * 60) * 1_000_000
      } else if i + 4 == n && p[i] == 32 && p[i + 1] == UInt8(ascii: "U") && p[i + 2] == UInt8(ascii: "T") && p[i + 3] == UInt8(ascii: "C") {
        i += 4
        offset = 0
      }
    }
    skipSpaces()
    guard i == n else { return nil }
    let days = Int64(TimeText.daysFromCivil(year: year, month: month, day: day))
    return days * TimeText.microsPerDay + Int64(seconds) * 1_000_000 + micros - offset
  }
}
