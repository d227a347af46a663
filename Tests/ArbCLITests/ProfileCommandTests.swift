import ArbCLI
import Foundation
import Testing
import TestSupport

/// `arbkit profile` on the demo pair: its cells add up to the premium command's
/// time-weighted figures, and KST is UTC shifted by nine hours.
@Suite("Profile command")
struct ProfileCommandTests {
  static func profile(_ extra: String...) -> [String: Any] {
    let run = arbkit(["profile", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m"] + extra)
    #expect(run.code == .success, "\(run.errors)")
    return run.object
  }

  @Test("cells add up to the valid points, mean_tw and the band share of time")
  func addsUp() {
    let profile = Self.profile("--format", "json")
    let cells = profile["cells"] as! [[String: Any]]
    #expect(cells.count == 168 && profile["zone"] as? String == "UTC")
    let premium = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--format", "json").object
    let mid = premium["mid"] as! [String: Any]
    #expect(cells.reduce(0) { $0 + ($1["points"] as! Int) } == premium["valid_points"] as! Int)
    let seconds = cells.reduce(0.0) { $0 + ($1["seconds"] as! Double) }
    let weighted = cells.reduce(0.0) { $0 + (($1["mean"] as? Double) ?? 0) * ($1["seconds"] as! Double) }
    #expect(isClose(weighted / seconds, mid["mean_tw"] as? Double, rel: 1e-9))
    for (k, key) in ["0.05", "0.1"].enumerated() {
      let inside = cells.reduce(0.0) { $0 + ((($1["shares"] as! [String: Any])[key] as? Double) ?? 0) * ($1["seconds"] as! Double) }
      let band = (mid["bands"] as! [[String: Any]])[k]
      #expect(isClose(inside / seconds, band["share_time"] as? Double, rel: 1e-12))
    }
    // A cell without time: null mean and shares, never 0.
    let empty = cells.filter { ($0["seconds"] as! Double) == 0 }
    #expect(empty.allSatisfy { $0["mean"] is NSNull })
  }

  @Test("Asia/Seoul cells are the UTC cells nine hours later")
  func seoulShift() {
    let utc = Self.profile("--format", "json")["cells"] as! [[String: Any]]
    let kst = Self.profile("--format", "json", "--tz", "Asia/Seoul")["cells"] as! [[String: Any]]
    for c in 0..<168 {
      let shifted = (c + 9) % 168
      #expect(utc[c]["points"] as? Int == kst[shifted]["points"] as? Int)
      #expect(isClose(utc[c]["seconds"] as? Double, kst[shifted]["seconds"] as? Double))
    }
    #expect(kst[9]["day"] as? String == "Mon" && kst[9]["hour"] as? Int == 9)
  }

  @Test("CSV has a row per cell and the table shows the cells with time")
  func csvAndTable() {
    let csv = arbkit("profile", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--format", "csv")
    let lines = csv.output.split(separator: "\n")
    #expect(lines.first == "zone,day,hour,points,seconds,mean,share_0.05,share_0.1")
    #expect(lines.count == 169 && lines[1].hasPrefix("UTC,Mon,0,"))
    let table = arbkit("profile", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--premium", "exec")
    #expect(table.code == .success && table.output.hasPrefix("Premium (exec, %) by weekday and hour, UTC"))
    let bad = arbkit("profile", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--tz", "KST")
    #expect(bad.code == .usage && bad.errors.contains("invalid value for '--tz', expected UTC or Asia/Seoul"))
  }
}
