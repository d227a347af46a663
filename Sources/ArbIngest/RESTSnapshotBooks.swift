import ArbCore

// The order-book responses of `rest.snapshots` (what `arbkit record --books` asks
// for), one reader per venue on one level reader. Each book is one book quote — the
// highest bid and the lowest ask with their sizes (sides are not assumed sorted) — and,
// when depth is kept, every level of it as the quote's book. Levels are written as
// arrays (`["price", "size", …]`: Bybit, Binance, OKX with 4 fields) or as objects
// (Bithumb `price`/`quantity`, Coinone `price`/`qty`, Upbit units holding a bid and an
// ask level each). A book with an empty side adds no point.

/// How a venue writes one level of a book side.
enum BookLevelForm {
  /// `["price", "size", …]`: the first two elements, numbers or number strings.
  case array
  /// An object with the price and the size under these keys.
  case object(price: StaticString, size: StaticString)
}

/// One side of a recorded book: the array of its levels, how they are written, and the
/// name faults give it.
struct BookLevels {
  var node: Int
  var form: BookLevelForm
  var column: String
}

/// The book quote (and the book, when kept) of one venue book response.
struct RecordedBook {
  let document: JSONDocument

  /// The price and size of `level` of `side`: a positive finite price and a
  /// non-negative size, both present, or a fault at the level.
  func level(_ level: Int, of side: BookLevels) throws(JSONFault) -> (price: Double, size: Double) {
    let price: Int?
    let size: Int?
    switch side.form {
    case .array:
      // The first two elements, read without listing the array.
      guard document.kind(level) == .array, level + 1 < document.nodes[level].after,
        document.nodes[level + 1].after < document.nodes[level].after
      else {
        throw JSONFault(
          reason: .invalidValue(column: side.column, text: document.text(level), expected: "[price, size, …]"), offset: document.nodes[level].start)
      }
      price = level + 1
      size = document.nodes[level + 1].after
    case .object(let priceKey, let sizeKey):
      guard document.kind(level) == .object else {
        throw JSONFault(
          reason: .invalidValue(column: side.column, text: document.text(level), expected: "a level object"), offset: document.nodes[level].start)
      }
      price = document.member(level, priceKey)
      size = document.member(level, sizeKey)
    }
    let value = try document.price(price, side.column)!
    let amount = try document.size(size, side.column)
    if amount.isNaN {
      throw JSONFault(
        reason: .invalidValue(column: side.column, text: document.text(level), expected: "the size of a level"), offset: document.nodes[level].start)
    }
    return (value, amount)
  }

  /// The best level of `side` (the highest price for bids, the lowest for asks), `nil`
  /// for an empty side. Every level is checked.
  ///
  /// - Complexity: O(levels), no allocation.
  func best(_ side: BookLevels, bid: Bool) throws(JSONFault) -> (price: Double, size: Double)? {
    var best: (price: Double, size: Double)? = nil
    let end = document.nodes[side.node].after
    var k = side.node + 1
    while k < end {
      let level = try level(k, of: side)
      if best == nil || (bid ? level.price > best!.price : level.price < best!.price) { best = level }
      k = document.nodes[k].after
    }
    return best
  }

  /// Appends to `depth` every level of `side`, best first; two levels at one price is
  /// a fault.
  func appendLevels(_ side: BookLevels, bid: Bool, to depth: inout BookDepth) throws(JSONFault) {
    var levels: [(price: Double, size: Double)] = []
    for node in document.elements(side.node) { levels.append(try level(node, of: side)) }
    levels.sort { bid ? $0.price > $1.price : $0.price < $1.price }
    for k in levels.indices {
      if k > 0 && levels[k].price == levels[k - 1].price {
        throw JSONFault(
          reason: .invalidValue(column: side.column, text: "\(levels[k].price)", expected: "one level per price"), offset: document.nodes[side.node].start)
      }
      depth.appendLevel(bid: bid, price: levels[k].price, size: levels[k].size)
    }
  }

