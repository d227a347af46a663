import ArbCLI
import Foundation
import Testing
import TestSupport

/// `arbkit board`: grouping by canonical instrument, the figures of each row against
/// hand-worked books and against `premium --series`, staleness, sorting, outputs.
@Suite("Board command")
struct BoardCommandTests {
  static let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
  static let t0: Int64 = 1_700_000_000_000_000
  static let second: Int64 = 1_000_000

  /// Tardis quotes rows `(venue, symbol, seconds after t0, bid, ask)`.
  static func quotes(_ rows: [(String, String, Int64, Double, Double)]) -> String {
    "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
      + rows.map { v, s, t, bid, ask in
        let ts = t0 + t * second
        return "\(v),\(s),\(ts),\(ts),1,\(ask),\(bid),1\n"
      }.joined()
  }

  /// A folder of Tardis quotes files: BTC/USDT spot on binance (two day files), bybit and
  /// okx; ETH/USDT spot on binance and okx; SOL/USDT spot on bybit only.
  static func folder() -> TemporaryFolder {
    let folder = TemporaryFolder()
    folder.write("binance-1.csv", quotes([("binance", "BTCUSDT", 0, 100, 100.2), ("binance", "ETHUSDT", 0, 2000, 2001)]))
    folder.write("binance-2.csv", quotes([("binance", "BTCUSDT", 20, 100.6, 100.8), ("binance", "ETHUSDT", 20, 2000.5, 2001.5)]))
    folder.write("bybit.csv", quotes([("bybit-spot", "BTCUSDT", 10, 100.3, 100.5), ("bybit-spot", "SOLUSDT", 10, 20, 20.01)]))
    folder.write(
      "okex.csv",
      quotes([
        ("okex", "BTC-USDT", 10, 99.9, 100.1), ("okex", "ETH-USDT", 10, 2002, 2003), ("okex", "BTC-USDT", 30, 100, 100.2),
      ]))
    folder.write("README.md", "not data\n")
    return folder
  }

