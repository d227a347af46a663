/// What a computation on times was doing: the setting (flag or scenario value) that
/// moved a time, or the span of the data itself.
public enum TimeOperation: String, Sendable, Equatable {
  /// `--offset`, `alignment.offsets`: a venue's clock correction.
  case clockOffset = "clock offset"
  /// `--grid`, `alignment.grid`: the step of a fixed clock.
  case grid = "grid step"
  /// `candles --every`: a bucket and its zone.
  case candle = "candle bucket"
  /// `rolling --window`.
  case rollingWindow = "rolling window"
  /// The hours of a time-of-day profile or a chart axis in a zone.
  case zoneHour = "hour in the time zone"
  /// `journal.tz`: the days of the PnL journal.
  case journalDay = "journal day"
  /// `sweep --period`: the periods of the PnL matrix.
  case pnlPeriod = "pnl matrix period"
  /// `costs.latency`, `costs.venue_latency`: the fill time after a signal.
  case latency = "fill latency"
  /// `strategy.cooldown`.
  case cooldown = "cooldown"
  /// `strategy.max_holding`.
  case maxHolding = "max holding"
  /// `basis --window` and `--funding-interval`: the funding carry's windows.
  case carryWindow = "funding carry window"
  /// `rebalance.delay`.
  case rebalanceDelay = "rebalance delay"
}

/// A computation on times whose result is no `Int64` of microseconds, or a clock too
/// large to build.
public struct TimeError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Reason: Sendable, Equatable {
    /// `time + amount` (µs) leaves the range of `Int64`.
    case overflow(operation: TimeOperation, time: Int64, amount: Int64)
    /// `last − first` (µs) is longer than an `Int64` duration.
    case spanOverflow(first: Int64, last: Int64)
    /// A quote at `Int64.max`, the time the clock keeps for "no next quote".
    case lastInstant
    /// A grid of `step` µs from `first` through `last` has more than `limit` points
    /// (`count`, `nil` when even the count is no `Int64`).
    case tooManyPoints(step: Int64, first: Int64, last: Int64, count: Int64?, limit: Int)
    /// The calendar days from `first` through `last` (µs) are `count`, more than `limit`.
    case tooManyDays(first: Int64, last: Int64, count: Int64, limit: Int)
  }

  public var reason: Reason

  public init(_ reason: Reason) { self.reason = reason }

  public var description: String {
    switch reason {
    case .overflow(let operation, let time, let amount):
      let magnitude = Int64(exactly: amount.magnitude).map(TimeText.durationText) ?? "\(amount.magnitude)us"
      return "\(operation.rawValue) \(amount < 0 ? "-" : "+")\(magnitude) from time \(time) µs leaves the range of times "
        + "(Int64 µs, \(TimeText.iso8601(.min)) to \(TimeText.iso8601(.max)))"
    case .spanOverflow(let first, let last):
      return "times span from \(first) µs to \(last) µs, longer than a duration can hold (Int64 µs, about 292 277 years)"
    case .lastInstant:
      return "a quote at \(Int64.max) µs (Int64.max), which the clock keeps for 'no next quote': times must be before it"
    case .tooManyPoints(let step, let first, let last, let count, let limit):
      let points = count.map { "\($0) points" } ?? "more points than an Int64 counts"
      return "a grid of \(TimeText.durationText(step)) from \(TimeText.iso8601(first)) to \(TimeText.iso8601(last)) has \(points), "
        + "more than the limit of \(limit): use a coarser grid or a shorter range of data"
    case .tooManyDays(let first, let last, let count, let limit):
      return "the times from \(TimeText.iso8601(first)) to \(TimeText.iso8601(last)) cover \(count) days, "
        + "more than the limit of \(limit) days of a daily journal"
    }
  }

  /// Whether a setting (a flag or scenario value) is at fault rather than the data: a
  /// grid too fine, or a duration that moves a time of years 1–9999 out of range. An
  /// overflow from a time outside those years, or of the data's own span, is the data's.
  public var isCausedBySetting: Bool {
    switch reason {
    case .overflow(_, let time, _): TimeArithmetic.calendarYears.contains(time)
    case .spanOverflow, .lastInstant, .tooManyDays: false
    case .tooManyPoints: true
    }
  }
}

