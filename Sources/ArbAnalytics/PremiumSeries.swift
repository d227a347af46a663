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
  public var duration: [Int64]
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

  /// Computes both premiums at every valid point of `aligned`.
  ///
  /// - Complexity: O(points × legs²).
  public init(aligned: AlignedLegs, legs: [QuoteSeries]) {
    precondition(aligned.legCount == legs.count && legs.count >= 2 && legs.count <= 127, "PremiumSeries: leg count mismatch")
    let n = aligned.count
    let legCount = legs.count
    var mid = [Double](repeating: .nan, count: n)
    var exec = [Double](repeating: .nan, count: n)
    var rich = [Int8](repeating: -1, count: n)
    var cheap = [Int8](repeating: -1, count: n)
    var top = [Int8](repeating: -1, count: n)
    var bottom = [Int8](repeating: -1, count: n)
    withUnsafeBuffers(legs.map(\.bid)) { bidColumns in
      withUnsafeBuffers(legs.map(\.ask)) { askColumns in
        aligned.states.withUnsafeBufferPointer { states in
          aligned.valid.withUnsafeBufferPointer { valid in
            for i in 0..<n where valid[i] {
              // Highest and second-highest bid, lowest and second-lowest ask, highest and
              // lowest mid: the best executable edge sells the highest bid and buys the
              // lowest ask, unless both are on one leg (then the better runner-up pair).
              var bid1 = -Double.infinity, bid2 = -Double.infinity, ask1 = Double.infinity, ask2 = Double.infinity
              var bidLeg = 0, bid2Leg = 0, askLeg = 0, ask2Leg = 0
              var hiMid = -Double.infinity, loMid = Double.infinity, hi = 0, lo = 0
              for k in 0..<legCount {
                let j = Int(states[i &* legCount &+ k])
                let b = bidColumns[k][j], a = askColumns[k][j]
                if b > bid1 { bid2 = bid1; bid2Leg = bidLeg; bid1 = b; bidLeg = k } else if b > bid2 { bid2 = b; bid2Leg = k }
                if a < ask1 { ask2 = ask1; ask2Leg = askLeg; ask1 = a; askLeg = k } else if a < ask2 { ask2 = a; ask2Leg = k }
                let m = b + a
                if m > hiMid { hiMid = m; hi = k }
                if m < loMid { loMid = m; lo = k }
              }
              var sell = bidLeg, buy = askLeg, edge = bid1 / ask1
              if bidLeg == askLeg {
                let viaAsk = bid1 / ask2, viaBid = bid2 / ask1
                if viaAsk >= viaBid { edge = viaAsk; buy = ask2Leg } else { edge = viaBid; sell = bid2Leg }
              }
              if legCount == 2 {
                let m0 = bidColumns[0][Int(states[i &* 2])] + askColumns[0][Int(states[i &* 2])]
                let m1 = bidColumns[1][Int(states[i &* 2 &+ 1])] + askColumns[1][Int(states[i &* 2 &+ 1])]
                mid[i] = (m0 / m1 - 1) * 100
              } else {
                mid[i] = (hiMid / loMid - 1) * 100
              }
              exec[i] = (edge - 1) * 100
              rich[i] = Int8(truncatingIfNeeded: sell)
              cheap[i] = Int8(truncatingIfNeeded: buy)
              top[i] = Int8(truncatingIfNeeded: hi)
              bottom[i] = Int8(truncatingIfNeeded: lo)
            }
          }
        }
      }
    }
    time = aligned.time
    duration = aligned.duration
    valid = aligned.valid
    self.mid = mid
    self.exec = exec
    self.rich = rich
    self.cheap = cheap
    self.top = top
    self.bottom = bottom
    self.legCount = legCount
    validPoints = aligned.validPoints
  }

  /// The values of `column` and the durations (as weights, µs) at valid points, packed.
  public func validValues(_ column: [Double]) -> (values: [Double], weights: [Double]) {
    var values: [Double] = []
    var weights: [Double] = []
    values.reserveCapacity(validPoints)
    weights.reserveCapacity(validPoints)
    for i in 0..<count where valid[i] {
      values.append(column[i])
      weights.append(Double(duration[i]))
    }
    return (values, weights)
  }
}
