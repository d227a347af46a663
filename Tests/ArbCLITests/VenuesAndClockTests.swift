import ArbCLI
import ArbCore
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

  @Test func `a user registry extends the built-in one: new venues are added, same markets replaced`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write(
      "registry.json",
      """
      { "fees_read": "2026-01-01", "bases": ["FOO"], "venues": [
        { "id": "myvenue", "name": "My Venue", "region": "test", "markets": [
          { "kind": "spot", "venue_name": "spot", "example": "BTC.USD", "quote": "USD", "symbols": ["{BASE}.{QUOTE}"], "maker": 0.001, "taker": 0.002 } ] },
        { "id": "binance", "name": "Binance", "region": "global", "markets": [
          { "kind": "spot", "venue_name": "spot", "example": "BTCUSDT", "quote": "USDT", "symbols": ["{BASE}{QUOTE}"], "maker": 0.0005, "taker": 0.0007, "fees_read": "2026-02-03" } ] } ] }
      """)
    let run = arbkit("venues", "--registry", path, "--format", "csv")
    #expect(run.code == .success)
    let lines = run.output.split(separator: "\n").map(String.init)
    #expect(lines.first == "venue,name,region,market,venue_name,symbols,example,canonical,quote,settle,contract_size,maker,taker,fees_read,verified,tardis")
    // The replaced market keeps its place and takes the file's fees and their date; the
    // Tardis id stays with the built-in market since the file gives none.
    #expect(lines[1] == "binance,Binance,global,spot,spot,{BASE}{QUOTE},BTCUSDT,BTC/USDT spot,USDT,,,0.0005,0.0007,2026-02-03,false,")
    #expect(
      lines[2]
        == "binance,Binance,global,linear,USDⓈ-M,{BASE}{QUOTE} {BASE}{QUOTE}_{YYMMDD},BTCUSDT,BTC/USDT linear perp,USDT,USDT,,0.0002,0.0005,2026-12-02,false,binance-futures"
    )
    #expect(lines.last == "myvenue,My Venue,test,spot,spot,{BASE}.{QUOTE},BTC.USD,BTC/USD spot,USD,,,0.001,0.002,2026-01-01,false,")
    #expect(lines.count == 1 + ExchangeRegistry.builtin.venues.reduce(0) { $0 + $1.markets.count } + 1)
    // The shared base added by the file is known on every venue.
    let resolved = arbkit("venues", "--registry", path, "--resolve", "myvenue:spot:foo.usd", "--resolve", "binance:spot:FOOUSDT", "--format", "csv")
    #expect(
      resolved.output == """
        instrument,canonical,base,quote,kind,settle,expiry,contract_size,venue_name,grammar
        myvenue:spot:foo.usd,FOO/USD spot,FOO,USD,spot,,,,spot,{BASE}.{QUOTE}
        binance:spot:FOOUSDT,FOO/USDT spot,FOO,USDT,spot,,,,spot,{BASE}{QUOTE}

        """)
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
