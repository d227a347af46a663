import Foundation
import TestSupport
import Testing

/// `--size` is in base units; an inverse contract's book counts contracts, so `premium`,
/// `board` and `basis` refuse it for such a leg (exit 64) instead of walking contracts
/// as coins.
@Suite("--size with inverse contracts")
struct InverseSizeTests {
  static let delivery = BasisCommandTests.fixture("json/binance-delivery-slice.jsonl.zst")
  static let refusal = "is an inverse contract whose book counts contracts: --size is refused for an inverse leg"

  @Test("premium refuses --size on a COIN-M leg and names its contract size")
  func premium() {
    let perp = "binance:inverse:BCHUSD_PERP=\(Self.delivery)", future = "binance:future:BCHUSD_210924=\(Self.delivery)"
    let run = arbkit("premium", "--leg", perp, "--leg", future, "--size", "1")
    #expect(run.code == .usage)
    #expect(run.errors.contains("--size is in base units, but binance:inverse:BCHUSD_PERP " + Self.refusal + " (one contract is 10 USD)"), "\(run.errors)")
    // Without --size the same legs are a premium as before.
    #expect(arbkit("premium", "--leg", perp, "--leg", future).code == .success)
  }

  @Test("board refuses --size when an instrument on the board is an inverse contract")
  func board() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    let binance = folder.write("binance.csv", header + "binance-delivery,BTCUSD_PERP,1000000,1000000,5,100.1,100,5\n")
    let okx = folder.write("okx.csv", header + "okex-swap,BTC-USD-SWAP,1000000,1000000,5,100.2,100.1,5\n")
    // Both are BTC/USD inverse perpetuals of 100 USD a contract: one instrument on the board.
    let legs = ["binance:inverse:BTCUSD_PERP=" + binance + "@tardis.quotes", "okx:inverse:BTC-USD-SWAP=" + okx + "@tardis.quotes"]
    #expect(arbkit(["board"] + legs).code == .success)
    let run = arbkit(["board"] + legs + ["--size", "1"])
    #expect(run.code == .usage)
    #expect(run.errors.contains(Self.refusal), "\(run.errors)")
  }
}
