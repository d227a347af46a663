import ArbCore
import ArbResearch

extension BoardRow {
  /// The column names of `figures(bands:sized:)`, in CSV order; `sized` adds the
  /// `--size` columns.
  static func figureNames(bands: [Double], sized: Bool) -> [String] {
    ["instrument", "venues", "points", "valid_points", "top", "top_share", "bottom", "bottom_share", "mean", "p50", "p95", "max"]
      + bands.map { "share_\(JSONValue.format($0))" } + bands.map { "longest_\(JSONValue.format($0))_s" }
      + ["best_exec", "best_exec_sell", "best_exec_buy", "best_exec_ts_us"]
      + (sized ? ["size_valid_points", "size_short_points", "size_exec_mean", "size_exec_max"] + bands.map { "capacity_\(JSONValue.format($0))_mean" } : [])
  }

  /// Every figure of the row by column name, in CSV order (`figureNames`).
  func figures(bands: [Double], sized isSized: Bool) -> [(name: String, value: BoardValue)] {
    let top = leader(top: true), bottom = leader(top: false), best = bestExec
    let statistics = analysis?.mid.statistics
    let bandFigures = analysis?.mid.bands
    let values: [BoardValue] =
      [
        .text(instrument.description), .count(legs.count), .count(points), .count(validPoints),
        .text(top?.venue), .share(top?.share), .text(bottom?.venue), .share(bottom?.share),
        .premium(statistics?.mean), .premium(quantile(50)), .premium(quantile(95)), .premium(statistics?.max),
      ] + bands.indices.map { .share(bandFigures?[$0].shareTime) } + bands.indices.map { .seconds(bandFigures?[$0].durationMax) }
      + [.premium(best?.premium), .text(best?.sell), .text(best?.buy), .time(best?.time)]
    var sizedValues: [BoardValue] = []
    if isSized {
      let exec = sized?.summary.analysis.exec.statistics
      sizedValues =
        [
          .count(sized?.summary.validPoints ?? 0), .count(sized?.summary.shortPoints ?? 0), .premium(exec?.mean), .premium(exec?.max),
        ] + bands.indices.map { .quantity(sized?.summary.analysis.capacity[$0].mean) }
    }
    return Array(zip(Self.figureNames(bands: bands, sized: isSized), values + sizedValues)).map { (name: $0.0, value: $0.1) }
  }
}

/// A figure of the board; absent values are the board's "-" (JSON null, empty CSV).
enum BoardValue {
  case text(String?)
  case count(Int)
  /// Percent.
  case premium(Double?)
  /// 0…1.
  case share(Double?)
  case seconds(Double?)
  case time(Int64?)
  /// Base units (a capacity).
  case quantity(Double?)

  /// The value to sort on: numbers descending, text ascending; absent last.
  var number: Double? {
    switch self {
    case .text: nil
    case .count(let n): Double(n)
    case .premium(let x), .share(let x), .seconds(let x), .quantity(let x): x
    case .time(let t): t.map(Double.init)
    }
  }

  var json: JSONValue {
    switch self {
    case .text(let text): text.map { .string($0) } ?? .null
    case .count(let n): .int(n)
    case .premium(let x), .share(let x), .seconds(let x), .quantity(let x): .number(x)
    case .time(let t): .int(t)
    }
  }

  var csv: String {
    switch self {
    case .text(let text): text.map(CSV.field) ?? ""
    case .count(let n): "\(n)"
    case .premium(let x), .share(let x), .seconds(let x), .quantity(let x): NumberText.csv(x)
    case .time(let t): t.map { "\($0)" } ?? ""
    }
  }
}
