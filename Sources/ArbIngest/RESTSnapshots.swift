import ArbCore

// Recorded REST snapshots (`rest.snapshots`): one JSON object per line, one response
// per line, stamped with the recorder's receive time:
//
//   {"recv_ts_us": 1735689600123456, "venue": "bybit", "endpoint": "/v5/market/tickers",
//    "params": {"category": "linear"}, "response": {...}}
//
// `params` is optional. A bare response object that carries `recv_ts_us` among its own
// members is read too when its venue shows from its shape (Bybit `retCode`, OKX `code`
// + `data`, a Binance ticker or premium index object). Responses by venue and endpoint:
//
// - bybit `/v5/market/tickers` (category spot/linear/inverse, from `params` or
//   `result.category`): bid1/ask1 → book quote (lastPrice when a side is empty);
//   derivatives also markPrice → mark, indexPrice → index, fundingRate → funding_rate.
//   A non-zero `deliveryTime` makes a linear/inverse contract a `future`. `retCode` ≠ 0
//   is an error record. Exchange time: `time`.
// - binance `/api/v3/…` spot, `/fapi/v1/…` linear, `/dapi/v1/…` inverse (dated symbols
//   `future`): `ticker/price` → last; `ticker/bookTicker` → book quote;
//   `premiumIndex` → mark, index, funding_rate (`lastFundingRate` `""` is no value).
//   `{"code": <0, "msg"}` is an error record. Exchange time: `time` when given.
// - upbit `/v1/ticker` → trade_price as last. `{"error": {...}}` is an error record.
//   Exchange time: `timestamp`.
// - bithumb `/public/ticker/{COIN}_{PAYMENT}` and `/public/ticker/ALL_{PAYMENT}` →
//   closing_price as last, symbol `COIN_PAYMENT`. `status` ≠ "0000" is an error record.
//   Exchange time: `data.date`.
// - okx `/api/v5/market/tickers`, `/api/v5/market/ticker` → bidPx/askPx book quote
//   (last when a side is empty). `code` ≠ "0" is an error record. Exchange time: `ts`.
// - coinone `/public/v2/ticker_new/{QUOTE}[/{TARGET}]` → best_bids/best_asks first
//   entries as book quote (last when a side is empty), symbol `target_currency`.
//   `result` ≠ "success" or `error_code` ≠ 0 is an error record. Exchange time: the
//   ticker's `timestamp`.
//
// Order books (`RESTSnapshotBooks.swift`), with the error records of the venue's
// tickers: bybit `/v5/market/orderbook`, binance `…/depth`, okx `/api/v5/market/books`,
// upbit `/v1/orderbook`, bithumb `/public/orderbook/…`, coinone `/public/v2/orderbook/…`
// → the best bid and ask with their sizes as a book quote, in one series with the
// ticker's book quotes of the instrument; with `keepsDepth`, every level as the quote's
// book, and the whole books a series of their own, before the ticker's.
//
// A line of `arbkit record` may also carry `send_ts_us` (when the request was sent),
// `status` (the HTTP status) and `error` (why the request has no readable answer:
// no answer, a body that is not JSON, kept as the string `body`). A line with an
// `error`, or a `status` outside 200–299, is an error record whatever its response.
//
// Other venues or endpoints are skipped messages (counted by `venue endpoint`).

/// Reads one recorded REST response per line.
struct RESTSnapshotHandler: JSONLineHandler {
  let hasExchangeTime = true
  /// Keep every level of each book response (`IngestOptions.keepDepth`), sorted best
  /// first.
  var keepsDepth = false

  /// The receive time, venue, endpoint, params and response node of a line.
  struct Envelope {
    var time: Int64
    var venue: String
    var endpoint: String
    var params: Int?
    var response: Int
  }

  mutating func read(_ document: JSONDocument, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    let envelope = try Self.envelope(document)
    if let failure = Self.failure(document, envelope) { return .errorRecord(failure) }
    let context = Context(document: document, envelope: envelope, keepsDepth: keepsDepth)
    switch envelope.venue {
    case "bybit": return try context.bybit(&points)
    case "binance": return try context.binance(&points)
    case "upbit": return try context.upbit(&points)
    case "bithumb": return try context.bithumb(&points)
    case "okx": return try context.okx(&points)
    case "coinone": return try context.coinone(&points)
    default: return .skipped("\(envelope.venue) \(envelope.endpoint)")
    }
  }

