/// A venue's clock correction: a signed duration added to the times of every leg on
/// that venue before alignment (`--offset` of premium and board, `alignment.offsets`
/// of a scenario).
public enum ClockOffset {
  /// `+35ms`, `-1.5s` or `35ms` as µs; `nil` for anything else.
  public static func parse(_ text: String) -> Int64? {
    var duration = Substring(text)
    let negative = duration.hasPrefix("-")
    if negative || duration.hasPrefix("+") { duration.removeFirst() }
    guard !duration.isEmpty, let micros = TimeText.parseDuration(String(duration)) else { return nil }
    return negative ? -micros : micros
  }

  /// `legs` with each offset added to the times of the legs on its venue (the clock they
  /// are aligned on). An offset whose venue has no leg changes nothing: callers check.
  ///
  /// - Throws: `TimeError.Reason.overflow` when an offset moves a leg's first or last
  ///   time (and so any of its times: they ascend) out of range.
  public static func shifted(_ legs: [QuoteSeries], by offsets: [(venue: String, micros: Int64)]) throws(TimeError) -> [QuoteSeries] {
    var legs = legs
    for (venue, micros) in offsets where micros != 0 {
      for k in legs.indices where legs[k].instrument.venue == venue && legs[k].count > 0 {
        try TimeArithmetic.check(legs[k].time[0]...legs[k].time[legs[k].count - 1], plus: micros...micros, .clockOffset)
        legs[k].time = legs[k].time.map { $0 + micros }
      }
    }
    return legs
  }
}

/// A `QuoteStream` with `micros` added to every time of another (a venue's clock
/// offset, as `ClockOffset.shifted` does to a whole series): each chunk's times are
/// copied shifted into a buffer the stream reuses; its other columns are passed on.
public final class ShiftedQuoteStream: QuoteStreamWrapper {
  public let base: any QuoteStream
  private let micros: Int64
  private var time: UnsafeMutableBufferPointer<Int64> = .allocate(capacity: 0)

  public init(_ base: any QuoteStream, by micros: Int64) {
    self.base = base
    self.micros = micros
  }

  deinit { time.deallocate() }

  public var lastTime: Int64? { base.lastTime.flatMap { try? TimeArithmetic.add(micros, to: $0, .clockOffset) } }

  /// - Throws: `TimeError.Reason.overflow` when the offset moves a time out of range.
  public func next(maxRows: Int) throws -> QuoteChunk? {
    guard let chunk = try base.next(maxRows: maxRows) else { return nil }
    guard chunk.count > 0 else { return chunk }
    try TimeArithmetic.check(chunk.time[0]...chunk.time[chunk.count - 1], plus: micros...micros, .clockOffset)
    if time.count < chunk.count {
      time.deallocate()
      time = .allocate(capacity: chunk.count)
    }
    for i in 0..<chunk.count { time[i] = chunk.time[i] + micros }
    return QuoteChunk(
      time: UnsafeBufferPointer(rebasing: time[0..<chunk.count]), otherTime: chunk.otherTime, bid: chunk.bid, ask: chunk.ask,
      bidSize: chunk.bidSize, askSize: chunk.askSize, books: chunk.books)
  }
}
