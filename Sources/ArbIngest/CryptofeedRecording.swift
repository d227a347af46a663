import ArbCore

// cryptofeed raw recordings (`cryptofeed.jsonl`): one JSON object per line,
// `{"t": "header"|"http"|"connect"|"send"|"recv", "conn", "ts", …}`. `ts` is the local
// receive time in epoch seconds with a fraction (kept to the µs); a `recv` line holds
// the exchange's raw message as a JSON string in `data` (Upbit: base64 in `b64`).
// The header names the exchange. Messages read as series:
//
// - BYBIT `tickers.*` (v5): linear/inverse bid1/ask1 → book quote, markPrice → mark,
//   indexPrice → index, fundingRate → funding_rate; spot lastPrice → last. The market is
//   the connection's (`connect` line address ending `/spot`, `/linear`, `/inverse`).
//   Deltas carry only changed values: the last value per field per symbol is kept and
//   a point is written for each series a message changed.
// - BINANCE, BINANCE_FUTURES, BINANCE_DELIVERY `@bookTicker` → book quote.
// - OKX `tickers` channel → book quote (as `OKXTicker`).
// - UPBIT (SIMPLE format) `trade` → last price, `orderbook` → first unit as book quote.
// - BITHUMB `transaction` → each trade's price as last.
//
// Every other line (header, http, connect, send, other channels, subscription replies)
// is a skipped message, counted by kind. A venue's error message is an error record.

/// Reads a cryptofeed recording line by line, keeping per-connection and per-symbol state.
struct CryptofeedHandler: JSONLineHandler {
  let hasExchangeTime = true
  /// The recorded exchange, from the header line.
  private var exchange = ""
  /// Connection id → websocket address.
  private var connections: [String: String] = [:]
  /// Bybit ticker values per `market:symbol`, and the update the current line makes.
  private var tickers: [String: BybitTicker] = [:]
  private var pending: (key: String, ticker: BybitTicker)? = nil
  private var message: [UInt8] = []
  private var inner = JSONScanner()

  mutating func read(_ document: JSONDocument, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    pending = nil
    guard document.kind(0) == .object, let type = document.member(0, "t"), document.kind(type) == .string else {
      throw JSONFault(reason: .missingColumn(name: "t"), offset: 0)
    }
    let kind = document.text(type)
    switch kind {
    case "header":
      exchange = document.text(document.member(0, "exchange"))
      return .skipped("header")
    case "connect":
      connections[document.text(document.member(0, "conn"))] = document.text(document.member(0, "addr"))
      return .skipped("connect")
    case "http", "send": return .skipped(kind)
    case "recv": break
    default:
      throw JSONFault(reason: .invalidValue(column: "t", text: kind, expected: "header, http, connect, send or recv"), offset: document.nodes[type].start)
    }
    let tsNode = document.member(0, "ts")
    guard let time = document.scaled(tsNode, scale: 6), time > 0 else {
      throw JSONFault(reason: .invalidTimestamp(column: "ts", text: document.text(tsNode)), offset: tsNode.map { document.nodes[$0].start } ?? 0)
    }
    // The raw message, decoded into `message`, then scanned on its own.
    var bytes = [UInt8]()
    swap(&bytes, &message)
    defer { swap(&bytes, &message) }
    bytes.removeAll(keepingCapacity: true)
    let at: Int
    if let data = document.member(0, "data"), document.kind(data) == .string {
      at = document.nodes[data].start
      JSONDocument.unescape(document.raw(data), into: &bytes)
    } else if let b64 = document.member(0, "b64"), document.kind(b64) == .string {
      at = document.nodes[b64].start
      guard Base64.decode(document.raw(b64), into: &bytes) else {
        throw JSONFault(reason: .invalidValue(column: "b64", text: document.text(b64), expected: "base64"), offset: at)
      }
    } else {
      throw JSONFault(reason: .missingColumn(name: "data"), offset: 0)
    }
    let connection = document.text(document.member(0, "conn"))
    return try bytes.withUnsafeBufferPointer { raw throws(JSONFault) -> JSONLineOutcome in
      do throws(JSONScanError) {
        try inner.scan(raw)
      } catch {
        throw JSONFault(reason: .malformedJSON(expected: error.expected + " in the message at byte \(error.offset + 1)", found: error.found), offset: at)
      }
      let message = JSONDocument(bytes: raw, nodes: inner.nodes)
      do throws(JSONFault) {
        switch exchange {
        case "BYBIT": return try bybit(message, connection: connection, time: time, into: &points)
        case "BINANCE": return try binance(message, api: .spot, time: time, into: &points)
        case "BINANCE_FUTURES": return try binance(message, api: .linear, time: time, into: &points)
        case "BINANCE_DELIVERY": return try binance(message, api: .inverse, time: time, into: &points)
        case "OKX": return try okx(message, time: time, into: &points)
        case "UPBIT": return try upbit(message, time: time, into: &points)
        case "BITHUMB": return try bithumb(message, time: time, into: &points)
        default: return .skipped("\(exchange.isEmpty ? "unknown exchange" : exchange) message")
        }
      } catch {
        // A fault inside the message points at the message's start in the line.
        throw JSONFault(reason: error.reason, offset: at)
      }
    }
  }

