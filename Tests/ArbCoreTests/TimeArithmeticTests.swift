import Testing

@testable import ArbCore

@Suite("Checked time arithmetic")
struct TimeArithmeticTests {
  static let day = TimeText.microsPerDay

  // The ends of Int64 µs as chrono and PostgreSQL print them; the third used to trap
  // (`days × microsPerDay` below Int64.min).
  static let extremes: [(micros: Int64, text: String)] = [
    (.min, "-290308-12-21T19:59:05.224192Z"),
    (.max, "294247-01-10T04:00:54.775807Z"),
    (-9_223_372_022_400_000_001, "-290308-12-21T23:59:59.999999Z"),
    (-62_135_596_800_000_001, "0000-12-31T23:59:59.999999Z"),
    (-62_167_219_200_000_001, "-0001-12-31T23:59:59.999999Z"),
  ]

  @Test("ISO-8601 text of any Int64 time", arguments: extremes)
  func isoOfExtremes(c: (micros: Int64, text: String)) {
    #expect(TimeText.iso8601(c.micros) == c.text)
    #expect(TimeText.isoDate(c.micros) == String(c.text.prefix { $0 != "T" }))
  }

  static let sums: [(time: Int64, amount: Int64, sum: Int64?)] = [
    (1, 2, 3), (.max - 1, 1, .max), (.max, 1, nil), (.min + 1, -1, .min), (.min, -1, nil), (.min, .max, -1),
  ]

  @Test("add reports overflow with its operands", arguments: sums)
  func add(c: (time: Int64, amount: Int64, sum: Int64?)) throws {
    if let sum = c.sum {
      #expect(try TimeArithmetic.add(c.amount, to: c.time, .latency) == sum)
    } else {
      let error = #expect(throws: TimeError.self) { try TimeArithmetic.add(c.amount, to: c.time, .latency) }
      #expect(error?.reason == .overflow(operation: .latency, time: c.time, amount: c.amount))
    }
  }

  @Test func `check tests both corners of a range of times and amounts`() throws {
    try TimeArithmetic.check(-10...10, plus: -5...5, .candle)
    let high = #expect(throws: TimeError.self) { try TimeArithmetic.check(0...(.max - 4), plus: -5...5, .candle) }
    #expect(high?.reason == .overflow(operation: .candle, time: .max - 4, amount: 5))
    let low = #expect(throws: TimeError.self) { try TimeArithmetic.check((.min + 4)...0, plus: -5...5, .candle) }
    #expect(low?.reason == .overflow(operation: .candle, time: .min + 4, amount: -5))
  }

  @Test func `span and bounds of ascending columns`() throws {
    #expect(try TimeArithmetic.span(from: -5, to: .max - 5) == .max)
    #expect(throws: TimeError(.spanOverflow(first: -6, last: .max - 5))) { try TimeArithmetic.span(from: -6, to: .max - 5) }
    #expect(try TimeArithmetic.bounds(of: [[3, 9], [], [-2, 4]]) == -2...9)
    #expect(try TimeArithmetic.bounds(of: [[], []]) == nil)
    #expect(throws: TimeError(.spanOverflow(first: .min, last: 0))) { try TimeArithmetic.bounds(of: [[.min], [0]]) }
  }

  @Test func `a grid is counted from the floored start, up to the limit`() throws {
    let day = Self.day
    let grid = try TimeArithmetic.grid(from: -7, through: 10, step: 5)
    #expect(grid.start == -10 && grid.count == 5)  // -10, -5, 0, 5, 10
    let top = try TimeArithmetic.grid(from: .max - day, through: .max - 1, step: day)
    #expect(top.count == 2 && top.start == (Int64.max - day).floorDiv(day) * day)
    let fine = #expect(throws: TimeError.self) { try TimeArithmetic.grid(from: 0, through: 99, step: 1, limit: 99) }
    #expect(fine?.reason == .tooManyPoints(step: 1, first: 0, last: 99, count: 100, limit: 99))
    #expect(fine?.isCausedBySetting == true)
    let huge = #expect(throws: TimeError.self) { try TimeArithmetic.grid(from: .min + day, through: .max, step: 1) }
    #expect(huge?.reason == .tooManyPoints(step: 1, first: Int64.min + day, last: Int64.max, count: nil, limit: TimeArithmetic.gridPointLimit))
    let below = #expect(throws: TimeError.self) { try TimeArithmetic.grid(from: .min + 1, through: 0, step: day) }
    #expect(below?.reason == TimeError.Reason.overflow(operation: .grid, time: Int64.min + 1, amount: -((Int64.min + 1).floorMod(day))))
  }

  @Test func `an overflow is the setting's inside years 1 to 9999, else the data's`() {
    let day = Self.day
    let normal = TimeError(.overflow(operation: .cooldown, time: 1_677_628_800_000_000, amount: .max))
    #expect(normal.isCausedBySetting)
    #expect(!TimeError(.overflow(operation: .cooldown, time: .max - 5, amount: day)).isCausedBySetting)
    #expect(!TimeError(.spanOverflow(first: .min, last: .max)).isCausedBySetting)
    #expect(
      normal.description == "cooldown +9223372036854.775s from time 1677628800000000 µs leaves the range of times "
        + "(Int64 µs, -290308-12-21T19:59:05.224192Z to 294247-01-10T04:00:54.775807Z)")
    #expect(TimeError(.overflow(operation: .clockOffset, time: 0, amount: .min)).description.hasPrefix("clock offset -9223372036854775808us from"))
  }

  static let mods: [(a: Int64, b: Int64, mod: Int64)] = [(7, 2, 1), (-7, 2, 1), (-8, 2, 0), (.min, 86_400_000_000, 71_945_224_192), (.max, 10, 7)]

  @Test("floorMod is the non-negative remainder of floorDiv", arguments: mods)
  func floorMod(c: (a: Int64, b: Int64, mod: Int64)) {
    #expect(c.a.floorMod(c.b) == c.mod)
    if c.a.floorDiv(c.b).multipliedReportingOverflow(by: c.b).overflow == false {
      #expect(c.a.floorDiv(c.b) * c.b + c.mod == c.a)
    }
  }

  @Test func `a clock offset past the last time throws before moving any time`() throws {
    let leg = QuoteSeries(
      instrument: Instrument(venue: "aa", market: .spot, symbol: "X"), priceSource: .book, time: [.max - 10, .max - 5], bid: [1, 1], ask: [2, 2])
    let moved = try ClockOffset.shifted([leg], by: [("aa", 5)])
    #expect(moved[0].time == [.max - 5, .max])
    #expect(throws: TimeError(.overflow(operation: .clockOffset, time: .max - 5, amount: 6))) { try ClockOffset.shifted([leg], by: [("aa", 6)]) }
  }
}
