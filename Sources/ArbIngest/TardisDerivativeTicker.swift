import ArbCore

// Tardis.dev `derivative_ticker`: the venues' ticker/instrument channels of derivatives,
// one row per update with `funding_timestamp,funding_rate,predicted_funding_rate,
// open_interest,last_price,index_price,mark_price`, every value optional (empty when the
// update did not carry it). Each row feeds up to four series of its instrument: price
// (`last_price`), mark (`mark_price`), index (`index_price`) and funding rate
// (`funding_rate`, signed); an empty value adds no point to its series, and the row is
// counted once either way. `funding_timestamp` (the next funding instant),
// `predicted_funding_rate` and `open_interest` are not read.

/// Header and layout of the Tardis.dev `derivative_ticker` files.
enum TardisDerivativeTicker {
  static let header =
    "exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price"

  /// Time is `local_timestamp` for `Clock.local`, `timestamp` for `Clock.exchange`, the
  /// other one kept as the other time; the venue is a Tardis exchange id.
  static func layout(clock: Clock) -> RecordLayout {
    let local = clock == .local
    let names = header.split(separator: ",").map(String.init)
    return RecordLayout(
      names: names, fieldCount: names.count,
      venue: 0, symbol: 1, time: local ? 3 : 2, timeForm: .epochMicros, otherTime: local ? 2 : 3,
      values: [(.price, 8), (.mark, 10), (.index, 9), (.fundingRate, 5)], tardisVenue: true)
  }
}
