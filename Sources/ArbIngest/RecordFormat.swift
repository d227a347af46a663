import ArbCore

/// The formats ArbKit reads, by the id that `inspect` prints and `--input-format` takes.
public enum RecordFormat: Sendable, Equatable {
  /// Tardis.dev `quotes` CSV (top of book, two clocks).
  case tardisQuotes
  /// Tardis.dev `book_ticker` CSV: the exchange's own best bid/offer stream, laid out
  /// as `quotes`. Only by name (`--input-format`): its header is detected as quotes.
  case tardisBookTicker
  /// Tardis.dev `book_snapshot_5` / `book_snapshot_25` CSV, read as its top level.
  /// Those two depths are detected; another depth (`levels` ≥ 1) is read when named.
  case tardisBookSnapshot(levels: Int)
  /// Tardis.dev `incremental_book_L2` CSV: an order book rebuilt per instrument from
  /// its level updates, read as one top-of-book quote per instant (`TardisL2.swift`).
  case tardisIncrementalL2
  /// Tardis.dev `trades` CSV (one price per row).
  case tardisTrades
  /// Tardis.dev `derivative_ticker` CSV: last, mark and index prices and the funding
  /// rate, each its own series per instrument (`TardisDerivativeTicker.swift`).
  case tardisDerivativeTicker
  /// ArbKit's normalised quotes CSV `ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last`.
  case arbkitQuotes
  /// ArbKit's FX CSV `ts_us,pair,rate`.
  case arbkitFX
  /// Binance public data klines (spot, USDⓈ-M, COIN-M).
  case binanceKlines
  /// Binance public data `premiumIndexKlines`: kline layout, a signed premium index.
  case binancePremiumIndexKlines
  /// Binance public data `markPriceKlines`: kline layout, mark prices.
  case binanceMarkPriceKlines
  /// Binance public data `indexPriceKlines`: kline layout, index prices.
  case binanceIndexPriceKlines
  /// Binance public data `fundingRate` (monthly, futures): signed funding rates.
  case binanceFundingRate
  /// Binance public data `bookTicker` (futures only).
  case binanceBookTicker
  /// Binance public data `aggTrades` (spot 8 columns, futures 7).
  case binanceAggTrades
  /// Binance public data `trades` (spot 7 columns, futures 6).
  case binanceTrades
  /// Bybit public derivatives trades (`trading/…`), with or without the `RPI` column.
  case bybitTrading
  /// Bybit public spot trades (`spot/…`).
  case bybitSpot
  /// freqtrade OHLCV JSON (`[[open_time_ms, open, high, low, close, volume], …]`), read
  /// by `FreqtradeJSON` rather than line by line; detected from a leading `[[`.
  case freqtradeOHLCV
  /// Recorded REST responses as JSON lines, one response per line with its receive
  /// time (`RESTSnapshots.swift`).
  case restSnapshots
  /// cryptofeed raw websocket recordings (`CryptofeedRecording.swift`).
  case cryptofeed
  /// Order-book snapshots as JSON lines `{timestamp, exchange, symbol, bids, asks}`,
  /// read as their top level (`OrderBookLines.swift`).
  case orderBookLines
  /// A daily kimchi-premium history, a JSON array of daily objects (`DailyHistoryJSON.swift`).
  case kimchiHistory
  /// A column-mapped CSV described by a `ColumnSpec`.
  case columns(ColumnSpec)
  /// A Parquet file (`PAR1`), named: its table is told by its column names (`ParquetReader`).
  case parquet
  /// A Parquet table whose column names are no CSV header: pandas-style quotes and
  /// trades, nautilus_trader's quote and trade ticks (`ParquetTable`).
  case parquetTable(ParquetTable)

