import ArbAnalytics
import ArbCore

/// One leg's quote used for a fill.
struct FillQuote {
  var bid: Double
  var ask: Double
  var bidSize: Double
  var askSize: Double
  /// The quote's row in its leg (and the book's, with `fill = book`).
  var row: Int
}

/// Why a signal was not acted on.
public enum SkipReason: String, Sendable, CaseIterable {
  /// A leg's quote at the fill time is older than the staleness limit.
  case staleFill = "stale_fill"
  /// A leg's quote at the fill time lacks a side.
  case oneSidedFill = "one_sided_fill"
  /// An entry signal inside the cooldown after a close.
  case cooldown
  /// Inventory mode: the rich venue has too little base to sell.
  case noBase = "no_base"
  /// Inventory mode: the cheap venue has too little quote to buy with.
  case noQuote = "no_quote"
  /// The top-of-book size at the fill is zero (with `cap_at_book`), or caps an
  /// inventory trade below its minimum size; or a maker leg's quote at its placement
  /// has no size at its touch.
  case noBookSize = "no_book_size"
  /// A maker order cancelled unfilled (`costs.maker_timeout`, or the data's end).
  case makerCancelled = "maker_cancelled"
  /// A maker order filled, but the taker leg's quote at its fill time was stale or
  /// one-sided: the round trip is not taken.
  case makerUnhedged = "maker_unhedged"
}

/// Counts of skipped signals by reason.
struct SkipCounts {
  private var counts = [Int](repeating: 0, count: SkipReason.allCases.count)

  mutating func add(_ reason: SkipReason) { counts[SkipReason.allCases.firstIndex(of: reason)!] += 1 }

  /// The non-zero counts, in the fixed order of `SkipReason`.
  var list: [(reason: SkipReason, count: Int)] {
    SkipReason.allCases.enumerated().compactMap { k, reason in counts[k] > 0 ? (reason, counts[k]) : nil }
  }
}

/// The as-of quotes that fill a signal.
struct Fills {
  let legs: [QuoteSeries]
  /// A fill quote older than this at the fill time skips the signal; `nil`: no limit.
  let maxStale: Int64?
  /// Per leg: fills use the as-of quote this long after the signal.
  let latency: [Latency]
  /// The seed of drawn latencies.
  let seed: UInt64
  /// Whether fills read the book sizes (only `cap_at_book` uses them; otherwise they
  /// are `nan` and cost no memory access).
  let readsSizes: Bool
  /// Per leg: its recorded trades (price in `bid`, size in `bidSize`), read for a maker leg alone.
  var trades: [QuoteSeries?] = []

  /// Leg `k`'s quote in force at `signal` (a valid point: both sides priced).
  @inline(__always)
  func quote(_ k: Int, at signal: SignalPoint) -> FillQuote {
    quote(k, row: signal.state(k))
  }

  /// Leg `k`'s quote at row `j` (columns read in place, the series is not copied).
  @inline(__always)
  private func quote(_ k: Int, row j: Int) -> FillQuote {
    FillQuote(
      bid: legs[k].bid[j], ask: legs[k].ask[j], bidSize: readsSizes ? legs[k].bidSize[j] : .nan,
      askSize: readsSizes ? legs[k].askSize[j] : .nan, row: j)
  }

  /// Both legs' as-of quotes at their fill times (the signal's time plus each leg's
  /// latency), or the reason the fill cannot happen: a quote older than `maxStale` at
  /// its fill time, or one-sided. Allocates nothing.
  @inline(__always)
  func after(_ signal: SignalPoint) -> Result<FillPair, SkipError> {
    FillPair.both(fill(0, signal: signal), fill(1, signal: signal))
  }

  /// Leg `k`'s fill time after `signal`: the signal's time plus its latency.
  @inline(__always)
  func fillTime(_ k: Int, signal: SignalPoint) -> Int64 {
    signal.time + latency[k].delay(seed: seed, time: signal.time, leg: k, recorded: legs[k].recordedDelay(at: Int(signal.state(k))))
  }

  /// Leg `k`'s as-of quote at its fill time after `signal`.
  @inline(__always)
  func fill(_ k: Int, signal: SignalPoint) -> Result<FillQuote, SkipError> {
    let time = fillTime(k, signal: signal)
    var j = Int(signal.state(k))
    while j + 1 < legs[k].time.count && legs[k].time[j + 1] <= time { j += 1 }
    if let limit = maxStale, time - legs[k].time[j] > limit { return .failure(SkipError(reason: .staleFill)) }
    let quote = quote(k, row: j)
    guard quote.bid.isFinite, quote.ask.isFinite else { return .failure(SkipError(reason: .oneSidedFill)) }
    return .success(quote)
  }
}

extension QuoteSeries {
  /// The receive time minus the exchange time of row `j` (µs, from 0 to `Int64.max / 2`,
  /// clamped there for clocks too far apart to subtract): how late the recorder saw the
  /// quote. The series keeps both clocks.
  @inline(__always)
  public func recordedDelay(at j: Int) -> Int64 { clock.recordedDelay(time: time[j], otherTime: otherTime[j]) }
}

extension Clock {
  /// The receive time minus the exchange time of a quote at `time` on this clock and
  /// `otherTime` on the other (µs, from 0 to `Int64.max / 2`, clamped there for clocks
  /// too far apart to subtract).
  @inline(__always)
  func recordedDelay(time: Int64, otherTime: Int64) -> Int64 {
    let (local, exchange) = self == .local ? (time, otherTime) : (otherTime, time)
    let (delay, overflow) = local.subtractingReportingOverflow(exchange)
    return overflow ? (local > exchange ? Int64.max / 2 : 0) : min(max(0, delay), Int64.max / 2)
  }
}

extension AlignedLegs {
  /// Clock point `point` as a signal: its time and both legs' quote indexes.
  @inline(__always)
  func signal(_ point: Int) -> SignalPoint {
    SignalPoint(time: time[point], states: (state(leg: 0, point: point), state(leg: 1, point: point)))
  }
}

/// The fill quotes of the two legs, indexed by leg.
struct FillPair {
  var first: FillQuote
  var second: FillQuote

  subscript(k: Int) -> FillQuote {
    get { k == 0 ? first : second }
    set { if k == 0 { first = newValue } else { second = newValue } }
  }

  /// Both fills, or the reason the first that cannot happen gives (leg 0's first).
  @inline(__always)
  static func both(_ first: Result<FillQuote, SkipError>, _ second: Result<FillQuote, SkipError>) -> Result<FillPair, SkipError> {
    switch (first, second) {
    case (.failure(let skip), _), (_, .failure(let skip)): .failure(skip)
    case (.success(let first), .success(let second)): .success(FillPair(first: first, second: second))
    }
  }
}

/// A skipped fill, as an error so that `Result` can carry it.
struct SkipError: Error {
  var reason: SkipReason
}
