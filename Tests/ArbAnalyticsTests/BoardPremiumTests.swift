import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// The premium board's alignment: a point needs `minimumLegs` usable legs, and a stale,
/// one-sided or not yet quoted leg is left out of that point (never read as 0).
@Suite("Board premium (minimum legs)")
struct BoardPremiumTests {
  static func close(_ a: Double, _ b: Double?) -> Bool { isClose(a, b, rel: 1e-12, abs: 1e-12) }

  @Test("a stale leg is left out of the max premium, hand-worked")
  func staleLegLeftOut() throws {
    // A quotes at 0 and 30, B at 0, 10, 20, 30, C from 10 on; max stale 15.
    // t = 0:  A 100/100.2, B 100.4/100.6; C not quoted → A, B: (100.5/100.1 − 1)·100.
    // t = 10: A (age 10), B 100.2/100.4, C 99.6/99.8 → top B 100.3, bottom C 99.7.
    // t = 20: A stale (age 20 > 15) → B 100.2/100.4, C 99.6/99.8 (age 10): same as t = 10
    //         but without A; B at 20 is 100.1/100.3 → (100.2/99.7 − 1)·100.
    // t = 30: A 101/101.2, B 100.1/100.3 (age 10), C stale (age 20) → top A, bottom B.
    let a = QuoteSeries.leg("a", [0, 30], bid: [100, 101], ask: [100.2, 101.2])
    let b = QuoteSeries.leg("b", [0, 10, 20, 30], bid: [100.4, 100.2, 100.1, 100.1], ask: [100.6, 100.4, 100.3, 100.3])
    let c = QuoteSeries.leg("c", [10], bid: [99.6], ask: [99.8])
    let options = AlignmentOptions(maxStale: 15, minimumLegs: 2)
    let p = try PremiumSeries(legs: [a, b, c], options: options, maxPremium: true)
    #expect(p.time == [0, 10, 20, 30] && p.valid == [true, true, true, true])
    let expectedMid = [(100.5 / 100.1 - 1) * 100, (100.3 / 99.7 - 1) * 100, (100.2 / 99.7 - 1) * 100, (101.1 / 100.2 - 1) * 100]
    for (got, expected) in zip(p.mid, expectedMid) { #expect(Self.close(got, expected)) }
    #expect(p.top == [1, 1, 1, 0] && p.bottom == [0, 2, 2, 1])
    // Exec: t = 0 sell B 100.4 / buy A 100.2; t = 30 sell A 101 / buy B 100.3.
    #expect(Self.close(p.exec[0], (100.4 / 100.2 - 1) * 100) && Self.close(p.exec[3], (101 / 100.3 - 1) * 100))
    #expect(p.rich[3] == 0 && p.cheap[3] == 1)
    // Without a quorum the same legs start at 10 and every point needs all three.
    let strict = try PremiumSeries(legs: [a, b, c], options: AlignmentOptions(maxStale: 15))
    #expect(strict.time == [10, 20, 30] && strict.valid == [true, false, false])
  }

  @Test("two legs as a board: the max premium is highest over lowest, never signed")
  func twoLegBoard() throws {
    let a = QuoteSeries.leg("a", [0, 10], bid: [99, 101], ask: [99, 101])
    let b = QuoteSeries.leg("b", [0, 10], bid: [100, 100], ask: [100, 100])
    let signed = try PremiumSeries(legs: [a, b])
    let board = try PremiumSeries(legs: [a, b], maxPremium: true)
    #expect(Self.close(signed.mid[0], -1) && Self.close(board.mid[0], (100.0 / 99 - 1) * 100))
    #expect(Self.close(board.mid[1], 1) && board.top == [1, 0] && board.bottom == [0, 1])
    let analysis = PremiumAnalysis(premium: board)
    #expect(analysis.mid.bands[0].shareEventsNegative == 0)
  }

  @Test("fewer usable legs than required: the point is invalid and counted")
  func tooFewLegs() throws {
    let a = QuoteSeries.leg("a", [0, 100], bid: [100, 100], ask: [100, 100])
    let b = QuoteSeries.leg("b", [0], bid: [101], ask: [101])
    let p = try PremiumSeries(legs: [a, b], options: AlignmentOptions(maxStale: 50, minimumLegs: 2), maxPremium: true)
    #expect(p.valid == [true, false] && p.validPoints == 1 && p.mid[1].isNaN)
    #expect(p.bestExecPoint == 0)
  }

  @Test("legs must overlap by at least minimumLegs at some time")
  func overlap() throws {
    let x = QuoteSeries.leg("x", [1, 2], price: [1, 1]), y = QuoteSeries.leg("y", [5, 6], price: [1, 1])
    let options = AlignmentOptions(minimumLegs: 2)
    // y and z overlap at 6 (touching spans count); the clock starts when two legs have quoted.
    let p = try PremiumSeries(legs: [x, y, .leg("z", [6, 10], price: [1, 1])], options: options, maxPremium: true)
    #expect(p.time == [5, 6, 10] && p.validPoints == 3)
    #expect(throws: AlignmentError.noOverlap(lastEnd: 2, firstStart: 5)) {
      try PremiumSeries(legs: [x, y, .leg("z", [8, 9], price: [1, 1])], options: options, maxPremium: true)
    }
  }