  /// The id printed by `inspect` (`tardis.quotes`, `columns`).
  public var id: String {
    switch self {
    case .tardisQuotes: "tardis.quotes"
    case .tardisBookTicker: "tardis.book_ticker"
    case .tardisBookSnapshot(let levels): "tardis.book_snapshot_\(levels)"
    case .tardisIncrementalL2: "tardis.incremental_book_L2"
    case .tardisTrades: "tardis.trades"
    case .tardisDerivativeTicker: "tardis.derivative_ticker"
    case .arbkitQuotes: "arbkit.quotes"
    case .arbkitFX: "arbkit.fx"
    case .binanceKlines: "binance.klines"
    case .binancePremiumIndexKlines: "binance.premiumIndexKlines"
    case .binanceMarkPriceKlines: "binance.markPriceKlines"
    case .binanceIndexPriceKlines: "binance.indexPriceKlines"
    case .binanceFundingRate: "binance.fundingRate"
    case .binanceBookTicker: "binance.bookTicker"
    case .binanceAggTrades: "binance.aggTrades"
    case .binanceTrades: "binance.trades"
    case .bybitTrading: "bybit.trading"
    case .bybitSpot: "bybit.spot"
    case .freqtradeOHLCV: "freqtrade.ohlcv"
    case .restSnapshots: "rest.snapshots"
    case .cryptofeed: "cryptofeed.jsonl"
    case .orderBookLines: "orderbook.jsonl"
    case .kimchiHistory: "kimchi.history"
    case .columns: "columns"
    case .parquet: "parquet"
    case .parquetTable(let table): table.kind.rawValue
    }
  }

  /// The named formats, with the exact header line each one starts with (Binance files
  /// may also have none: see `BinanceFiles.swift`). Detection takes the first match, so
  /// `tardis.quotes` comes before `tardis.book_ticker`, and `binance.klines` before the
  /// kline-shaped Binance formats (told apart by their folder, `BinanceFiles.refine`),
  /// which share their headers. A format
  /// may be listed more than once, once per header it accepts (`bybit.trading`).
  static let named: [(format: RecordFormat, header: String)] = [
    (.tardisQuotes, TardisBooks.quotesHeader),
    (.tardisBookTicker, TardisBooks.quotesHeader),
    (.tardisBookSnapshot(levels: 5), TardisBooks.snapshotHeader(levels: 5)),
    (.tardisBookSnapshot(levels: 25), TardisBooks.snapshotHeader(levels: 25)),
    (.tardisIncrementalL2, TardisL2.header),
    (.tardisTrades, "exchange,symbol,timestamp,local_timestamp,id,side,price,amount"),
    (.tardisDerivativeTicker, TardisDerivativeTicker.header),
    (.arbkitQuotes, "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last"),
    (.arbkitFX, "ts_us,pair,rate"),
    (.binanceKlines, BinanceFiles.klinesHeader),
    (.binancePremiumIndexKlines, BinanceFiles.klinesHeader),
    (.binanceMarkPriceKlines, BinanceFiles.klinesHeader),
    (.binanceIndexPriceKlines, BinanceFiles.klinesHeader),
    (.binanceFundingRate, BinanceFiles.fundingRateHeader),
    (.binanceBookTicker, BinanceFiles.bookTickerHeader),
    (.binanceAggTrades, BinanceFiles.aggTradesHeader),
    (.binanceTrades, BinanceFiles.tradesHeader),
    (.bybitTrading, BybitFiles.tradingHeader),
    (.bybitTrading, BybitFiles.tradingHeaderRPI),
    (.bybitSpot, BybitFiles.spotHeader),
  ]

  /// A named format by id, or `nil`.
  public init?(id: String) {
    if let json = Self.jsonFormats.first(where: { $0.id == id }) {
      self = json
      return
    }
    if id == RecordFormat.parquet.id {
      self = .parquet
      return
    }
    guard let match = Self.named.first(where: { $0.format.id == id }) else { return nil }
    self = match.format
  }

  /// Ids of the named formats, for help texts.
  public static var namedIDs: [String] {
    var ids: [String] = []
    for entry in named where !ids.contains(entry.format.id) { ids.append(entry.format.id) }
    return ids + jsonFormats.map(\.id) + [RecordFormat.parquet.id]
  }

