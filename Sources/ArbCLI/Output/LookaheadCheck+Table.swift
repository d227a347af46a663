import ArbCore
import ArbResearch

/// `backtest --lookahead-check` as the command reads and prints it.
extension LookaheadCheck {
  /// `--cuts N` with `--lookahead-check` (default 20); `nil` without the check.
  ///
  /// - Throws: `UsageError` for a count that is not a whole number of at least 1, or
  ///   `--cuts` without `--lookahead-check`.
  static func cuts(_ cursor: ArgumentCursor) throws(UsageError) -> Int? {
    let count = try cursor.value("--cuts", "a whole number of cuts, at least 1") { Int($0).flatMap { $0 >= 1 ? $0 : nil } }
    guard cursor.flag("--lookahead-check") else {
      if let count { throw UsageError("--cuts is a setting of --lookahead-check, was --cuts \(count) without it") }
      return nil
    }
    return count ?? defaultCuts
  }

  /// The summary, the counts of each cut and every difference with the trade in both runs.
  var table: String {
    let compared = cuts.reduce(0) { $0 + $1.compared }, open = cuts.reduce(0) { $0 + $1.open }
    var text = "Lookahead check, mode \(mode), engines \(engines.map(\.rawValue).joined(separator: " and ")): \(cuts.count) cuts, "
    text += "fills \(TimeText.durationText(latency)) after the signal; "
    text += "\(compared) trades compared (\(open) open at a cut: entry side), \(differences.count) differences\n\n"
    var table = TextTable(["#", "cut", "compared", "open", "differences"], rightAligned: [0, 2, 3, 4])
    for (k, cut) in cuts.enumerated() {
      table.add(["\(k + 1)", TimeText.iso8601(cut.time), "\(cut.compared)", "\(cut.open)", "\(cut.differences.count)"])
    }
    text += table.rendered(indent: "  ") + "\n"
    for difference in differences {
      text += "\nAt the cut \(TimeText.iso8601(difference.cut)), engine \(difference.engine.rawValue), trade \(difference.trade) "
      text += Self.explain(difference) + "\n"
      text += "  full run:      " + Self.line(difference.full) + "\n"
      text += "  truncated run: " + Self.line(difference.truncated) + "\n"
    }
    return text
  }

  private static func explain(_ difference: Difference) -> String {
    switch difference.kind {
    case .differs: "differs in " + difference.fields.joined(separator: ", ")
    case .missing: "is missing from the run on the cut data"
    case .extra: "is only in the run on the cut data"
    case .closedEarly: "is open at the cut in the full run but closed before it on the cut data"
    }
  }

  private static func line(_ record: Record?) -> String {
    record.map { $0.fields.map { "\($0.name)=\($0.value.rendered(indent: 0))" }.joined(separator: " ") } ?? "-"
  }

}
