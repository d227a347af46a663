import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

/// The result of `arbkit kimchi`, rendered as JSON (the contract in `docs/cli.md`) or a
/// terminal table.
struct KimchiResult {
  /// How USDT is valued against USD, said in every output where it matters.
  enum USDTNote: String {
    case assumedOne = "assumed_1"
    case measured
    case perUSDT = "per_usdt"
    case unknownQuote = "unknown_quote"

    var text: String {
      switch self {
      case .assumedOne: "USDT is taken as 1 USD (no --usdt-usd market given): the premium includes the USDT/USD deviation"
      case .measured: "USDT valued in USD with the --usdt-usd market: premium_usd and usdt_term are reported"
      case .perUSDT: "the rate is KRW per USDT from a market and --usd is a USDT market: no USD conversion is involved"
      case .unknownQuote: "the quote currency of --usd is not known (a venue outside the registry): if it is USDT, USDT is taken as 1 USD"
      }
    }
  }

  let legs: [(role: String, leg: LegSummary, canonical: CanonicalInstrument?)]
  let venues: [KimchiStudy.Venue]
  let board: KimchiStudy.Board?
  let usdtNote: USDTNote?
  let fxMaxStale: Int64
  let alignment: AlignmentOptions
  let bands: BandOptions
  /// `--offset`: µs added to each venue's times before alignment.
  var offsets: [(venue: String, micros: Int64)] = []

  var json: JSONValue {
    .object([
      ("legs", SummaryTable.legsJSON(legs)),
      ("max_stale_us", .int(alignment.maxStale)), ("fx_max_stale_us", .int(fxMaxStale)), ("grid_us", .int(alignment.grid)),
      ("offsets_us", .object(offsets.map { ($0.venue, .int($0.micros)) })),
      ("usdt", usdtNote.map { .object([("basis", .string($0.rawValue)), ("note", .string($0.text))]) } ?? .null),
      (
        "kimchi",
        .array(
          venues.map { v -> JSONValue in
            .object([
              ("krw", .string(v.name)), ("points", .int(v.points)), ("valid_points", .int(v.validPoints)),
              ("stale_points", .int(v.points - v.validPoints)), ("fx_stale_points", .int(v.fxStalePoints)),
              ("premium", PremiumResult.json(v.premium, oneSided: false)),
              ("usdt_term", v.usdtTerm.map { PremiumResult.json($0, oneSided: false) } ?? .null),
              ("premium_usd", v.premiumUSD.map { PremiumResult.json($0, oneSided: false) } ?? .null),
            ])
          })
      ),
      (
        "krw_premium",
        board.map { b in
          .object([
            ("points", .int(b.points)), ("valid_points", .int(b.validPoints)),
            ("mid", PremiumResult.json(b.analysis.mid, oneSided: false)),
            (
              "venues",
              .object(
                b.analysis.topShare.indices.map { k in
                  (venues[k].name, .object([("top", .number(b.analysis.topShare[k])), ("bottom", .number(b.analysis.bottomShare[k]))]))
                })
            ),
          ])
        } ?? .null
      ),
    ])
  }

  var table: String {
    var text = "Legs\n" + SummaryTable.legs(legs)
    let clockText = alignment.grid.map { "grid \(TimeText.durationText($0))" } ?? "union clock"
    let staleText = alignment.maxStale.map { "max stale \(TimeText.durationText($0))" } ?? "no staleness limit"
    text += "\nAlignment: \(clockText), prices \(staleText), FX max stale \(TimeText.durationText(fxMaxStale))\n"
    text += ExecutionFlags.offsetsLine(offsets)
    if let usdtNote { text += "Note: \(usdtNote.text).\n" }
    for v in venues {
      text +=
        "\nKimchi premium, % — \(v.name): points \(v.points), valid \(v.validPoints), stale \(v.points - v.validPoints) (FX stale \(v.fxStalePoints))\n"
      var columns = [("premium", v.premium)]
      if let usdtTerm = v.usdtTerm, let premiumUSD = v.premiumUSD { columns += [("usdt term", usdtTerm), ("premium (USD)", premiumUSD)] }
      text += SummaryTable.statistics(columns)
      text += SummaryTable.bands("premium", v.premium, options: bands)
    }
    if let board {
      let title = venues.count > 2 ? "highest / lowest mid − 1" : "\(venues[0].name) over \(venues[1].name)"
      text += "\nKRW venues, % — \(title): points \(board.points), valid \(board.validPoints)\n"
      text += SummaryTable.statistics([("premium", board.analysis.mid)])
      text += SummaryTable.bands("premium", board.analysis.mid, options: bands)
      if venues.count > 2 && !board.analysis.topShare.isEmpty {
        var shares = TextTable(["venue", "top", "bottom"])
        for k in venues.indices {
          shares.add([venues[k].name, NumberText.percent(board.analysis.topShare[k]), NumberText.percent(board.analysis.bottomShare[k])])
        }
        text += "\n" + shares.rendered(indent: "  ") + "\n"
      }
    }
    return text
  }
}
