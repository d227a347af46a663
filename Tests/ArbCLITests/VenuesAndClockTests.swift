import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("arbkit venues and --clock")
struct VenuesAndClockTests {
  @Test func `venues json maps the venue names of markets and their Tardis ids`() throws {
    let run = arbkit("venues", "--format", "json")
    #expect(run.code == .success)
    let venues = try #require(run.object["venues"] as? [[String: Any]])
    let binanceLinear = try #require(venues.first { $0["venue"] as? String == "binance" && $0["market"] as? String == "linear" })
    #expect(binanceLinear["venue_name"] as? String == "USDⓈ-M")
    #expect(binanceLinear["tardis"] as? String == "binance-futures")
    let bybitLinear = try #require(venues.first { $0["venue"] as? String == "bybit" && $0["market"] as? String == "linear" })
    #expect(bybitLinear["tardis"] as? String == "bybit")
    #expect(venues.contains { $0["venue"] as? String == "upbit" && $0["quote"] as? String == "KRW" })
  }

  @Test func `a user registry replaces the built-in one`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("registry.json", """
      { "fees_read": "2026-01-01", "venues": [ { "id": "myvenue", "name": "My Venue", "region": "test",
        "markets": [ { "kind": "spot", "venue_name": "spot", "example": "BTCUSD", "quote": "USD", "maker": 0.001, "taker": 0.002 } ] } ] }
      """)
    let run = arbkit("venues", "--registry", path, "--format", "csv")
    #expect(run.code == .success)
    #expect(run.output == "venue,name,region,market,venue_name,example,quote,maker,taker,tardis\nmyvenue,My Venue,test,spot,spot,BTCUSD,USD,0.001,0.002,\n")
    let broken = folder.write("broken.json", "{ \"venues\": 3 }")
    #expect(arbkit("venues", "--registry", broken).code == .usage)
  }

  /// Two Tardis legs whose exchange times lead their receive times by different
  /// amounts: the clock decides which time the points carry.
  @Test func `--clock exchange aligns on the exchange timestamps`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    let a = folder.write("a.csv", header + "binance-futures,BTCUSDT,1000,1500,1,100.1,100.0,1\nbinance-futures,BTCUSDT,3000,3500,1,100.3,100.2,1\n")
    let b = folder.write("b.csv", header + "bybit,BTCUSDT,2000,2100,1,100.2,100.1,1\nbybit,BTCUSDT,4000,4100,1,100.4,100.3,1\n")
    let seriesLocal = folder.path + "/local.csv", seriesExchange = folder.path + "/exchange.csv"
    let local = arbkit("premium", "--leg", a, "--leg", b, "--series", seriesLocal, "--format", "json")
    let exchange = arbkit("premium", "--leg", a, "--leg", b, "--clock", "exchange", "--series", seriesExchange, "--format", "json")
    #expect(local.code == .success && exchange.code == .success)
    #expect(local.object["time_source"] as? String == "local")
    #expect(exchange.object["time_source"] as? String == "exchange")
    func times(_ path: String) throws -> [String] {
      try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) }
    }
    // Union clocks from the first time both legs have quoted.
    #expect(try times(seriesLocal) == ["2100", "3500", "4100"])
    #expect(try times(seriesExchange) == ["2000", "3000", "4000"])
  }
}
