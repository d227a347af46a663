import ArbCore
import Testing

@testable import ArbAnalytics

/// Alignment and the time-bucketing kernels at the ends of `Int64` µs: a typed error
/// before any loop, never a trap, and exact results where the times fit.
@Suite("Time range of alignment and buckets")
struct TimeRangeTests {
  static let hour: Int64 = 3_600_000_000
  static let top: Int64 = .max - 1

  @Test func `legs spanning more than a duration are refused before the walk`() {
    let legs = [QuoteSeries.leg("x", [.min, Self.top], price: [1, 2]), .leg("y", [.min, Self.top], price: [1, 2])]
    for options in [AlignmentOptions(), AlignmentOptions(grid: Self.hour)] {
      #expect(throws: AlignmentError.time(TimeError(.spanOverflow(first: .min, last: Self.top)))) {
        try AlignedLegs(legs: legs, options: options)
      }
      #expect(throws: AlignmentError.time(TimeError(.spanOverflow(first: .min, last: Self.top)))) {
        try PremiumSeries(legs: legs, options: options)
      }
    }
  }

  @Test func `a grid near Int64.max stops at its last point`() throws {
    let times = [Self.top - 2 * Self.hour, Self.top]
    let legs = [QuoteSeries.leg("x", times, price: [1, 2]), .leg("y", times, price: [1, 2])]
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(grid: Self.hour))
    let first = times[0].floorDiv(Self.hour) * Self.hour
    #expect(aligned.time == [first, first + Self.hour, first + 2 * Self.hour])
    #expect(aligned.valid == [false, true, true])
  }

  @Test func `a grid above the point limit is refused`() throws {
    let legs = [QuoteSeries.leg("x", [0, 20_000_000], price: [1, 2]), .leg("y", [0, 20_000_000], price: [1, 2])]
    #expect(throws: AlignmentError.time(TimeError(.tooManyPoints(step: 1, first: 0, last: 20_000_000, count: 20_000_001, limit: 20_000_000)))) {
      try AlignedLegs(legs: legs, options: AlignmentOptions(grid: 1))
    }
    #expect(try AlignedLegs(legs: legs, options: AlignmentOptions(grid: 1000)).count == 20_001)
  }

  @Test func `a quote at Int64.max is refused, on the union clock and a grid`() {
    let legs = [QuoteSeries.leg("x", [0, .max], price: [1, 2]), .leg("y", [0, 5], price: [1, 2])]
    for options in [AlignmentOptions(), AlignmentOptions(grid: Self.hour)] {
      #expect(throws: AlignmentError.time(TimeError(.lastInstant))) { try AlignedLegs(legs: legs, options: options) }
    }
  }

  @Test(arguments: [0, 9 * 3_600_000_000] as [Int64])
  func `candle buckets check their range and keep their starts`(offset: Int64) throws {
    #expect(throws: TimeError.self) { try Candles.checkRange(0...(Self.top - 10), every: Self.hour, offset: offset) }
    #expect(throws: TimeError.self) { try Candles.checkRange((Int64.min + 10)...0, every: Self.hour, offset: offset) }
    // Just inside the top: a bucket ends at most at the last time plus `every`.
    let last = Int64.max - Self.hour
    try Candles.checkRange((last - Self.hour)...last, every: Self.hour, offset: 0)
    let candles = Candles.make(time: [-5 * Self.hour - 1, 2 * Self.hour + 7], values: [1, 2], every: Self.hour, offset: offset)
    #expect(candles.map(\.start) == [-6 * Self.hour - offset % Self.hour, 2 * Self.hour - offset % Self.hour])
  }

  @Test func `a time window checks that it starts at a time`() throws {
    try RollingWindow.points(5).checkRange(.min...(.max))
    try RollingWindow.time(Self.hour).checkRange((Int64.min + Self.hour)...0)
    #expect(throws: TimeError(.overflow(operation: .rollingWindow, time: .min + 5, amount: -Self.hour))) {
      try RollingWindow.time(Self.hour).checkRange((Int64.min + 5)...0)
    }
  }

  @Test func `a profile checks the zone and the hour ends`() throws {
    try TimeOfDayProfile.checkRange(0...(Int64.max - 10 * Self.hour), offset: 9 * Self.hour)
    #expect(throws: TimeError(.overflow(operation: .zoneHour, time: .max - 8 * Self.hour, amount: 9 * Self.hour))) {
      try TimeOfDayProfile.checkRange(0...(Int64.max - 8 * Self.hour), offset: 9 * Self.hour)
    }
    #expect(throws: TimeError(.overflow(operation: .zoneHour, time: .max - 1, amount: Self.hour))) {
      try TimeOfDayProfile.checkRange(0...(Int64.max - 1), offset: 0)
    }
  }

  @Test func `an expiry further from the first time than a duration is refused`() throws {
    let legs = [QuoteSeries.leg("x", [.min, .min + 5], price: [1, 2]), .leg("y", [.min, .min + 5], price: [1, 2])]
    #expect(throws: AlignmentError.time(TimeError(.spanOverflow(first: .min, last: 5)))) {
      try BasisSeries(derivative: legs[0], reference: legs[1], expiry: 5)
    }
    #expect(try BasisSeries(derivative: legs[0], reference: legs[1], expiry: -1).annualised != nil)
  }

  @Test func `funding carry checks its intervals and windows`() throws {
    let interval = 8 * Self.hour, window = 24 * Self.hour
    try FundingCarry.checkRange(funding: 0...(100 * Self.hour), basis: 0...(100 * Self.hour), interval: interval, window: window)
    #expect(throws: TimeError(.overflow(operation: .carryWindow, time: .min + 1, amount: -interval))) {
      try FundingCarry.checkRange(funding: (Int64.min + 1)...0, basis: 0...1, interval: interval, window: window)
    }
    #expect(throws: TimeError(.overflow(operation: .carryWindow, time: .max - window - 5 + window, amount: window))) {
      try FundingCarry.checkRange(funding: 0...1, basis: 0...(Int64.max - window - 5), interval: interval, window: window)
    }
    #expect(throws: TimeError(.spanOverflow(first: .min + interval, last: .max - interval))) {
      try FundingCarry.checkRange(funding: (Int64.min + interval)...(Int64.max - interval), basis: 0...1, interval: interval, window: window)
    }
  }
}
