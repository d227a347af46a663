import ArbCore
import Foundation
import Testing
import TestSupport

@Suite("Timestamps and durations as text")
struct TimeTextTests {
  /// Foundation's Gregorian calendar in UTC is the independent oracle for the day
  /// arithmetic (Howard Hinnant's civil-from-days algorithm).
  static let calendar: Calendar = {
    var c = Calendar(identifier: .gregorian)
    c.timeZone = TimeZone(identifier: "UTC")!
    return c
  }()

  @Test func `days and civil dates agree with Foundation's calendar from 1582 on`() {
    var rng = SplitMix64(seed: 5)
    // From 1582-10-15: before it Foundation switches to the Julian calendar.
    var days: [Int] = [-141_427, -1, 0, 1, 19_417, 20_301, 2_932_896]  // 1582-10-15, 1969-12-31, 1970-01-01, …
    for _ in 0..<2000 { days.append(Int(rng.next() % 182_500) - 91_250) }
    for day in days {
      let date = Date(timeIntervalSince1970: TimeInterval(day) * 86_400)
      let parts = Self.calendar.dateComponents([.year, .month, .day], from: date)
      let (y, m, d) = TimeText.civilFromDays(day)
      #expect(y == parts.year && m == parts.month && d == parts.day, "day \(day)")
      #expect(TimeText.daysFromCivil(year: y, month: m, day: d) == day)
    }
  }

  static let isoCases: [(micros: Int64, text: String)] = [
    (0, "1970-01-01T00:00:00Z"),
    (1_677_628_800_000_000, "2023-03-01T00:00:00Z"),
    (1_735_689_600_321_704, "2025-01-01T00:00:00.321704Z"),
    (-1, "1969-12-31T23:59:59.999999Z"),
    (951_782_400_000_000, "2000-02-29T00:00:00Z"),
  ]

  @Test("ISO-8601 text of a timestamp", arguments: isoCases)
  func iso(c: (micros: Int64, text: String)) {
    #expect(TimeText.iso8601(c.micros) == c.text)
    #expect(TimeText.isoDate(c.micros) == String(c.text.prefix(10)))
  }

  static let durations: [(text: String, micros: Int64?)] = [
    ("5s", 5_000_000), ("100ms", 100_000), ("250us", 250), ("250µs", 250), ("2m", 120_000_000),
    ("1h", 3_600_000_000), ("1d", 86_400_000_000), ("1.5", 1_500_000), ("0", 0), ("0.5ms", 500),
    ("", nil), ("5 s", nil), ("-1s", nil), ("s", nil), ("fast", nil), ("1e400s", nil),
  ]

  @Test("durations", arguments: durations)
  func duration(c: (text: String, micros: Int64?)) {
    #expect(TimeText.parseDuration(c.text) == c.micros)
  }

  static let durationTexts: [(micros: Int64, text: String)] = [
    (0, "0s"), (60_000_000, "1m"), (500_000, "500ms"), (1_500_000, "1500ms"), (1_500_001, "1.500001s"), (86_400_000_000, "1d"), (250, "250us"),
  ]

  @Test("shortest duration text", arguments: durationTexts)
  func durationText(c: (micros: Int64, text: String)) {
    #expect(TimeText.durationText(c.micros) == c.text)
    #expect(TimeText.parseDuration(c.text) == c.micros)
  }

  static let divisions: [(a: Int64, b: Int64, floor: Int64)] = [(7, 2, 3), (-7, 2, -4), (-8, 2, -4), (7, -2, -4), (0, 5, 0), (-1, 1_000_000, -1)]

  @Test("floor division rounds towards negative infinity", arguments: divisions)
  func floorDivision(c: (a: Int64, b: Int64, floor: Int64)) {
    #expect(c.a.floorDiv(c.b) == c.floor)
  }
}
