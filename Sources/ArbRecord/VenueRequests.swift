import ArbCore
import Foundation

/// One GET of a venue's public API: a path and its query parameters, in order.
struct VenueRequest: Sendable, Equatable {
  var path: String
  var query: [QueryParameter] = []

  /// The query as a URL query string, every byte outside `A-Z a-z 0-9 - _ . ~ ,`
  /// percent-encoded (Binance's `symbols=["BTCUSDT"]` becomes `%5B%22BTCUSDT%22%5D`).
  var queryString: String {
    query.map { "\($0.name)=\(Self.escape($0.value))" }.joined(separator: "&")
  }

  private static func escape(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: ","):
        out.append(Character(UnicodeScalar(byte)))
      default:
        out += String(format: "%%%02X", byte)
      }
    }
    return out
  }
}

/// A query parameter of a `VenueRequest`.
struct QueryParameter: Sendable, Equatable {
  var name: String
  var value: String
}

/// The requests one poll of a target makes, per venue and market. Each endpoint's shape
/// is in docs/sources.md with the venue document it was checked against.
struct VenueRequests: Sendable {
  let target: RecordTarget
  let books: Bool

  /// Upbit lists at most this many markets in one `/v1/ticker` or `/v1/orderbook` request.
  static let upbitMarketsPerRequest = 100

  /// Whether `--books` can be served without a symbol list (the venue returns every
  /// book of the market in one request); otherwise books need named symbols.
  var booksNeedSymbols: Bool {
    switch target.venue {
    case .upbit, .bithumb: false
    case .coinone, .bybit, .binance, .okx: true
    }
  }

  /// The request that lists the market's symbols, for a venue whose ticker request
  /// must name them (Upbit); `nil` when the poll needs no list.
  var discovery: VenueRequest? {
    target.venue == .upbit && target.symbols.isEmpty ? VenueRequest(path: "/v1/market/all", query: [.init(name: "isDetails", value: "false")]) : nil
  }

  /// The symbols in a discovery response (Upbit's `[{"market": "KRW-BTC", …}, …]`),
  /// `nil` when the body is not such a list.
  static func discoveredSymbols(_ body: Data) -> [String]? {
    guard let list = try? JSONSerialization.jsonObject(with: body) as? [[String: Any]] else { return nil }
    let markets = list.compactMap { $0["market"] as? String }
    return markets.isEmpty ? nil : markets
  }

  /// The requests of one poll, with `symbols` the named or discovered ones.
  func poll(symbols: [String]) -> [VenueRequest] {
    let market = target.market
    let each = { (make: (String) -> VenueRequest) in symbols.map(make) }
    switch target.venue {
    case .upbit:
      var requests: [VenueRequest] = []
      for start in stride(from: 0, to: symbols.count, by: Self.upbitMarketsPerRequest) {
        let markets = symbols[start..<min(start + Self.upbitMarketsPerRequest, symbols.count)].joined(separator: ",")
        requests.append(VenueRequest(path: "/v1/ticker", query: [.init(name: "markets", value: markets)]))
        if books { requests.append(VenueRequest(path: "/v1/orderbook", query: [.init(name: "markets", value: markets)])) }
      }
      return requests
    case .bithumb:
      let pairs = symbols.isEmpty ? ["ALL_KRW"] : symbols
      return pairs.flatMap { pair in
        [VenueRequest(path: "/public/ticker/\(pair)")] + (books ? [VenueRequest(path: "/public/orderbook/\(pair)")] : [])
      }
    case .coinone:
      let tickers = symbols.isEmpty ? [VenueRequest(path: "/public/v2/ticker_new/KRW")] : each { VenueRequest(path: "/public/v2/ticker_new/KRW/\($0)") }
      return tickers + (books ? each { VenueRequest(path: "/public/v2/orderbook/KRW/\($0)") } : [])
    case .bybit:
      let category = QueryParameter(name: "category", value: market.rawValue)
      let tickers =
        symbols.isEmpty
        ? [VenueRequest(path: "/v5/market/tickers", query: [category])]
        : each { VenueRequest(path: "/v5/market/tickers", query: [category, .init(name: "symbol", value: $0)]) }
      let depth = each { VenueRequest(path: "/v5/market/orderbook", query: [category, .init(name: "symbol", value: $0), .init(name: "limit", value: "50")]) }
      return tickers + (books ? depth : [])
    case .binance:
      let api = market == .spot ? "/api/v3" : market == .linear ? "/fapi/v1" : "/dapi/v1"
      var requests: [VenueRequest]
      if symbols.isEmpty {
        requests = [VenueRequest(path: "\(api)/ticker/bookTicker")]
        if market != .spot { requests.append(VenueRequest(path: "\(api)/premiumIndex")) }
      } else if market == .spot {
        let list = "[" + symbols.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        requests = [VenueRequest(path: "\(api)/ticker/bookTicker", query: [.init(name: "symbols", value: list)])]
      } else {
        requests =
          each { VenueRequest(path: "\(api)/ticker/bookTicker", query: [.init(name: "symbol", value: $0)]) }
          + each { VenueRequest(path: "\(api)/premiumIndex", query: [.init(name: "symbol", value: $0)]) }
      }
      let depth = each { VenueRequest(path: "\(api)/depth", query: [.init(name: "symbol", value: $0), .init(name: "limit", value: "20")]) }
      return requests + (books ? depth : [])
    case .okx:
      let instType = market == .spot ? "SPOT" : market == .future ? "FUTURES" : "SWAP"
      let tickers =
        symbols.isEmpty
        ? [VenueRequest(path: "/api/v5/market/tickers", query: [.init(name: "instType", value: instType)])]
        : each { VenueRequest(path: "/api/v5/market/ticker", query: [.init(name: "instId", value: $0)]) }
      let depth = each { VenueRequest(path: "/api/v5/market/books", query: [.init(name: "instId", value: $0), .init(name: "sz", value: "20")]) }
      return tickers + (books ? depth : [])
    }
  }
}
