import ArbCore
import Foundation
import Testing
import TestSupport

// A symbol is read by its venue's grammar, not by a list of known bases: a new asset
// resolves when the grammar splits the symbol one way only; a list decides only where
// the grammar cannot (two readings, or a market that lists its bases). Fees from a
// registry file obey the scenario's rule.
@Suite("Registry grammar and fees")
struct RegistryGrammarTests {
  let registry = ExchangeRegistry.builtin

  /// Symbols of the real cryptofeed recordings whose base is on no list.
  static let newAssets: [(String, String)] = [
    ("upbit:spot:KRW-ZETA", "ZETA/KRW spot"),
    ("upbit:spot:KRW-LAMB", "LAMB/KRW spot"),
    ("upbit:spot:KRW-WAVES", "WAVES/KRW spot"),
    ("upbit:spot:BTC-STPT", "STPT/BTC spot"),
    ("bithumb:spot:CON_KRW", "CON/KRW spot"),
    ("bithumb:spot:GOM2_KRW", "GOM2/KRW spot"),
    ("binance:spot:FOOUSDT", "FOO/USDT spot"),
    ("binance:linear:FOOUSDT_250328", "FOO/USDT linear future 2025-03-28"),
    ("okx:linear:FOO-USDT-SWAP", "FOO/USDT linear perp"),
    ("kraken:spot:FOO/EUR", "FOO/EUR spot"),
  ]

  @Test("a symbol of a new asset resolves by the venue's grammar", arguments: newAssets)
  func newAsset(c: (String, String)) throws {
    let parts = c.0.split(separator: ":").map(String.init)
    let instrument = Instrument(venue: parts[0], market: MarketKind(rawValue: parts[1])!, symbol: parts[2])
    #expect(try registry.resolve(instrument).description == c.1)
  }

  static func user(_ markets: String) throws -> ExchangeRegistry {
    let json = #"{"fees_read": "2026-01-01", "venues": [{"id": "acme", "name": "Acme", "region": "test", "markets": [\#(markets)]}]}"#
    return ExchangeRegistry.builtin.merging(try JSONDecoder().decode(ExchangeRegistry.self, from: Data(json.utf8)))
  }

  @Test func `a symbol the grammar splits two ways needs its base on a list`() throws {
    let registry = try Self.user(
      #"""
      {"kind": "spot", "venue_name": "spot", "example": "BTCUSD", "quote": "USD", "quotes": ["USD", "TUSD"],
       "symbols": ["{BASE}{QUOTE}"], "maker": 0, "taker": 0.001}
      """#)
    #expect(try registry.resolve(Instrument(venue: "acme", market: .spot, symbol: "BTCTUSD")).description == "BTC/TUSD spot")
    #expect(try registry.resolve(Instrument(venue: "acme", market: .spot, symbol: "ZETAUSD")).description == "ZETA/USD spot")
    let error = #expect(throws: ResolveError.self) { try registry.resolve(Instrument(venue: "acme", market: .spot, symbol: "ZETATUSD")) }
    guard case .unknownBase(let base, _)? = error?.reason else { Issue.record("\(String(describing: error))"); return }
    #expect(base == "ZETA")
  }

  @Test func `a market that lists its bases keeps the list`() {
    let error = #expect(throws: ResolveError.self) { try registry.resolve(Instrument(venue: "bitmex", market: .inverse, symbol: "ETHUSD")) }
    guard case .unknownBase("ETH", _)? = error?.reason else { Issue.record("\(String(describing: error))"); return }
  }

  @Test func `a market without a grammar says so instead of suggesting the symbol it rejects`() throws {
    let registry = try Self.user(#"{"kind": "spot", "venue_name": "spot", "example": "BTC-USD", "quote": "USD", "maker": 0, "taker": 0.001}"#)
    let error = #expect(throws: ResolveError.self) { try registry.resolve(Instrument(venue: "acme", market: .spot, symbol: "BTC-USD")) }
    #expect(error?.reason == .noGrammar(["spot"]))
    #expect(
      error?.description
        == "cannot read symbol 'BTC-USD' on acme spot: the registry has no \"symbols\" grammar for market 'spot' (add it in a registry file)")
  }

  @Test func `the rejected symbol is never among the closest known symbols`() throws {
    // The market's example does not follow its grammar: it is rejected, so it is no suggestion.
    let registry = try Self.user(
      #"{"kind": "spot", "venue_name": "spot", "example": "BTC-USD", "quote": "USD", "symbols": ["{BASE}_{QUOTE}"], "maker": 0, "taker": 0.001}"#)
    let error = #expect(throws: ResolveError.self) { try registry.resolve(Instrument(venue: "acme", market: .spot, symbol: "btc-usd")) }
    guard case .unknownSymbol(let closest)? = error?.reason else { Issue.record("\(String(describing: error))"); return }
    #expect(!closest.isEmpty && !closest.contains { $0.uppercased() == "BTC-USD" }, "\(closest)")
  }

  static let badFees: [(maker: String, taker: String, message: String)] = [
    ("0.001", "-0.5", "taker must be a fraction in [0, 1), was -0.5"),
    ("-1", "0.001", "maker must be a fraction in [-0.01, 1), was -1.0"),
    ("0.001", "5", "taker must be a fraction in [0, 1), was 5.0"),
  ]

  @Test("a registry fee out of range names the venue, market and field", arguments: badFees)
  func badFee(c: (maker: String, taker: String, message: String)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let market = #"""
      {"kind": "spot", "venue_name": "KRW market", "example": "KRW-BTC", "quote": "KRW", "symbols": ["{QUOTE}-{BASE}"],
       "maker": \#(c.maker), "taker": \#(c.taker)}
      """#
    let path = folder.write("r.json", #"{"fees_read": "2026-01-01", "venues": [{"id": "upbit", "name": "Upbit", "region": "KR", "markets": [\#(market)]}]}"#)
    let error = #expect(throws: RegistryError.self) { try ExchangeRegistry.load(path: path) }
    #expect(error?.message == "\(path): error: not a valid exchange registry: upbit market 'KRW market': \(c.message)")
  }

  @Test func `the built-in registry's fees obey the rule, rebates included`() {
    for venue in registry.venues {
      for market in venue.markets {
        #expect(FeeRule.problem(market.taker) == nil && FeeRule.problem(market.maker, in: FeeRule.maker) == nil, "\(venue.id) \(market.venueName)")
      }
    }
    #expect(FeeRule.problem(-0.0001, in: FeeRule.maker) == nil)
  }
}
