import ArbCore

/// A Parquet table whose column names are no CSV header ArbKit knows, told by the
/// columns it has (others may be there too):
///
/// - `nautilus.quotes`: nautilus_trader's `QuoteTick` catalog files, `bid_price`,
///   `ask_price`, `bid_size`, `ask_size` (fixed-point: little-endian integers of 8 bytes
///   with 9 decimals, or 16 bytes with 16), `ts_event`, `ts_init` (UInt64 ns); the
///   instrument from the `instrument_id` metadata (`BTCUSDT.BINANCE`).
/// - `nautilus.trades`: its `TradeTick` files, `price`, `size`, `ts_event`, `ts_init`.
/// - `parquet.quotes`: `timestamp`, `bid`, `ask`, optionally `bid_size`, `ask_size`
///   (pandas `DataFrame.to_parquet` of a quote table).
/// - `parquet.trades`: `timestamp`, `price` (a trade table).
///
/// The nautilus files read `ts_init` on the local clock and `ts_event` on the exchange
/// clock, as Tardis' `local_timestamp` and `timestamp`. A `symbol` column of the pandas
/// tables is not read: the leg's prefix names the instrument.
public struct ParquetTable: Sendable, Equatable {
  public enum Kind: String, Sendable {
    case nautilusQuotes = "nautilus.quotes", nautilusTrades = "nautilus.trades", quotes = "parquet.quotes", trades = "parquet.trades"
  }

  public var kind: Kind
  /// The file's column names, in order.
  public var names: [String]
  /// nautilus_trader's `instrument_id` (`SYMBOL.VENUE`), when the file carries one.
  public var instrumentID: String?

  /// The table `names` make, if any.
  static func detect(names: [String], metadata: [String: String]) -> ParquetTable? {
    let set = Set(names)
    let kind: Kind
    if set.isSuperset(of: ["bid_price", "ask_price", "bid_size", "ask_size", "ts_event", "ts_init"]) {
      kind = .nautilusQuotes
    } else if set.isSuperset(of: ["price", "size", "ts_event", "ts_init"]) {
      kind = .nautilusTrades
    } else if set.isSuperset(of: ["timestamp", "bid", "ask"]) {
      kind = .quotes
    } else if set.isSuperset(of: ["timestamp", "price"]) {
      kind = .trades
    } else {
      return nil
    }
    return ParquetTable(kind: kind, names: names, instrumentID: metadata["instrument_id"])
  }

  /// Whether this is one of nautilus_trader's tables, whose prices and sizes are fixed-point.
  var isNautilus: Bool { kind == .nautilusQuotes || kind == .nautilusTrades }

  /// The header line the rows are written under.
  var header: String { ParquetReader.headerLine(names) }

  func layout(clock: Clock) -> RecordLayout {
    func column(_ name: String) -> Int? { names.firstIndex(of: name) }
    switch kind {
    case .nautilusQuotes, .nautilusTrades:
      let (local, exchange) = (column("ts_init")!, column("ts_event")!)
      var layout = RecordLayout(
        names: names, fieldCount: names.count, time: clock == .local ? local : exchange, timeForm: .epochNanos,
        otherTime: clock == .local ? exchange : local, otherTimeForm: .epochNanos)
      if kind == .nautilusQuotes {
        (layout.bid, layout.ask, layout.bidSize, layout.askSize) = (column("bid_price"), column("ask_price"), column("bid_size"), column("ask_size"))
      } else {
        layout.price = column("price")
      }
      if let id = instrumentID, let dot = id.lastIndex(of: "."), dot != id.startIndex, id.index(after: dot) != id.endIndex {
        layout.fixedSymbol = String(id[..<dot])
        layout.fixedVenue = id[id.index(after: dot)...].lowercased()
      }
      return layout
    case .quotes:
      return RecordLayout(
        names: names, fieldCount: names.count, time: column("timestamp")!, timeForm: .epochAuto, bid: column("bid"), ask: column("ask"),
        bidSize: column("bid_size"), askSize: column("ask_size"))
    case .trades:
      return RecordLayout(names: names, fieldCount: names.count, time: column("timestamp")!, timeForm: .epochAuto, price: column("price"))
    }
  }
}
