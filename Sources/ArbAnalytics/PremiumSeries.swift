import Dispatch
import Synchronization
import ArbCore

/// Mid and executable premiums of aligned legs, in percent (`docs/definitions.md`).
///
/// With two legs A and B: `mid = (mid_A / mid_B − 1) × 100` (signed) and
/// `exec = max(e_AB, e_BA)` with `e_AB = (bid_A / ask_B − 1) × 100` (sell A, buy B).
/// With N > 2 legs (or `maxPremium`): `mid = (max_k mid_k / min_k mid_k − 1) × 100` with
/// the top and bottom legs, and `exec` the best `bid_i / ask_j − 1` over all ordered
/// pairs, both over the legs usable at that point (all of them unless the alignment sets
/// `minimumLegs`). Values at invalid points are never used (they are `nan` internally
/// and never printed).
public struct PremiumSeries: Sendable {
  public var time: [Int64]
  public var valid: [Bool]
  public var mid: [Double]
  public var exec: [Double]
  /// Leg index sold (the rich leg) and bought (the cheap leg) by the best executable trade.
  public var rich: [Int8]
  public var cheap: [Int8]
  /// Leg index with the highest and the lowest mid (N-leg board).
  public var top: [Int8]
  public var bottom: [Int8]
  public var legCount: Int
  /// `mid` is the max premium (highest over lowest mid, ≥ 0), not leg 1 over leg 2.
  public var maxPremium: Bool
  public var validPoints: Int
  public var count: Int { time.count }

  /// Time from point `i` to the next point; 0 for the last point.
  @inline(__always)
  public func duration(at i: Int) -> Int64 { i + 1 < time.count ? time[i + 1] - time[i] : 0 }

  /// Every point's duration (derived from `time`, built on each call).
  public var duration: [Int64] { time.indices.map(duration(at:)) }

