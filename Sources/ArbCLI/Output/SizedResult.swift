import ArbAnalytics
import ArbCore

/// The sized premium of aligned legs and its analysis (`--size`).
struct SizedResult {
  var sized: SizedPremium
  var analysis: SizedAnalysis
  var depth: [String]

  init(size: Double, premium: PremiumSeries, legs: [QuoteSeries], alignment: AlignmentOptions, bands: BandOptions) throws(AlignmentError) {
    let aligned = try AlignedLegs(legs: legs, options: alignment)
    sized = SizedPremium(quantity: size, bands: bands.bands, premium: premium, aligned: aligned, legs: legs)
    analysis = SizedAnalysis(sized, options: bands)
    depth = legs.map(ExecutionFlags.depthText)
  }

  /// JSON: `quantity`, `depth` (per leg), `valid_points`, `short_points`, `exec` (as the
  /// premium's `exec`), `capacity` (per band `{band, mean, p50, max}`, base units).
  var json: JSONValue {
    .object([
      ("quantity", .number(sized.quantity)),
      ("depth", .array(depth.map { .string($0) })),
      ("valid_points", .int(sized.premium.validPoints)),
      ("short_points", .int(sized.shortPoints)),
      ("exec", PremiumResult.json(analysis.exec, oneSided: true)),
      (
        "capacity",
        .array(
          zip(sized.bands, analysis.capacity).map { band, s in
            .object([("band", .number(band)), ("mean", .number(s.mean)), ("p50", .number(s.quantiles.isEmpty ? nil : s.quantiles[3])), ("max", .number(s.max))])
          })
      ),
    ])
  }
}
