import ArbAnalytics
import ArbCore
import ArbResearch

extension SizedBasisStudy {
  /// JSON: `quantity`, `unit`, `depth` (derivative, reference), `open_short_points`,
  /// `close_short_points`, `open` and `close` (as the basis columns), `capacity` of open
  /// (per band `{band, mean, p50, max}`, base units).
  var json: JSONValue {
    .object([
      ("quantity", .number(summary.quantity)),
      ("unit", .string("base")),
      ("depth", .array(depth.map { .string(ExecutionFlags.depthText($0)) })),
      ("open_short_points", .int(summary.openShort)),
      ("close_short_points", .int(summary.closeShort)),
      ("open", PremiumResult.json(summary.open, oneSided: false)),
      ("close", PremiumResult.json(summary.close, oneSided: false)),
      (
        "capacity",
        .array(
          zip(summary.bands, summary.capacity).map { band, s in
            .object([("band", .number(band)), ("mean", .number(s.mean)), ("p50", .number(s.quantiles.isEmpty ? nil : s.quantiles[3])), ("max", .number(s.max))])
          })
      ),
    ])
  }

  /// The `--size` section of the table: depth per leg, open and close at the size and
  /// the capacity of open.
  func table(derivative: Instrument, reference: Instrument, bands: BandOptions) -> String {
    let q = JSONValue.format(summary.quantity)
    var text = "At size \(q) (base units): open valid \(summary.open.statistics.count), short of depth \(summary.openShort); "
    text += "close valid \(summary.close.statistics.count), short of depth \(summary.closeShort)\n"
    for (instrument, depth) in zip([derivative, reference], depth) { text += "  depth \(instrument): \(ExecutionFlags.depthText(depth))\n" }
    text += SummaryTable.statistics([("open at \(q)", summary.open), ("close at \(q)", summary.close)])
    for (name, side) in [("open at \(q)", summary.open), ("close at \(q)", summary.close)] { text += SummaryTable.bands(name, side, options: bands) }
    var table = TextTable(["capacity of open, base units", "mean", "p50", "max"])
    for (band, s) in zip(summary.bands, summary.capacity) {
      table.add([
        "≥ \(JSONValue.format(band)) %", NumberText.fixed(s.mean, 4), NumberText.fixed(s.quantiles.isEmpty ? nil : s.quantiles[3], 4),
        NumberText.fixed(s.max, 4),
      ])
    }
    return text + "\n" + table.rendered(indent: "  ") + "\n"
  }
}
