import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("arbkit venues --resolve and leg instruments")
struct VenueResolutionTests {
  @Test func `the table puts the markets the venues call differently side by side`() {
    let run = arbkit("venues")
    #expect(run.code == .success)
    let lines = run.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    #expect(
      lines.contains(
        "binance linear USDⓈ-M {BASE}{QUOTE} {BASE}{QUOTE}_{YYMMDD} BTCUSDT BTC/USDT linear perp USDT/USDT - 0.020* 0.050* 2026-12-02 binance-futures"))
    #expect(
      lines.contains(
        "binance inverse COIN-M {BASE}{QUOTE}_PERP {BASE}{QUOTE}_{YYMMDD} BTCUSD_PERP BTC/USD inverse perp USD/base BTC:100 *:10 0.020* 0.050* 2026-12-02 binance-delivery"
      ))
    #expect(lines.contains("okx linear SWAP {BASE}-{QUOTE}-SWAP BTC-USDT-SWAP BTC/USDT linear perp USDT/USDT - 0.020* 0.050* 2026-12-02 okex-swap"))
    #expect(lines.contains("upbit spot KRW market {QUOTE}-{BASE} KRW-BTC BTC/KRW spot KRW - 0.050* 0.050* 2026-12-02 upbit"))
    // The verified OKX spot fees carry no mark.
    #expect(lines.contains("okx spot SPOT {BASE}-{QUOTE} BTC-USDT BTC/USDT spot USDT - 0.080 0.100 2026-12-02 okex"))
  }

  @Test func `json gives each market its grammars, canonical example, contract sizes and fee source`() throws {
    let venues = try #require(arbkit("venues", "--format", "json").object["venues"] as? [[String: Any]])
    let coinM = try #require(venues.first { $0["venue"] as? String == "binance" && $0["market"] as? String == "inverse" })
    #expect(coinM["symbols"] as? [String] == ["{BASE}{QUOTE}_PERP", "{BASE}{QUOTE}_{YYMMDD}"])
    #expect(coinM["canonical"] as? String == "BTC/USD inverse perp")
    #expect(coinM["settle"] as? String == "base")
    #expect(coinM["contract_size"] as? [String: Double] == ["*": 10, "BTC": 100])
    #expect(coinM["fees_read"] as? String == "2026-12-02")
    #expect(coinM["verified"] as? Bool == false)
    #expect((coinM["source"] as? String)?.isEmpty == false)
  }

  @Test func `--resolve prints the canonical instrument of each symbol`() throws {
    let run = arbkit("venues", "--resolve", "binance:inverse:BTCUSD_250328", "--resolve", "upbit:spot:KRW-BTC", "--format", "json")
    #expect(run.code == .success)
    let rows = try #require(run.json as? [[String: Any]])
    #expect(rows.count == 2)
    #expect(rows[0]["instrument"] as? String == "binance:inverse:BTCUSD_250328")
    #expect(rows[0]["canonical"] as? String == "BTC/USD inverse future 2025-03-28")
    #expect(rows[0]["kind"] as? String == "inverse future")
    #expect(rows[0]["settle"] as? String == "BTC")
    #expect(rows[0]["expiry"] as? String == "2025-03-28")
    #expect(rows[0]["contract_size"] as? Double == 100)
    #expect(rows[0]["venue_name"] as? String == "COIN-M")
    #expect(rows[0]["grammar"] as? String == "{BASE}{QUOTE}_{YYMMDD}")
    #expect(rows[1]["canonical"] as? String == "BTC/KRW spot")
    #expect(rows[1]["settle"] is NSNull && rows[1]["contract_size"] is NSNull)
    let table = arbkit("venues", "--resolve", "deribit:inverse:BTC-PERPETUAL")
    #expect(
      table.output == """
        instrument                     canonical             settle  contract  venue name  grammar
        -----------------------------  --------------------  ------  --------  ----------  ----------------
        deribit:inverse:BTC-PERPETUAL  BTC/USD inverse perp  BTC     10 USD    perpetual   {BASE}-PERPETUAL

        """)
  }

  @Test func `an unknown symbol is a usage error naming the venue and the closest symbols`() {
    let run = arbkit("venues", "--resolve", "binance:linear:BTCUSTD")
    #expect(run.code == .usage)
    #expect(run.errors.hasPrefix("arbkit: error: unknown symbol 'BTCUSTD' on binance linear; closest known symbols: BTCUSDT, BTCUSDC, LTCUSDT\n"))
    let malformed = arbkit("venues", "--resolve", "binance:perp:BTCUSDT")
    #expect(malformed.code == .usage)
    #expect(
      malformed.errors.hasPrefix(
        "arbkit: error: invalid value for '--resolve', expected VENUE:MARKET:SYMBOL with MARKET one of spot, linear, inverse, future, fx, was 'binance:perp:BTCUSDT'"
      ))
    // A base asset the registry lacks: the library says what to add, the command which flag adds it.
    let base = arbkit("venues", "--resolve", "bitmex:inverse:ETHUSD")
    #expect(base.code == .usage)
    #expect(
      base.errors.hasPrefix(
        "arbkit: error: unknown base asset 'ETH' in symbol 'ETHUSD' on bitmex inverse (add it to the venue's \"bases\" in a registry file); "
          + "closest known symbols: XBTUSD; --registry FILE extends the built-in registry\n"))
  }

  static let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"

  @Test func `premium reports each leg's canonical instrument`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let a = folder.write(
      "a.csv", Self.header + "binance-delivery,BTCUSD_PERP,1000,1500,1,100.1,100.0,1\nbinance-delivery,BTCUSD_PERP,3000,3500,1,100.3,100.2,1\n")
    let b = folder.write("b.csv", Self.header + "okex-swap,BTC-USD-SWAP,2000,2100,1,100.2,100.1,1\nokex-swap,BTC-USD-SWAP,4000,4100,1,100.4,100.3,1\n")
    let run = arbkit("premium", "--leg", a, "--leg", b, "--format", "json")
    #expect(run.code == .success)
    let legs = try #require(run.object["legs"] as? [[String: Any]])
    #expect(legs.map { $0["instrument"] as? String } == ["BTC/USD inverse perp", "BTC/USD inverse perp"])
    #expect(legs.map { $0["market"] as? String } == ["inverse", "linear"])
    let table = arbkit("premium", "--leg", a, "--leg", b)
    #expect(table.output.contains("okx      linear   BTC-USD-SWAP  price  BTC/USD inverse perp"))
  }

  @Test func `premium refuses a named leg whose symbol the venue does not know (64) and a file's unknown symbol (65)`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let a = folder.write("a.csv", Self.header + "binance-futures,BTCUSDT,1000,1500,1,100.1,100.0,1\n")
    let b = folder.write("b.csv", Self.header + "bybit,BTCUSDT,2000,2100,1,100.2,100.1,1\n")
    let named = arbkit("premium", "--leg", "binance:linear:BTCUSTD=" + a, "--leg", b)
    #expect(named.code == .usage)
    #expect(named.errors.hasPrefix("arbkit: error: unknown symbol 'BTCUSTD' on binance linear; closest known symbols: BTCUSDT, BTCUSDC, LTCUSDT\n"))
    let typo = folder.write("typo.csv", Self.header + "bybit,BTCUSTD,2000,2100,1,100.2,100.1,1\n")
    let fromFile = arbkit("premium", "--leg", a, "--leg", typo)
    #expect(fromFile.code == .dataError)
    #expect(fromFile.errors == "\(typo): error: unknown symbol 'BTCUSTD' on bybit linear; closest known symbols: BTCUSD, BTCUSDT, LTCUSD\n")
    // Venues outside the registry are not checked.
    let generic = "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n"
    let c = folder.write("c.csv", generic + "1000,acme,spot,ANY,100.0,100.1,1,1,\n3000,acme,spot,ANY,100.0,100.1,1,1,\n")
    let d = folder.write("d.csv", generic + "2000,binance,spot,ETHBTC,100.0,100.1,1,1,\n4000,binance,spot,ETHBTC,100.0,100.1,1,1,\n")
    let other = arbkit("premium", "--leg", c, "--leg", d, "--format", "json")
    #expect(other.code == .success, "\(other.errors)")
    #expect((other.object["legs"] as? [[String: Any]])?.map { $0["instrument"] as? String } == [nil, "ETH/BTC spot"])
  }
}
