import ArbCore

/// Mid and executable premiums of aligned legs, in percent (`docs/definitions.md`).
///
/// With two legs A and B: `mid = (mid_A / mid_B − 1) × 100` (signed) and
/// `exec = max(e_AB, e_BA)` with `e_AB = (bid_A / ask_B − 1) × 100` (sell A, buy B).
/// With N > 2 legs: `mid = (max_k mid_k / min_k mid_k − 1) × 100` with the top and
/// bottom legs, and `exec` the best `bid_i / ask_j − 1` over all ordered pairs.
/// Values at invalid points are never used (they are `nan` internally and never printed).
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
  public var validPoints: Int
  public var count: Int { time.count }

  /// Time from point `i` to the next point; 0 for the last point.
  @inline(__always)
  public func duration(at i: Int) -> Int64 { i + 1 < time.count ? time[i + 1] - time[i] : 0 }

  /// Every point's duration (derived from `time`, built on each call).
  public var duration: [Int64] { time.indices.map(duration(at:)) }

  /// Computes both premiums at every valid point of `aligned`.
  ///
  /// - Complexity: O(points × legs).
  public init(aligned: AlignedLegs, legs: [QuoteSeries]) {
    precondition(aligned.legCount == legs.count && legs.count >= 2 && legs.count <= 127, "PremiumSeries: leg count mismatch")
    var columns = Columns(capacity: aligned.count, legCount: legs.count)
    withUnsafeBuffers(legs.map(\.bid)) { bids in
      withUnsafeBuffers(legs.map(\.ask)) { asks in
        aligned.states.withUnsafeBufferPointer { states in
          for i in 0..<aligned.count {
            columns.set(i, time: aligned.time[i], valid: aligned.valid[i], bids: bids, asks: asks) { states[i * legs.count + $0] }
          }
        }
      }
    }
    self.init(columns, legCount: legs.count)
  }

  /// Aligns `legs` and computes both premiums in one pass, without keeping each leg's
  /// state per point (`AlignedLegs` keeps them, for `--series`).
  ///
  /// - Throws: `AlignmentError` as `AlignedLegs.init`.
  /// - Complexity: O(points × legs + quotes).
  public init(legs: [QuoteSeries], options: AlignmentOptions = AlignmentOptions()) throws(AlignmentError) {
    precondition(legs.count <= 127, "PremiumSeries: at most 127 legs")
    let merge = try AsOfMerge(legs: legs, options: options)
    var columns = Columns(capacity: merge.capacity, legCount: legs.count)
    let produced = withUnsafeBuffers(legs.map(\.bid)) { bids in
      withUnsafeBuffers(legs.map(\.ask)) { asks in
        merge.forEachPoint { i, t, cursor, ok in
          columns.set(i, time: t, valid: ok, bids: bids, asks: asks) { Int32(cursor[$0]) }
        }
      }
    }
    columns.trim(to: produced)
    self.init(columns, legCount: legs.count)
  }

  /// Takes the filled columns (trimmed in place by the caller: a copy here would
  /// double them for a moment).
  private init(_ c: Columns, legCount: Int) {
    time = c.time
    valid = c.valid
    mid = c.mid
    exec = c.exec
    rich = c.rich
    cheap = c.cheap
    top = c.top
    bottom = c.bottom
    self.legCount = legCount
    validPoints = c.validPoints
  }

  /// The values of `column` and the durations (as weights, µs) at valid points, packed.
  public func validValues(_ column: [Double]) -> (values: [Double], weights: [Double]) {
    (packed(column), packedDurations())
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

/// The output columns of a premium series while they are filled.
private struct Columns {
  var time: [Int64]
  var valid: [Bool]
  var mid: [Double]
  var exec: [Double]
  var rich: [Int8]
  var cheap: [Int8]
  var top: [Int8]
  var bottom: [Int8]
  var validPoints = 0
  let legCount: Int

  init(capacity: Int, legCount: Int) {
    self.legCount = legCount
    time = [Int64](repeating: 0, count: capacity)
    valid = [Bool](repeating: false, count: capacity)
    mid = [Double](repeating: .nan, count: capacity)
    exec = [Double](repeating: .nan, count: capacity)
    rich = [Int8](repeating: -1, count: capacity)
    cheap = [Int8](repeating: -1, count: capacity)
    top = [Int8](repeating: -1, count: capacity)
    bottom = [Int8](repeating: -1, count: capacity)
  }

  /// Fills point `i`; `state(k)` is leg k's quote index in force.
  @inline(__always)
  mutating func set(
    _ i: Int, time t: Int64, valid ok: Bool, bids: [UnsafeBufferPointer<Double>], asks: [UnsafeBufferPointer<Double>],
    state: (Int) -> Int32
  ) {
    time[i] = t
    valid[i] = ok
    guard ok else { return }
    validPoints += 1
    // Highest and second-highest bid, lowest and second-lowest ask, highest and lowest
    // mid: the best executable edge sells the highest bid and buys the lowest ask,
    // unless both are on one leg (then the better of the two runner-up pairs).
    var bid1 = -Double.infinity, bid2 = -Double.infinity, ask1 = Double.infinity, ask2 = Double.infinity
    var bidLeg = 0, bid2Leg = 0, askLeg = 0, ask2Leg = 0
    var hiMid = -Double.infinity, loMid = Double.infinity, hi = 0, lo = 0
    var firstMid = 0.0, secondMid = 0.0
    for k in 0..<legCount {
      let j = Int(state(k))
      let b = bids[k][j], a = asks[k][j]
      if b > bid1 { bid2 = bid1; bid2Leg = bidLeg; bid1 = b; bidLeg = k } else if b > bid2 { bid2 = b; bid2Leg = k }
      if a < ask1 { ask2 = ask1; ask2Leg = askLeg; ask1 = a; askLeg = k } else if a < ask2 { ask2 = a; ask2Leg = k }
      let m = b + a  // twice the mid: the factor cancels in every ratio
      if m > hiMid { hiMid = m; hi = k }
      if m < loMid { loMid = m; lo = k }
      if k == 0 { firstMid = m } else if k == 1 { secondMid = m }
    }
    var sell = bidLeg, buy = askLeg, edge = bid1 / ask1
    if bidLeg == askLeg {
      let viaAsk = bid1 / ask2, viaBid = bid2 / ask1
      if viaAsk >= viaBid { edge = viaAsk; buy = ask2Leg } else { edge = viaBid; sell = bid2Leg }
    }
    mid[i] = ((legCount == 2 ? firstMid / secondMid : hiMid / loMid) - 1) * 100
    exec[i] = (edge - 1) * 100
    rich[i] = Int8(truncatingIfNeeded: sell)
    cheap[i] = Int8(truncatingIfNeeded: buy)
    top[i] = Int8(truncatingIfNeeded: hi)
    bottom[i] = Int8(truncatingIfNeeded: lo)
  }

  mutating func trim(to count: Int) {
    let extra = time.count - count
    guard extra > 0 else { return }
    time.removeLast(extra)
    valid.removeLast(extra)
    mid.removeLast(extra)
    exec.removeLast(extra)
    rich.removeLast(extra)
    cheap.removeLast(extra)
    top.removeLast(extra)
    bottom.removeLast(extra)
  }
}
