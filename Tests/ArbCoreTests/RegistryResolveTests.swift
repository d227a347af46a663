import ArbCore
import Foundation
import Testing
import TestSupport

@Suite("Registry resolution of venue symbols")
struct RegistryResolveTests {
  let registry = ExchangeRegistry.builtin

  /// Symbols as they appear in real files (Tardis, Binance public data, venue APIs).
  static let realSymbols: [(String, String)] = [
    ("binance:spot:BTCUSDT", "BTC/USDT spot"),
    ("binance:linear:BTCUSDT", "BTC/USDT linear perp"),
    ("binance:linear:BTCUSDT_250328", "BTC/USDT linear future 2025-03-28"),
    ("binance:inverse:BTCUSD_PERP", "BTC/USD inverse perp"),
    ("binance:inverse:ETHUSD_250627", "ETH/USD inverse future 2025-06-27"),
    ("binanceus:spot:BTCUSDC", "BTC/USDC spot"),
    ("bybit:spot:BTCUSDT", "BTC/USDT spot"),
    ("bybit:linear:BTCUSDT", "BTC/USDT linear perp"),
    ("bybit:linear:BTCPERP", "BTC/USDC linear perp"),
    ("bybit:inverse:BTCUSD", "BTC/USD inverse perp"),
    ("bybit:inverse:BTCUSDH25", "BTC/USD inverse future 2025-03-28"),
    ("okx:spot:BTC-USDT", "BTC/USDT spot"),
    ("okx:linear:BTC-USDT-SWAP", "BTC/USDT linear perp"),
    ("okx:linear:BTC-USD-SWAP", "BTC/USD inverse perp"),  // Tardis okex-swap holds both
    ("okx:future:BTC-USD-250328", "BTC/USD inverse future 2025-03-28"),
    ("okx:future:BTC-USDT-250328", "BTC/USDT linear future 2025-03-28"),
    ("upbit:spot:KRW-BTC", "BTC/KRW spot"),
    ("upbit:spot:USDT-ETH", "ETH/USDT spot"),
    ("bithumb:spot:BTC_KRW", "BTC/KRW spot"),
    ("bithumb:spot:KRW-BTC", "BTC/KRW spot"),
    ("coinone:spot:BTC", "BTC/KRW spot"),
    ("korbit:spot:btc_krw", "BTC/KRW spot"),
    ("kraken:spot:XBT/USD", "BTC/USD spot"),
    ("kraken:spot:XBTUSDC", "BTC/USDC spot"),
    ("kraken:spot:BTCUSDC", "BTC/USDC spot"),
    ("kraken:spot:XDG/USD", "DOGE/USD spot"),
    ("kraken:spot:ETH/XBT", "ETH/BTC spot"),
    ("bitstamp:spot:btcusd", "BTC/USD spot"),
    ("bitstamp:spot:BTCUSD", "BTC/USD spot"),
    ("coinbase:spot:BTC-USD", "BTC/USD spot"),
    ("bitmex:inverse:XBTUSD", "BTC/USD inverse perp"),
    ("bitmex:inverse:XBTZ24", "BTC/USD inverse future 2024-12-27"),
    ("deribit:inverse:BTC-PERPETUAL", "BTC/USD inverse perp"),
    ("deribit:inverse:ETH-28MAR25", "ETH/USD inverse future 2025-03-28"),
    ("huobi:inverse:BTC-USD", "BTC/USD inverse perp"),
  ]