  /// The formats read as JSON rather than as CSV lines (`Ingest.read` sends them to
  /// their readers).
  static let jsonFormats: [RecordFormat] = [.freqtradeOHLCV, .restSnapshots, .cryptofeed, .orderBookLines, .kimchiHistory]

  /// The exact header line of a named format (of a book snapshot of any depth).
  static func header(of format: RecordFormat) -> String {
    if case .tardisBookSnapshot(let levels) = format { return TardisBooks.snapshotHeader(levels: levels) }
    if case .parquetTable(let table) = format { return table.header }
    return named.first { $0.format == format }!.header
  }

  /// The header's column names, for messages.
  static func headerNames(of format: RecordFormat) -> [String] {
    header(of: format).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
  }

  /// Whether `line` is exactly one of the headers of the named `format`.
  static func accepts(_ format: RecordFormat, headerLine line: UnsafeBufferPointer<UInt8>) -> Bool {
    if case .tardisBookSnapshot = format { return header(of: format).utf8.elementsEqual(line) }
    if case .parquetTable(let table) = format { return table.header.utf8.elementsEqual(line) }
    return named.contains { $0.format == format && $0.header.utf8.elementsEqual(line) }
  }

  /// The named format whose header is exactly `line`.
  static func detect(headerLine line: UnsafeBufferPointer<UInt8>) -> RecordFormat? {
    named.first { $0.header.utf8.elementsEqual(line) }?.format
  }

  /// Where each quantity sits in a row of this format.
  /// `rowFields` is the field count of the first row of a headerless Binance file, or
  /// of the header of a named format that accepts several (`bybit.trading`).
  func layout(clock: Clock, headerNames: [String]?, path: String, rowFields: Int? = nil) throws(IngestError) -> RecordLayout {
    let local = clock == .local
    switch self {
    case .binanceKlines, .binancePremiumIndexKlines, .binanceMarkPriceKlines, .binanceIndexPriceKlines,
      .binanceFundingRate, .binanceBookTicker, .binanceAggTrades, .binanceTrades:
      return BinanceFiles.layout(self, rowFields: rowFields, path: path)
    case .tardisQuotes, .tardisBookTicker, .tardisBookSnapshot:
      return TardisBooks.layout(self, clock: clock)
    case .bybitTrading, .bybitSpot:
      return BybitFiles.layout(self, headerFields: rowFields, path: path)
    case .tardisIncrementalL2:
      return TardisL2.layout(clock: clock)
    case .tardisDerivativeTicker:
      return TardisDerivativeTicker.layout(clock: clock)
    case .freqtradeOHLCV, .restSnapshots, .cryptofeed, .orderBookLines, .kimchiHistory:
      preconditionFailure("\(id) is read as JSON, not as CSV lines")
    case .parquet:
      preconditionFailure("parquet is resolved to the format of its table before it is read")
    case .parquetTable(let table):
      return table.layout(clock: clock)
    case .tardisTrades:
      return RecordLayout(
        names: Self.headerNames(of: .tardisTrades), fieldCount: 8,
        venue: 0, symbol: 1, time: local ? 3 : 2, timeForm: .epochMicros, otherTime: local ? 2 : 3,
        price: 6, tardisVenue: true)
    case .arbkitQuotes:
      return RecordLayout(
        names: Self.headerNames(of: .arbkitQuotes), fieldCount: 9,
        venue: 1, market: 2, symbol: 3, time: 0, timeForm: .epochMicros,
        bid: 4, ask: 5, bidSize: 6, askSize: 7, price: 8)
    case .arbkitFX:
      return RecordLayout(
        names: Self.headerNames(of: .arbkitFX), fieldCount: 3,
        symbol: 1, time: 0, timeForm: .epochMicros, price: 2, fixedVenue: "fx", fixedMarket: .fx)
    case .columns(let spec):
      return try RecordLayout(spec: spec, headerNames: headerNames, path: path)
    }
  }

