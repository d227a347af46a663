import ArbCore

/// The half-open time range `[from, to)` of `--from`/`--to`: the rows a command reads.
/// An absent end is open.
public struct TimeWindow: Sendable, Equatable {
  /// The first time kept (inclusive), µs UTC.
  public var from: Int64?
  /// The first time no longer kept (exclusive), µs UTC.
  public var to: Int64?

  public init(from: Int64? = nil, to: Int64? = nil) {
    self.from = from
    self.to = to
  }

  /// `time` is in the window.
  public func contains(_ time: Int64) -> Bool {
    (from.map { time >= $0 } ?? true) && (to.map { time < $0 } ?? true)
  }

  /// The window holds some time of `first...last`.
  public func overlaps(first: Int64, last: Int64) -> Bool {
    (from.map { last >= $0 } ?? true) && (to.map { first < $0 } ?? true)
  }

  /// The indices of `times` (ascending) that are in the window.
  /// - Complexity: O(log *n*).
  public func rows(of times: some RandomAccessCollection<Int64>) -> Range<Int> {
    let lower = from.map { bound in Self.firstIndex(times) { $0 >= bound } } ?? 0
    let upper = to.map { bound in Self.firstIndex(times) { $0 >= bound } } ?? times.count
    return lower..<max(lower, upper)
  }

  /// The first offset of `times` whose value satisfies `isAtOrPast` (monotone), or `times.count`.
  private static func firstIndex(_ times: some RandomAccessCollection<Int64>, where isAtOrPast: (Int64) -> Bool) -> Int {
    var (low, high) = (0, times.count)
    while low < high {
      let middle = low + (high - low) / 2
      if isAtOrPast(times[times.index(times.startIndex, offsetBy: middle)]) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}

extension QuoteSeries {
  /// The quotes of `rows`, every column (and the book depth) sliced alike.
  func slice(_ rows: Range<Int>) -> QuoteSeries {
    if rows == 0..<count { return self }
    var part = self
    part.time = Array(time[rows])
    part.otherTime = otherTime.isEmpty ? [] : Array(otherTime[rows])
    part.bid = Array(bid[rows])
    part.ask = Array(ask[rows])
    part.bidSize = bidSize.isEmpty ? [] : Array(bidSize[rows])
    part.askSize = askSize.isEmpty ? [] : Array(askSize[rows])
    part.fundingInterval = fundingInterval.isEmpty ? [] : Array(fundingInterval[rows])
    part.depth = depth?.selecting(Array(rows))
    return part
  }
}

extension IngestedFile {
  /// The file with only the quotes in `window`: the others are counted in the report as
  /// `rowsOutsideWindow` (they were read and accepted), and the instruments' points and
  /// the first and last times are those kept.
  func keeping(_ window: TimeWindow) -> IngestedFile {
    var kept = self
    kept.report.firstTime = nil
    kept.report.lastTime = nil
    for k in series.indices {
      let rows = window.rows(of: series[k].time)
      kept.series[k] = series[k].slice(rows)
      kept.report.rowsOutsideWindow += series[k].count - rows.count
      kept.report.note(kept.series[k])
    }
    if kept.report.instruments.count == series.count {
      kept.report.instruments = kept.series.map { ($0.instrument, $0.field, $0.count) }
    }
    return kept
  }
}

extension IngestReport {
  /// Widens the report's time range to the times of `series`.
  mutating func note(_ series: QuoteSeries) {
    if let first = series.time.first { firstTime = min(firstTime ?? first, first) }
    if let last = series.time.last { lastTime = max(lastTime ?? last, last) }
  }
}