  /// A request that failed as a whole, as `arbkit record` writes it: an `error` text
  /// (no answer, a body that is not JSON, an answer not readable here) or an HTTP
  /// `status` outside 200–299. `nil` for a line that carries an answer to read.
  private static func failure(_ document: JSONDocument, _ envelope: Envelope) -> String? {
    let what = "\(envelope.venue) \(envelope.endpoint)"
    if let error = document.member(0, "error") { return "\(what): \(document.text(error))" }
    guard let status = document.member(0, "status") else { return nil }
    guard case .value(let code) = document.number(status), code >= 200 && code < 300 else { return "\(what): http \(document.text(status))" }
    return nil
  }

  private static func envelope(_ document: JSONDocument) throws(JSONFault) -> Envelope {
    guard document.kind(0) == .object else {
      throw JSONFault(reason: .invalidValue(column: "line", text: document.text(0), expected: "an object"), offset: 0)
    }
    guard let timeNode = document.member(0, "recv_ts_us") else { throw JSONFault(reason: .missingColumn(name: "recv_ts_us"), offset: 0) }
    guard document.kind(timeNode) == .number, let time = document.scaled(timeNode, scale: 0), time > 0 else {
      throw JSONFault(reason: .invalidTimestamp(column: "recv_ts_us", text: document.text(timeNode)), offset: document.nodes[timeNode].start)
    }
    // A failed request (`error`) may have no response: it is an error record and its
    // response node is never read.
    if let response = document.member(0, "response") ?? document.member(0, "error").map({ _ in 0 }) {
      let venue = try document.name(document.member(0, "venue"), "venue", at: 0)
      let endpoint = try document.name(document.member(0, "endpoint"), "endpoint", at: 0)
      let params = document.member(0, "params").flatMap { document.kind($0) == .object ? $0 : nil }
      return Envelope(time: time, venue: venue, endpoint: endpoint, params: params, response: response)
    }
    // A bare response: its venue and endpoint from its shape.
    let shape: (String, String)?
    if document.member(0, "retCode") != nil {
      shape = ("bybit", "/v5/market/tickers")
    } else if document.member(0, "code") != nil && document.member(0, "data") != nil {
      shape = ("okx", "/api/v5/market/tickers")
    } else if document.member(0, "markPrice") != nil {
      shape =
        (document.member(0, "symbol").map { document.text($0).contains("_") } ?? false)
        ? ("binance", "/dapi/v1/premiumIndex") : ("binance", "/fapi/v1/premiumIndex")
    } else if document.member(0, "bidPrice") != nil {
      shape = ("binance", document.member(0, "time") != nil ? "/fapi/v1/ticker/bookTicker" : "/api/v3/ticker/bookTicker")
    } else if document.member(0, "price") != nil && document.member(0, "symbol") != nil {
      shape = ("binance", "/api/v3/ticker/price")
    } else {
      shape = nil
    }
    guard let (venue, endpoint) = shape else {
      throw JSONFault(reason: .missingColumn(name: "response (or a bare Bybit, OKX or Binance response)"), offset: 0)
    }
    return Envelope(time: time, venue: venue, endpoint: endpoint, params: nil, response: 0)
  }

  /// One line's document and envelope, with a reader per venue (their book responses
  /// in `RESTSnapshotBooks.swift`).
  struct Context {
    let document: JSONDocument
    let envelope: Envelope
    let keepsDepth: Bool
    var response: Int { envelope.response }
    var time: Int64 { envelope.time }

    func offset(_ node: Int?) -> Int { node.map { document.nodes[$0].start } ?? 0 }

    /// The items of a response that is one object or an array of them.
    func items(_ node: Int) -> [Int] { document.kind(node) == .array ? document.elements(node) : [node] }

    func bybit(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
      let book = envelope.endpoint == "/v5/market/orderbook"
      guard book || envelope.endpoint == "/v5/market/tickers" else { return .skipped("bybit \(envelope.endpoint)") }
      let code = document.member(response, "retCode")
      guard case .value(let value) = document.number(code) else {
        throw JSONFault(reason: .missingColumn(name: "retCode"), offset: offset(code))
      }
      if value != 0 {
        return .errorRecord("bybit retCode \(document.text(code)): \(document.text(document.member(response, "retMsg")))")
      }
      if book { return try bybitBook(&points) }
      let categoryNode = envelope.params.flatMap { document.member($0, "category") } ?? document.member(response, "result", "category")
      let category = try document.name(categoryNode, "category", at: offset(response))
      guard let market = BybitTicker.market(category: category) else { return .skipped("bybit \(category) tickers") }
      let exchangeTime = try document.millis(document.member(response, "time"), "time")
      guard let list = document.member(response, "result", "list"), document.kind(list) == .array else {
        throw JSONFault(reason: .missingColumn(name: "result.list"), offset: offset(response))
      }
      for item in document.elements(list) {
        let symbol = try document.name(document.member(item, "symbol"), "symbol", at: offset(item))
        let delivery = try document.millis(document.member(item, "deliveryTime"), "deliveryTime") ?? 0
        let instrument = Instrument(venue: "bybit", market: market != .spot && delivery > 0 ? .future : market, symbol: symbol)
        try BybitTicker(document, item).appendPoints(to: &points, instrument, time: time, exchangeTime: exchangeTime)
      }
      return .points
    }

