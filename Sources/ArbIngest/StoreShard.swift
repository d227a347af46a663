import ArbCore

/// Shard `index` of `count` of a run split by time over store legs (`--shard I/N`): the
/// UTC days on which any leg has quotes in the window, cut into `count` runs of
/// consecutive days as even as whole days allow. A shard owns the points from its
/// first day's midnight to the next shard's (the first shard from the start, the last
/// to the end), so the shards together own every point once.
public struct TimeShard: Sendable, Equatable {
  /// 1-based.
  public let index: Int
  public let count: Int
  /// The points the shard owns: `[from, to)`, an absent end open.
  public let owned: TimeWindow
  /// The days with quotes the shard owns.
  public let days: Int

  /// Shard `index` (1…`count`) of the days on which `series` have quotes in `window`.
  public init(index: Int, count: Int, series: [Store.Series], window: TimeWindow) {
    precondition(1 <= index && index <= count, "shard index in 1…count")
    var starts = Set<Int64>()
    for s in series {
      for p in s.partitions where window.overlaps(first: p.firstTime, last: p.lastTime) {
        starts.insert(p.firstTime.floorDiv(TimeText.microsPerDay) * TimeText.microsPerDay)
      }
    }
    let days = starts.sorted()
    // Shard k (0-based) owns days[k·D/N ..< (k+1)·D/N], from the first of them to the next shard's first.
    // k·D/N in full width: N may be as large as an `Int` holds.
    func firstDay(_ k: Int) -> Int { Int(Int128(k) * Int128(days.count) / Int128(count)) }
    func boundary(_ k: Int) -> Int64? {
      guard k > 0 && k < count else { return nil }
      let first = firstDay(k)
      return first < days.count ? days[first] : days.last.map { $0 + TimeText.microsPerDay }
    }
    self.index = index
    self.count = count
    owned = TimeWindow(from: boundary(index - 1), to: boundary(index))
    self.days = firstDay(index) - firstDay(index - 1)
  }

  /// The window a leg of `series` is read in so that the shard's first point sees the
  /// quote in force before it: from the start of the leg's last day with quotes before
  /// the shard's first (within `window`), to the window's end.
  public func readWindow(_ series: Store.Series, window: TimeWindow) -> TimeWindow {
    guard let from = owned.from else { return window }
    let before = series.partitions.last { $0.firstTime < from && window.overlaps(first: $0.firstTime, last: $0.lastTime) }
    let start = before?.firstTime ?? from
    return TimeWindow(from: max(start, window.from ?? start), to: window.to)
  }

  /// The part of `window` the shard owns.
  public func owned(of window: TimeWindow) -> TimeWindow {
    let from = [owned.from, window.from].compactMap { $0 }.max()
    let to = [owned.to, window.to].compactMap { $0 }.min()
    return TimeWindow(from: from, to: to)
  }
}

/// The quotes of a series in a window: how many, the first and the last time.
public struct RowSpan: Sendable, Equatable {
  public var rows = 0
  public var firstTime: Int64? = nil
  public var lastTime: Int64? = nil

  public init(rows: Int = 0, firstTime: Int64? = nil, lastTime: Int64? = nil) {
    (self.rows, self.firstTime, self.lastTime) = (rows, firstTime, lastTime)
  }
}

extension Store {
  /// How many quotes of `series` lie in `window`, and their first and last time: from
  /// the manifests for a partition wholly in the window, from its mapped time column
  /// for one the window cuts.
  /// - Throws: `StoreError.corrupt` naming the damaged file; `FileError`.
  public func span(_ series: Series, window: TimeWindow) throws -> RowSpan {
    var span = RowSpan()
    for p in series.partitions where window.overlaps(first: p.firstTime, last: p.lastTime) {
      var (rows, first, last) = (p.rows, p.firstTime, p.lastTime)
      if !(window.contains(p.firstTime) && window.contains(p.lastTime)) {
        let opened = try OpenedPartition(series, p, columns: .timeOnly, readAhead: false)
        // The times are read from the mapping, which lives as long as `opened`.
        let counted = withExtendedLifetime(opened) { () -> RowSpan? in
          let time = opened.values(Int64.self, "time")
          let kept = window.rows(of: time)
          return kept.isEmpty ? nil : RowSpan(rows: kept.count, firstTime: time[kept.lowerBound], lastTime: time[kept.upperBound - 1])
        }
        guard let counted else { continue }
        (rows, first, last) = (counted.rows, counted.firstTime!, counted.lastTime!)
      }
      span.rows += rows
      span.firstTime = span.firstTime ?? first
      span.lastTime = last
    }
    return span
  }
}
