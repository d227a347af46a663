import ArbCore

// Binance public data (data.binance.vision): klines, bookTicker, aggTrades and trades
// CSVs, the kline-shaped premium index, mark and index price files and the monthly
// funding rates, with or without a header row (spot files never have one; futures files do from
// some date on), timestamps in ms or µs per value (spot switched to µs in 2025). The
// files do not name their instrument: the leg's prefix does, or else the file name.

extension RecordFormat {
  /// One of the Binance public data formats.
  var isBinance: Bool {
    switch self {
    case .binanceKlines, .binanceBookTicker, .binanceAggTrades, .binanceTrades: true
    case .binancePremiumIndexKlines, .binanceMarkPriceKlines, .binanceIndexPriceKlines, .binanceFundingRate: true
    default: false
    }
  }

  /// What the kline-shaped Binance formats hold; `nil` for the others.
  var binanceKlineField: SeriesField? {
    switch self {
    case .binanceKlines: .price
    case .binancePremiumIndexKlines: .premiumIndex
    case .binanceMarkPriceKlines: .mark
    case .binanceIndexPriceKlines: .index
    default: nil
    }
  }
}

/// Headers, layouts and detection of the Binance public data files.
enum BinanceFiles {
  /// USDⓈ-M/COIN-M klines header (spot klines have none; same 12 columns).
  static let klinesHeader = "open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore"
  static let bookTickerHeader = "update_id,best_bid_price,best_bid_qty,best_ask_price,best_ask_qty,transaction_time,event_time"
  /// Futures aggTrades header; spot files add an eighth column `is_best_match`.
  static let aggTradesHeader = "agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker"
  /// Futures trades header; spot files add a seventh column `is_best_match`.
  static let tradesHeader = "id,price,qty,quote_qty,time,is_buyer_maker"
  /// `fundingRate` header (monthly files, ms).
  static let fundingRateHeader = "calc_time,funding_interval_hours,last_funding_rate"

  /// Field counts a row may have, the header's first (a file keeps the count of its
  /// header, or else of its first row).
  static func fieldCounts(_ format: RecordFormat) -> [Int] {
    switch format {
    case .binanceKlines, .binancePremiumIndexKlines, .binanceMarkPriceKlines, .binanceIndexPriceKlines: [12]
    case .binanceFundingRate: [3]
    case .binanceBookTicker: [7]
    case .binanceAggTrades: [7, 8]
    case .binanceTrades: [6, 7]
    default: []
    }
  }

  /// Where each quantity sits. Klines (also premium index, mark and index price
  /// klines): value = `close`, time = `close_time` plus one unit (the candle's end,
  /// `open_time + interval`). fundingRate: value = `last_funding_rate`, time =
  /// `calc_time` snapped to the funding grid (`FundingGrid`), `funding_interval_hours`
  /// kept per point (`QuoteSeries.fundingInterval`). bookTicker: bid/ask and their
  /// sizes, time = `transaction_time`, other time = `event_time`. Trades: price only.
  /// Venue `binance`; market and symbol from the path (the leg's prefix overrides both).
  static func layout(_ format: RecordFormat, rowFields: Int?, path: String) -> RecordLayout {
    let header = RecordFormat.named.first { $0.format == format }!.header
    var names = header.split(separator: ",").map(String.init)
    let counts = fieldCounts(format)
    let count = rowFields.flatMap { counts.contains($0) ? $0 : nil } ?? counts[0]
    if count > names.count { names.append("is_best_match") }
    var layout = RecordLayout(names: names, fieldCount: count, time: 0, timeForm: .epochAuto)
    switch format {
    case .binanceKlines, .binancePremiumIndexKlines, .binanceMarkPriceKlines, .binanceIndexPriceKlines:
      layout.time = 6
      layout.timeIsCloseTime = true
      layout.price = 4
      layout.field = format.binanceKlineField!
    case .binanceFundingRate:
      layout.snapsToFundingGrid = true
      layout.fundingIntervalHours = 1
      layout.price = 2
      layout.field = .fundingRate
    case .binanceBookTicker:
      layout.time = 5
      layout.otherTime = 6
      layout.otherTimeForm = .epochAuto
      (layout.bid, layout.bidSize, layout.ask, layout.askSize) = (1, 2, 3, 4)
    case .binanceAggTrades:
      layout.time = 5
      layout.price = 1
    default:
      layout.time = 4
      layout.price = 1
    }
    let named = instrument(path: path)
    layout.fixedVenue = "binance"
    layout.fixedMarket = named.market
    layout.fixedSymbol = named.symbol
    return layout
  }

