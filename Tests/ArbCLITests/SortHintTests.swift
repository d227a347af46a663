import Foundation
import TestSupport
import Testing

/// Rows out of time order: the error names the switch of the command that sorts rows on
/// ingest (`board` calls it `--sort-rows`, `--sort` orders its rows), and no switch
/// where the command has none.
@Suite("Sort hint of rows out of order")
struct SortHintTests {
  /// Tardis quotes of binance and bybit, binance's second row going backwards.
  static func legs(_ folder: TemporaryFolder) -> (binance: String, bybit: String) {
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    let binance = folder.write(
      "binance.csv", header + "binance,BTCUSDT,2000000,2000000,1,100.1,100,1\nbinance,BTCUSDT,1000000,1000000,1,100.1,100,1\n")
    let bybit = folder.write("bybit.csv", header + "bybit-spot,BTCUSDT,1000000,1000000,1,100.1,100,1\n")
    return (binance, bybit)
  }

  @Test("board names --sort-rows, premium names --sort; both exit 65")
  func perCommand() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (binance, bybit) = Self.legs(folder)
    let board = arbkit("board", binance, bybit)
    #expect(board.code == .dataError)
    #expect(board.errors.contains("binance.csv:3:"))
    #expect(board.errors.contains("timestamp goes backwards, previous 2000000, was 1000000 (use --sort-rows to sort on ingest)"), "\(board.errors)")
    #expect(arbkit("board", binance, bybit, "--sort-rows").code == .success)
    let premium = arbkit("premium", "--leg", "binance:spot:BTCUSDT=" + binance, "--leg", "bybit:spot:BTCUSDT=" + bybit)
    #expect(premium.code == .dataError)
    #expect(premium.errors.contains("(use --sort to sort on ingest)"))
  }

  @Test("sweep has no switch that sorts rows: the error names none")
  func sweep() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (binance, bybit) = Self.legs(folder)
    let scenario = folder.write(
      "s.json",
      """
      { "legs": [ { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["\(binance)"], "format": "tardis.quotes" },
                  { "venue": "bybit", "market": "spot", "symbol": "BTCUSDT", "files": ["\(bybit)"], "format": "tardis.quotes" } ],
        "strategy": { "mode": "convergence", "entry": 0.5, "exit": 0, "notional": 1000 } }
      """)
    let run = arbkit("sweep", scenario, "--grid", "strategy.entry=0.5,0.6", "--quiet", "--out", folder.path + "/sweep.csv")
    #expect(run.code == .dataError)
    #expect(run.errors.contains("timestamp goes backwards, previous 2000000, was 1000000") && !run.errors.contains("use --sort"))
  }
}
