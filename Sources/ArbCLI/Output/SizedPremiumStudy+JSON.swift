import ArbCore
import ArbResearch

extension SizedPremiumStudy {
  /// JSON: `quantity`, `depth` (per leg), `valid_points`, `short_points`, `exec` (as the
  /// premium's `exec`), `capacity` (per band `{band, mean, p50, max}`, base units).
  var json: JSONValue {
    .object([
      ("quantity", .number(sized.quantity)),
      ("depth", .array(depth.map { .string(ExecutionFlags.depthText($0)) })),
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
