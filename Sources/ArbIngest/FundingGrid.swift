/// The funding grid: funding settles on whole UTC hours (every 8, 4 or 1 hours on
/// Binance), but recorded settlement times can be a few ms late (Binance `calc_time`
/// `1735718400003`, freqtrade funding candles `1637193600017`). A time within
/// `tolerance` (60 s) of a whole hour is moved to that hour; any other time is not a
/// settlement instant and its row is rejected (`offFundingGrid`). Whether the hour
/// fits the stated interval (00/08/16 h for 8 h) is not checked: venues have moved
/// their schedules.
enum FundingGrid {
  static let hour: Int64 = 3_600_000_000
  /// Largest distance, in µs, from a whole hour that is still snapped to it.
  static let tolerance: Int64 = 60_000_000
  /// `tolerance` in ms, for messages.
  static var toleranceMillis: Int { Int(tolerance / 1000) }

  /// The whole hour within `tolerance` of `micros`, or `nil`.
  @inline(__always)
  static func snap(_ micros: Int64) -> Int64? {
    let past = ((micros % hour) + hour) % hour
    let (below, under) = micros.subtractingReportingOverflow(past)
    if under { return nil }
    if past <= tolerance { return below }
    if hour - past <= tolerance {
      let (above, overflow) = below.addingReportingOverflow(hour)
      return overflow ? nil : above
    }
    return nil
  }
}
