import ArbCore

/// A venue `arbkit record` polls, with its public REST endpoints.
public enum RecordVenue: String, Sendable, CaseIterable {
  case upbit, bithumb, coinone, bybit, binance, okx

  /// The markets the venue's public endpoints serve here.
  var markets: [MarketKind] {
    switch self {
    case .upbit, .bithumb, .coinone: [.spot]
    case .bybit, .binance: [.spot, .linear, .inverse]
    case .okx: [.spot, .linear, .inverse, .future]
    }
  }

  /// The venue's own host for `market`, when no `--base-url` replaces it.
  func defaultBaseURL(_ market: MarketKind) -> String {
    switch self {
    case .upbit: "https://api.upbit.com"
    case .bithumb: "https://api.bithumb.com"
    case .coinone: "https://api.coinone.co.kr"
    case .bybit: "https://api.bybit.com"
    case .binance: market == .spot ? "https://api.binance.com" : market == .linear ? "https://fapi.binance.com" : "https://dapi.binance.com"
    case .okx: "https://www.okx.com"
    }
  }
}

/// One `VENUE:MARKET[:SYMBOL,…]` of the command line: what one poller records.
public struct RecordTarget: Sendable, Equatable {
  public var venue: RecordVenue
  public var market: MarketKind
  /// The venue's own symbols (`KRW-BTC`, `BTCUSDT`, `BTC_KRW`); empty: every symbol
  /// the venue lists in the market.
  public var symbols: [String]

  public init(venue: RecordVenue, market: MarketKind, symbols: [String]) {
    self.venue = venue
    self.market = market
    self.symbols = symbols
  }

  /// Parses `VENUE:MARKET[:SYMBOL,…]`; the message of a failure names the text.
  public static func parse(_ text: String) -> Result<RecordTarget, RecordError> {
    let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let venues = RecordVenue.allCases.map(\.rawValue).joined(separator: ", ")
    guard parts.count >= 2, let venue = RecordVenue(rawValue: parts[0]) else {
      return .failure(RecordError("invalid target, expected VENUE:MARKET[:SYMBOL,…] with VENUE one of \(venues), was '\(text)'"))
    }
    guard let market = MarketKind(rawValue: parts[1]), venue.markets.contains(market) else {
      let markets = venue.markets.map(\.rawValue).joined(separator: ", ")
      return .failure(RecordError("invalid market for \(venue.rawValue), expected one of \(markets), was '\(parts[1])' in '\(text)'"))
    }
    let symbols = parts.count == 3 ? parts[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init) : []
    if parts.count == 3 {
      let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
      guard !symbols.isEmpty, symbols.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) }) else {
        let expected = "symbols of letters, digits, '-', '_' or '.' separated by ','"
        return .failure(RecordError("invalid symbol list, expected \(expected), was '\(parts[2])' in '\(text)'"))
      }
    }
    return .success(RecordTarget(venue: venue, market: market, symbols: symbols))
  }

  /// `venue-market`, the start of the target's file names.
  var stem: String { "\(venue.rawValue)-\(market.rawValue)" }
  /// `venue:market`, as the status line and the summary name it.
  public var label: String { "\(venue.rawValue):\(market.rawValue)" }
}

/// A recorder that cannot start: a bad target or flag, a folder it cannot use.
public struct RecordError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  /// The problem is the output folder (exit 74), not the command line (exit 64).
  public var isIO = false
  public init(_ message: String, isIO: Bool = false) {
    self.message = message
    self.isIO = isIO
  }
  public var description: String { message }
}
