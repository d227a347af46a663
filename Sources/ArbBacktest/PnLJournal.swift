import ArbCore

/// PnL booked at instants (trade exits, rebalance costs) over a span of valid points:
/// the drawdown, daily journal and Sharpe ratio every mode reports.
public struct PnLJournal: Sendable {
  /// `(time, pnl, isTrade)` in time order.
  public var bookings: [(time: Int64, pnl: Double, isTrade: Bool)]
  /// The first and last valid points.
  public var firstTime: Int64?
  public var lastTime: Int64?

  /// One day of the journal.
  public struct Day: Sendable, Equatable {
    /// `YYYY-MM-DD` in the journal's zone.
    public var date: String
    public var pnl: Double
    public var trades: Int
  }

  public var total: Double { bookings.reduce(0) { $0 + $1.pnl } }

  /// Largest fall of the cumulative PnL (from 0, at each booking) from its running peak.
  public var maxDrawdown: Double {
    var cumulative = 0.0, peak = 0.0, drawdown = 0.0
    for booking in bookings {
      cumulative += booking.pnl
      peak = max(peak, cumulative)
      drawdown = max(drawdown, peak - cumulative)
    }
    return drawdown
  }

  /// PnL per calendar day from the first to the last valid point, days without a
  /// booking included as 0. `offset` is the zone's offset from UTC in µs (0 for UTC
  /// days, +9 h for Asia/Seoul).
  public func daily(offset: Int64 = 0) -> [Day] {
    guard let span = periods(length: TimeText.microsPerDay, offset: offset) else { return [] }
    let dayLength = TimeText.microsPerDay
    var days = span.map { Day(date: TimeText.isoDate($0 * dayLength), pnl: 0, trades: 0) }
    for booking in bookings {
      let k = Int(Self.period(of: booking.time, length: dayLength, offset: offset) - span.lowerBound)
      days[k].pnl += booking.pnl
      if booking.isTrade { days[k].trades += 1 }
    }
    return days
  }

  /// The period of `length` µs that holds `time`: period k holds the times t with
  /// ⌊(t + offset) / length⌋ = k, so periods are counted from 1970-01-01 00:00 in the zone
  /// of `offset` (for days: the journal's days).
  public static func period(of time: Int64, length: Int64, offset: Int64) -> Int64 {
    (time + offset).floorDiv(length)
  }

  /// The periods of `length` µs from that of the first valid point to that of the last;
  /// `nil` without valid points.
  public func periods(length: Int64, offset: Int64) -> ClosedRange<Int64>? {
    guard let firstTime, let lastTime else { return nil }
    return Self.period(of: firstTime, length: length, offset: offset)...Self.period(of: lastTime, length: length, offset: offset)
  }

  /// The PnL of every period of `length` µs that has a booking, in time order, each the
  /// sum of its bookings in booking order from 0 (so for days exactly `daily(offset:)`'s
  /// PnL, −0 included).
  public func bookedPerPeriod(length: Int64, offset: Int64) -> [(period: Int64, pnl: Double)] {
    var booked: [(period: Int64, pnl: Double)] = []
    for booking in bookings {
      let period = Self.period(of: booking.time, length: length, offset: offset)
      if booked.last?.period == period { booked[booked.count - 1].pnl += booking.pnl } else { booked.append((period, 0 + booking.pnl)) }
    }
    return booked
  }

  /// mean(daily PnL) / std(daily PnL) × √365 with the sample std over `daily(offset:)`;
  /// `nil` with fewer than two days or no variation (never inf or NaN).
  public func sharpe(offset: Int64 = 0) -> Double? {
    let values = daily(offset: offset).map(\.pnl)
    guard values.count >= 2 else { return nil }
    let mean = values.reduce(0, +) / Double(values.count)
    let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
    guard variance > 0 else { return nil }
    return mean / variance.squareRoot() * (365.0).squareRoot()
  }
}
