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
    precondition(aligned.state.count == legs.count && legs.count >= 2 && legs.count <= 127, "PremiumSeries: leg count mismatch")
    let n = aligned.count
    let legCount = legs.count
    var mid = [Double](repeating: .nan, count: n)
    var exec = [Double](repeating: .nan, count: n)
    var rich = [Int8](repeating: -1, count: n)
    var cheap = [Int8](repeating: -1, count: n)
    var top = [Int8](repeating: -1, count: n)
    var bottom = [Int8](repeating: -1, count: n)
    var bids = [Double](repeating: 0, count: legCount)
    var asks = [Double](repeating: 0, count: legCount)
    for i in 0..<n where aligned.valid[i] {
      for k in 0..<legCount {
        let j = Int(aligned.state[k][i])
        bids[k] = legs[k].bid[j]
        asks[k] = legs[k].ask[j]
      }
      var hi = 0, lo = 0
      var hiMid = (bids[0] + asks[0]) * 0.5, loMid = hiMid
      var bestEdge = -Double.infinity, bestRich = 0, bestCheap = 1
      for k in 0..<legCount {
        let m = (bids[k] + asks[k]) * 0.5
        if m > hiMid { hiMid = m; hi = k }
        if m < loMid { loMid = m; lo = k }
        for c in 0..<legCount where c != k {
          let edge = bids[k] / asks[c]
          if edge > bestEdge { bestEdge = edge; bestRich = k; bestCheap = c }
        }
      }
      if legCount == 2 {
        mid[i] = ((bids[0] + asks[0]) / (bids[1] + asks[1]) - 1) * 100
      } else {
        mid[i] = (hiMid / loMid - 1) * 100
      }
      exec[i] = (bestEdge - 1) * 100
      rich[i] = Int8(bestRich)
      cheap[i] = Int8(bestCheap)
      top[i] = Int8(hi)
      bottom[i] = Int8(lo)
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
