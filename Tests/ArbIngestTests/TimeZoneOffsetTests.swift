import ArbCore
import Testing

@testable import ArbIngest

/// Zone offsets written in a time, and the spec's `time.shift`: the same bounds as the
/// spec's `time.zone` (hours up to 14, minutes below 60), and no time moved out of range.
@Suite("Zone offsets and shifts of times")
struct TimeZoneOffsetTests {
  static let march1: Int64 = 1_677_628_800_000_000
  static let hour: Int64 = 3_600_000_000

  static let zones: [(text: String, micros: Int64?)] = [
    ("2023-03-01T09:00:00+09:00", march1),
    ("2023-03-01T14:00:00+14:00", march1),
    ("2023-02-28T10:00:00-14:00", march1),
    ("2023-03-01T00:59:00+00:59", march1),
    ("2023-03-01T00:00:00+99:99", nil),
    ("2023-03-01T00:00:00+25:00", nil),
    ("2023-03-01T00:00:00+15:00", nil),
    ("2023-03-01T00:00:00+0960", nil),
  ]

  @Test("a zone offset of more than 14 hours or 59 minutes is no time", arguments: zones)
  func zoneOffset(c: (text: String, micros: Int64?)) {
    #expect(parseTime(c.text, .iso8601) == c.micros)
  }

  @Test func `a spec shift that moves a time past Int64.max is a bad timestamp`() throws {
    let options = try columnOptions(#"{"time": {"column": "t", "form": "us", "shift": "1h"}, "price": "p"}"#)
    let late = Int64.max - Self.hour + 1
    let error = #expect(throws: IngestError.self) { try ingest("t,p\n1677628800000000,100\n\(late),100\n", options: options) }
    #expect(error?.reason == .invalidTimestamp(column: "t", text: "\(late)"))
    #expect(error?.position.line == 3)
    let file = try ingest("t,p\n1677628800000000,100\n\(late - 1),100\n", options: options)
    #expect(file.series.first?.time == [Self.march1 + Self.hour, .max])
  }
}
