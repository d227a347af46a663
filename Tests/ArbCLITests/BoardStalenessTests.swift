import Foundation
import TestSupport
import Testing

/// `board`'s default `--max-stale` (1d): quotes a year apart are never compared (the
/// figures are "-"), daily closes of consecutive days still are, `--max-stale none`
/// compares quotes of any age.
@Suite("Board default staleness")
struct BoardStalenessTests {
  static let t0: Int64 = 1_700_000_000_000_000
  static let day: Int64 = 86_400_000_000

  /// Tardis quotes of `venue` at `(µs after t0, bid, ask)`.
  static func quotes(_ folder: TemporaryFolder, _ venue: String, _ rows: [(Int64, Double, Double)]) -> String {
    let text = rows.map { t, bid, ask in "\(venue),BTCUSDT,\(t0 + t),\(t0 + t),1,\(ask),\(bid),1\n" }.joined()
    return folder.write("\(venue).csv", "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n" + text)
  }

  static func btc(_ run: RunResult) -> [String: Any]? {
    (run.object["instruments"] as? [[String: Any]])?.first { $0["instrument"] as? String == "BTC/USDT spot" }
  }

  @Test("a venue a year behind is stale by default; none compares it as before")
  func yearApart() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // binance quotes a year before and a year after bybit's only quote.
    _ = Self.quotes(folder, "binance", [(0, 100, 100.2), (730 * Self.day, 120, 120.2)])
    _ = Self.quotes(folder, "bybit-spot", [(365 * Self.day, 150, 150.2)])
    let run = arbkit("board", folder.path, "--format", "json")
    #expect(run.code == .success)
    #expect(run.object["max_stale_us"] as? Int == Int(Self.day))
    let row = try #require(Self.btc(run))
    #expect(row["points"] as? Int == 2 && row["valid_points"] as? Int == 0)
    #expect((row["max_premium"] as? [String: Any])?["max"] is NSNull)
    let table = arbkit("board", folder.path)
    #expect(table.output.contains("max stale 1d"))
    let line = try #require(table.output.split(separator: "\n").first { $0.hasPrefix("  BTC/USDT spot") })
    // venues 2, valid 0, then top, bottom, mean, p50, p95, max all "-".
    #expect(line.split(separator: " ").map(String.init).prefix(10) == ["BTC/USDT", "spot", "2", "0", "-", "-", "-", "-", "-", "-"])
    // The old behaviour: 150.1 over 100.1, then over 120.1.
    let old = arbkit("board", folder.path, "--max-stale", "none", "--format", "json")
    #expect(old.object["max_stale_us"] is NSNull)
    let oldRow = try #require(Self.btc(old))
    #expect(oldRow["valid_points"] as? Int == 2)
    #expect(isClose((oldRow["max_premium"] as? [String: Any])?["max"] as? Double, (150.1 / 100.1 - 1) * 100, rel: 1e-9))
  }

  @Test("daily closes of consecutive days are compared under the default")
  func daily() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    _ = Self.quotes(folder, "binance", [(0, 100, 100), (Self.day, 101, 101), (2 * Self.day, 102, 102)])
    _ = Self.quotes(folder, "bybit-spot", [(0, 100.5, 100.5), (Self.day, 101, 101), (2 * Self.day, 102.51, 102.51)])
    let row = try #require(Self.btc(arbkit("board", folder.path, "--format", "json")))
    #expect(row["points"] as? Int == 3 && row["valid_points"] as? Int == 3)
  }

  @Test("--max-stale takes a duration or none")
  func badValue() {
    expectUsageError(
      ["board", "x.csv", "--max-stale", "never"], "invalid value for '--max-stale', expected a duration such as 5s or 100ms, or none, was 'never'")
  }
}