  mutating func commit() {
    if let (key, ticker) = pending { tickers[key] = ticker }
  }

  private mutating func bybit(_ m: JSONDocument, connection: String, time: Int64, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    guard let topicNode = m.member(0, "topic") else {
      if let success = m.member(0, "success"), m.kind(success) == .bool, !m.isBool(success) {
        return .errorRecord("bybit \(m.text(m.member(0, "op"))) failed: \(m.text(m.member(0, "ret_msg")))")
      }
      return .skipped("bybit \(m.member(0, "op").map { m.text($0) } ?? "message without topic")")
    }
    let topic = m.text(topicNode)
    let channel = topic.split(separator: ".").first.map(String.init) ?? topic
    guard channel == "tickers" else { return .skipped("bybit \(channel)") }
    let address = connections[connection] ?? ""
    guard let market = BybitTicker.market(category: String(address.split(separator: "/").last ?? "")) else {
      return .skipped("bybit tickers on a connection of unknown market")
    }
    guard let data = m.member(0, "data"), m.kind(data) == .object else { throw JSONFault(reason: .missingColumn(name: "data"), offset: 0) }
    let symbol = try m.name(m.member(data, "symbol"), "symbol", at: 0)
    let key = "\(market.rawValue):\(symbol)"
    let update = try BybitTicker(m, data)
    var state = m.isString(m.member(0, "type"), "delta") ? tickers[key] ?? BybitTicker() : BybitTicker()
    state.merge(update)
    pending = (key, state)
    state.appendPoints(to: &points, Instrument(venue: "bybit", market: market, symbol: symbol), time: time, exchangeTime: try m.millis(m.member(0, "ts"), "ts"))
    return .points
  }

  private func binance(_ m: JSONDocument, api: MarketKind, time: Int64, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    guard let streamNode = m.member(0, "stream"), let data = m.member(0, "data") else {
      if let code = m.member(0, "code") { return .errorRecord("binance code \(m.text(code)): \(m.text(m.member(0, "msg")))") }
      return .skipped("binance reply")
    }
    let stream = m.text(streamNode)
    let channel = stream.split(separator: "@").dropFirst().first.map(String.init) ?? stream
    guard channel == "bookTicker" else { return .skipped("binance \(channel)") }
    let symbol = try m.name(m.member(data, "s"), "s", at: 0)
    points.appendQuote(
      Instrument(venue: "binance", market: BinanceSymbols.market(symbol: symbol, api: api), symbol: symbol),
      time: time, exchangeTime: try m.millis(m.member(data, "E") ?? m.member(data, "T"), "E"),
      bid: try m.price(m.member(data, "b"), "b"), ask: try m.price(m.member(data, "a"), "a"),
      bidSize: try m.size(m.member(data, "B"), "B"), askSize: try m.size(m.member(data, "A"), "A"), last: nil)
    return .points
  }