  /// Market and symbol from a Binance path: `…/futures/um/…` is linear, `…/futures/cm/…`
  /// inverse, anything else spot; the symbol is the file name's stem before its first
  /// `-` (`BTCUSDT-1m-2025-01-01.csv`, `ETHUSD_PERP-bookTicker-2024-03-01.zip`), or
  /// `nil` when the name is not shaped like that.
  static func instrument(path: String) -> (market: MarketKind, symbol: String?) {
    let market: MarketKind = path.contains("futures/um/") ? .linear : path.contains("futures/cm/") ? .inverse : .spot
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let parts = name.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count >= 3, let first = parts.first, !first.isEmpty,
      first.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") })
    else { return (market, nil) }
    return (market, String(first))
  }

  /// A file detected as `binance.klines` (from its header or first row) is premium
  /// index, mark or index price klines when its path has the Binance folder of that
  /// kind (`…/premiumIndexKlines/…`, `…/markPriceKlines/…`, `…/indexPriceKlines/…`);
  /// any other format, or path, is kept.
  static func refine(_ format: RecordFormat, path: String) -> RecordFormat {
    guard format == .binanceKlines else { return format }
    let folders: [(String, RecordFormat)] = [
      ("/premiumIndexKlines/", .binancePremiumIndexKlines), ("/markPriceKlines/", .binanceMarkPriceKlines),
      ("/indexPriceKlines/", .binanceIndexPriceKlines),
    ]
    let rooted = "/" + path
    return folders.first { rooted.contains($0.0) }?.1 ?? format
  }

  /// The fields of `line` when its first field is a whole number (a data row, not a
  /// header); `nil` otherwise. Only the first line of a file comes here.
  static func dataRowFields(_ line: UnsafeBufferPointer<UInt8>) -> [ArraySlice<UInt8>]? {
    // Fields may be quoted, as any CSV writer may quote them.
    var splitter = FieldSplitter(quote: UInt8(ascii: "\""))
    guard let count = splitter.split(line) else { return nil }
    let bytes = Array(line)
    let fields = (0..<count).map { bytes[splitter.starts[$0]..<splitter.ends[$0]] }
    guard let first = fields.first, !first.isEmpty, first.allSatisfy({ $0 &- 48 < 10 }) else { return nil }
    return fields
  }

  /// The format of a headerless file from its first row: 12 numbers are klines;
  /// 8 fields ending in two booleans spot aggTrades; 7 fields ending in two booleans
  /// spot trades. Anything else is `nil` (the caller reports an unknown format).
  static func detect(row fields: [ArraySlice<UInt8>]) -> RecordFormat? {
    func isNumber(_ field: ArraySlice<UInt8>) -> Bool {
      !field.isEmpty && field.withUnsafeBufferPointer { DecimalParser.parse($0.baseAddress!, $0.count) != nil }
    }
    func isBool(_ field: ArraySlice<UInt8>) -> Bool {
      ["True", "False", "true", "false"].contains { $0.utf8.elementsEqual(field) }
    }
    func numbers(_ n: Int) -> Bool { fields.prefix(n).allSatisfy(isNumber) }
    func boolsAfter(_ n: Int) -> Bool { fields.dropFirst(n).allSatisfy(isBool) }
    switch fields.count {
    case 12 where numbers(12): return .binanceKlines
    case 8 where numbers(6) && boolsAfter(6): return .binanceAggTrades
    case 7 where numbers(5) && boolsAfter(5): return .binanceTrades
    default: return nil
    }
  }
}

extension TimeParser {
  /// A candle's `close_time` (its last ms or µs, unit decided per value as `epochAuto`
  /// does) as the microsecond the candle ends: the value plus one of its units.
  ///
  /// - Complexity: O(digits), once per kline row.
  @inline(__always)
  static func parseCloseTime(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int64? {
    guard let v = DecimalParser.parseInt64(p, n), let micros = parse(p, n, form: .epochAuto, defaultOffset: 0) else { return nil }
    let magnitude = v.magnitude
    let unit: Int64 =
      magnitude < 100_000_000_000 ? 1_000_000 : magnitude < 100_000_000_000_000 ? 1000 : 1
    return micros.addingReportingOverflow(unit).overflow ? nil : micros + unit
  }
}
