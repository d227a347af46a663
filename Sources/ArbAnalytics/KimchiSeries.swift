import ArbCore

/// The kimchi premium of a KRW market K over a USD or USDT market U with an FX rate r
/// (KRW per USD or per USDT), in percent, at every point of the as-of alignment of
/// K, U, r and optionally a USDT-USD market Q (`docs/definitions.md`, "Kimchi premium"):
///
/// - `kimchi = (mid_K / (mid_U × r) − 1) × 100`, with r the FX rate in force (an FX
///   file's rate, or the mid of a USDT-KRW market);
/// - with Q (USD per USDT): the USDT term `(mid_Q − 1) × 100` and the kimchi premium
///   with U valued in USD, `(mid_K / (mid_U × mid_Q × r) − 1) × 100`.
///
/// The FX leg has its own staleness limit (daily business-day rates must carry over a
/// weekend); the other legs use `options.maxStale`.
public struct KimchiSeries: Sendable {
  /// The kimchi premium as a one-column premium series (`mid`), with the points' validity.
  public var premium: PremiumSeries
  /// The FX rate in force at each point (`nan` at invalid points).
  public var rate: [Double]
  /// With a USDT-USD leg: the USDT term and the kimchi premium in USD terms.
  public var usdtTerm: [Double]?
  public var kimchiUSD: [Double]?
  /// Points where the FX leg had no rate yet or one older than its limit.
  public var fxStalePoints: Int

  /// Aligns the legs and computes every column.
  ///
  /// - Parameter fxMaxStale: staleness limit of `fx` (µs), `nil` for none.
  /// - Throws: `AlignmentError` when a leg is empty or the legs never overlap.
  /// - Complexity: O(points).
  public init(
    krw: QuoteSeries, usd: QuoteSeries, fx: QuoteSeries, usdtUSD: QuoteSeries? = nil,
    options: AlignmentOptions = AlignmentOptions(), fxMaxStale: Int64? = nil
  ) throws(AlignmentError) {
    let legs = [krw, usd, fx] + (usdtUSD.map { [$0] } ?? [])
    var legOptions = options
    legOptions.legMaxStale = [nil, nil, fxMaxStale ?? .max]
    let aligned = try AlignedLegs(legs: legs, options: legOptions)
    let n = aligned.count
    let fxLimit = fxMaxStale ?? .max
    var kimchi = [Double](repeating: .nan, count: n)
    var rate = kimchi
    var usdtTerm = usdtUSD.map { _ in kimchi }, kimchiUSD = usdtTerm
    func mid(_ series: QuoteSeries, _ leg: Int, _ i: Int) -> Double {
      let j = Int(aligned.state(leg: leg, point: i))
      return (series.bid[j] + series.ask[j]) / 2
    }
    var fxStale = 0
    for i in 0..<n {
      let f = Int(aligned.state(leg: 2, point: i))
      if f < 0 || aligned.time[i] - fx.time[f] > fxLimit { fxStale += 1 }
      guard aligned.valid[i] else { continue }
      let k = mid(krw, 0, i), u = mid(usd, 1, i), r = mid(fx, 2, i)
      rate[i] = r
      kimchi[i] = (k / (u * r) - 1) * 100
      if let q = usdtUSD.map({ mid($0, 3, i) }) {
        usdtTerm![i] = (q - 1) * 100
        kimchiUSD![i] = (k / (u * q * r) - 1) * 100
      }
    }
    premium = PremiumSeries(time: aligned.time, valid: aligned.valid, values: kimchi)
    self.rate = rate
    self.usdtTerm = usdtTerm
    self.kimchiUSD = kimchiUSD
    fxStalePoints = fxStale
  }
}