  /// The array of side `key` of `node`, or a fault naming `column`.
  func side(_ node: Int, _ key: StaticString, _ form: BookLevelForm, column: String) throws(JSONFault) -> BookLevels {
    guard let side = document.member(node, key), document.kind(side) == .array else {
      throw JSONFault(reason: .missingColumn(name: column), offset: document.nodes[node].start)
    }
    return BookLevels(node: side, form: form, column: column)
  }

  /// Appends the book quote of `bids` and `asks` (none when a side is empty), with the
  /// whole book when `keepsDepth`.
  func append(
    _ instrument: Instrument, bids: BookLevels, asks: BookLevels, time: Int64, exchangeTime: Int64?, keepsDepth: Bool, to points: inout [JSONPoint]
  ) throws(JSONFault) {
    let bid = try best(bids, bid: true)
    let ask = try best(asks, bid: false)
    guard let bid, let ask else { return }
    var point = JSONPoint(
      instrument: instrument, field: .price, time: time, exchangeTime: exchangeTime, bid: bid.price, ask: ask.price, bidSize: bid.size,
      askSize: ask.size, book: true, wholeBook: true)
    if keepsDepth {
      var depth = BookDepth()
      try appendLevels(bids, bid: true, to: &depth)
      try appendLevels(asks, bid: false, to: &depth)
      depth.closeBook()
      point.depth = depth
    }
    points.append(point)
  }
}

extension RESTSnapshotHandler.Context {
  private var books: RecordedBook { RecordedBook(document: document) }

  /// A query parameter of the request that names the instrument, or a fault.
  private func parameter(_ key: StaticString) throws(JSONFault) -> String {
    try document.name(envelope.params.flatMap { document.member($0, key) }, "params.\(key)", at: 0)
  }

  /// Bybit `/v5/market/orderbook` (its `retCode` already checked): `result.s`,
  /// `result.b`/`result.a` as `["price", "size"]`, `result.ts`; the market from
  /// `params.category` (a dated contract is a `future`, as its ticker).
  func bybitBook(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    let category = try parameter("category")
    guard let market = BybitTicker.market(category: category) else { return .skipped("bybit \(category) orderbook") }
    guard let result = document.member(response, "result"), document.kind(result) == .object else {
      throw JSONFault(reason: .missingColumn(name: "result"), offset: offset(response))
    }
    let symbol = try document.name(document.member(result, "s"), "result.s", at: offset(result))
    let dated = market != .spot && BybitFiles.market(symbol: symbol) == .future
    try books.append(
      Instrument(venue: "bybit", market: dated ? .future : market, symbol: symbol),
      bids: try books.side(result, "b", .array, column: "result.b"), asks: try books.side(result, "a", .array, column: "result.a"),
      time: time, exchangeTime: try document.millis(document.member(result, "ts"), "result.ts"), keepsDepth: keepsDepth, to: &points)
    return .points
  }

  /// Binance `…/depth` (its error object already checked): `bids`/`asks` as
  /// `["price", "qty"]`, the symbol from `params.symbol`; exchange time `T` (USDⓈ-M
  /// and COIN-M; spot has none).
  func binanceBook(api: MarketKind, _ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    let symbol = try parameter("symbol")
    try books.append(
      Instrument(venue: "binance", market: BinanceSymbols.market(symbol: symbol, api: api), symbol: symbol),
      bids: try books.side(response, "bids", .array, column: "bids"), asks: try books.side(response, "asks", .array, column: "asks"),
      time: time, exchangeTime: try document.millis(document.member(response, "T"), "T"), keepsDepth: keepsDepth, to: &points)
    return .points
  }