  @Test(arguments: realSymbols)
  func `real symbols resolve to their canonical instrument`(leg: String, canonical: String) throws {
    let parts = leg.split(separator: ":", maxSplits: 2).map(String.init)
    let instrument = Instrument(venue: parts[0], market: try #require(MarketKind(rawValue: parts[1])), symbol: parts[2])
    #expect(try registry.resolve(instrument).description == canonical)
  }

  @Test func `inverse contracts carry their face value and settle in the base coin`() throws {
    let cases: [(Instrument, Double)] = [
      (Instrument(venue: "binance", market: .inverse, symbol: "BTCUSD_PERP"), 100),
      (Instrument(venue: "binance", market: .inverse, symbol: "ETHUSD_PERP"), 10),
      (Instrument(venue: "okx", market: .inverse, symbol: "BTC-USD-SWAP"), 100),
      (Instrument(venue: "bybit", market: .inverse, symbol: "BTCUSD"), 1),
      (Instrument(venue: "deribit", market: .inverse, symbol: "BTC-PERPETUAL"), 10),
      (Instrument(venue: "deribit", market: .inverse, symbol: "ETH-PERPETUAL"), 1),
      (Instrument(venue: "bitmex", market: .inverse, symbol: "XBTUSD"), 1),
    ]
    for (instrument, size) in cases {
      let canonical = try registry.resolve(instrument)
      #expect(canonical.contractSize == size, "\(instrument)")
      #expect(canonical.settle == canonical.base, "\(instrument)")
    }
    #expect(try registry.resolve(Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT")).contractSize == nil)
  }

  /// Every grammar of every market: canonical → symbol → canonical, and the symbol
  /// written back is the one read.
  @Test func `every grammar of every venue round-trips`() throws {
    let expiry = try #require(CalendarDay(year: 2025, month: 3, day: 28))  // a last Friday, as {MYY} needs
    var checked = 0
    for venue in registry.venues {
      for market in venue.markets {
        let grammars = try #require(market.symbols, "\(venue.id) \(market.venueName) has no grammar")
        #expect(!grammars.isEmpty)
        for grammar in grammars {
          let bases = registry.bases(of: venue, market).filter { ["BTC", "ETH", "SOL"].contains($0) }
          #expect(!bases.isEmpty)
          for base in bases {
            for quote in grammar.hasQuote ? market.quoteList : [market.quote] where quote != base {
              let symbol = grammar.format(base: venue.venueCode(base), quote: venue.venueCode(quote), expiry: grammar.isDated ? expiry : nil)
              let resolution = try registry.resolution(Instrument(venue: venue.id, market: market.kind, symbol: symbol))
              let c = resolution.canonical
              #expect(c.base == base && c.quote == quote, "\(venue.id) \(symbol) → \(c)")
              #expect(c.kind.isDated == grammar.isDated && c.expiry == (grammar.isDated ? expiry : nil), "\(symbol)")
              #expect(c.kind == .spot ? market.contractMargin == nil : c.kind.isInverse == (market.contractMargin == .inverse), "\(symbol)")
              #expect(resolution.market.venueName == market.venueName && resolution.grammar == grammar, "\(venue.id) \(symbol)")
              #expect(registry.symbol(for: c, venue: venue, grammar: grammar) == symbol)
              checked += 1
            }
          }
        }
      }
    }
    #expect(checked > 200)
  }

  @Test func `every market's example resolves through that market`() throws {
    for venue in registry.venues {
      for market in venue.markets {
        let resolution = try registry.resolution(Instrument(venue: venue.id, market: market.kind, symbol: market.example))
        #expect(resolution.market.venueName == market.venueName, "\(venue.id) \(market.example)")
        #expect(registry.symbol(for: resolution.canonical, venue: venue, grammar: resolution.grammar).uppercased() == market.example.uppercased())
      }
    }
  }

  static let unknown: [(Instrument, String)] = [
    (
      Instrument(venue: "binance", market: .linear, symbol: "BTCUSTD"),
      "unknown symbol 'BTCUSTD' on binance linear; closest known symbols: BTCUSDT, BTCUSDC, LTCUSDT"
    ),
    (
      Instrument(venue: "binance", market: .spot, symbol: "BTCUSD_PERP"),
      "unknown symbol 'BTCUSD_PERP' on binance spot; closest known symbols: BTCUSDT, BTCUSDC, LTCUSDT"
    ),
    (
      Instrument(venue: "upbit", market: .spot, symbol: "BTC-KRW"),
      "unknown symbol 'BTC-KRW' on upbit spot; closest known symbols: KRW-BTC, BTC-XRP, BTC-TRX"
    ),
    (
      Instrument(venue: "okx", market: .linear, symbol: "BTC-USDT-SWP"),
      "unknown symbol 'BTC-USDT-SWP' on okx linear; closest known symbols: BTC-USDT-SWAP, BTC-USDC-SWAP, LTC-USDT-SWAP"
    ),
    (
      Instrument(venue: "bitmex", market: .inverse, symbol: "ETHUSD"),
      "unknown base asset 'ETH' in symbol 'ETHUSD' on bitmex inverse (add it to the venue's \"bases\" in a registry file); closest known symbols: XBTUSD"
    ),
    (
      Instrument(venue: "binanse", market: .spot, symbol: "BTCUSDT"),
      "unknown venue 'binanse'; closest known venues: binance, binanceus, coinone"
    ),
    (Instrument(venue: "upbit", market: .fx, symbol: "USDKRW"), "'upbit:fx:USDKRW' is an FX series, not an instrument of a venue"),
  ]

  @Test(arguments: unknown)
  func `an unknown symbol names the venue and the closest known symbols`(instrument: Instrument, message: String) {
    let error = #expect(throws: ResolveError.self) { try registry.resolve(instrument) }
    #expect(error?.description == message)
  }

  @Test func `a user registry adds venues, replaces markets of the same kind and name, and takes Tardis ids`() throws {
    let user = try decode(
      """
      {"fees_read": "2026-01-01", "bases": ["FOO"], "venues": [
        {"id": "kraken", "name": "Kraken Pro", "region": "global", "aliases": {"XXBT": "BTC"}, "markets": [
          {"kind": "spot", "venue_name": "spot", "example": "XXBTZUSD", "quote": "USD", "quotes": ["ZUSD", "USD"], "symbols": ["{BASE}{QUOTE}"], "maker": 0.002, "taker": 0.003}]},
        {"id": "binance", "name": "Binance", "region": "global", "markets": [
          {"kind": "future", "venue_name": "options desk", "example": "BTCUSDT-X", "quote": "USDT", "symbols": ["{BASE}{QUOTE}-X"], "margin": "linear", "maker": 0, "taker": 0.001, "tardis": "binance-futures"}]},
        {"id": "acme", "name": "Acme", "region": "test", "bases": ["ZZZ"], "markets": [
          {"kind": "inverse", "venue_name": "perp", "example": "ZZZ:USD", "quote": "USD", "symbols": ["{BASE}:{QUOTE}"], "contract_size": {"*": 5}, "maker": 0, "taker": 0.001, "fees_read": "2026-03-04"}]}]}
      """)
    let merged = registry.merging(user)
    #expect(merged.venues.map(\.id) == registry.venues.map(\.id) + ["acme"])
    let kraken = try #require(merged.venue("kraken"))
    #expect(kraken.name == "Kraken Pro" && kraken.markets.count == 1)
    #expect(kraken.markets[0].maker == 0.002 && kraken.markets[0].feesRead == "2026-01-01")
    // Aliases are joined; the file's market has no Tardis id, so kraken has none now.
    #expect(try merged.resolve(Instrument(venue: "kraken", market: .spot, symbol: "XXBTZUSD")).description == "BTC/ZUSD spot")
    #expect(merged.tardisMarket("kraken") == nil)
    let binance = try #require(merged.venue("binance"))
    #expect(binance.markets.count == registry.venue("binance")!.markets.count + 1)
    #expect(merged.tardisMarket("binance-futures")?.market == .future)
    #expect(binance.markets.filter { $0.tardis == "binance-futures" }.count == 1)
    #expect(try merged.resolve(Instrument(venue: "binance", market: .future, symbol: "ETHUSDT-X")).description == "ETH/USDT linear perp")
    let acme = try merged.resolve(Instrument(venue: "acme", market: .inverse, symbol: "ZZZ:USD"))
    #expect(acme.description == "ZZZ/USD inverse perp" && acme.contractSize == 5)
    #expect(merged.venue("acme")?.markets[0].feesRead == "2026-03-04")
    // Shared bases are joined: FOO is now known on every venue.
    #expect(try merged.resolve(Instrument(venue: "okx", market: .spot, symbol: "FOO-USDT")).description == "FOO/USDT spot")
    #expect(merged.bases?.contains("FOO") == true && registry.bases?.contains("FOO") == false)
  }

  @Test func `a registry file with a bad grammar or a future without margin names the problem`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    func load(_ market: String) -> RegistryError? {
      let path = folder.write("r.json", #"{"fees_read": "2026-01-01", "venues": [{"id": "v", "name": "V", "region": "r", "markets": [\#(market)]}]}"#)
      return #expect(throws: RegistryError.self) { try ExchangeRegistry.load(path: path) }
    }
    let grammar = load(#"{"kind": "spot", "venue_name": "s", "example": "A", "quote": "USD", "symbols": ["{BASE}{QOUTE}"], "maker": 0, "taker": 0}"#)
    #expect(grammar?.message.contains("unknown placeholder '{QOUTE}'") == true)
    let margin = load(#"{"kind": "future", "venue_name": "f", "example": "A", "quote": "USD", "maker": 0, "taker": 0}"#)
    #expect(margin?.message.hasSuffix("not a valid exchange registry: v market 'f' is a future and needs \"margin\": \"linear\" or \"inverse\"") == true)
  }

  private func decode(_ json: String) throws -> ExchangeRegistry {
    try JSONDecoder().decode(ExchangeRegistry.self, from: Data(json.utf8))
  }
}
