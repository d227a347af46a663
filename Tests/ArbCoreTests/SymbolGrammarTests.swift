import ArbCore
import Foundation
import Testing

@Suite("Symbol grammars and calendar days")
struct SymbolGrammarTests {
  static let anyBase: @Sendable (String) -> Bool = { _ in true }

  @Test func `placeholders read the pieces of a symbol, the longest quote first`() throws {
    let plain = try SymbolGrammar("{BASE}{QUOTE}")
    #expect(plain.match("BTCUSDT", quotes: ["USD", "USDT"], acceptsBase: Self.anyBase)?.base == "BTC")
    #expect(plain.match("BTCUSDT", quotes: ["USD", "USDT"], acceptsBase: Self.anyBase)?.quote == "USDT")
    #expect(plain.match("btcusd", quotes: ["USD", "USDT"], acceptsBase: Self.anyBase)?.quote == "USD")
    // The base must be accepted: the shortest accepted base wins.
    #expect(plain.match("USDCUSDT", quotes: ["USDC", "USDT"], acceptsBase: { $0 == "USDC" })?.quote == "USDT")
    #expect(plain.match("BTCEUR", quotes: ["USD"], acceptsBase: Self.anyBase) == nil)
    let upbit = try SymbolGrammar("{QUOTE}-{BASE}")
    #expect(upbit.match("KRW-BTC", quotes: ["KRW"], acceptsBase: Self.anyBase) == SymbolGrammar.Match(base: "BTC", quote: "KRW", expiry: nil))
    #expect(upbit.match("KRW_BTC", quotes: ["KRW"], acceptsBase: Self.anyBase) == nil)
    let coinone = try SymbolGrammar("{BASE}")
    #expect(coinone.match("BTC", quotes: [], acceptsBase: Self.anyBase) == SymbolGrammar.Match(base: "BTC", quote: nil, expiry: nil))
    #expect(coinone.match("BTC-", quotes: [], acceptsBase: Self.anyBase) == nil)
  }

  @Test func `the three expiry forms read and write the same day`() throws {
    let cases: [(grammar: String, symbol: String, expiry: String)] = [
      ("{BASE}{QUOTE}_{YYMMDD}", "BTCUSDT_250328", "2025-03-28"),
      ("{BASE}-{QUOTE}-{YYMMDD}", "BTC-USD-241227", "2024-12-27"),
      ("{BASE}-{DDMMMYY}", "BTC-28MAR25", "2025-03-28"),
      ("{BASE}-{DDMMMYY}", "ETH-7FEB25", "2025-02-07"),
      ("{BASE}{QUOTE}{MYY}", "BTCUSDH25", "2025-03-28"),
      ("{BASE}{MYY}", "XBTZ24", "2024-12-27"),
      ("{BASE}{MYY}", "XBTM25", "2025-06-27"),
    ]
    for (text, symbol, expiry) in cases {
      let grammar = try SymbolGrammar(text)
      let match = try #require(grammar.match(symbol, quotes: ["USD", "USDT"], acceptsBase: { ["BTC", "ETH", "XBT"].contains($0) }), "\(symbol)")
      #expect(match.expiry?.description == expiry, "\(symbol)")
      #expect(grammar.format(base: match.base, quote: match.quote ?? "", expiry: match.expiry) == symbol)
      #expect(grammar.isDated)
    }
    // A leading zero on the day is read too; the venue's own form has none.
    let deribit = try SymbolGrammar("{BASE}-{DDMMMYY}")
    #expect(deribit.match("ETH-07FEB25", quotes: [], acceptsBase: Self.anyBase)?.expiry?.description == "2025-02-07")
    // Days that do not exist are not expiries.
    let binance = try SymbolGrammar("{BASE}{QUOTE}_{YYMMDD}")
    for bad in ["BTCUSD_250230", "BTCUSD_251301", "BTCUSD_25032", "BTCUSD_2503288"] {
      #expect(binance.match(bad, quotes: ["USD"], acceptsBase: Self.anyBase) == nil, "\(bad)")
    }
    #expect(try SymbolGrammar("{BASE}{MYY}").match("XBTA25", quotes: [], acceptsBase: Self.anyBase) == nil)
  }