  @Test("hand-worked three-venue board from a folder")
  func handWorked() throws {
    let folder = Self.folder()
    defer { folder.cleanup() }
    let run = arbkit("board", folder.path, "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let rows = try #require(run.object["instruments"] as? [[String: Any]])
    #expect(rows.map { $0["instrument"] as? String } == ["BTC/USDT spot", "ETH/USDT spot"])
    let btc = rows[0]
    // Clock from the second venue's first quote: t = 10, 20, 30 s.
    // t=10: mids binance 100.1, bybit 100.4, okex 100.0 → 0.4 %; sell bybit 100.3 / buy okex 100.1.
    // t=20: binance 100.7 → 0.7 %; sell binance 100.6 / buy okex 100.1 = 0.4995… %.
    // t=30: okex 100.1 → 100.7/100.1 − 1 = 0.5994… %.
    let values = [(100.4 / 100.0 - 1) * 100, (100.7 / 100.0 - 1) * 100, (100.7 / 100.1 - 1) * 100]
    let sorted = values.sorted()
    let premium = try #require(btc["max_premium"] as? [String: Any])
    #expect(isClose(premium["mean"] as? Double, values.reduce(0, +) / 3, rel: 1e-9))
    #expect(isClose(premium["p50"] as? Double, sorted[1], rel: 1e-9))
    #expect(isClose(premium["p95"] as? Double, sorted[1] + 0.9 * (sorted[2] - sorted[1]), rel: 1e-9))
    #expect(isClose(premium["max"] as? Double, values[1], rel: 1e-9))
    #expect(btc["points"] as? Int == 3 && btc["valid_points"] as? Int == 3)
    let top = try #require(btc["top"] as? [String: Any]), bottom = try #require(btc["bottom"] as? [String: Any])
    #expect(top["venue"] as? String == "binance" && isClose(top["share"] as? Double, 2.0 / 3))
    #expect(bottom["venue"] as? String == "okx" && bottom["share"] as? Double == 1)
    // Every point is beyond both bands: one episode from t = 10 to the last point, 20 s.
    let bands = try #require(btc["bands"] as? [[String: Any]])
    #expect(bands.map { $0["share_time"] as? Double } == [1, 1] && bands.map { $0["longest_s"] as? Double } == [20, 20])
    let best = try #require(btc["best_exec"] as? [String: Any])
    #expect(isClose(best["premium"] as? Double, (100.6 / 100.1 - 1) * 100, rel: 1e-9))
    #expect(best["sell"] as? String == "binance" && best["buy"] as? String == "okx")
    #expect(best["ts_us"] as? Int == Int(Self.t0 + 20 * Self.second))
    let single = try #require(run.object["single_venue"] as? [[String: Any]])
    #expect(single.map { $0["instrument"] as? String } == ["SOL/USDT spot"])
    #expect(allNumbersFinite(run.object))
  }

  @Test("a stale venue is left out of a point, never read as 0; too few venues make it invalid")
  func staleVenue() throws {
    let folder = Self.folder()
    defer { folder.cleanup() }
    let run = arbkit("board", folder.path, "--max-stale", "5s", "--format", "json")
    let btc = try #require((run.object["instruments"] as? [[String: Any]])?.first { $0["instrument"] as? String == "BTC/USDT spot" })
    // t=10: binance (age 10 s) left out → bybit 100.4 over okx 100.0. t=20 and t=30: one fresh venue only.
    #expect(btc["points"] as? Int == 3 && btc["valid_points"] as? Int == 1 && btc["stale_points"] as? Int == 2)
    let premium = try #require(btc["max_premium"] as? [String: Any])
    #expect(isClose(premium["max"] as? Double, 0.4, rel: 1e-9) && isClose(premium["mean"] as? Double, 0.4, rel: 1e-9))
    let venues = try #require(btc["venues"] as? [[String: Any]])
    #expect(venues.map { $0["venue"] as? String } == ["binance", "bybit", "okx"])
    #expect(venues.map { $0["top"] as? Double } == [0, 1, 0])
  }

  @Test("table: missing venues show '-', colours only when asked")
  func table() {
    let folder = Self.folder()
    defer { folder.cleanup() }
    let plain = arbkit("board", folder.path)
    #expect(plain.code == .success)
    #expect(plain.output.contains("BTC/USDT spot") && !plain.output.contains("\u{1B}["))
    let matrix = plain.output.components(separatedBy: "\n").first { $0.hasPrefix("  ETH/USDT spot") && $0.contains("/") && !$0.contains("%") }
    // ETH is not quoted on bybit: its cell is "-".
    #expect(matrix?.split(separator: " ").map(String.init) == ["ETH/USDT", "spot", "0.0/100.0", "-", "100.0/0.0"])
    #expect(plain.output.contains("on one venue only (not on the board): SOL/USDT spot (bybit)"))
    var terminal = Terminal(colour: true)
    #expect(ArbCLI.run(["arbkit", "board", folder.path], terminal: &terminal) == .success)
    // BTC max 0.7 ≥ 0.1: orange.
    #expect(terminal.output.contains("\u{1B}[38;5;208m0.7000\u{1B}[0m"))
  }

  @Test("--sort orders rows; an unknown column exits 64 with the closest name")
  func sort() throws {
    let folder = Self.folder()
    defer { folder.cleanup() }
    let byMean = arbkit("board", folder.path, "--format", "csv")
    let byName = arbkit("board", folder.path, "--format", "csv", "--sort", "instrument")
    let byTop = arbkit("board", folder.path, "--format", "csv", "--sort", "top_share")
    func instruments(_ run: RunResult) -> [String] { run.output.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) } }
    // ETH mids: t=10 binance 2000.5, okx 2002.5 (0.09998 %); t=20 binance 2001 (0.07496 %): a lower
    // mean than BTC's 0.566 %, but okx on top at both points (share 1 against binance's 2/3 for BTC).
    #expect(instruments(byMean) == ["BTC/USDT spot", "ETH/USDT spot"])
    #expect(instruments(byName) == ["BTC/USDT spot", "ETH/USDT spot"])
    #expect(instruments(byTop) == ["ETH/USDT spot", "BTC/USDT spot"])
    let eth = byMean.output.split(separator: "\n")[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    #expect(isClose(Double(eth[8]), ((2002.5 / 2000.5 - 1) * 100 + (2002.5 / 2001 - 1) * 100) / 2, rel: 1e-9))
    // share_0.1 of ETH: nothing at or above 0.1 %; of 0.05: both points, all of the time.
    #expect(eth[12] == "1" && eth[13] == "0")
    let header = byMean.output.split(separator: "\n")[0]
    #expect(
      header
        == "instrument,venues,points,valid_points,top,top_share,bottom,bottom_share,mean,p50,p95,max,share_0.05,share_0.1,longest_0.05_s,longest_0.1_s,best_exec,best_exec_sell,best_exec_buy,best_exec_ts_us"
    )
    let wrong = arbkit("board", folder.path, "--sort", "share_0.2")
    #expect(wrong.code == .usage && wrong.errors.contains("unknown column 'share_0.2' for --sort, did you mean 'share_0.1'?"))
  }

  @Test("two venues: the board's max premium is |premium| read off premium --series")
  func demoPairAgainstSeries() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let seriesPath = folder.path + "/series.csv"
    let premium = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--series", seriesPath, "--format", "json")
    #expect(premium.code == .success)
    let board = arbkit("board", DemoPair.binance, DemoPair.kraken, "--max-stale", "2m", "--format", "json")
    let row = try #require((board.object["instruments"] as? [[String: Any]])?.first)
    #expect(row["instrument"] as? String == "BTC/USDC spot")
    // From the aligned quotes: highest mid over lowest mid − 1 at each valid point.
    var values: [Double] = []
    for line in try String(contentsOfFile: seriesPath, encoding: .utf8).split(separator: "\n").dropFirst() {
      let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard f[1] == "1" || f[1] == "true" else { continue }
      let a = (Double(f[5])! + Double(f[6])!) / 2, b = (Double(f[7])! + Double(f[8])!) / 2
      values.append((max(a, b) / min(a, b) - 1) * 100)
    }
    #expect(values.count == premium.object["valid_points"] as? Int && values.count == row["valid_points"] as? Int)
    let max = try #require(row["max_premium"] as? [String: Any])
    #expect(isClose(max["mean"] as? Double, values.reduce(0, +) / Double(values.count), rel: 1e-9))
    #expect(isClose(max["max"] as? Double, values.max(), rel: 1e-12))
    let sorted = values.sorted()
    let h = Double(sorted.count - 1) * 0.95
    #expect(isClose(max["p95"] as? Double, sorted[Int(h)] + (h - h.rounded(.down)) * (sorted[Int(h) + 1] - sorted[Int(h)]), rel: 1e-9))
  }

  @Test("JSON recordings of many venues: a folder with REST snapshots, cryptofeed and order-book lines")
  func jsonFolder() throws {
    // Two recordings of Bybit BTCUSDT overlap in time: --sort-rows merges them.
    let run = arbkit("board", Self.fixtures + "/json", "--sort-rows", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let rows = try #require(run.object["instruments"] as? [[String: Any]])
    let names = rows.compactMap { $0["instrument"] as? String }
    #expect(names.contains("BTC/USDT linear perp") && names.contains("BTC/USDT spot"))
    let perp = try #require(rows.first { $0["instrument"] as? String == "BTC/USDT linear perp" })
    #expect(((perp["venues"] as? [[String: Any]]) ?? []).map { $0["venue"] as? String } == ["bybit", "okx"])
    // The perp's Bybit leg: its tickers and its order book, one series.
    #expect((perp["valid_points"] as? Int ?? 0) > 0)
    for name in ["BTC/USDT spot", "BTC/KRW spot"] {
      let row = try #require(rows.first { $0["instrument"] as? String == name })
      #expect((row["valid_points"] as? Int ?? 0) > 0, "\(name)")
    }
    #expect(allNumbersFinite(run.object))
    // Instruments on one venue are listed, not dropped silently.
    #expect(((run.object["single_venue"] as? [Any]) ?? []).count > 5)
  }

  @Test("usage errors")
  func usage() {
    #expect(arbkit("board").errors.contains("no input given"))
    let unnamed = arbkit(
      "board", Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv") + "@" + Repository.data("formats/binanceus-kline-1m.json"), DemoPair.kraken)
    #expect(unnamed.code == .usage && unnamed.errors.contains("does not name the venue and symbol of its rows; give it as VENUE:MARKET:SYMBOL="))
  }
}
