import ArbCore

// Bybit public trading history (public.bybit.com, sources.md §3.1): derivatives trades
// `trading/{SYMBOL}/{SYMBOL}{YYYY-MM-DD}.csv.gz` with decimal-second timestamps and an
// optional trailing `RPI` column, and spot trades `spot/{SYMBOL}/{SYMBOL}_{DATE}.csv.gz`
// with integer-ms timestamps and no symbol column. Rows are not known to be sorted:
// ordering is left to the usual order check (or `--sort`).

/// Headers, layouts and instrument rules of the Bybit public trade files.
enum BybitFiles {
  /// Derivatives trades header of older and delivery files.
  static let tradingHeader = "timestamp,symbol,side,size,price,tickDirection,trdMatchID,grossValue,homeNotional,foreignNotional"
  /// The same with the trailing `RPI` column of newer USDT-perpetual files.
  static let tradingHeaderRPI = tradingHeader + ",RPI"
  /// Spot trades header.
  static let spotHeader = "id,timestamp,price,volume,side,rpi"

  /// Where each quantity sits. Trading: time = `timestamp` (decimal seconds, exact to
  /// the µs), price = `price`, symbol = `symbol`, the market told by the symbol (see
  /// `market(symbol:)`). Spot: time = `timestamp` (ms), price = `price`, the symbol
  /// from the file name. Venue `bybit`; the leg's prefix overrides venue and market
  /// (and, for spot, the symbol). Sizes are not read. `headerFields` is the field
  /// count of the file's header (10 or 11 for trading).
  static func layout(_ format: RecordFormat, headerFields: Int?, path: String) -> RecordLayout {
    switch format {
    case .bybitTrading:
      let rpi = headerFields == 11
      let names = (rpi ? tradingHeaderRPI : tradingHeader).split(separator: ",").map(String.init)
      var layout = RecordLayout(
        names: names, fieldCount: names.count, symbol: 1, time: 0, timeForm: .fractionalSeconds, price: 4)
      layout.fixedVenue = "bybit"
      layout.marketFromBybitSymbol = true
      return layout
    default:
      let names = spotHeader.split(separator: ",").map(String.init)
      var layout = RecordLayout(names: names, fieldCount: names.count, time: 1, timeForm: .epochMillis, price: 2)
      layout.fixedVenue = "bybit"
      layout.fixedMarket = .spot
      layout.fixedSymbol = spotSymbol(path: path)
      return layout
    }
  }

  /// The market of a Bybit derivatives symbol: a month-coded inverse future
  /// (`BTCUSDH25`: `USD`, a month code `F G H J K M N Q U V X Z`, two year digits) or a
  /// dated name with a `-` (`BTC-28MAR25`) is `future`; a name ending in `USD`
  /// (`BTCUSD`) is `inverse`; anything else (`BTCUSDT`, `BTCPERP`, other USDT/USDC
  /// names) is `linear`.
  static func market(symbol: String) -> MarketKind {
    let bytes = Array(symbol.utf8)
    let n = bytes.count
    if n >= 6, "USD".utf8.elementsEqual(bytes[(n - 6)..<(n - 3)]),
      "FGHJKMNQUVXZ".utf8.contains(bytes[n - 3]), bytes[n - 2] &- 48 < 10, bytes[n - 1] &- 48 < 10
    {
      return .future
    }
    if bytes.contains(UInt8(ascii: "-")) { return .future }
    if symbol.hasSuffix("USD") { return .inverse }
    return .linear
  }

  /// The symbol of a spot file name `BTCUSDT_2025-01-01.csv.gz` (also monthly
  /// `BTCUSDT_2025-01.csv.gz`): the part before the last `_` when a date follows it;
  /// `nil` otherwise.
  static func spotSymbol(path: String) -> String? {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let underscore = name.lastIndex(of: "_") else { return nil }
    let stem = name[..<underscore]
    let date = name[name.index(after: underscore)...].prefix(5)
    guard !stem.isEmpty, date.count == 5, date.prefix(4).allSatisfy(\.isNumber), date.last == "-",
      stem.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
    else { return nil }
    return String(stem)
  }
}