  @Test func `lower-case placeholders write lower case; literals keep their spelling`() throws {
    let korbit = try SymbolGrammar("{base}_{quote}")
    #expect(korbit.format(base: "BTC", quote: "KRW", expiry: nil) == "btc_krw")
    #expect(korbit.match("BTC_KRW", quotes: ["KRW"], acceptsBase: Self.anyBase)?.base == "BTC")
    let deribit = try SymbolGrammar("{BASE}-Perpetual")
    #expect(deribit.format(base: "BTC", quote: "USD", expiry: nil) == "BTC-Perpetual")
    #expect(deribit.match("btc-PERPETUAL", quotes: [], acceptsBase: Self.anyBase)?.base == "BTC")
    #expect(!deribit.isDated && !deribit.hasQuote)
  }

  @Test func `a grammar with an unknown or missing placeholder is refused with the reason`() {
    let cases: [(String, String)] = [
      ("{BASE}{QUOTA}", "symbol grammar '{BASE}{QUOTA}' unknown placeholder '{QUOTA}', expected BASE, QUOTE, YYMMDD, DDMMMYY or MYY"),
      ("{BASE}{QUOTE", "symbol grammar '{BASE}{QUOTE' '{' is not closed"),
      ("{QUOTE}-SWAP", "symbol grammar '{QUOTE}-SWAP' needs exactly one {BASE}"),
      ("{BASE}{QUOTE}{QUOTE}", "symbol grammar '{BASE}{QUOTE}{QUOTE}' has a placeholder twice"),
    ]
    for (text, message) in cases {
      let error = #expect(throws: GrammarError.self) { try SymbolGrammar(text) }
      #expect(error?.description == message)
    }
  }

  /// Checked against Foundation's Gregorian calendar, an independent computation.
  @Test func `the last Friday of every month 2019-2031 agrees with Foundation's calendar`() throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    for year in 2019...2031 {
      for month in 1...12 {
        let day = CalendarDay.lastFriday(year: year, month: month)
        let date = try #require(calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day)))
        #expect(calendar.component(.weekday, from: date) == 6, "\(day)")  // 6 = Friday
        let week = try #require(calendar.date(byAdding: .day, value: 7, to: date))
        #expect(calendar.component(.month, from: week) != month, "\(day) is not the last Friday")
        #expect(day.month == month && day.year == year)
      }
    }
    #expect(CalendarDay(year: 2024, month: 2, day: 29) != nil)
    #expect(CalendarDay(year: 2025, month: 2, day: 29) == nil)
    #expect(CalendarDay(year: 2100, month: 2, day: 29) == nil)
    #expect(CalendarDay(year: 2000, month: 2, day: 29)?.description == "2000-02-29")
  }

  @Test func `canonical descriptions and settle currencies`() {
    let expiry = CalendarDay(year: 2025, month: 3, day: 28)
    #expect(CanonicalInstrument(base: "BTC", quote: "USDT", kind: .spot).description == "BTC/USDT spot")
    #expect(CanonicalInstrument(base: "BTC", quote: "USDT", kind: .spot).settle == nil)
    #expect(CanonicalInstrument(base: "BTC", quote: "USDT", kind: .linearPerp).settle == "USDT")
    #expect(CanonicalInstrument(base: "BTC", quote: "USD", kind: .inversePerp, contractSize: 100).settle == "BTC")
    #expect(CanonicalInstrument(base: "BTC", quote: "USD", kind: .inverseFuture, expiry: expiry).description == "BTC/USD inverse future 2025-03-28")
    #expect(CanonicalInstrument(base: "ETH", quote: "USDT", kind: .linearFuture, expiry: expiry).description == "ETH/USDT linear future 2025-03-28")
  }
}