  static let randomCases: [(legs: Int, seed: UInt64)] = [(3, 11), (4, 12), (5, 13), (6, 14)]

  @Test("random legs with gaps against a slow board oracle", arguments: randomCases)
  func random(c: (legs: Int, seed: UInt64)) throws {
    var rng = SplitMix64(seed: c.seed)
    // Legs start at different times and some have long silences, so legs drop in and out.
    let legs = (0..<c.legs).map { k in
      rng.leg("v\(k)", count: 300, start: Int64(rng.int(0...400)), maxGap: k == 0 ? 60 : 25, level: 100 + rng.uniform(), spread: 0.004)
    }
    let maxStale: Int64 = 30
    let p = try PremiumSeries(legs: legs, options: AlignmentOptions(maxStale: maxStale, minimumLegs: 2), maxPremium: true)
    let oracle = Self.oracle(legs, maxStale: maxStale, minimumLegs: 2)
    #expect(p.time == oracle.time)
    #expect(p.validPoints > 100 && p.validPoints < p.count)
    var partial = 0
    for i in 0..<p.count {
      guard let expected = oracle.points[i] else {
        #expect(!p.valid[i], "point \(i)")
        continue
      }
      if expected.usable < legs.count { partial += 1 }
      #expect(p.valid[i] && Self.close(p.mid[i], expected.mid) && Self.close(p.exec[i], expected.exec), "point \(i)")
      #expect(Int(p.top[i]) == expected.top && Int(p.bottom[i]) == expected.bottom, "point \(i)")
      #expect(Int(p.rich[i]) == expected.rich && Int(p.cheap[i]) == expected.cheap, "point \(i)")
    }
    #expect(partial > 20)
    // Walked as two halves on two threads: the same points.
    let halves = try PremiumSeries(legs: legs, options: AlignmentOptions(maxStale: maxStale, minimumLegs: 2), maxPremium: true, splitAbove: 64)
    #expect(halves.time == p.time && halves.valid == p.valid && halves.top == p.top && halves.rich == p.rich)
    #expect(zip(halves.mid, p.mid).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) })
    let best = oracle.points.indices.filter { oracle.points[$0] != nil }.max { oracle.points[$0]!.exec < oracle.points[$1]!.exec }
    #expect(p.bestExecPoint.map { p.exec[$0] } == best.map { oracle.points[$0]!.exec })
  }

  struct OraclePoint {
    var usable: Int
    var mid, exec: Double
    var top, bottom, rich, cheap: Int
  }

  /// Read off the definition: union clock from the time `minimumLegs` legs have quoted;
  /// at each point the legs with a fresh two-sided quote (linear search); valid with at
  /// least `minimumLegs` of them; max premium and best edge over those legs only.
  static func oracle(_ legs: [QuoteSeries], maxStale: Int64, minimumLegs: Int) -> (time: [Int64], points: [OraclePoint?]) {
    let start = legs.map { $0.time.min()! }.sorted()[minimumLegs - 1]
    let time = Set(legs.flatMap(\.time)).filter { $0 >= start }.sorted()
    var points: [OraclePoint?] = []
    for t in time {
      var usable: [(k: Int, bid: Double, ask: Double)] = []
      for (k, leg) in legs.enumerated() {
        guard let j = leg.time.lastIndex(where: { $0 <= t }), t - leg.time[j] <= maxStale else { continue }
        usable.append((k, leg.bid[j], leg.ask[j]))
      }
      guard usable.count >= minimumLegs else {
        points.append(nil)
        continue
      }
      let mids = usable.map { ($0.bid + $0.ask) / 2 }
      let top = mids.firstIndex(of: mids.max()!)!, bottom = mids.firstIndex(of: mids.min()!)!
      var best = (edge: -Double.infinity, rich: -1, cheap: -1)
      for s in usable {
        for b in usable where b.k != s.k {
          let edge = (s.bid / b.ask - 1) * 100
          if edge > best.edge { best = (edge, s.k, b.k) }
        }
      }
      points.append(
        OraclePoint(
          usable: usable.count, mid: (mids[top] / mids[bottom] - 1) * 100, exec: best.edge,
          top: usable[top].k, bottom: usable[bottom].k, rich: best.rich, cheap: best.cheap))
    }
    return (time, points)
  }
}
