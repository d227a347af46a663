import ArbCore

// Ticker objects that a venue sends the same way over REST and websocket: Bybit v5
// tickers, OKX v5 tickers, and the market naming of Binance and OKX symbols. Used by
// `RESTSnapshots` and `CryptofeedRecording`.

/// The values of one Bybit v5 ticker object (`/v5/market/tickers` list item, or the
/// `data` of a `tickers.*` websocket message), all written as strings.
struct BybitTicker {
  /// One bit per value, for `carried`.
  struct Fields: OptionSet {
    let rawValue: UInt8
    static let last = Fields(rawValue: 1), bid = Fields(rawValue: 2), ask = Fields(rawValue: 4)
    static let bidSize = Fields(rawValue: 8), askSize = Fields(rawValue: 16)
    static let mark = Fields(rawValue: 32), index = Fields(rawValue: 64), funding = Fields(rawValue: 128)
    static let book: Fields = [.bid, .ask, .bidSize, .askSize]
  }

  var last: Double?, bid: Double?, ask: Double?
  var bidSize = Double.nan, askSize = Double.nan
  var mark: Double?, index: Double?, funding: Double?
  /// The values the object carried (`""` counts: it clears the value).
  var carried: Fields = []

  /// Reads the object at `item`; a member left out is not carried.
  init(_ document: JSONDocument, _ item: Int) throws(JSONFault) {
    var carried: Fields = []
    func node(_ key: StaticString, _ field: Fields) -> Int? {
      let found = document.member(item, key)
      if found != nil { carried.insert(field) }
      return found
    }
    if let n = node("lastPrice", .last) { last = try document.price(n, "lastPrice", optional: true) }
    if let n = node("bid1Price", .bid) { bid = try document.price(n, "bid1Price", optional: true) }
    if let n = node("ask1Price", .ask) { ask = try document.price(n, "ask1Price", optional: true) }
    if let n = node("bid1Size", .bidSize) { bidSize = try document.size(n, "bid1Size") }
    if let n = node("ask1Size", .askSize) { askSize = try document.size(n, "ask1Size") }
    if let n = node("markPrice", .mark) { mark = try document.price(n, "markPrice", optional: true) }
    if let n = node("indexPrice", .index) { index = try document.price(n, "indexPrice", optional: true) }
    if let n = node("fundingRate", .funding) { funding = try document.rate(n, "fundingRate") }
    self.carried = carried
  }

  init() {}

  /// Applies a delta: every value it carried replaces the kept one.
  mutating func merge(_ delta: BybitTicker) {
    let c = delta.carried
    if c.contains(.last) { last = delta.last }
    if c.contains(.bid) { bid = delta.bid }
    if c.contains(.ask) { ask = delta.ask }
    if c.contains(.bidSize) { bidSize = delta.bidSize }
    if c.contains(.askSize) { askSize = delta.askSize }
    if c.contains(.mark) { mark = delta.mark }
    if c.contains(.index) { index = delta.index }
    if c.contains(.funding) { funding = delta.funding }
    carried = c
  }

  /// Appends the points of the series whose values this object carried: the book
  /// quote (bid1/ask1) when both sides are known, else the last price; the mark and
  /// index prices and the funding rate of a derivative.
  func appendPoints(to points: inout [JSONPoint], _ instrument: Instrument, time: Int64, exchangeTime: Int64?) {
    let hasBook = bid != nil && ask != nil
    if hasBook && !carried.isDisjoint(with: .book) {
      points.appendQuote(instrument, time: time, exchangeTime: exchangeTime, bid: bid, ask: ask, bidSize: bidSize, askSize: askSize, last: nil)
    } else if !hasBook && carried.contains(.last) {
      points.appendQuote(instrument, time: time, exchangeTime: exchangeTime, bid: nil, ask: nil, last: last)
    }
    guard instrument.market != .spot else { return }
    if carried.contains(.mark) { points.appendValue(instrument, .mark, time: time, exchangeTime: exchangeTime, mark) }
    if carried.contains(.index) { points.appendValue(instrument, .index, time: time, exchangeTime: exchangeTime, index) }
    if carried.contains(.funding) { points.appendValue(instrument, .fundingRate, time: time, exchangeTime: exchangeTime, funding) }
  }

  /// The market of a Bybit category (`spot`, `linear`, `inverse`); `nil` for options
  /// and anything else.
  static func market(category: String) -> MarketKind? {
    switch category {
    case "spot": .spot
    case "linear": .linear
    case "inverse": .inverse
    default: nil
    }
  }
}

/// OKX v5 ticker objects (`/api/v5/market/tickers` data items, `tickers` channel data).
enum OKXTicker {
  /// The market of an OKX instrument: `instType` when given, else the `instId` shape.
  /// `SWAP`s settled in USD (`BTC-USD-SWAP`) are inverse, others linear; `nil` for
  /// options.
  static func market(instType: String?, instId: String) -> MarketKind? {
    let parts = instId.split(separator: "-")
    switch instType ?? (parts.last == "SWAP" ? "SWAP" : parts.count == 3 ? "FUTURES" : parts.count == 2 ? "SPOT" : "") {
    case "SPOT", "MARGIN": return .spot
    case "SWAP": return parts.count > 1 && parts[1] == "USD" ? .inverse : .linear
    case "FUTURES": return .future
    default: return nil
    }
  }

  /// Appends the quote of the ticker at `item` (`bidPx`/`askPx`, else `last`); returns
  /// `false` for an instrument that is not read (an option).
  static func append(_ document: JSONDocument, _ item: Int, time: Int64, to points: inout [JSONPoint]) throws(JSONFault) -> Bool {
    let id = try document.name(document.member(item, "instId"), "instId", at: document.nodes[item].start)
    let type = document.member(item, "instType").map { document.text($0) }
    guard let market = market(instType: type, instId: id) else { return false }
    let instrument = Instrument(venue: "okx", market: market, symbol: id)
    points.appendQuote(
      instrument, time: time, exchangeTime: try document.millis(document.member(item, "ts"), "ts"),
      bid: try document.price(document.member(item, "bidPx"), "bidPx", optional: true),
      ask: try document.price(document.member(item, "askPx"), "askPx", optional: true),
      bidSize: try document.size(document.member(item, "bidSz"), "bidSz"),
      askSize: try document.size(document.member(item, "askSz"), "askSz"),
      last: try document.price(document.member(item, "last"), "last", optional: true))
    return true
  }
}

/// Binance symbol naming.
enum BinanceSymbols {
  /// A dated contract (`BTCUSD_210924`, `BTCUSDT_250328`) is a `future`; a perpetual
  /// (`BTCUSD_PERP`, `BTCUSDT`) keeps the market of its API (`linear`, `inverse`).
  static func market(symbol: String, api: MarketKind) -> MarketKind {
    guard api != .spot, let cut = symbol.firstIndex(of: "_") else { return api }
    return symbol[symbol.index(after: cut)...] == "PERP" ? api : .future
  }
}
