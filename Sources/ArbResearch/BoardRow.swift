import ArbAnalytics
import ArbCore

/// One instrument of the premium board: its legs on two or more venues and the
/// analysis of their max premium (`docs/definitions.md`, "Premium board").
public struct BoardRow {
  public var instrument: CanonicalInstrument
  /// One leg per venue, by venue name.
  public var legs: [QuoteSeries]
  public var premium: PremiumSeries?
  public var analysis: PremiumAnalysis?
  /// Why there is no analysis (legs that never overlap).
  public var problem: String?
  /// With a size: the executable premium at the size from the venues' books.
  public var sized: SizedPremiumStudy?

  /// Aligns `legs` with at least two usable venues per point and analyses the max premium.
  public init(instrument: CanonicalInstrument, legs: [QuoteSeries], alignment: AlignmentOptions, bands: BandOptions, size: Double?) {
    self.instrument = instrument
    self.legs = legs.sorted { $0.instrument.venue < $1.instrument.venue }
    var options = alignment
    options.minimumLegs = 2
    do {
      let premium = try PremiumSeries(legs: self.legs, options: options, maxPremium: true)
      self.premium = premium
      analysis = PremiumAnalysis(premium: premium, options: bands)
      if let size { sized = try SizedPremiumStudy(size: size, premium: premium, legs: self.legs, alignment: options, bands: bands) }
    } catch {
      problem = error.description
    }
  }

  public var venues: [String] { legs.map(\.instrument.venue) }

  /// The venue most often on top (`top`) or at the bottom, with its share of valid points
  /// (the first venue by name on a tie); `nil` without valid points.
  public func leader(top: Bool) -> (venue: String, share: Double)? {
    guard let shares = top ? analysis?.topShare : analysis?.bottomShare, !shares.isEmpty else { return nil }
    let best = shares.indices.max { shares[$0] < shares[$1] || (shares[$0] == shares[$1] && $0 > $1) }!
    return (venues[best], shares[best])
  }

  /// The best executable edge: premium, venue sold, venue bought, time.
  public var bestExec: (premium: Double, sell: String, buy: String, time: Int64)? {
    guard let premium, let i = premium.bestExecPoint else { return nil }
    return (premium.exec[i], venues[Int(premium.rich[i])], venues[Int(premium.cheap[i])], premium.time[i])
  }

  /// Quantile of the max premium at `level` percent (one of `SeriesStatistics.quantileLevels`).
  public func quantile(_ level: Double) -> Double? {
    guard let statistics = analysis?.mid.statistics, !statistics.quantiles.isEmpty else { return nil }
    return statistics.quantiles[SeriesStatistics.quantileLevels.firstIndex(of: level)!]
  }
}
