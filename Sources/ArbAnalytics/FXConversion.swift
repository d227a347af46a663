import ArbCore

/// A leg's prices re-expressed in another currency by an FX series
/// (`docs/definitions.md`, "FX conversion").
///
/// At each quote of the leg, bid and ask (and the levels of its books) are divided by
/// the rate in force: the mid of the FX series' last quote at or before the quote's
/// time. A quote with no rate yet, or a rate older than `maxStale`, gets `nan` prices:
/// no point that uses it is valid.
public struct FXConversion: Sendable {
  /// The leg with converted prices (sizes, times and sources unchanged).
  public var series: QuoteSeries
  /// The rate divided by at each quote (`nan` where none was usable).
  public var rate: [Double]
  /// Quotes left without a usable rate.
  public var unusable: Int

  /// - Parameter maxStale: the oldest rate (µs before the quote) still used; `nil` for no limit.
  public init(_ leg: QuoteSeries, by fx: QuoteSeries, maxStale: Int64?) {
    let limit = maxStale ?? .max
    var rate = [Double](repeating: .nan, count: leg.count)
    var unusable = 0
    var f = -1  // the FX quote in force
    for i in 0..<leg.count {
      let t = leg.time[i]
      while f + 1 < fx.count && fx.time[f + 1] <= t { f += 1 }
      rate[i] = f >= 0 ? Self.rate(mid: (fx.bid[f] + fx.ask[f]) / 2, age: t - fx.time[f], limit: limit) : .nan
      if rate[i].isNaN { unusable += 1 }
    }
    var series = leg
    for i in 0..<leg.count {
      series.bid[i] = leg.bid[i] / rate[i]
      series.ask[i] = leg.ask[i] / rate[i]
    }
    if var depth = leg.depth {
      for i in 0..<depth.count {
        for j in depth.bidStart[i]..<depth.bidStart[i + 1] { depth.bidPrice[j] /= rate[i] }
        for j in depth.askStart[i]..<depth.askStart[i + 1] { depth.askPrice[j] /= rate[i] }
      }
      series.depth = depth
    }
    self.series = series
    self.rate = rate
    self.unusable = unusable
  }

  /// The rate a quote is divided by when the FX quote in force, `age` µs old, has `mid`:
  /// `nan` when it is older than `limit` or not a positive number.
  @inline(__always)
  static func rate(mid: Double, age: Int64, limit: Int64) -> Double {
    age <= limit && mid.isFinite && mid > 0 ? mid : .nan
  }
}

/// A leg read as a stream with its prices converted as `FXConversion` converts the
/// whole series, the FX series read alongside as a stream of its own: the FX quote in
/// force is carried from chunk to chunk of both, so memory does not grow with either.
/// Sizes, times and the other clock pass through unchanged.
public final class FXConvertedQuoteStream: QuoteStreamWrapper {
  /// The leg converted.
  public let base: any QuoteStream
  private let rates: any QuoteStream
  private let limit: Int64
  private let tally: (_ quotes: Int, _ unusable: Int) -> Void
  /// The FX chunk being read, and its first quote not yet in force.
  private var rateChunk: QuoteChunk?
  private var nextRate = 0
  private var ratesEnded = false
  /// The FX quote in force: its time and mid.
  private var inForce: (time: Int64, mid: Double)?
  private var bid = UnsafeMutableBufferPointer<Double>.allocate(capacity: 0)
  private var ask = UnsafeMutableBufferPointer<Double>.allocate(capacity: 0)
  private var books = BookBlock()
  private var quotes = 0
  private var unusable = 0

  /// The quotes of `leg` divided by the rate of `rates` in force at each, no older than
  /// `maxStale` µs (`nil`: any age); `tally` is told, after each chunk, the quotes
  /// converted so far and those of them left without a usable rate.
  public init(_ leg: any QuoteStream, by rates: any QuoteStream, maxStale: Int64?, tally: @escaping (_ quotes: Int, _ unusable: Int) -> Void) {
    base = leg
    self.rates = rates
    limit = maxStale ?? .max
    self.tally = tally
  }

  deinit {
    bid.deallocate()
    ask.deallocate()
  }

  /// - Throws: `TimeError.Reason.spanOverflow` when a quote and the rate in force are
  ///   further apart than a duration can say, besides what either stream throws.
  public func next(maxRows: Int) throws -> QuoteChunk? {
    guard let chunk = try base.next(maxRows: maxRows) else { return nil }
    if bid.count < chunk.count {
      bid.deallocate()
      ask.deallocate()
      bid = .allocate(capacity: max(chunk.count, 2 * bid.count))
      ask = .allocate(capacity: bid.count)
    }
    books.removeAll()
    for i in 0..<chunk.count {
      let t = chunk.time[i]
      try advance(to: t, rows: maxRows)
      var rate = Double.nan
      if let inForce {
        let (age, overflow) = t.subtractingReportingOverflow(inForce.time)
        if overflow { throw TimeError(.spanOverflow(first: inForce.time, last: t)) }
        rate = FXConversion.rate(mid: inForce.mid, age: age, limit: limit)
      }
      if rate.isNaN { unusable += 1 }
      bid[i] = chunk.bid[i] / rate
      ask[i] = chunk.ask[i] / rate
      if let chunkBooks = chunk.books { books.append(chunkBooks, i, dividingPricesBy: rate) }
    }
    quotes += chunk.count
    tally(quotes, unusable)
    return QuoteChunk(
      time: chunk.time, otherTime: chunk.otherTime, bid: UnsafeBufferPointer(rebasing: bid[0..<chunk.count]),
      ask: UnsafeBufferPointer(rebasing: ask[0..<chunk.count]), bidSize: chunk.bidSize, askSize: chunk.askSize,
      books: chunk.books == nil ? nil : books.all)
  }

  /// Puts in force the FX quotes at or before `time`, reading `rows` at a time.
  private func advance(to time: Int64, rows: Int) throws {
    while true {
      if let rates = rateChunk, nextRate < rates.count {
        guard rates.time[nextRate] <= time else { return }
        inForce = (rates.time[nextRate], (rates.bid[nextRate] + rates.ask[nextRate]) / 2)
        nextRate += 1
      } else {
        guard !ratesEnded else { return }
        rateChunk = try rates.next(maxRows: rows)
        nextRate = 0
        ratesEnded = rateChunk == nil
      }
    }
  }
}
