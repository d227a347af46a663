import ArbCore
import Testing
import TestSupport

@testable import ArbResearch

/// `Scenario.checkTimes`: each duration of a scenario that the engines add to a time
/// per signal is checked once against the legs' times, naming the duration.
@Suite("Scenario durations against the legs' times")
struct ScenarioTimesTests {
  static let hour: Int64 = 3_600_000_000
  static let day = TimeText.microsPerDay
  static let top = Int64.max - 2 * day
  static let bottom = Int64.min + hour

  /// The demo pair's venues quoting at `times`.
  static func legs(_ times: [Int64]) -> [QuoteSeries] {
    ["binanceus", "kraken"].map { venue in
      QuoteSeries(
        instrument: Instrument(venue: venue, market: .spot, symbol: "BTCUSDC"), priceSource: .last, time: times,
        bid: times.map { _ in 100 }, ask: times.map { _ in 100 })
    }
  }

  static let cases: [(set: [String], times: [Int64], reason: TimeError.Reason?)] = [
    ([], [top - hour, top], nil),
    (["costs.latency=3d"], [top - hour, top], .overflow(operation: .latency, time: top, amount: 3 * day)),
    (["costs.venue_latency.kraken=3d"], [top - hour, top], .overflow(operation: .latency, time: top, amount: 3 * day)),
    (["strategy.max_holding=3d"], [top - hour, top], .overflow(operation: .maxHolding, time: top, amount: 3 * day)),
    (["strategy.cooldown=3d"], [top - hour, top], .overflow(operation: .cooldown, time: top, amount: 3 * day)),
    // The first UTC journal day starts before Int64.min.
    ([], [bottom, bottom + hour], .overflow(operation: .journalDay, time: bottom, amount: -day)),
    // The legs' own span fits; a fill time 1 s after the last quote is too far from the first.
    (["costs.latency=1s"], [Int64.min + 10, 0], .spanOverflow(first: .min + 10, last: 1_000_000)),
    // A daily journal of a million days is the limit; one more is refused.
    ([], [0, 999_999 * day], nil),
    ([], [0, 1_000_000 * day], .tooManyDays(first: 0, last: 1_000_000 * day, count: 1_000_001, limit: 1_000_000)),
  ]

  @Test("each duration is checked against the legs", arguments: cases)
  func durations(c: (set: [String], times: [Int64], reason: TimeError.Reason?)) throws {
    let scenario = try Scenario.load(path: Repository.data("scenarios/binanceus-kraken-btcusdc.json"), overrides: c.set)
    if let reason = c.reason {
      #expect(throws: TimeError(reason)) { try scenario.checkTimes(of: Self.legs(c.times)) }
    } else {
      try scenario.checkTimes(of: Self.legs(c.times))
    }
  }
}
