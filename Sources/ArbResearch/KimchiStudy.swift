import ArbAnalytics
import ArbCore

/// What `arbkit kimchi` computes from its legs (`docs/definitions.md`, "Kimchi premium"):
/// the kimchi premium of each KRW market over a USD(T) market through an FX rate, with
/// the USDT/USD term when measured, and the premium among the KRW markets.
public struct KimchiStudy {
  /// The kimchi premium of one KRW market.
  public struct Venue {
    public var name: String
    public var series: KimchiSeries
    public var premium: SeriesSummary
    public var usdtTerm: SeriesSummary?
    public var premiumUSD: SeriesSummary?
  }

  /// The premium among the KRW venues (as `arbkit premium` over them).
  public struct Board {
    public var premium: PremiumSeries
    public var analysis: PremiumAnalysis
  }

  public let venues: [Venue]
  /// With two or more KRW markets.
  public let board: Board?

  /// The study of each of `krw` over `usd` through `fx` (an FX series or a USDT-KRW
  /// market; at most `fxMaxStale` µs old), with `usdtUSD` valuing USDT in USD when given.
  ///
  /// - Throws: `AlignmentError`, `TimeError` for legs that cannot be aligned.
  public init(
    krw: [QuoteSeries], usd: QuoteSeries, fx: QuoteSeries, usdtUSD: QuoteSeries?, alignment: AlignmentOptions, bands: BandOptions,
    fxMaxStale: Int64
  ) throws {
    venues = try krw.map { leg in
      let series = try KimchiSeries(krw: leg, usd: usd, fx: fx, usdtUSD: usdtUSD, options: alignment, fxMaxStale: fxMaxStale)
      let summary = { (column: [Double]) in SeriesSummary(signed: series.premium, column: column, options: bands) }
      return Venue(
        name: leg.instrument.description, series: series, premium: summary(series.premium.mid), usdtTerm: series.usdtTerm.map(summary),
        premiumUSD: series.kimchiUSD.map(summary))
    }
    if krw.count >= 2 {
      let premium = try PremiumSeries(legs: krw, options: alignment)
      board = Board(premium: premium, analysis: PremiumAnalysis(premium: premium, options: bands))
    } else {
      board = nil
    }
  }
}