  /// The field of a trade's size in the rows of a trade format (`amount`, `quantity`,
  /// `qty`, `size`, `volume`: base units, contracts in Binance COIN-M `trades`; a
  /// `parquet.trades` table's `quantity`); `nil` for the other formats.
  public var tradeSizeField: Int? {
    switch self {
    case .tardisTrades: 7
    case .binanceAggTrades, .binanceTrades: 2
    case .bybitTrading, .bybitSpot: 3
    case .parquetTable(let table) where table.kind == .trades: table.names.firstIndex(of: "quantity")
    default: nil
    }
  }

  /// Whether the first line of the file is a header.
  var hasHeader: Bool {
    if case .columns(let spec) = self { return spec.header ?? true }
    return true
  }
}

/// Field positions (0-based) of each quantity in a row, and how to read them.
struct RecordLayout {
  var names: [String]
  /// Exact number of fields a row must have; `nil` means at least `minimumFields`.
  var fieldCount: Int?
  var venue: Int? = nil
  var market: Int? = nil
  var symbol: Int? = nil
  var time: Int
  var timeForm: TimeForm
  var timeOffset: Int64 = 0
  var timeShift: Int64 = 0
  var otherTime: Int? = nil
  /// How `otherTime` is written (Tardis: µs; Binance: ms or µs per value).
  var otherTimeForm: TimeForm = .epochMicros
  /// The time column is a candle's `close_time` (last unit inside the candle): the row
  /// is stamped one unit of that value later, at the candle's end.
  var timeIsCloseTime = false
  var bid: Int? = nil
  var ask: Int? = nil
  var bidSize: Int? = nil
  var askSize: Int? = nil
  /// A trade's size, read into both sizes beside its one `price` (`IngestOptions.readsTradeSizes`).
  var tradeSize: Int? = nil
  /// One price for both sides (`bid = ask = price`); with bid and ask also present it
  /// is used only for rows whose bid and ask are both empty (ArbKit's `last`).
  var price: Int? = nil
  /// What the `price` (or `bid`/`ask`) columns hold. A rate may be zero or negative;
  /// a price must be positive. Both must be finite.
  var field: SeriesField = .price
  /// Several quantities per row (Tardis `derivative_ticker`): each column in the
  /// list feeds the series of its field, and an empty value adds no point to it.
  /// Used instead of `price`, `bid` and `ask`.
  var values: [(field: SeriesField, column: Int)] = []
  /// Levels of a Tardis book snapshot whose depth is kept (fields `4 + 4i …`); 0: none.
  var depthLevels = 0
  /// The row's time is a funding settlement, snapped to the funding grid (`FundingGrid`).
  var snapsToFundingGrid = false
  /// The funding interval in whole hours (Binance `funding_interval_hours`), kept per
  /// point in `QuoteSeries.fundingInterval`.
  var fundingIntervalHours: Int? = nil
  /// Tardis quotes may leave a side empty when the book side is empty.
  var emptySidesAllowed = false
  /// The venue field holds a Tardis exchange id, resolved through the registry.
  var tardisVenue = false
  var fixedVenue: String? = nil
  var fixedMarket: MarketKind? = nil
  var fixedSymbol: String? = nil
  /// The market is told by each row's symbol, by Bybit's naming (`BybitFiles.market`).
  var marketFromBybitSymbol = false
  var delimiter = UInt8(ascii: ",")
  /// Fields may be quoted (`"61505.20"`), as any CSV writer may quote them.
  var quote: UInt8? = UInt8(ascii: "\"")
  var thousands: UInt8? = nil
  var descending = false
  /// A wide file: each of these fields is the price of the venue named by its header
  /// (`FileReader+Wide.swift`); `price`, `bid` and `ask` are then unused.
  var venueColumns: [(field: Int, venue: String)]? = nil

