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
