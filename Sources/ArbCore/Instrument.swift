/// The kind of market an instrument trades on.
public enum MarketKind: String, Sendable, Hashable, CaseIterable, Codable {
  /// Spot: the asset itself.
  case spot
  /// USDT/USDC-margined perpetual (Binance USDⓈ-M, Bybit linear, OKX USDT SWAP).
  case linear
  /// Coin-margined perpetual (Binance COIN-M, Bybit inverse, OKX USD SWAP).
  case inverse
  /// Dated future.
  case future
  /// A foreign-exchange rate series such as USDKRW (not tradable here).
  case fx
}

/// One instrument on one venue, as named by the venue.
public struct Instrument: Sendable, Hashable, Codable, CustomStringConvertible {
  public var venue: String
  public var market: MarketKind
  public var symbol: String

  public init(venue: String, market: MarketKind, symbol: String) {
    self.venue = venue
    self.market = market
    self.symbol = symbol
  }

  /// `venue:market:symbol`, the form used by `--leg`.
  public var description: String { "\(venue):\(market.rawValue):\(symbol)" }
}