  /// Computes both premiums at every valid point of `aligned` (aligned without
  /// `minimumLegs`: every leg takes part in every valid point).
  ///
  /// - Complexity: O(points × legs).
  public init(aligned: AlignedLegs, legs: [QuoteSeries]) {
    precondition(aligned.legCount == legs.count && legs.count >= 2 && legs.count <= 127, "PremiumSeries: leg count mismatch")
    precondition(aligned.requiredLegs == legs.count, "PremiumSeries(aligned:): alignment with minimumLegs")
    let legCount = legs.count
    self = Self.filled(capacity: aligned.count, legCount: legCount, maxPremium: legCount > 2) { writer in
      withUnsafeBuffers(legs.map(\.bid)) { bids in
        withUnsafeBuffers(legs.map(\.ask)) { asks in
          withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * legCount) { quotes in
            for i in 0..<aligned.count {
              let ok = aligned.valid[i]
              if ok {
                for k in 0..<legCount {
                  let j = Int(aligned.state(leg: k, point: i))
                  quotes[k] = bids[k][j]
                  quotes[legCount + k] = asks[k][j]
                }
              }
              writer.write(i, time: aligned.time[i], valid: ok, quotes: quotes)
            }
          }
        }
      }
      return aligned.count
    }
  }

  /// A series of one premium computed elsewhere (a basis, a kimchi premium), so that it
  /// is summarised as a premium is (`SeriesSummary`): `mid` and `exec` both hold
  /// `values`, the leg columns are 0 (-1 at invalid points).
  public init(time: [Int64], valid: [Bool], values: [Double]) {
    precondition(time.count == valid.count && time.count == values.count, "PremiumSeries: column lengths differ")
    let legs = valid.map { $0 ? Int8(0) : -1 }
    self.init(
      time: time, valid: valid, mid: values, exec: values, rich: legs, cheap: legs, top: legs, bottom: legs,
      legCount: 1, maxPremium: false, validPoints: valid.reduce(0) { $0 + ($1 ? 1 : 0) })
  }

  /// Aligns `legs` and computes both premiums in one pass, without keeping each leg's
  /// state per point (`AlignedLegs` keeps them, for `--series`).
  ///
  /// - Throws: `AlignmentError` as `AlignedLegs.init`.
  /// - Complexity: O(points × legs + quotes).
  ///
  /// `maxPremium`: `mid` is the max premium even for two legs (the premium board).
  public init(legs: [QuoteSeries], options: AlignmentOptions = AlignmentOptions(), maxPremium: Bool = false) throws(AlignmentError) {
    try self.init(legs: legs, options: options, maxPremium: maxPremium, splitAbove: 1 << 20)
  }

  /// As `init(legs:options:)`; a union clock of at least `splitAbove` events is walked
  /// as two halves on two threads (each half starts from the legs' quotes in force at
  /// its first time), and the second half's points are moved down behind the first's.
  init(legs: [QuoteSeries], options: AlignmentOptions, maxPremium: Bool = false, splitAbove: Int) throws(AlignmentError) {
    precondition(legs.count <= 127, "PremiumSeries: at most 127 legs")
    let merge = try AsOfMerge(legs: legs, options: options)
    self = Self.filled(capacity: merge.capacity, legCount: legs.count, maxPremium: maxPremium || legs.count > 2) { writer in
      guard let (first, second) = merge.halves(minimumEvents: splitAbove) else { return merge.forEachPoint(&writer) }
      let counts = Mutex<[(points: Int, valid: Int)]>([(0, 0), (0, 0)])
      nonisolated(unsafe) let shared = writer  // the halves write disjoint index ranges
      DispatchQueue.concurrentPerform(iterations: 2) { k in
        var half = shared
        let points = merge.forEachPoint(&half, span: k == 0 ? first : second)
        counts.withLock { $0[k] = (points, half.validPoints) }
      }
      let (a, b) = counts.withLock { ($0[0], $0[1]) }
      writer.move(from: second.firstIndex, count: b.points, to: a.points)
      writer.validPoints = a.valid + b.valid
      return a.points + b.points
    }
  }

  /// Lets `fill` write the columns of up to `capacity` points through raw buffers
  /// (no copy-on-write check per element, no zero-filling first) and keeps the points
  /// it wrote; `fill` returns their number and must write every one of them.
  private static func filled(capacity: Int, legCount: Int, maxPremium: Bool, _ fill: (inout PremiumWriter) -> Int) -> PremiumSeries {
    var validPoints = 0
    var produced = 0
    var valid: [Bool] = [], mid: [Double] = [], exec: [Double] = []
    var rich: [Int8] = [], cheap: [Int8] = [], top: [Int8] = [], bottom: [Int8] = []
    let time = [Int64](unsafeUninitializedCapacity: capacity) { time, timeCount in
      valid = [Bool](unsafeUninitializedCapacity: capacity) { valid, validCount in
        mid = [Double](unsafeUninitializedCapacity: capacity) { mid, midCount in
          exec = [Double](unsafeUninitializedCapacity: capacity) { exec, execCount in
            rich = [Int8](unsafeUninitializedCapacity: capacity) { rich, richCount in
              cheap = [Int8](unsafeUninitializedCapacity: capacity) { cheap, cheapCount in
                top = [Int8](unsafeUninitializedCapacity: capacity) { top, topCount in
                  bottom = [Int8](unsafeUninitializedCapacity: capacity) { bottom, bottomCount in
                    var writer = PremiumWriter(
                      time: time, valid: valid, mid: mid, exec: exec, rich: rich, cheap: cheap, top: top, bottom: bottom,
                      legCount: legCount, maxPremium: maxPremium)
                    produced = fill(&writer)
                    validPoints = writer.validPoints
                    bottomCount = produced
                  }
                  topCount = produced
                }
                cheapCount = produced
              }
              richCount = produced
            }
            execCount = produced
          }
          midCount = produced
        }
        validCount = produced
      }
      timeCount = produced
    }
    return PremiumSeries(
      time: time, valid: valid, mid: mid, exec: exec, rich: rich, cheap: cheap, top: top, bottom: bottom,
      legCount: legCount, maxPremium: maxPremium, validPoints: validPoints)
  }

  private init(
    time: [Int64], valid: [Bool], mid: [Double], exec: [Double], rich: [Int8], cheap: [Int8], top: [Int8], bottom: [Int8],
    legCount: Int, maxPremium: Bool, validPoints: Int
  ) {
    self.time = time
    self.valid = valid
    self.mid = mid
    self.exec = exec
    self.rich = rich
    self.cheap = cheap
    self.top = top
    self.bottom = bottom
    self.legCount = legCount
    self.maxPremium = maxPremium
    self.validPoints = validPoints
  }

  /// The values of `column` and the durations (as weights, µs) at valid points, packed.
  public func validValues(_ column: [Double]) -> (values: [Double], weights: [Double]) {
    (packed(column), packedDurations())
  }

  /// The valid point with the largest executable premium (the first of equals), or
  /// `nil` without valid points.
  public var bestExecPoint: Int? {
    var best: Int? = nil
    for i in 0..<count where valid[i] && (best == nil || exec[i] > exec[best!]) { best = i }
    return best
  }

  /// The durations (µs) of the valid points, packed in order.
  public func packedDurations() -> [Double] {
    var weights = [Double](repeating: 0, count: validPoints)
    var k = 0
    for i in 0..<count where valid[i] {
      weights[k] = Double(duration(at: i))
      k += 1
    }
    return weights
  }

  /// The values of `column` at valid points, packed in order.
  public func packed(_ column: [Double]) -> [Double] {
    var values = [Double](repeating: 0, count: validPoints)
    var k = 0
    for i in 0..<count where valid[i] {
      values[k] = column[i]
      k += 1
    }
    return values
  }
}

