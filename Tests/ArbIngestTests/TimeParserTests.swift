import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Every TimeForm against epoch values computed by hand (python's calendar.timegm):
//   2023-03-01T00:00:00Z = 1677628800 s     2025-08-01T00:00:00Z = 1754006400 s
//   2020-02-29T00:00:00Z = 1582934400 s     2024-12-31T23:59:59Z = 1735689599 s

@Suite("TimeParser and TimeForm")
struct TimeParserTests {
  static let march1: Int64 = 1_677_628_800_000_000
  static let august1: Int64 = 1_754_006_400_000_000
  static let nineHours: Int64 = 9 * 3_600_000_000

  static let epochCases: [(text: String, form: TimeForm, micros: Int64?)] = [
    ("1677628800", .epochSeconds, march1),
    ("-1", .epochSeconds, -1_000_000),
    ("1677628800123", .epochMillis, march1 + 123_000),
    ("1677628800123456", .epochMicros, march1 + 123_456),
    ("1677628800123456789", .epochNanos, march1 + 123_456),  // floored to the microsecond
    ("-1", .epochNanos, -1),  // floor, not truncation towards zero
    ("1677628800", .epochAuto, march1),
    ("1677628800123", .epochAuto, march1 + 123_000),
    ("1677628800123456", .epochAuto, march1 + 123_456),
    ("1677628800123456789", .epochAuto, march1 + 123_456),
    // the unit boundaries of the auto rule: < 1e11 s, < 1e14 ms, < 1e17 µs, else ns
    ("99999999999", .epochAuto, 99_999_999_999_000_000),
    ("100000000000", .epochAuto, 100_000_000_000_000),
    ("99999999999999", .epochAuto, 99_999_999_999_999_000),
    ("100000000000000", .epochAuto, 100_000_000_000_000),
    ("99999999999999999", .epochAuto, 99_999_999_999_999_999),
    ("100000000000000000", .epochAuto, 100_000_000_000_000),
    ("-99999999999", .epochAuto, -99_999_999_999_000_000),
    ("1735689600.0974", .fractionalSeconds, 1_735_689_600_097_400),
    ("1735689600", .fractionalSeconds, 1_735_689_600_000_000),
    ("1735689600.00000051", .fractionalSeconds, 1_735_689_600_000_001),
    // overflow and non-integers are rejected
    ("9223372036854775807", .epochSeconds, nil),
    ("9223372036854775807", .epochMillis, nil),
    ("9223372036854775808", .epochMicros, nil),
    ("1677628800.5", .epochSeconds, nil),
    ("1677628800.5", .epochAuto, nil),
    ("1e9", .epochMillis, nil),
    ("", .epochMicros, nil),
    ("abc", .fractionalSeconds, nil),
  ]

  @Test("epoch forms convert to microseconds", arguments: epochCases)
  func epoch(c: (text: String, form: TimeForm, micros: Int64?)) {
    #expect(parseTime(c.text, c.form) == c.micros)
  }

  static let calendarCases: [(text: String, form: TimeForm, offset: Int64, micros: Int64?)] = [
    ("2023-03-01T00:00:00Z", .iso8601, 0, march1),
    ("2023-03-01 00:00:00Z", .iso8601, 0, march1),
    ("2023-03-01T00:00:00z", .iso8601, 0, march1),
    ("2023-03-01T00:00Z", .iso8601, 0, march1),
    ("2023-03-01T00:00:00.5Z", .iso8601, 0, march1 + 500_000),
    ("2023-03-01T00:00:00,25Z", .iso8601, 0, march1 + 250_000),
    ("2023-03-01T00:00:00.123456Z", .iso8601, 0, march1 + 123_456),
    ("2023-03-01T00:00:00.123456789Z", .iso8601, 0, march1 + 123_456),  // ns text floored
    ("2023-03-01 00:00:00+00:00", .iso8601, 0, march1),  // Binance.US collector
    ("2023-03-01T09:00:00+09:00", .iso8601, 0, march1),
    ("2023-03-01T09:00:00+0900", .iso8601, 0, march1),
    ("2023-03-01T09:00:00+09", .iso8601, 0, march1),
    ("2023-02-28T19:00:00-05:00", .iso8601, 0, march1),
    ("2023-03-01T05:30:00+05:30", .iso8601, 0, march1),
    ("2023-03-01 00:00:00 UTC", .iso8601, 0, march1),
    ("2023-03-01 00:00:00 UTC", .iso8601, nineHours, march1),  // an explicit zone wins
    ("2023-03-01T00:00:00Z", .iso8601, nineHours, march1),
    ("2023-03-01T09:00:00", .iso8601, nineHours, march1),  // no zone: the default offset
    ("2023-03-01 00:00:00", .iso8601, 0, march1),
    ("2023-03-01", .iso8601, 0, march1),
    ("2020-02-29T00:00:00Z", .iso8601, 0, 1_582_934_400_000_000),
    ("2024-12-31T23:59:59Z", .iso8601, 0, 1_735_689_599_000_000),
    ("1969-12-31T23:59:59Z", .iso8601, 0, -1_000_000),
    ("2025-08-01", .date, 0, august1),
    ("2025- 08- 01", .date, 0, august1),  // Investing.com's Korean export
    ("2025-08-01", .date, nineHours, august1 - nineHours),
    ("2025- 08- 01", .date, nineHours, august1 - nineHours),
    // invalid
    ("2023-13-01T00:00:00Z", .iso8601, 0, nil),
    ("2023-00-01T00:00:00Z", .iso8601, 0, nil),
    ("2023-03-32T00:00:00Z", .iso8601, 0, nil),
    ("2023-03-00", .date, 0, nil),
    ("2023-02-29", .date, 0, nil),  // not a leap year
    ("2023-04-31T00:00:00Z", .iso8601, 0, nil),
    ("2023-03-01T24:00:00Z", .iso8601, 0, nil),
    ("2023-03-01T23:60:00Z", .iso8601, 0, nil),
    ("2023-03-01T23:59:61Z", .iso8601, 0, nil),
    ("2023-03-01T1:00:00Z", .iso8601, 0, nil),
    ("2023-03-01T00:00:00.Z", .iso8601, 0, nil),
    ("2023-03-01T00:00:00Zjunk", .iso8601, 0, nil),
    ("2023-03-01T00:00:00Z 1", .iso8601, 0, nil),
    ("2023-03-01T00:00:00 CET", .iso8601, 0, nil),
    ("2023-03-01T", .iso8601, 0, nil),
    ("2023-03-01x", .iso8601, 0, nil),
    ("2023-03-01 00:00:00", .date, 0, nil),  // a date form takes no time
    ("2023/03/01", .date, 0, nil),
    ("23-03-01", .date, 0, nil),
    ("", .date, 0, nil),
    ("1677628800", .iso8601, 0, nil),
  ]

  @Test("ISO-8601 and date forms convert to microseconds UTC", arguments: calendarCases)
  func calendarText(c: (text: String, form: TimeForm, offset: Int64, micros: Int64?)) {
    #expect(parseTime(c.text, c.form, offset: c.offset) == c.micros)
  }

  @Test("every day of 1970-2100 parses to the day count times one day")
  func everyDay() {
    // An independent day counter (not TimeText.daysFromCivil) walks the calendar.
    var days: Int64 = 0
    var wrong: [String] = []
    for year in 1970...2100 {
      let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
      let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
      for (m, length) in lengths.enumerated() {
        for d in 1...length {
          let text = String(format: "%04d-%02d-%02d", year, m + 1, d)
          if parseTime(text, .date) != days * 86_400_000_000 { wrong.append(text) }
          days += 1
        }
        let pastEnd = String(format: "%04d-%02d-%02d", year, m + 1, length + 1)
        if length < 31, parseTime(pastEnd, .date) != nil { wrong.append(pastEnd + " accepted") }
      }
    }
    #expect(wrong == [])
  }

  static let formNames: [(name: String, form: TimeForm)] = [
    ("s", .epochSeconds), ("ms", .epochMillis), ("us", .epochMicros), ("ns", .epochNanos),
    ("auto", .epochAuto), ("fractional_s", .fractionalSeconds), ("iso8601", .iso8601), ("date", .date),
  ]

  @Test("spec files name the forms by these words", arguments: formNames)
  func formName(c: (name: String, form: TimeForm)) throws {
    let spec = try ColumnSpec.decode(Data(#"{"time": {"column": 1, "form": "\#(c.name)"}, "price": 2}"#.utf8), path: "s.json")
    #expect(spec.time.form == c.form)
    #expect(TimeForm.allCases.count == Self.formNames.count)
  }
}
