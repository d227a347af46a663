import ArbCore
import ArbResearch

extension SizedPremiumStudy {
  /// JSON: `quantity`, `depth` (per leg), `valid_points`, `short_points`, `exec` (as the
  /// premium's `exec`), `capacity` (per band `{band, mean, p50, max}`, base units).
  var json: JSONValue {
    .object([
      ("quantity", .number(summary.quantity)),
      ("depth", .array(depth.map { .string(ExecutionFlags.depthText($0)) })),
      ("valid_points", .int(summary.validPoints)),
      ("short_points", .int(summary.shortPoints)),
      ("exec", PremiumResult.json(summary.analysis.exec, oneSided: true)),
      (
        "capacity",
        .array(
          zip(summary.bands, summary.analysis.capacity).map { band, s in
            .object([("band", .number(band)), ("mean", .number(s.mean)), ("p50", .number(s.quantiles.isEmpty ? nil : s.quantiles[3])), ("max", .number(s.max))])
          })
      ),
    ])
  }
}
