import ArbCore
import Testing

/// `TimeText.readableDuration`: the one formatter of durations in tables.
@Suite("Readable durations")
struct ReadableDurationTests {
  static let cases: [(seconds: Double, text: String)] = [
    (0, "0 s"),
    (791_958.8, "9.2 d"),
    (86_400, "1.0 d"),
    (12_240, "3.4 h"),
    (750, "12.5 min"),
    (42, "42.0 s"),
    (1, "1.0 s"),
    (0.85, "850 ms"),
    (0.000_035, "35 µs"),
    (-750, "-12.5 min"),
    // Picked after rounding: never 60.0 s, 1000 ms or 24.0 h.
    (59.97, "1.0 min"),
    (59.94, "59.9 s"),
    (0.9996, "1.0 s"),
    (0.9994, "999 ms"),
    (86_219, "23.9 h"),
    (86_221, "1.0 d"),
  ]

  @Test("each duration in the largest unit it fills", arguments: cases)
  func text(c: (seconds: Double, text: String)) {
    #expect(TimeText.readableDuration(seconds: c.seconds) == c.text)
  }
}
