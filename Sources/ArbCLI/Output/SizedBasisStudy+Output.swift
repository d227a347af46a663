import ArbAnalytics
import ArbCore
import ArbResearch

extension SizedBasisStudy {
  /// JSON: `quantity`, `unit`, `depth` (derivative, reference), `open_short_points`,
  /// `close_short_points`, `open` and `close` (as the basis columns), `capacity` of open
  /// (per band `{band, mean, p50, max}`, base units).
  var json: JSONValue {
    .object([
      ("quantity", .number(sized.quantity)),
      ("unit", .string("base")),
      ("depth", .array(depth.map { .string(ExecutionFlags.depthText($0)) })),
      ("open_short_points", .int(sized.openShort)),
      ("close_short_points", .int(sized.closeShort)),
      ("open", PremiumResult.json(open, oneSided: false)),
      ("close", PremiumResult.json(close, oneSided: false)),
      (
        "capacity",
        .array(
          zip(sized.bands, capacity).map { band, s in
            .object([("band", .number(band)), ("mean", .number(s.mean)), ("p50", .number(s.quantiles.isEmpty ? nil : s.quantiles[3])), ("max", .number(s.max))])
          })
      ),
    ])
  }

  /// The `--size` section of the table: depth per leg, open and close at the size and
  /// the capacity of open.
  func table(derivative: Instrument, reference: Instrument, bands: BandOptions) -> String {
    let q = JSONValue.format(sized.quantity)
    var text = "At size \(q) (base units): open valid \(sized.open.validPoints), short of depth \(sized.openShort); "
    text += "close valid \(sized.close.validPoints), short of depth \(sized.closeShort)\n"
    for (instrument, depth) in zip([derivative, reference], depth) { text += "  depth \(instrument): \(ExecutionFlags.depthText(depth))\n" }
    text += SummaryTable.statistics([("open at \(q)", open), ("close at \(q)", close)])
    for (name, summary) in [("open at \(q)", open), ("close at \(q)", close)] { text += SummaryTable.bands(name, summary, options: bands) }
    var table = TextTable(["capacity of open, base units", "mean", "p50", "max"])
    for (band, s) in zip(sized.bands, capacity) {
      table.add([
        "≥ \(JSONValue.format(band)) %", NumberText.fixed(s.mean, 4), NumberText.fixed(s.quantiles.isEmpty ? nil : s.quantiles[3], 4),
        NumberText.fixed(s.max, 4),
      ])
    }
    return text + "\n" + table.rendered(indent: "  ") + "\n"
  }
}