    func binance(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
      let endpoint = envelope.endpoint
      let api: MarketKind
      if endpoint.hasPrefix("/api/v3/") {
        api = .spot
      } else if endpoint.hasPrefix("/fapi/v1/") {
        api = .linear
      } else if endpoint.hasPrefix("/dapi/v1/") {
        api = .inverse
      } else {
        return .skipped("binance \(endpoint)")
      }
      if document.kind(response) == .object, let code = document.member(response, "code"), document.member(response, "symbol") == nil {
        return .errorRecord("binance code \(document.text(code)): \(document.text(document.member(response, "msg")))")
      }
      if endpoint.hasSuffix("/depth") { return try binanceBook(api: api, &points) }
      let kind = endpoint.split(separator: "/").suffix(2).joined(separator: "/")
      guard kind == "ticker/price" || kind == "ticker/bookTicker" || kind.hasSuffix("premiumIndex") else {
        return .skipped("binance \(endpoint)")
      }
      for item in items(response) {
        let symbol = try document.name(document.member(item, "symbol"), "symbol", at: offset(item))
        let instrument = Instrument(venue: "binance", market: BinanceSymbols.market(symbol: symbol, api: api), symbol: symbol)
        let exchangeTime = try document.millis(document.member(item, "time"), "time")
        switch kind {
        case "ticker/price":
          points.appendQuote(
            instrument, time: time, exchangeTime: exchangeTime, bid: nil, ask: nil,
            last: try document.price(document.member(item, "price"), "price"))
        case "ticker/bookTicker":
          points.appendQuote(
            instrument, time: time, exchangeTime: exchangeTime,
            bid: try document.price(document.member(item, "bidPrice"), "bidPrice"),
            ask: try document.price(document.member(item, "askPrice"), "askPrice"),
            bidSize: try document.size(document.member(item, "bidQty"), "bidQty"),
            askSize: try document.size(document.member(item, "askQty"), "askQty"), last: nil)
        default:
          points.appendValue(
            instrument, .mark, time: time, exchangeTime: exchangeTime,
            try document.price(document.member(item, "markPrice"), "markPrice", optional: true))
          points.appendValue(
            instrument, .index, time: time, exchangeTime: exchangeTime,
            try document.price(document.member(item, "indexPrice"), "indexPrice", optional: true))
          points.appendValue(
            instrument, .fundingRate, time: time, exchangeTime: exchangeTime,
            try document.rate(document.member(item, "lastFundingRate"), "lastFundingRate"))
        }
      }
      return .points
    }

    func upbit(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
      if let error = document.member(response, "error") {
        return .errorRecord("upbit \(document.text(document.member(error, "name"))): \(document.text(document.member(error, "message")))")
      }
      switch envelope.endpoint {
      case "/v1/ticker": break
      case "/v1/orderbook": return try upbitBook(&points)
      default: return .skipped("upbit \(envelope.endpoint)")
      }
      for item in items(response) {
        let market = try document.name(document.member(item, "market"), "market", at: offset(item))
        points.appendQuote(
          Instrument(venue: "upbit", market: .spot, symbol: market), time: time,
          exchangeTime: try document.millis(document.member(item, "timestamp"), "timestamp"), bid: nil, ask: nil,
          last: try document.price(document.member(item, "trade_price"), "trade_price"))
      }
      return .points
    }