  /// Fewest fields a row must have to hold every column used.
  var minimumFields: Int {
    let columns = [venue, market, symbol, time, otherTime, bid, ask, bidSize, askSize, price, fundingIntervalHours].compactMap { $0 }
    return ((columns + values.map(\.column) + (venueColumns ?? []).map(\.field)).max() ?? 0) + 1
  }

  /// The fields that name the instrument, in order.
  var keyFields: [Int] { [venue, market, symbol].compactMap { $0 } }

  /// The name of field `index` for messages (`close`, or `#3` without a header).
  func name(_ index: Int) -> String { index < names.count ? names[index] : "#\(index + 1)" }
}

extension RecordLayout {
  init(spec: ColumnSpec, headerNames: [String]?, path: String) throws(IngestError) {
    func resolve(_ ref: ColumnSpec.ColumnRef?) throws(IngestError) -> Int? {
      guard let ref else { return nil }
      switch ref {
      case .position(let position):
        guard position >= 1 else { throw IngestError(.missingColumn(name: ref.description), at: .init(path: path, line: 1, column: 1)) }
        return position - 1
      case .name(let name):
        guard let index = headerNames?.firstIndex(of: name) else {
          throw IngestError(.missingColumn(name: name), at: .init(path: path, line: 1, column: 1))
        }
        return index
      }
    }
    func byte(_ text: String?, _ fallback: UInt8?) -> UInt8? {
      guard let text else { return fallback }
      return text.utf8.first
    }
    let isFX = spec.kind == "fx"
    self.init(
      names: headerNames ?? [], fieldCount: nil, time: try resolve(spec.time.column)!,
      timeForm: spec.time.form,
      bid: try resolve(spec.bid), ask: try resolve(spec.ask),
      bidSize: try resolve(spec.bidSize), askSize: try resolve(spec.askSize),
      price: try resolve(spec.price),
      fixedVenue: isFX ? "fx" : spec.venue, fixedMarket: isFX ? .fx : spec.market, fixedSymbol: spec.symbol,
      delimiter: byte(spec.delimiter, UInt8(ascii: ","))!, quote: byte(spec.quote, UInt8(ascii: "\"")),
      thousands: byte(spec.thousands, nil), descending: spec.order == .descending)
    timeOffset = spec.time.zone.flatMap(Self.zoneOffset) ?? 0
    timeShift = spec.time.shift.flatMap(TimeText.parseDuration) ?? 0
    field = spec.field ?? .price
    if let wide = spec.venueColumns {
      guard let headerNames else {
        throw IngestError(.missingColumn(name: "a header naming the venue columns"), at: .init(path: path, line: 1, column: 1))
      }
      let names: [String]
      switch wide {
      case .all: names = headerNames.enumerated().filter { $0.offset != time }.map(\.element)
      case .named(let list): names = list
      }
      venueColumns = try names.map { name throws(IngestError) in (try resolve(.name(name))!, name.lowercased()) }
      return
    }
    if price == nil && (bid == nil || ask == nil) {
      throw IngestError(.missingColumn(name: "price (or bid and ask)"), at: .init(path: path, line: 1, column: 1))
    }
  }

  /// `+09:00` / `-0130` / `UTC` as microseconds east of UTC.
  static func zoneOffset(_ text: String) -> Int64? {
    if text == "UTC" || text == "Z" { return 0 }
    guard let first = text.first, first == "+" || first == "-" else { return nil }
    let sign: Int64 = first == "-" ? -1 : 1
    let body = text.dropFirst()
    let digits = body.filter(\.isNumber)
    guard body.allSatisfy({ $0.isNumber || $0 == ":" }), digits.count == 4 || digits.count == 2,
      body.count == digits.count || (body.count == 5 && body[body.index(body.startIndex, offsetBy: 2)] == ":"),
      let value = Int64(digits)
    else { return nil }
    let (hours, minutes) = digits.count == 4 ? (value / 100, value % 100) : (value, 0)
    guard hours <= 14, minutes < 60 else { return nil }
    return sign * (hours * 3600 + minutes * 60) * 1_000_000
  }
}
