import ArbCore

// Tardis.dev top-of-book files: `quotes` (rebuilt from L2), `book_ticker` (the
// exchange's own best bid/offer, same columns) and `book_snapshot_5` / `_25` (the top
// N levels, of which the first is read). All carry two clocks, `timestamp` (exchange)
// and `local_timestamp` (receive), and an exchange id resolved through the registry.

/// Headers and layouts of the Tardis.dev book files.
enum TardisBooks {
  /// `quotes` header; `book_ticker` is assumed to share it (sources.md §1.4).
  static let quotesHeader = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount"

  /// `book_snapshot_N` header: the four common columns, then per level i = 0..<N
  /// `asks[i].price,asks[i].amount,bids[i].price,bids[i].amount` (4 + 4N columns).
  static func snapshotHeader(levels: Int) -> String {
    precondition(levels >= 1, "book snapshot with \(levels) levels")
    var names = ["exchange", "symbol", "timestamp", "local_timestamp"]
    for i in 0..<levels {
      names += ["asks[\(i)].price", "asks[\(i)].amount", "bids[\(i)].price", "bids[\(i)].amount"]
    }
    return names.joined(separator: ",")
  }

  /// Where each quantity sits. Quotes and book ticker: `ask_amount,ask_price,bid_price,
  /// bid_amount` in fields 4–7. Snapshots: the top level `asks[0].price,asks[0].amount,
  /// bids[0].price,bids[0].amount` in fields 4–7; deeper levels are checked only for
  /// their count (a row must have all 4 + 4N fields). An empty side (an empty book
  /// side, or a missing level) is accepted and kept as `nan`, as in quotes.
  /// Time is `local_timestamp` for `Clock.local`, `timestamp` for `Clock.exchange`;
  /// the other one is kept as the other time.
  static func layout(_ format: RecordFormat, clock: Clock) -> RecordLayout {
    let local = clock == .local
    let names = RecordFormat.headerNames(of: format)
    var layout = RecordLayout(
      names: names, fieldCount: names.count,
      venue: 0, symbol: 1, time: local ? 3 : 2, timeForm: .epochMicros, otherTime: local ? 2 : 3,
      emptySidesAllowed: true, tardisVenue: true)
    if case .tardisBookSnapshot = format {
      (layout.ask, layout.askSize, layout.bid, layout.bidSize) = (4, 5, 6, 7)
    } else {
      (layout.askSize, layout.ask, layout.bid, layout.bidSize) = (4, 5, 6, 7)
    }
    return layout
  }
}