/// Checked arithmetic on times (`Int64` µs UTC) and durations: every addition,
/// subtraction, bucket and grid step on a user's time goes through here (or runs in a
/// loop whose range one of these checks proved first), so that a result outside
/// `Int64` is a `TimeError`, never a trap or a wrapped value.
public enum TimeArithmetic {
  /// Most points a fixed grid may have (`--grid`, `alignment.grid`): 20 million, a 1 s
  /// grid over about 230 days (each point costs some 40 bytes of memory).
  public static let gridPointLimit = 20_000_000

  /// Most days a daily PnL journal may cover: 1 million, about 2 738 years.
  public static let journalDayLimit = 1_000_000

  /// Times of the years 1 to 9999 (what four-digit ISO-8601 dates show).
  public static let calendarYears: ClosedRange<Int64> =
    Int64(TimeText.daysFromCivil(year: 1, month: 1, day: 1)) * TimeText.microsPerDay...Int64(TimeText.daysFromCivil(year: 10_000, month: 1, day: 1))
    * TimeText.microsPerDay - 1

  /// `time + amount`.
  ///
  /// - Throws: `TimeError.Reason.overflow` when the sum is no `Int64`.
  @inlinable
  public static func add(_ amount: Int64, to time: Int64, _ operation: TimeOperation) throws(TimeError) -> Int64 {
    let (sum, overflow) = time.addingReportingOverflow(amount)
    if overflow { throw TimeError(.overflow(operation: operation, time: time, amount: amount)) }
    return sum
  }

  /// Checks once that `t + d` is an `Int64` for every time `t` in `times` and amount `d`
  /// in `amounts` (the sum is monotone in both, so the two corners decide), so that a
  /// loop over them can add without overflow.
  ///
  /// - Throws: `TimeError.Reason.overflow` with the corner that leaves the range.
  public static func check(_ times: ClosedRange<Int64>, plus amounts: ClosedRange<Int64>, _ operation: TimeOperation) throws(TimeError) {
    _ = try add(amounts.lowerBound, to: times.lowerBound, operation)
    _ = try add(amounts.upperBound, to: times.upperBound, operation)
  }

  /// `last − first` for `first ≤ last`: with it checked, the difference of any two
  /// times between them is an `Int64` too.
  ///
  /// - Throws: `TimeError.Reason.spanOverflow` when the span is no `Int64`.
  public static func span(from first: Int64, to last: Int64) throws(TimeError) -> Int64 {
    precondition(first <= last, "span from \(first) to \(last)")
    let (span, overflow) = last.subtractingReportingOverflow(first)
    if overflow { throw TimeError(.spanOverflow(first: first, last: last)) }
    return span
  }

  /// The earliest and latest time of `columns` (each ascending), checked to `span`:
  /// any two of their times are then a duration apart. `nil` when every column is empty.
  ///
  /// - Throws: `TimeError.Reason.spanOverflow`.
  public static func bounds(of columns: [[Int64]]) throws(TimeError) -> ClosedRange<Int64>? {
    let quoted = columns.filter { !$0.isEmpty }
    guard let first = quoted.map({ $0[0] }).min(), let last = quoted.map({ $0[$0.count - 1] }).max() else { return nil }
    _ = try span(from: first, to: last)
    return first...last
  }

  /// The fixed grid of `step` µs over `first…last`: its first point (the multiple of
  /// `step` at or before `first`) and its number of points (the multiples up to `last`).
  /// Counted, not stepped, so nothing is allocated before the limit is checked.
  ///
  /// - Throws: `TimeError.Reason.overflow` when the first point is before `Int64.min`,
  ///   `.tooManyPoints` above `limit` points.
  public static func grid(
    from first: Int64, through last: Int64, step: Int64, limit: Int = gridPointLimit
  ) throws(TimeError) -> (
    start: Int64, count: Int
  ) {
    precondition(step > 0 && first <= last, "grid of \(step) over \(first)…\(last)")
    let start = try add(-first.floorMod(step), to: first, .grid)
    let intervals = (try? span(from: start, to: last)).map { $0 / step }
    guard let intervals, intervals < Int64(limit) else {
      throw TimeError(.tooManyPoints(step: step, first: first, last: last, count: intervals.map { $0 + 1 }, limit: limit))
    }
    return (start, Int(intervals) + 1)
  }
}

extension Int64 {
  /// The remainder of `floorDiv`: in `0..<divisor` for a positive divisor, and never
  /// overflows (`self − floorDiv(d) × d` can).
  @inlinable
  public func floorMod(_ divisor: Int64) -> Int64 {
    let r = self % divisor
    return r != 0 && (r < 0) != (divisor < 0) ? r + divisor : r
  }
}