/// Writes one point of a premium series into the columns' raw buffers.
struct PremiumWriter: PointVisitor {
  let time: UnsafeMutableBufferPointer<Int64>
  let valid: UnsafeMutableBufferPointer<Bool>
  let mid: UnsafeMutableBufferPointer<Double>
  let exec: UnsafeMutableBufferPointer<Double>
  let rich: UnsafeMutableBufferPointer<Int8>
  let cheap: UnsafeMutableBufferPointer<Int8>
  let top: UnsafeMutableBufferPointer<Int8>
  let bottom: UnsafeMutableBufferPointer<Int8>
  let legCount: Int
  /// `mid` is highest over lowest mid, not leg 1 over leg 2.
  let maxPremium: Bool
  var validPoints = 0

  @inline(__always)
  mutating func visit(
    _ i: Int, time t: Int64, valid ok: Bool, cursor: UnsafeMutableBufferPointer<Int>, quotes: UnsafeMutableBufferPointer<Double>
  ) {
    write(i, time: t, valid: ok, quotes: quotes)
  }

  /// Moves points `from..<from+count` down to start at `to` (`to ≤ from`).
  func move(from: Int, count: Int, to: Int) {
    movePoints(time, from: from, count: count, to: to)
    movePoints(valid, from: from, count: count, to: to)
    movePoints(mid, from: from, count: count, to: to)
    movePoints(exec, from: from, count: count, to: to)
    movePoints(rich, from: from, count: count, to: to)
    movePoints(cheap, from: from, count: count, to: to)
    movePoints(top, from: from, count: count, to: to)
    movePoints(bottom, from: from, count: count, to: to)
  }

  /// Fills point `i` from the legs' quotes in force: bids in `quotes[0..<L]`, asks in
  /// `quotes[L..<2L]` (read only when the point is valid; a leg left out of a valid
  /// point has `nan` quotes, which no comparison below picks).
  @inline(__always)
  mutating func write(_ i: Int, time t: Int64, valid ok: Bool, quotes: UnsafeMutableBufferPointer<Double>) {
    time[i] = t
    valid[i] = ok
    guard ok else {
      // Never read at an invalid point, but every element is written.
      mid[i] = .nan
      exec[i] = .nan
      rich[i] = -1
      cheap[i] = -1
      top[i] = -1
      bottom[i] = -1
      return
    }
    validPoints += 1
    // Highest and second-highest bid, lowest and second-lowest ask, highest and lowest
    // mid: the best executable edge sells the highest bid and buys the lowest ask,
    // unless both are on one leg (then the better of the two runner-up pairs).
    var bid1 = -Double.infinity, bid2 = -Double.infinity, ask1 = Double.infinity, ask2 = Double.infinity
    var bidLeg = 0, bid2Leg = 0, askLeg = 0, ask2Leg = 0
    var hiMid = -Double.infinity, loMid = Double.infinity, hi = 0, lo = 0
    for k in 0..<legCount {
      let b = quotes[k], a = quotes[legCount + k]
      if b > bid1 { bid2 = bid1; bid2Leg = bidLeg; bid1 = b; bidLeg = k } else if b > bid2 { bid2 = b; bid2Leg = k }
      if a < ask1 { ask2 = ask1; ask2Leg = askLeg; ask1 = a; askLeg = k } else if a < ask2 { ask2 = a; ask2Leg = k }
      let m = b + a  // twice the mid: the factor cancels in every ratio
      if m > hiMid { hiMid = m; hi = k }
      if m < loMid { loMid = m; lo = k }
    }
    var sell = bidLeg, buy = askLeg, edge = bid1 / ask1
    if bidLeg == askLeg {
      let viaAsk = bid1 / ask2, viaBid = bid2 / ask1
      if viaAsk >= viaBid { edge = viaAsk; buy = ask2Leg } else { edge = viaBid; sell = bid2Leg }
    }
    let ratio = maxPremium ? hiMid / loMid : (quotes[0] + quotes[2]) / (quotes[1] + quotes[3])
    mid[i] = (ratio - 1) * 100
    exec[i] = (edge - 1) * 100
    rich[i] = Int8(truncatingIfNeeded: sell)
    cheap[i] = Int8(truncatingIfNeeded: buy)
    top[i] = Int8(truncatingIfNeeded: hi)
    bottom[i] = Int8(truncatingIfNeeded: lo)
  }
}
