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
  public static func shifted(_ legs: [QuoteSeries], by offsets: [(venue: String, micros: Int64)]) -> [QuoteSeries] {
    var legs = legs
    for (venue, micros) in offsets where micros != 0 {
      for k in legs.indices where legs[k].instrument.venue == venue {
        legs[k].time = legs[k].time.map { $0 + micros }
      }
    }
    return legs
  }
}
