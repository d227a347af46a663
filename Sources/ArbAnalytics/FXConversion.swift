import ArbCore

/// A leg's prices re-expressed in another currency by an FX series
/// (`docs/definitions.md`, "FX conversion").
///
/// At each quote of the leg, bid and ask (and the levels of its books) are divided by
/// the rate in force: the mid of the FX series' last quote at or before the quote's
/// time. A quote with no rate yet, or a rate older than `maxStale`, gets `nan` prices:
/// no point that uses it is valid.
public struct FXConversion: Sendable {
  /// The leg with converted prices (sizes, times and sources unchanged).
  public var series: QuoteSeries
  /// The rate divided by at each quote (`nan` where none was usable).
  public var rate: [Double]
  /// Quotes left without a usable rate.
  public var unusable: Int

  /// - Parameter maxStale: the oldest rate (µs before the quote) still used; `nil` for no limit.
  public init(_ leg: QuoteSeries, by fx: QuoteSeries, maxStale: Int64?) {
    let limit = maxStale ?? .max
    var rate = [Double](repeating: .nan, count: leg.count)
    var unusable = 0
    var f = -1  // the FX quote in force
    for i in 0..<leg.count {
      let t = leg.time[i]
      while f + 1 < fx.count && fx.time[f + 1] <= t { f += 1 }
      let r = f >= 0 ? (fx.bid[f] + fx.ask[f]) / 2 : .nan
      if f >= 0 && t - fx.time[f] <= limit && r.isFinite && r > 0 { rate[i] = r } else { unusable += 1 }
    }
    var series = leg
    for i in 0..<leg.count {
      series.bid[i] = leg.bid[i] / rate[i]
      series.ask[i] = leg.ask[i] / rate[i]
    }
    if var depth = leg.depth {
      for i in 0..<depth.count {
        for j in depth.bidStart[i]..<depth.bidStart[i + 1] { depth.bidPrice[j] /= rate[i] }
        for j in depth.askStart[i]..<depth.askStart[i + 1] { depth.askPrice[j] /= rate[i] }
      }
      series.depth = depth
    }
    self.series = series
    self.rate = rate
    self.unusable = unusable
  }
}
