import Foundation

/// The side-by-side table printed at the end of a benchmark run.
struct BenchReport {
  private var text = ""

  mutating func add(rows: Int, venues: Int, swift: SwiftMeasurement, peers: [String: Any]?) {
    let mb = Double(swift.bytes) / 1e6
    text += "\n\(rows) rows × \(venues) venues: \(format(mb, 1)) MB of Tardis quotes CSV, \(swift.rows) rows, "
    text += "\(swift.points) clock points (\(swift.validPoints) valid)\n"
    text += "medians of the runs; ratio = arbkit speed / peer speed\n\n"
    func peerMedian(_ library: String, _ key: String) -> Double? {
      ((peers?[library] as? [String: Any])?[key] as? [String: Any])?["median"] as? Double
    }
    var rowsOut: [[String]] = []
    func add(_ stage: String, unit: String, amount: Double, arbkit: Double, _ others: [(String, Double?)]) {
      var row = [stage, unit, format(amount / arbkit / 1e6, 1)]
      for (_, seconds) in others {
        if let seconds { row += [format(amount / seconds / 1e6, 1), format(seconds / arbkit, 1) + "×"] } else { row += ["-", "-"] }
      }
      rowsOut.append(row)
    }
    let ingest = median(swift.ingest), align = median(swift.alignPremium), stats = median(swift.statistics)
    add("ingest", unit: "MB/s", amount: Double(swift.bytes), arbkit: ingest,
        [("polars", peerMedian("polars", "ingest_s")), ("pandas", peerMedian("pandas", "ingest_s"))])
    add("ingest", unit: "M rows/s", amount: Double(swift.rows), arbkit: ingest,
        [("polars", peerMedian("polars", "ingest_s")), ("pandas", peerMedian("pandas", "ingest_s"))])
    add("align + premium", unit: "M events/s", amount: Double(swift.points), arbkit: align,
        [("polars", peerMedian("polars", "align_premium_s")), ("pandas", peerMedian("pandas", "align_premium_s"))])
    add("statistics", unit: "M events/s", amount: Double(swift.validPoints), arbkit: stats,
        [("numpy", peerMedian("numpy", "stats_s")), ("", nil)])
    let headers = ["stage", "unit", "arbkit", "polars/numpy", "ratio", "pandas", "ratio"]
    var widths = headers.map(\.count)
    for row in rowsOut { for (k, cell) in row.enumerated() { widths[k] = max(widths[k], cell.count) } }
    for row in [headers] + rowsOut {
      text += row.enumerated().map { k, cell in k < 2 ? cell.padding(toLength: widths[k], withPad: " ", startingAt: 0) : String(repeating: " ", count: widths[k] - cell.count) + cell }.joined(separator: "  ") + "\n"
    }
    text += "\nfull premium analysis (mid + exec, bands, half-life): \(format(Double(swift.points) / median(swift.fullAnalysis) / 1e6, 1)) M events/s\n"
    text += "peak memory of `arbkit premium`: \(format(Double(swift.peakMemoryBytes) / 1e6, 0)) MB; kept columns \(format(Double(swift.columnBytes) / 1e6, 0)) MB "
    text += "(\(format(Double(swift.peakMemoryBytes) / Double(swift.columnBytes), 2))×)\n"
    text += "arbkit runs (s): ingest \(list(swift.ingest)), align+premium \(list(swift.alignPremium)), statistics \(list(swift.statistics))\n"
    if let check = peers?["check"] as? [String: Any] {
      let keys = ["count", "mean", "std", "q50", "share_events_0.1", "episodes_0.1"]
      let agree = keys.allSatisfy { key in
        guard let a = swift.check[key], let b = check[key] as? Double ?? (check[key] as? Int).map(Double.init) else { return false }
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1)
      }
      text += "results agree with the peers (count, mean, std, median, share ≥ 0.1 %, episodes): \(agree ? "yes" : "NO")\n"
      if !agree { text += "  arbkit \(swift.check)\n  peers  \(keys.map { "\($0): \(check[$0] ?? "-")" })\n" }
    }
    if let versions = peers?["versions"] as? [String: Any] {
      text += "peers: " + versions.keys.sorted().map { "\($0) \(versions[$0]!)" }.joined(separator: ", ") + "\n"
    }
  }

  var rendered: String { text }

  private func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
  private func list(_ values: [Double]) -> String { values.map { format($0, 3) }.joined(separator: " ") }
}
