/// Resolving a venue's symbol to the canonical instrument it names.
extension ExchangeRegistry {
  /// A symbol read through one grammar of one market.
  public struct Resolution: Sendable {
    public var canonical: CanonicalInstrument
    public var venue: Venue
    public var market: Market
    public var grammar: SymbolGrammar
  }

  /// The canonical instrument of `instrument`, e.g. `binance:inverse:BTCUSD_PERP` →
  /// `BTC/USD inverse perp`.
  ///
  /// A spot symbol is read with the venue's spot grammars. A derivative symbol is read
  /// with the grammars of the market named first, then with those of the venue's other
  /// derivative markets: data sources file derivatives loosely (Tardis `okex-swap`
  /// holds both `BTC-USDT-SWAP` and `BTC-USD-SWAP`, `binance-futures` holds dated
  /// `BTCUSDT_250328`), and the symbol itself says what it is.
  ///
  /// - Throws: `ResolveError` naming the venue and the closest known symbols.
  public func resolve(_ instrument: Instrument) throws(ResolveError) -> CanonicalInstrument {
    try resolution(instrument).canonical
  }

  /// The canonical instrument of a leg on a venue the registry knows; `nil` for other
  /// venues, FX series and files that name no symbol.
  public func canonical(ofLeg instrument: Instrument) throws(ResolveError) -> CanonicalInstrument? {
    guard venue(instrument.venue) != nil, instrument.market != .fx, instrument.symbol != "unknown" else { return nil }
    return try resolve(instrument)
  }

  /// Like `resolve`, with the market and grammar that read the symbol.
  public func resolution(_ instrument: Instrument) throws(ResolveError) -> Resolution {
    guard let venue = venue(instrument.venue) else {
      let closest = Self.closest(instrument.venue, among: venues.map(\.id), count: 3)
      throw ResolveError(instrument: instrument, reason: .unknownVenue(closest: closest))
    }
    guard instrument.market != .fx else { throw ResolveError(instrument: instrument, reason: .notTradable) }
    let markets = candidateMarkets(venue, instrument.market)
    guard markets.contains(where: { !($0.symbols ?? []).isEmpty }) else {
      throw ResolveError(instrument: instrument, reason: .noGrammar(markets.map(\.venueName)))
    }
    for market in markets {
      let known = Set(bases(of: venue, market))
      if let found = read(instrument.symbol, venue, market, acceptsBase: { known.contains(venue.canonical($0)) }) {
        return found
      }
    }
    // A base that is one of the market's quotes is a misordered symbol, not a new asset.
    func newBase(_ market: Market) -> (String) -> Bool { { !market.quoteList.contains($0) } }
    // The grammar alone reads a symbol of a new asset when it splits it one way only,
    // unless the market lists its bases (BitMEX's other perpetuals are quanto).
    for market in markets where market.bases == nil {
      if let found = read(instrument.symbol, venue, market, acceptsBase: newBase(market), unambiguous: true) { return found }
    }
    // The rejected symbol itself is never a suggestion (a market's example may be it).
    let candidates = knownSymbols(venue, markets).filter { $0.uppercased() != instrument.symbol.uppercased() }
    let closest = Self.closest(instrument.symbol.uppercased(), among: candidates, count: 3)
    for market in markets {
      if let found = read(instrument.symbol, venue, market, acceptsBase: newBase(market)) {
        throw ResolveError(instrument: instrument, reason: .unknownBase(found.canonical.base, closest: closest))
      }
    }
    throw ResolveError(instrument: instrument, reason: .unknownSymbol(closest: closest))
  }

  /// The symbol of `canonical` on this market in `grammar` (the market's first by default).
  public func symbol(for canonical: CanonicalInstrument, venue: Venue, grammar: SymbolGrammar) -> String {
    grammar.format(base: venue.venueCode(canonical.base), quote: venue.venueCode(canonical.quote), expiry: canonical.expiry)
  }

  /// The markets whose grammars may read a symbol of `kind`, the named kind first.
  func candidateMarkets(_ venue: Venue, _ kind: MarketKind) -> [Market] {
    let named = venue.markets.filter { $0.kind == kind }
    guard kind != .spot else { return named }
    return named + venue.markets.filter { $0.kind != kind && $0.contractMargin != nil }
  }

