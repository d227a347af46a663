import ArbCLI
import Foundation
import Testing
import TestSupport

/// A recording of order books as `arbkit record --books` writes them, read by the
/// commands: Bybit linear and Binance USDⓈ-M, BTCUSDT, three polls each, every answer
/// the recorder tests' fixture (values below read off the fixture text by hand).
@Suite("Recorded order books (rest.snapshots) in the commands")
struct RecordedBooksCommandTests {
  static let fixtures = Repository.root.appendingPathComponent("Tests/ArbRecordTests/Fixtures").path

  /// Three lines of `venue`'s `endpoint`, received at `start` + 0 s, 1 s and 2 s.
  static func lines(_ venue: String, _ endpoint: String, _ params: String, _ fixture: String, start: Int64) throws -> String {
    let body = try String(contentsOfFile: fixtures + "/" + fixture, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    return (0..<3).map { k in
      let time = start + Int64(k) * 1_000_000
      return
        #"{"recv_ts_us":\#(time),"send_ts_us":\#(time - 40_000),"venue":"\#(venue)","endpoint":"\#(endpoint)","params":{\#(params)},"status":200,"response":\#(body)}"#
    }.joined(separator: "\n") + "\n"
  }

  @Test("inspect reads each venue's books as a book series; premium pairs them, at the top and with --size; they drive costs.fill=book")
  func inspectAndPremium() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let bybit = folder.write(
      "bybit-linear-2021060123.jsonl",
      try Self.lines(
        "bybit", "/v5/market/orderbook", #""category":"linear","symbol":"BTCUSDT","limit":"50""#, "bybit-linear-orderbook.json", start: 1_622_591_000_700_000))
    let binance = folder.write(
      "binance-linear-2021060123.jsonl",
      try Self.lines("binance", "/fapi/v1/depth", #""symbol":"BTCUSDT","limit":"20""#, "binance-linear-depth.json", start: 1_622_591_000_750_000))

    let inspect = arbkit("inspect", "--format", "json", bybit, binance)
    #expect(inspect.code == .success, "\(inspect.errors)")
    let reports = try #require(inspect.json as? [[String: Any]])
    #expect(reports.count == 2)
    for (report, venue) in zip(reports, ["bybit", "binance"]) {
      #expect(report["format"] as? String == "rest.snapshots")
      #expect(report["rows_read"] as? Int == 3 && report["rows_accepted"] as? Int == 3 && report["rows_rejected"] as? Int == 0)
      #expect(report["error_records"] as? Int == 0 && (report["skipped_messages"] as? [String: Int])?.isEmpty == true)
      let instruments = try #require(report["instruments"] as? [[String: Any]])
      #expect(instruments.count == 1)
      #expect(instruments.first?["venue"] as? String == venue && instruments.first?["market"] as? String == "linear")
      #expect(instruments.first?["symbol"] as? String == "BTCUSDT" && instruments.first?["field"] as? String == "price")
      #expect(instruments.first?["rows"] as? Int == 3 && instruments.first?["price_source"] as? String == "book")
    }

    let legs = ["--leg", "bybit:linear:BTCUSDT=" + bybit, "--leg", "binance:linear:BTCUSDT=" + binance]
    let premium = arbkit(["premium"] + legs + ["--format", "json"])
    #expect(premium.code == .success, "\(premium.errors)")
    let object = premium.object
    let sources = (object["legs"] as? [[String: Any]])?.map { $0["price_source"] as? String }
    #expect(sources == ["book", "book"])
    // Union of the receive times from the later first one: 0.75, 1.7, 1.75, 2.7, 2.75 s.
    #expect(object["points"] as? Int == 5 && object["valid_points"] as? Int == 5)
    let mid = try #require(object["mid"] as? [String: Any])
    let bybitMid = (36605.4 + 36605.5) / 2, binanceMid = (36601.2 + 36601.3) / 2
    #expect(mid["count"] as? Int == 5)
    #expect(isClose(mid["mean"] as? Double, (bybitMid / binanceMid - 1) * 100, rel: 1e-9))

    // Walking the books: selling 2 on Bybit takes its three bid levels, buying 2 on
    // Binance its best ask alone.
    let sized = arbkit(["premium"] + legs + ["--size", "2", "--format", "json"])
    #expect(sized.code == .success, "\(sized.errors)")
    let size = try #require(sized.object["size"] as? [String: Any])
    #expect(size["depth"] as? [String] == ["book, up to 3 levels", "book, up to 3 levels"])
    let sell = (1.204 * 36605.4 + 0.35 * 36605 + 0.446 * 36604.5) / 2, buy = 36601.3
    #expect(isClose((size["exec"] as? [String: Any])?["mean"] as? Double, (sell / buy - 1) * 100, rel: 1e-9))

    // The books drive costs.fill=book: about 1.37 BTC a leg (50000 USDT) sells into two
    // of Bybit's bid levels on entry; on exit the sale on Binance takes its whole bid
    // side, 0.501 + 0.003 + 0.088, and no more.
    let scenario = folder.write(
      "scenario.json",
      #"""
      {"legs": [{"venue": "bybit", "market": "linear", "symbol": "BTCUSDT", "files": ["\#(bybit)"]},
                {"venue": "binance", "market": "linear", "symbol": "BTCUSDT", "files": ["\#(binance)"]}],
       "alignment": {"clock": "local", "max_stale": "5s"},
       "strategy": {"mode": "convergence", "entry": 0.005, "exit": 0.001, "notional": 50000, "max_holding": "1d"},
       "costs": {"fill": "book"}}
      """#)
    let trades = folder.path + "/trades.csv"
    let backtest = arbkit("backtest", scenario, "--trades", trades)
    #expect(backtest.code == .success, "\(backtest.errors)")
    let table = try String(contentsOfFile: trades, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
    #expect(table.count == 2)
    let header = try #require(table.first), trade = try #require(table.last)
    func value(_ name: String) -> String? { header.firstIndex(of: name).map { trade[$0] } }
    #expect(value("rich") == "bybit:linear:BTCUSDT" && value("rich_entry_levels") == "2")
    #expect(value("cheap_exit_levels") == "3" && isClose(Double(value("cheap_exit_filled") ?? ""), 0.501 + 0.003 + 0.088, rel: 1e-12))
  }
}
