/// Conversions between microsecond timestamps and text: ISO-8601 and durations.
///
/// Timestamps are `Int64` microseconds since 1970-01-01 UTC everywhere in ArbKit.
public enum TimeText {
  public static let microsPerSecond: Int64 = 1_000_000
  public static let microsPerDay: Int64 = 86_400_000_000

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// The civil date of a day count since 1970-01-01.
  public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// `2023-03-01T00:00:00.000000Z`-style UTC text of a timestamp (microseconds shown
  /// only when not zero).
  ///
  /// Total over `Int64`: a year before 1 shows its sign (`-0001`), one past 9999 its
  /// five or six digits.
  public static func iso8601(_ micros: Int64) -> String {
    let inDay = micros.floorMod(microsPerDay)
    let (y, m, d) = civilFromDays(Int(micros.floorDiv(microsPerDay)))
    let seconds = Int(inDay / microsPerSecond)
    let fraction = Int(inDay % microsPerSecond)
    var text = "\(year(y))-\(pad(m, 2))-\(pad(d, 2))T\(pad(seconds / 3600, 2)):"
    text += "\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
    if fraction != 0 { text += "." + pad(fraction, 6) }
    return text + "Z"
  }

  /// `2023-03-01` of a timestamp (UTC day).
  public static func isoDate(_ micros: Int64) -> String {
    let (y, m, d) = civilFromDays(Int(micros.floorDiv(microsPerDay)))
    return "\(year(y))-\(pad(m, 2))-\(pad(d, 2))"
  }

  /// Parses a duration such as `5s`, `100ms`, `250us`, `1m`, `2h`, `1d` or a bare
  /// number of seconds (`1.5`) into microseconds. Returns `nil` on anything else or a
  /// negative value.
  public static func parseDuration(_ text: String) -> Int64? {
    let units: [(String, Double)] = [
      ("us", 1), ("µs", 1), ("ms", 1e3), ("s", 1e6), ("m", 60e6), ("h", 3600e6), ("d", 86_400e6),
    ]
    var number = Substring(text)
    var scale = 1e6
    for (suffix, factor) in units where text.hasSuffix(suffix) {
      let candidate = text.dropLast(suffix.count)
      if Double(candidate) != nil { number = candidate; scale = factor; break }
    }
    guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
    let micros = (value * scale).rounded()
    guard micros < 9.2e18 else { return nil }
    return Int64(micros)
  }

  /// A duration of `seconds` for a table, in the largest unit it fills: `9.2 d`, `3.4 h`,
  /// `12.5 min`, `42.0 s` (one decimal), `850 ms`, `35 µs`, `0 s`. The unit is picked
  /// after rounding, so 59.97 s is `1.0 min`, never `60.0 s`. JSON and CSV keep seconds.
  ///
  /// - Precondition: `seconds` is finite.
  public static func readableDuration(seconds: Double) -> String {
    precondition(seconds.isFinite, "non-finite duration reached the output")
    if seconds == 0 { return "0 s" }
    // Each unit with its steps per unit: 10 (one decimal) or 1.
    let units: [(name: String, seconds: Double, steps: Double)] = [
      ("d", 86_400, 10), ("h", 3_600, 10), ("min", 60, 10), ("s", 1, 10), ("ms", 1e-3, 1), ("µs", 1e-6, 1),
    ]
    let magnitude = abs(seconds)
    // The first unit that the next one down would not round up to.
    let k = units.indices.first { k in
      k == units.count - 1 || magnitude >= units[k].seconds - 0.5 * units[k + 1].seconds / units[k + 1].steps
    }!
    let count = (magnitude / units[k].seconds * units[k].steps).rounded()
    guard count < 9e18 else { return "\(seconds) s" }
    let steps = Int64(units[k].steps), number = Int64(count)
    return (seconds < 0 ? "-" : "") + "\(number / steps)" + (steps > 1 ? ".\(number % steps)" : "") + " " + units[k].name
  }

  /// Shortest text for a duration in microseconds (`1m`, `500ms`, `1.5s`).
  public static func durationText(_ micros: Int64) -> String {
    if micros == 0 { return "0s" }
    for (suffix, factor) in [("d", 86_400_000_000), ("h", 3_600_000_000), ("m", 60_000_000), ("s", 1_000_000), ("ms", 1000)] as [(String, Int64)]
    where micros % factor == 0 {
      return "\(micros / factor)\(suffix)"
    }
    if micros >= 1_000_000 { return "\(Double(micros) / 1e6)s" }
    return "\(micros)us"
  }

  /// A year in four digits at least, with its sign before year 0.
  private static func year(_ value: Int) -> String { value < 0 ? "-" + pad(-value, 4) : pad(value, 4) }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }
}

extension Int64 {
  /// Division rounding towards negative infinity.
  @inlinable
  public func floorDiv(_ divisor: Int64) -> Int64 {
    let q = self / divisor
    return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
  }
}
