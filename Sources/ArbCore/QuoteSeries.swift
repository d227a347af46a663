/// Which recorded time orders a series and drives alignment.
public enum Clock: String, Sendable, Hashable, CaseIterable {
  /// The recorder's receive time (Tardis `local_timestamp`): one clock for every venue.
  case local
  /// The exchange's own event time (Tardis `timestamp`).
  case exchange
}

/// Where a series' prices come from.
public enum PriceSource: String, Sendable, Hashable, CaseIterable, Codable {
  /// Best bid and ask from a book or a book ticker.
  case book
  /// One price only (a trade, a candle close, a ticker's last price): `bid = ask = price`.
  case last
}

/// What the values of a series are. A file may hold several per instrument (a
/// derivative ticker has last, mark and index prices and a funding rate).
public enum SeriesField: String, Sendable, Hashable, CaseIterable, Codable {
  /// A traded or quoted price: a book's bid/ask, a trade, a candle close, a last price.
  case price
  /// The venue's mark price of a derivative.
  case mark
  /// The venue's index (spot reference) price.
  case index
  /// Funding rate, a signed fraction per funding interval (0.0001 = 1 bp).
  case fundingRate = "funding_rate"
  /// Binance premium index, a signed ratio (perp − index) / index.
  case premiumIndex = "premium_index"

  /// Rates are signed (zero and negative are valid); prices are positive.
  public var isRate: Bool { self == .fundingRate || self == .premiumIndex }
}

/// The quotes of one leg as contiguous columns, ordered by `time`.
///
/// Not a collection of rows on purpose: every consumer works column-wise over
/// `Float64`/`Int64` buffers. `time` is the clock chosen at ingest (receive time by
/// default); `otherTime` keeps the other recorded clock when the source has two, and
/// is empty otherwise. Prices are finite and positive (rates finite) except for a side that the
/// source left empty, which is `nan` here and makes every point that uses it invalid.
public struct QuoteSeries: Sendable {
  public var instrument: Instrument
  public var priceSource: PriceSource
  /// What the values are (`price` unless the source says otherwise). A rate series
  /// holds its value in `bid` and `ask` alike.
  public var field: SeriesField
  public var clock: Clock
  public var time: [Int64]
  public var otherTime: [Int64]
  public var bid: [Double]
  public var ask: [Double]
  public var bidSize: [Double]
  public var askSize: [Double]
  /// Funding interval in µs per point, for a `funding_rate` series whose source states
  /// it (Binance `fundingRate`: it changes over time); empty otherwise.
  public var fundingInterval: [Int64]
  /// The book behind each quote, when read with depth from a source that has it;
  /// `nil`: the top level only.
  public var depth: BookDepth? = nil

  public init(
    instrument: Instrument, priceSource: PriceSource, field: SeriesField = .price, clock: Clock = .local,
    time: [Int64] = [], otherTime: [Int64] = [], bid: [Double] = [], ask: [Double] = [],
    bidSize: [Double] = [], askSize: [Double] = [], fundingInterval: [Int64] = []
  ) {
    self.instrument = instrument
    self.priceSource = priceSource
    self.field = field
    self.clock = clock
    self.time = time
    self.otherTime = otherTime
    self.bid = bid
    self.ask = ask
    self.bidSize = bidSize
    self.askSize = askSize
    self.fundingInterval = fundingInterval
  }

  /// Number of quotes.
  public var count: Int { time.count }

  /// Bytes held by the columns (what a run must keep in memory for this leg).
  public var columnBytes: Int {
    (time.count + otherTime.count + fundingInterval.count) * 8 + (bid.count + ask.count + bidSize.count + askSize.count) * 8
      + (depth?.bytes ?? 0)
  }
}
