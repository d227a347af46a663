import ArbCore
import Testing
import TestSupport
@testable import ArbAnalytics

/// `AlignedLegs` over a long union clock is walked as two halves on two threads; the
/// joined clock, validity and quote indexes must be exactly the one-thread walk's.
@Suite("Aligned legs walked in two halves")
struct ParallelAlignmentTests {
  static func expectSame(_ a: AlignedLegs, _ b: AlignedLegs, _ comment: Comment? = nil) {
    #expect(a.time == b.time, comment)
    #expect(a.valid == b.valid, comment)
    #expect(a.states == b.states, comment)
    #expect(a.validPoints == b.validPoints && a.requiredLegs == b.requiredLegs, comment)
    #expect(a.duration == b.duration, comment)
  }

  static let cases: [(legs: Int, maxGap: Int, maxStale: Int64?, minimumLegs: Int?)] = [
    (2, 3, nil, nil), (2, 1, 2, nil), (3, 5, 4, nil), (4, 2, nil, 2), (3, 40, 10, 2),
  ]

  @Test("random legs: halves equal one walk", arguments: cases)
  func randomLegs(c: (legs: Int, maxGap: Int, maxStale: Int64?, minimumLegs: Int?)) throws {
    var rng = SplitMix64(seed: UInt64(c.legs * 1000 + c.maxGap))
    for round in 0..<10 {
      let legs = (0..<c.legs).map { k in
        rng.leg("v\(k)", count: rng.int(50...400), start: Int64(rng.int(0...20)), maxGap: c.maxGap)
      }
      let options = AlignmentOptions(maxStale: c.maxStale, minimumLegs: c.minimumLegs)
      let halves = try AlignedLegs(legs: legs, options: options, splitAbove: 1)
      let oneWalk = try AlignedLegs(legs: legs, options: options, splitAbove: .max)
      Self.expectSame(halves, oneWalk, "round \(round)")
      #expect(halves.time.count > 0 && oneWalk.time.count == Set(oneWalk.time).count)
    }
  }

  @Test func `the durations are the gaps to the next point, 0 for the last`() throws {
    var rng = SplitMix64(seed: 4)
    let legs = (0..<2).map { k in rng.leg("v\(k)", count: 200, start: 0, maxGap: 5) }
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(), splitAbove: 1)
    #expect(aligned.duration == aligned.time.indices.map { $0 == aligned.count - 1 ? 0 : aligned.time[$0 + 1] - aligned.time[$0] })
  }

  @Test("signal columns: the valid points of the aligned legs with their premiums, in one walk or two halves", arguments: [nil, 0, 1] as [Int?])
  func signalColumns(sellLeg: Int?) throws {
    var rng = SplitMix64(seed: 21 + UInt64(sellLeg ?? 5))
    for round in 0..<8 {
      let legs = (0..<2).map { k in rng.leg("v\(k)", count: rng.int(100...500), start: Int64(rng.int(0...20)), maxGap: 1 + round % 4) }
      let options = AlignmentOptions(maxStale: round % 2 == 0 ? 3 : nil)
      let aligned = try AlignedLegs(legs: legs, options: options)
      // The slow way: every valid point of the stored alignment, premiums from its quotes.
      let valid = aligned.time.indices.filter { aligned.valid[$0] }
      for split in [1, Int.max] {
        let columns = try SignalColumns(legs: legs, options: options, sellLeg: sellLeg, splitAbove: split)
        #expect(columns.clockPoints == aligned.count && columns.validPoints == valid.count, "round \(round)")
        for (v, i) in valid.enumerated() {
          let a = Int(aligned.state(leg: 0, point: i)), b = Int(aligned.state(leg: 1, point: i))
          let forward = (legs[0].bid[a] / legs[1].ask[b] - 1) * 100, backward = (legs[1].bid[b] / legs[0].ask[a] - 1) * 100
          let entry = sellLeg == 0 || (sellLeg == nil && forward >= backward) ? forward : backward
          let point = columns.points[v]
          #expect(point.time == aligned.time[i] && point.state(0) == a && point.state(1) == b, "round \(round), point \(v)")
          #expect(columns.entry[v] == entry && columns.richIsFirst[v] == (entry == forward && sellLeg != 1))
          #expect(columns.closeFirst[v] == (legs[0].ask[a] / legs[1].bid[b] - 1) * 100)
          #expect(columns.closeSecond[v] == (legs[1].ask[b] / legs[0].bid[a] - 1) * 100)
        }
      }
    }
  }
}
