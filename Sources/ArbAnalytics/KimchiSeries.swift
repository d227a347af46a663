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

  /// Aligns the legs and computes every column (`KimchiStream` over the series in memory).
  ///
  /// - Parameter fxMaxStale: staleness limit of `fx` (µs), `nil` for none.
  /// - Throws: `AlignmentError` when a leg is empty or the legs never overlap.
  /// - Complexity: O(points).
  public init(
    krw: QuoteSeries, usd: QuoteSeries, fx: QuoteSeries, usdtUSD: QuoteSeries? = nil,
    options: AlignmentOptions = AlignmentOptions(), fxMaxStale: Int64? = nil
  ) throws(AlignmentError) {
    var time: [Int64] = [], valid: [Bool] = [], kimchi: [Double] = [], rate: [Double] = [], usdtTerm: [Double] = [], kimchiUSD: [Double] = []
    let stream = try inMemory { () throws -> KimchiStream in
      let stream = try KimchiStream(
        krw: SeriesQuoteStream(krw), usd: SeriesQuoteStream(usd), fx: SeriesQuoteStream(fx), usdtUSD: usdtUSD.map(SeriesQuoteStream.init),
        options: options, fxMaxStale: fxMaxStale)
      while let chunk = try stream.next() {
        time += chunk.time
        valid += chunk.valid
        kimchi += chunk.premium
        rate += chunk.rate
        usdtTerm += chunk.usdtTerm
        kimchiUSD += chunk.kimchiUSD
      }
      return stream
    }
    premium = PremiumSeries(time: time, valid: valid, values: kimchi)
    self.rate = rate
    self.usdtTerm = usdtUSD == nil ? nil : usdtTerm
    self.kimchiUSD = usdtUSD == nil ? nil : kimchiUSD
    fxStalePoints = stream.fxStalePoints
  }
}