  private func okx(_ m: JSONDocument, time: Int64, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    if let event = m.member(0, "event") {
      if m.isString(event, "error") { return .errorRecord("okx code \(m.text(m.member(0, "code"))): \(m.text(m.member(0, "msg")))") }
      return .skipped("okx \(m.text(event))")
    }
    let channel = m.text(m.member(0, "arg", "channel"))
    guard channel == "tickers" else { return .skipped("okx \(channel.isEmpty ? "message without channel" : channel)") }
    guard let data = m.member(0, "data"), m.kind(data) == .array else { throw JSONFault(reason: .missingColumn(name: "data"), offset: 0) }
    for item in m.elements(data) { _ = try OKXTicker.append(m, item, time: time, to: &points) }
    return .points
  }

  private func upbit(_ m: JSONDocument, time: Int64, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    if let error = m.member(0, "error") { return .errorRecord("upbit \(m.text(m.member(error, "name"))): \(m.text(m.member(error, "message")))") }
    let type = m.text(m.member(0, "ty"))
    guard type == "trade" || type == "orderbook" else { return .skipped("upbit \(type.isEmpty ? "message without type" : type)") }
    let instrument = Instrument(venue: "upbit", market: .spot, symbol: try m.name(m.member(0, "cd"), "cd", at: 0))
    let exchangeTime = try m.millis(m.member(0, "tms"), "tms")
    if type == "trade" {
      points.appendQuote(instrument, time: time, exchangeTime: exchangeTime, bid: nil, ask: nil, last: try m.price(m.member(0, "tp"), "tp"))
    } else {
      guard let units = m.member(0, "obu"), let top = m.elements(units).first else { throw JSONFault(reason: .missingColumn(name: "obu"), offset: 0) }
      points.appendQuote(
        instrument, time: time, exchangeTime: exchangeTime,
        bid: try m.price(m.member(top, "bp"), "bp"), ask: try m.price(m.member(top, "ap"), "ap"),
        bidSize: try m.size(m.member(top, "bs"), "bs"), askSize: try m.size(m.member(top, "as"), "as"), last: nil)
    }
    return .points
  }

  private func bithumb(_ m: JSONDocument, time: Int64, into points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    if let status = m.member(0, "status") {
      if m.isString(status, "0000") { return .skipped("bithumb status") }
      return .errorRecord("bithumb status \(m.text(status)): \(m.text(m.member(0, "resmsg")))")
    }
    let type = m.text(m.member(0, "type"))
    guard type == "transaction" else { return .skipped("bithumb \(type.isEmpty ? "message without type" : type)") }
    guard let list = m.member(0, "content", "list"), m.kind(list) == .array else { throw JSONFault(reason: .missingColumn(name: "content.list"), offset: 0) }
    for trade in m.elements(list) {
      let symbol = try m.name(m.member(trade, "symbol"), "symbol", at: 0)
      // `contDtm` is Korea time without a zone.
      let exchangeTime = m.member(trade, "contDtm").flatMap { node -> Int64? in
        let raw = m.raw(node)
        return raw.isEmpty ? nil : TimeParser.parse(raw.baseAddress!, raw.count, form: .iso8601, defaultOffset: 9 * 3_600_000_000)
      }
      points.appendQuote(
        Instrument(venue: "bithumb", market: .spot, symbol: symbol), time: time, exchangeTime: exchangeTime,
        bid: nil, ask: nil, last: try m.price(m.member(trade, "contPrice"), "contPrice"))
    }
    return .points
  }
}

extension JSONDocument {
  /// Whether the boolean at `node` is `true`.
  func isBool(_ node: Int) -> Bool { nodes[node].kind == .bool && bytes[nodes[node].start] == UInt8(ascii: "t") }
}

/// Standard base64 (RFC 4648, `+/`, `=` padding) decoding.
enum Base64 {
  /// Appends the decoded bytes of `text` to `out`; `false` when it is not base64.
  static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
    var n = text.count
    while n > 0 && text[n - 1] == UInt8(ascii: "=") { n -= 1 }
    guard text.count % 4 == 0, text.count - n <= 2 else { return false }
    var accumulator: UInt32 = 0, bits = 0
    for k in 0..<n {
      let c = text[k]
      let v: UInt32
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - 65)
      case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - 71)
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c) + 4
      case UInt8(ascii: "+"): v = 62
      case UInt8(ascii: "/"): v = 63
      default: return false
      }
      accumulator = accumulator << 6 | v
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
      }
    }
    return true
  }
}