  /// OKX `/api/v5/market/books` (its `code` already checked): each `data` item's
  /// `bids`/`asks` as `["price", "size", "0", "orders"]` and `ts`; the instrument from
  /// `params.instId`.
  func okxBook(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    let id = try parameter("instId")
    guard let market = OKXTicker.market(instType: nil, instId: id) else { return .skipped("okx \(envelope.endpoint)") }
    guard let data = document.member(response, "data"), document.kind(data) == .array else {
      throw JSONFault(reason: .missingColumn(name: "data"), offset: offset(response))
    }
    for item in document.elements(data) {
      try books.append(
        Instrument(venue: "okx", market: market, symbol: id),
        bids: try books.side(item, "bids", .array, column: "bids"), asks: try books.side(item, "asks", .array, column: "asks"),
        time: time, exchangeTime: try document.millis(document.member(item, "ts"), "ts"), keepsDepth: keepsDepth, to: &points)
    }
    return .points
  }

  /// Upbit `/v1/orderbook` (its error object already checked): per item, `market`,
  /// `timestamp`, and `orderbook_units` each holding one bid and one ask level.
  func upbitBook(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    for item in items(response) {
      let market = try document.name(document.member(item, "market"), "market", at: offset(item))
      let bids = try books.side(item, "orderbook_units", .object(price: "bid_price", size: "bid_size"), column: "orderbook_units")
      var asks = bids
      asks.form = .object(price: "ask_price", size: "ask_size")
      try books.append(
        Instrument(venue: "upbit", market: .spot, symbol: market), bids: bids, asks: asks, time: time,
        exchangeTime: try document.millis(document.member(item, "timestamp"), "timestamp"), keepsDepth: keepsDepth, to: &points)
    }
    return .points
  }

  /// Bithumb `/public/orderbook/{COIN}_{PAYMENT}` and `…/ALL_{PAYMENT}` (its `status`
  /// already checked): `data.bids`/`data.asks` of `{"quantity", "price"}` (for `ALL_`,
  /// one object per coin in `data`), `data.timestamp`; symbol `COIN_PAYMENT`.
  func bithumbBook(pair: Substring, _ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    guard let data = document.member(response, "data"), document.kind(data) == .object else {
      throw JSONFault(reason: .missingColumn(name: "data"), offset: offset(response))
    }
    let exchangeTime = try document.millis(document.member(data, "timestamp"), "timestamp")
    var sides: [(symbol: String, node: Int)] = []
    if pair.hasPrefix("ALL_") {
      let payment = pair.dropFirst(4)
      for (key, value) in document.members(data) where document.kind(value) == .object {
        sides.append(("\(document.text(key))_\(payment)", value))
      }
    } else {
      sides.append((String(pair), data))
    }
    let form = BookLevelForm.object(price: "price", size: "quantity")
    for (symbol, node) in sides {
      try books.append(
        Instrument(venue: "bithumb", market: .spot, symbol: symbol), bids: try books.side(node, "bids", form, column: "bids"),
        asks: try books.side(node, "asks", form, column: "asks"), time: time, exchangeTime: exchangeTime, keepsDepth: keepsDepth, to: &points)
    }
    return .points
  }

  /// Coinone `/public/v2/orderbook/{QUOTE}/{TARGET}` (its `result` and `error_code`
  /// already checked): `bids`/`asks` of `{"price", "qty"}`, `timestamp`; symbol
  /// `target_currency`.
  func coinoneBook(_ points: inout [JSONPoint]) throws(JSONFault) -> JSONLineOutcome {
    let symbol = try document.name(document.member(response, "target_currency"), "target_currency", at: offset(response))
    let form = BookLevelForm.object(price: "price", size: "qty")
    try books.append(
      Instrument(venue: "coinone", market: .spot, symbol: symbol), bids: try books.side(response, "bids", form, column: "bids"),
      asks: try books.side(response, "asks", form, column: "asks"), time: time,
      exchangeTime: try document.millis(document.member(response, "timestamp"), "timestamp"), keepsDepth: keepsDepth, to: &points)
    return .points
  }
}