  /// The first grammar of `market` that reads `symbol`; with `unambiguous`, only one
  /// that reads it one way alone.
  private func read(
    _ symbol: String, _ venue: Venue, _ market: Market, acceptsBase: (String) -> Bool, unambiguous: Bool = false
  ) -> Resolution? {
    let quotes = market.quoteList + market.quoteList.map(venue.venueCode).filter { !market.quoteList.contains($0) }
    for grammar in market.symbols ?? [] {
      let readings = grammar.matches(symbol, quotes: quotes, acceptsBase: acceptsBase, limit: unambiguous ? 2 : 1)
      guard let match = readings.first, readings.count == 1 else { continue }
      let base = venue.canonical(match.base)
      let quote = venue.canonical(match.quote ?? market.quote)
      let kind: CanonicalInstrument.Kind =
        switch (market.contractMargin, grammar.isDated) {
        case (nil, _): .spot
        case (.linear, false): .linearPerp
        case (.linear, true): .linearFuture
        case (.inverse, false): .inversePerp
        case (.inverse, true): .inverseFuture
        }
      let canonical = CanonicalInstrument(
        base: base, quote: quote, kind: kind, expiry: match.expiry, contractSize: market.contractSize(base: base))
      return Resolution(canonical: canonical, venue: venue, market: market, grammar: grammar)
    }
    return nil
  }

  /// Symbols the registry knows on these markets: every undated grammar over the known
  /// bases and quotes, and each market's example.
  func knownSymbols(_ venue: Venue, _ markets: [Market]) -> [String] {
    var symbols: [String] = []
    var seen: Set<String> = []
    for market in markets {
      var these = [market.example]
      for grammar in market.symbols ?? [] where !grammar.isDated {
        for base in bases(of: venue, market) {
          for quote in grammar.hasQuote ? market.quoteList : [market.quote] {
            these.append(grammar.format(base: venue.venueCode(base), quote: venue.venueCode(quote), expiry: nil))
          }
        }
      }
      for symbol in these where seen.insert(symbol.uppercased()).inserted { symbols.append(symbol) }
    }
    return symbols
  }

  /// The `count` candidates closest to `word` (case ignored), nearest first, ties in the
  /// candidates' order. A candidate with the same parts in another order (`KRW-BTC` for
  /// `BTC-KRW`) counts as one edit away.
  static func closest(_ word: String, among candidates: [String], count: Int) -> [String] {
    let upper = word.uppercased()
    let parts = Self.parts(upper)
    let scored = candidates.enumerated().map { k, candidate in
      let other = candidate.uppercased()
      let distance = parts.count > 1 && Self.parts(other) == parts ? min(1, EditDistance.between(upper, other)) : EditDistance.between(upper, other)
      return (candidate, distance, k)
    }
    return scored.sorted { ($0.1, $0.2) < ($1.1, $1.2) }.prefix(count).map(\.0)
  }

  /// The alphanumeric runs of a symbol, sorted.
  private static func parts(_ symbol: String) -> [Substring] {
    symbol.split { !($0.isLetter || $0.isNumber) }.sorted()
  }
}

/// A symbol the registry cannot resolve.
public struct ResolveError: Error, Sendable, CustomStringConvertible {
  public enum Reason: Sendable, Equatable {
    case unknownVenue(closest: [String])
    case unknownSymbol(closest: [String])
    /// The symbol follows a grammar, but its base asset is not in the registry and the
    /// grammar cannot tell it (the market lists its bases, or the symbol splits two ways).
    case unknownBase(String, closest: [String])
    /// No market of the kind has a symbol grammar in the registry (their venue names).
    case noGrammar([String])
    /// An FX series is no venue's instrument.
    case notTradable
  }

  public var instrument: Instrument
  public var reason: Reason

  /// Whether a registry file that extends the built-in one is the remedy (a base asset or
  /// a symbol grammar it lacks).
  public var needsRegistryFile: Bool {
    switch reason {
    case .unknownBase, .noGrammar: true
    case .unknownVenue, .unknownSymbol, .notTradable: false
    }
  }

  public var description: String {
    let where_ = "\(instrument.venue) \(instrument.market.rawValue)"
    switch reason {
    case .unknownVenue(let closest):
      return "unknown venue '\(instrument.venue)'; closest known venues: \(closest.joined(separator: ", "))"
    case .unknownSymbol(let closest):
      return "unknown symbol '\(instrument.symbol)' on \(where_); closest known symbols: \(closest.joined(separator: ", "))"
    case .unknownBase(let base, let closest):
      return
        "unknown base asset '\(base)' in symbol '\(instrument.symbol)' on \(where_) (add it to the venue's \"bases\" in a registry file); closest known symbols: \(closest.joined(separator: ", "))"
    case .notTradable:
      return "'\(instrument)' is an FX series, not an instrument of a venue"
    case .noGrammar(let markets):
      let names = markets.isEmpty ? "no \(instrument.market.rawValue) market" : "no \"symbols\" grammar for market '\(markets.joined(separator: "', '"))'"
      return "cannot read symbol '\(instrument.symbol)' on \(where_): the registry has \(names) (add it in a registry file)"
    }
  }
}
