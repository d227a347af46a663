import Testing

@testable import ArbReport

/// Time axes at the ends of `Int64` µs: the ticks that are times, and no trap.
@Suite("Time axis ticks at the ends of the range")
struct TimeAxisRangeTests {
  static let hour: Int64 = 3_600_000_000

  @Test(arguments: [0, 9 * 3_600_000_000] as [Int64])
  func `ticks near Int64.max stop at the last time`(offset: Int64) {
    let start = Int64.max - 10 * Self.hour, end = Int64.max - 1
    let ticks = NiceTicks.times(start, end, offset: offset, count: 6)
    #expect(offset == 0 ? !ticks.isEmpty : ticks.isEmpty)  // in KST the range ends past Int64.max
    #expect(ticks.allSatisfy { $0.time >= start && $0.time <= end })
    #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1.time - $0.time == 3 * Self.hour })
  }

  @Test func `ticks near Int64.min and over the whole range are times`() {
    let low = NiceTicks.times(.min, .min + 10 * Self.hour, offset: 0, count: 6)
    #expect(low.count >= 3 && zip(low, low.dropFirst()).allSatisfy { $1.time - $0.time == 3 * Self.hour })
    // A span longer than a duration: yearly ticks (the longest step) over the whole range.
    let whole = NiceTicks.times(.min, .max, offset: 0, count: 6)
    #expect(whole.count > 500_000 && zip(whole, whole.dropFirst()).allSatisfy { $0.time < $1.time })
  }
}
