import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

/// The result of `arbkit basis`, rendered as JSON (the contract in `docs/cli.md`) or a
/// terminal table.
struct BasisResult {
  let legs: [(role: String, leg: LegSummary, canonical: CanonicalInstrument?)]
  /// `spot-perp`, `spot-future` or `perp-future`.
  let kind: String
  let study: BasisStudy
  let carryUnit: String?
  let alignment: AlignmentOptions
  let bands: BandOptions
  /// `--size`: open and close at a trade size.
  var sized: SizedBasisStudy? = nil
  /// `--offset`: µs added to each venue's times before alignment.
  var offsets: [(venue: String, micros: Int64)] = []

  var summaries: BasisStudy.Summaries { study.summaries }
  var references: [BasisStudy.Reference] { study.references }
  var carry: FundingCarry? { study.carry }

  var json: JSONValue {
    .object([
      ("kind", .string(kind)),
      ("legs", SummaryTable.legsJSON(legs)),
      ("points", .int(study.points)), ("valid_points", .int(study.validPoints)), ("stale_points", .int(study.points - study.validPoints)),
      ("max_stale_us", .int(alignment.maxStale)), ("grid_us", .int(alignment.grid)),
      ("offsets_us", .object(offsets.map { ($0.venue, .int($0.micros)) })),
      ("basis", PremiumResult.json(summaries.basis, oneSided: false)),
      ("open", PremiumResult.json(summaries.open, oneSided: false)),
      ("close", PremiumResult.json(summaries.close, oneSided: false)),
      ("size", sized?.json ?? .null),
      ("expiry_us", .int(study.expiry)),
      ("expiry", study.expiry.map { .string(TimeText.iso8601($0)) } ?? .null),
      ("annualised", summaries.annualised.map { PremiumResult.json($0, oneSided: false) } ?? .null),
      ("points_after_expiry", .int(study.pointsAfterExpiry)),
      (
        "references",
        .array(
          references.map { r in
            .object([
              ("name", .string(r.name)), ("points", .int(r.points)), ("valid_points", .int(r.validPoints)),
              ("premium", PremiumResult.json(r.summary, oneSided: false)),
            ])
          })
      ),
      ("funding", carry.map { Self.json($0, unit: carryUnit) } ?? .null),
    ])
  }

  static func json(_ carry: FundingCarry, unit: String?) -> JSONValue {
    .object([
      ("window_us", .int(carry.window)), ("interval_us", .int(carry.interval)), ("events_sampled", .bool(carry.sampled)),
      ("windows", .int(carry.windows.count)), ("events", .int(carry.events)),
      ("from_us", .int(carry.windows.first?.start)), ("until_us", .int(carry.windows.last?.end)),
      ("carry_pct", .number(carry.windows.isEmpty ? nil : carry.carry)),
      ("carry_per_contract", .number(carry.carryPerContract)),
      ("carry_unit", unit.map { .string($0) } ?? .null),
      ("net_pct", .number(carry.net)),
      ("carry_per_window", .object(PremiumResult.members(carry.carryStatistics))),
      ("net_per_window", .object(PremiumResult.members(carry.netStatistics))),
      (
        "by_window",
        .array(
          carry.windows.map { w in
            .object([
              ("start_us", .int(w.start)), ("end_us", .int(w.end)), ("events", .int(w.events)),
              ("carry_pct", .number(w.carry)), ("carry_per_contract", .number(w.carryPerContract)),
              ("basis_start", .number(w.basisStart)), ("basis_end", .number(w.basisEnd)), ("net_pct", .number(w.net)),
            ])
          })
      ),
    ])
  }

  var table: String {
    var text = "Legs\n" + SummaryTable.legs(legs)
    let clockText = alignment.grid.map { "grid \(TimeText.durationText($0))" } ?? "union clock"
    let staleText = alignment.maxStale.map { "max stale \(TimeText.durationText($0))" } ?? "no staleness limit"
    text += "\nPoints \(study.points) (\(clockText), \(staleText)): valid \(study.validPoints), stale \(study.points - study.validPoints)\n"
    text += ExecutionFlags.offsetsLine(offsets)
    let lastPrice = legs.prefix(2).contains(where: { $0.leg.priceSource == .last })
    if lastPrice {
      text += "Note: price_source last for a leg (one price per row, bid = ask): open and close equal the basis, not a tradable edge.\n"
    }
    if let expiry = study.expiry {
      text += "Expiry \(TimeText.iso8601(expiry)); valid points at or after it (no annualised value): \(study.pointsAfterExpiry)\n"
    }
    text += "\nBasis, % — \(kind == "perp-future" ? "future over perpetual" : kind == "spot-future" ? "future over spot" : "perpetual over spot")\n"
    var columns = [("basis", summaries.basis), ("open", summaries.open), ("close", summaries.close)]
    if let annualised = summaries.annualised { columns.append(("annualised", annualised)) }
    text += SummaryTable.statistics(columns)
    // With a last-price leg open and close repeat the basis: their bands are left out.
    for (name, summary) in columns where !lastPrice || (name != "open" && name != "close") {
      text += SummaryTable.bands(name, summary, options: bands)
    }
    if let sized { text += "\n" + sized.table(derivative: legs[0].leg.instrument, reference: legs[1].leg.instrument, bands: bands) }
    if !references.isEmpty {
      text += "\nReference prices, % (valid points: " + references.map { "\($0.name) \($0.validPoints)" }.joined(separator: ", ") + ")\n"
      text += SummaryTable.statistics(references.map { ($0.name, $0.summary) })
    }
    if let carry {
      text += "\nFunding carry, spot long / perpetual short (a positive rate is received)\n"
      if carry.sampled { text += "  funding recorded as the rate in force: sampled every \(TimeText.durationText(carry.interval)) on the UTC grid\n" }
      guard let first = carry.windows.first, let last = carry.windows.last else {
        return text + "  no complete \(TimeText.durationText(carry.window)) window inside both the basis span and the funding record\n"
      }
      text +=
        "  windows \(carry.windows.count) × \(TimeText.durationText(carry.window)) from \(TimeText.iso8601(first.start)) to \(TimeText.iso8601(last.end)), "
      text += "\(carry.events) funding events (interval \(TimeText.durationText(carry.interval)))\n"
      text += "  carry \(NumberText.fixed(carry.carry, 5)) %"
      if let perContract = carry.carryPerContract, let carryUnit { text += " = \(NumberText.fixed(perContract, 8)) \(carryUnit)" }
      text += "; basis net of carry \(NumberText.fixed(carry.net, 5)) %\n"
      var table = TextTable(["per window, %", "carry", "net of basis change"])
      let (c, n) = (carry.carryStatistics, carry.netStatistics)
      table.add(["count", "\(c.count)", "\(n.count)"])
      for (label, a, b) in [("mean", c.mean, n.mean), ("std", c.std, n.std), ("min", c.min, n.min), ("max", c.max, n.max)] {
        table.add([label, NumberText.fixed(a, 5), NumberText.fixed(b, 5)])
      }
      text += table.rendered(indent: "  ") + "\n"
    }
    return text
  }
}
