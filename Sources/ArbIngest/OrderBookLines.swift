import ArbCore

// Order-book snapshots as JSON lines (`orderbook.jsonl`), as a ccxt-based collector
// writes them: `{"timestamp": "2025-08-24T06:05:21.192890", "exchange": "binance",
// "symbol": "BTC/USDT", "bids": [[price, qty], …], "asks": [[price, qty], …], …}`.
// `timestamp` is ISO 8601; without a zone it is UTC. Each line becomes one top-of-book
// quote: the highest bid and the lowest ask (the lists are not assumed sorted), with
// their sizes; every level must be a positive price and a non-negative size. Other
// keys are ignored. The symbol is the ccxt `BASE/QUOTE` written in the venue's own
// grammar where the registry shows it (binance, bybit `BTCUSDT`; upbit `KRW-BTC`;
// bithumb `BTC_KRW`; okx, coinbase `BTC-USD`), else as given. The market is spot.

/// Reads one order-book snapshot per line.
struct OrderBookLineHandler: JSONLineHandler {
  let hasExchangeTime = false
  /// Keep every level of each line (`IngestOptions.keepDepth`), sorted best first.
  var keepsDepth = false

  mutating func read(_ document: JSONDocument, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    guard document.kind(0) == .object else {
      throw JSONFault(reason: .invalidValue(column: "line", text: document.text(0), expected: "an object"), offset: 0)
    }
    let timeNode = document.member(0, "timestamp")
    let raw = timeNode.map { document.raw($0) }
    guard let timeNode, document.kind(timeNode) == .string, let raw, raw.count > 0,
      let time = TimeParser.parse(raw.baseAddress!, raw.count, form: .iso8601, defaultOffset: 0)
    else {
      throw JSONFault(reason: .invalidTimestamp(column: "timestamp", text: document.text(timeNode)), offset: timeNode.map { document.nodes[$0].start } ?? 0)
    }
    let venue = try document.name(document.member(0, "exchange"), "exchange", at: 0).lowercased()
    let symbol = Self.venueSymbol(try document.name(document.member(0, "symbol"), "symbol", at: 0), venue: venue)
    let bid = try best(document, "bids", higher: true)
    let ask = try best(document, "asks", higher: false)
    points.appendQuote(
      Instrument(venue: venue, market: .spot, symbol: symbol), time: time, exchangeTime: nil,
      bid: bid.price, ask: ask.price, bidSize: bid.size, askSize: ask.size, last: nil)
    if keepsDepth { points[points.count - 1].depth = try book(document) }
    return .points
  }

  /// Every level of the line as one book, each side best first (the levels were checked
  /// by `best`). A level without a size, or two at one price on a side, is a fault.
  private func book(_ document: JSONDocument) throws(JSONFault) -> BookDepth {
    var depth = BookDepth()
    for (key, isBid) in [("bids" as StaticString, true), ("asks", false)] {
      let side = document.member(0, key)!
      var levels: [(price: Double, size: Double)] = []
      for level in document.elements(side) {
        let pair = document.elements(level)
        let size = try document.size(pair[1], "\(key)")
        if size.isNaN {
          throw JSONFault(
            reason: .invalidValue(column: "\(key)", text: document.text(level), expected: "the size of a level"), offset: document.nodes[level].start)
        }
        levels.append((try document.price(pair[0], "\(key)")!, size))
      }
      levels.sort { isBid ? $0.price > $1.price : $0.price < $1.price }
      for k in levels.indices {
        if k > 0 && levels[k].price == levels[k - 1].price {
          throw JSONFault(
            reason: .invalidValue(column: "\(key)", text: "\(levels[k].price)", expected: "one level per price"), offset: document.nodes[side].start)
        }
        depth.appendLevel(bid: isBid, price: levels[k].price, size: levels[k].size)
      }
    }
    depth.closeBook()
    return depth
  }

  /// The best level of side `key`: the highest price for bids, the lowest for asks.
  private func best(_ document: JSONDocument, _ key: StaticString, higher: Bool) throws(JSONFault) -> (price: Double, size: Double) {
    let column = "\(key)"
    guard let side = document.member(0, key), document.kind(side) == .array else {
      throw JSONFault(reason: .missingColumn(name: column), offset: 0)
    }
    var best: (price: Double, size: Double)? = nil
    for level in document.elements(side) {
      let pair = document.elements(level)
      guard pair.count >= 2 else {
        throw JSONFault(reason: .invalidValue(column: column, text: document.text(level), expected: "[price, size]"), offset: document.nodes[level].start)
      }
      let price = try document.price(pair[0], column)!
      let size = try document.size(pair[1], column)
      if best == nil || (higher ? price > best!.price : price < best!.price) { best = (price, size) }
    }
    guard let best else { throw JSONFault(reason: .missingPrice(column: column), offset: document.nodes[side].start) }
    return best
  }

  /// `BASE/QUOTE` (letters and digits) in the venue's grammar; other symbols (a ccxt
  /// contract `BTC/USDT:USDT`) and venues as given.
  static func venueSymbol(_ symbol: String, venue: String) -> String {
    let parts = symbol.split(separator: "/")
    guard parts.count == 2, parts.allSatisfy({ $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }) else { return symbol }
    let (base, quote) = (parts[0], parts[1])
    switch venue {
    case "binance", "binanceus", "bybit": return "\(base)\(quote)"
    case "upbit": return "\(quote)-\(base)"
    case "bithumb": return "\(base)_\(quote)"
    case "okx", "coinbase": return "\(base)-\(quote)"
    default: return symbol
    }
  }
}
