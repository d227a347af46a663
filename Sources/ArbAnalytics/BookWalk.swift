/// Walking order-book levels for a trade size (`docs/definitions.md`, "Size-aware
/// executable premium"). Levels come best first: bids by falling price, asks by rising.
public enum BookWalk {
  /// The volume-weighted price of taking `quantity` (> 0) from `levels`: the levels are
  /// filled best first, each up to its size, the last one partly. `nil` when the levels
  /// together hold less than `quantity` (a partial fill).
  ///
  /// - Complexity: O(levels used).
  @inline(__always)
  public static func averagePrice(prices: UnsafeBufferPointer<Double>, sizes: UnsafeBufferPointer<Double>, quantity: Double) -> Double? {
    var remaining = quantity, notional = 0.0
    for k in 0..<prices.count {
      let take = min(sizes[k], remaining)
      notional += take * prices[k]
      remaining -= take
      if remaining <= 0 { return notional / quantity }
    }
    return nil
  }

  /// The capacity of selling into `bids` and buying from `asks` at edge `band` percent:
  /// the largest quantity Q, at most the smaller side's total size, with
  /// `(avgBid(Q) / avgAsk(Q) − 1) × 100 ≥ band`; 0 when even the first unit's edge
  /// (best bid over best ask) is below the band or a side is empty.
  ///
  /// With `k = 1 + band / 100` the condition is `g(Q) = notionalBid(Q) − k·notionalAsk(Q)
  /// ≥ 0`; g(0) = 0 and g is piecewise linear with slope `bid_i − k·ask_j` (the levels in
  /// use), which falls as the walk goes deeper. So g rises then falls, and Q is where it
  /// comes back to 0, found on the segment where it does.
  ///
  /// - Complexity: O(levels of both sides).
  public static func capacity(
    bidPrices: UnsafeBufferPointer<Double>, bidSizes: UnsafeBufferPointer<Double>,
    askPrices: UnsafeBufferPointer<Double>, askSizes: UnsafeBufferPointer<Double>, band: Double
  ) -> Double {
    let k = 1 + band / 100
    var i = 0, j = 0
    var bidLeft = bidSizes.first ?? 0, askLeft = askSizes.first ?? 0
    var filled = 0.0, g = 0.0
    while i < bidPrices.count && j < askPrices.count {
      let step = min(bidLeft, askLeft)
      let slope = bidPrices[i] - k * askPrices[j]
      if g + slope * step < 0 {
        // g reaches 0 inside this segment (only while falling: g ≥ 0 before it).
        return slope < 0 ? filled + g / -slope : filled
      }
      g += slope * step
      filled += step
      bidLeft -= step
      askLeft -= step
      if bidLeft <= 0 {
        i += 1
        bidLeft = i < bidSizes.count ? bidSizes[i] : 0
      }
      if askLeft <= 0 {
        j += 1
        askLeft = j < askSizes.count ? askSizes[j] : 0
      }
    }
    return filled
  }
}