    func bithumb(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
      guard let status = document.member(response, "status") else { throw JSONFault(reason: .missingColumn(name: "status"), offset: offset(response)) }
      guard document.kind(status) == .string else {
        throw JSONFault(reason: .invalidValue(column: "status", text: document.text(status), expected: "a string such as \"0000\""), offset: offset(status))
      }
      if !document.isString(status, "0000") {
        return .errorRecord("bithumb status \(document.text(status)): \(document.text(document.member(response, "message")))")
      }
      let bookPrefix = "/public/orderbook/"
      if envelope.endpoint.hasPrefix(bookPrefix) { return try bithumbBook(pair: envelope.endpoint.dropFirst(bookPrefix.count), &points) }
      let prefix = "/public/ticker/"
      guard envelope.endpoint.hasPrefix(prefix) else { return .skipped("bithumb \(envelope.endpoint)") }
      let pair = envelope.endpoint.dropFirst(prefix.count)
      guard let data = document.member(response, "data"), document.kind(data) == .object else {
        throw JSONFault(reason: .missingColumn(name: "data"), offset: offset(response))
      }
      let exchangeTime = try document.millis(document.member(data, "date"), "date")
      var tickers: [(symbol: String, node: Int)] = []
      if pair.hasPrefix("ALL_") {
        let payment = pair.dropFirst(4)
        for (key, value) in document.members(data) where document.kind(value) == .object {
          tickers.append(("\(document.text(key))_\(payment)", value))
        }
      } else {
        tickers.append((String(pair), data))
      }
      for (symbol, node) in tickers {
        points.appendQuote(
          Instrument(venue: "bithumb", market: .spot, symbol: symbol), time: time, exchangeTime: exchangeTime,
          bid: nil, ask: nil, last: try document.price(document.member(node, "closing_price"), "closing_price"))
      }
      return .points
    }

    func okx(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
      guard let code = document.member(response, "code") else { throw JSONFault(reason: .missingColumn(name: "code"), offset: offset(response)) }
      guard document.kind(code) == .string else {
        throw JSONFault(reason: .invalidValue(column: "code", text: document.text(code), expected: "a string such as \"0\""), offset: offset(code))
      }
      if !document.isString(code, "0") {
        return .errorRecord("okx code \(document.text(code)): \(document.text(document.member(response, "msg")))")
      }
      if envelope.endpoint == "/api/v5/market/books" { return try okxBook(&points) }
      guard envelope.endpoint == "/api/v5/market/tickers" || envelope.endpoint == "/api/v5/market/ticker" else {
        return .skipped("okx \(envelope.endpoint)")
      }
      guard let data = document.member(response, "data"), document.kind(data) == .array else {
        throw JSONFault(reason: .missingColumn(name: "data"), offset: offset(response))
      }
      for item in document.elements(data) { _ = try OKXTicker.append(document, item, time: time, to: &points) }
      return .points
    }

    func coinone(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
      let code = document.member(response, "error_code")
      let failed: Bool
      switch document.number(code) {
      case .value(let value): failed = value != 0
      case .absent, .invalid: failed = code != nil
      }
      if failed || (document.member(response, "result").map { !document.isString($0, "success") } ?? false) {
        return .errorRecord("coinone error_code \(document.text(code)): \(document.text(document.member(response, "error_msg")))")
      }
      if envelope.endpoint.hasPrefix("/public/v2/orderbook/") { return try coinoneBook(&points) }
      guard envelope.endpoint.hasPrefix("/public/v2/ticker_new/") else { return .skipped("coinone \(envelope.endpoint)") }
      guard let tickers = document.member(response, "tickers"), document.kind(tickers) == .array else {
        throw JSONFault(reason: .missingColumn(name: "tickers"), offset: offset(response))
      }
      for item in document.elements(tickers) {
        let symbol = try document.name(document.member(item, "target_currency"), "target_currency", at: offset(item))
        let exchangeTime = try document.millis(document.member(item, "timestamp"), "timestamp")
        let bid = document.member(item, "best_bids").flatMap { document.elements($0).first }
        let ask = document.member(item, "best_asks").flatMap { document.elements($0).first }
        points.appendQuote(
          Instrument(venue: "coinone", market: .spot, symbol: symbol), time: time, exchangeTime: exchangeTime,
          bid: try bid.flatMap { node throws(JSONFault) in try document.price(document.member(node, "price"), "best_bids.price", optional: true) },
          ask: try ask.flatMap { node throws(JSONFault) in try document.price(document.member(node, "price"), "best_asks.price", optional: true) },
          bidSize: try bid.map { node throws(JSONFault) in try document.size(document.member(node, "qty"), "best_bids.qty") } ?? .nan,
          askSize: try ask.map { node throws(JSONFault) in try document.size(document.member(node, "qty"), "best_asks.qty") } ?? .nan,
          last: try document.price(document.member(item, "last"), "last", optional: true))
      }
      return .points
    }
  }
}
