import ArbAnalytics
import ArbCore
import ArbIngest

/// Writes the aligned series of `arbkit premium --series PATH`:
/// `ts_us,valid,mid_pct,exec_pct,direction,bid_1,ask_1,…`. At an invalid point the
/// premiums and direction are empty; `direction` is `R>C`, the 1-based legs sold
/// (rich) and bought (cheap) by the best executable trade.
enum SeriesCSV {
  static func write(premium: PremiumSeries, aligned: AlignedLegs, legs: [QuoteSeries], to path: String) throws {
    var text = "ts_us,valid,mid_pct,exec_pct,direction"
    for k in legs.indices { text += ",bid_\(k + 1),ask_\(k + 1)" }
    text += "\n"
    let file = try AtomicFile(path: path)
    func flush() throws {
      try file.write(text)
      text.removeAll(keepingCapacity: true)
    }
    for i in 0..<premium.count {
      text += String(premium.time[i])
      if premium.valid[i] {
        text += ",1," + NumberText.csv(premium.mid[i]) + "," + NumberText.csv(premium.exec[i])
        text += ",\(premium.rich[i] + 1)>\(premium.cheap[i] + 1)"
      } else {
        text += ",0,,,"
      }
      for k in legs.indices {
        let j = Int(aligned.state(leg: k, point: i))
        if j >= 0 {
          text += "," + NumberText.csv(legs[k].bid[j].isFinite ? legs[k].bid[j] : nil)
          text += "," + NumberText.csv(legs[k].ask[j].isFinite ? legs[k].ask[j] : nil)
        } else {
          text += ",,"
        }
      }
      text += "\n"
      if text.utf8.count > 1 << 20 { try flush() }
    }
    try flush()
    try file.commit()
  }
}
