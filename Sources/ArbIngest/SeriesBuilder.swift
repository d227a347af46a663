import ArbCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Accumulates the accepted rows of one instrument, then orders and de-duplicates them.
///
/// Rows are first written to a small staging block of raw columns and moved into the
/// series' arrays a block at a time: one bulk append per column per block instead of
/// a capacity and uniqueness check per value.
struct SeriesBuilder {
  var series: QuoteSeries
  /// Time of the last point appended.
  var lastTime: Int64 = .min
  /// Times of the first and last accepted row of the instrument, kept by `FileReader`
  /// on the first builder of an instrument's group for the order check (a row of a
  /// derivative ticker may add no point to this series).
  var firstRowTime: Int64 = .min
  var lastRowTime: Int64 = .min
  var hasBook = false
  /// Set when a streamed read (`FileQuoteStream`) counts this series' points instead of
  /// keeping them.
  private(set) var tally: PointTally? = nil
  private let stage: RowStage
  /// Rows of the columns' capacity whose pages `populate` has mapped.
  private var populatedRows = 0
  /// The other clock's times are kept (the layout has them and they were asked for).
  let keepsOtherTime: Bool
  private let keepsFundingInterval: Bool

  init(
    instrument: Instrument, field: SeriesField = .price, clock: Clock, keepsOtherTime: Bool,
    keepsFundingInterval: Bool = false, expectedRows: Int
  ) {
    series = QuoteSeries(instrument: instrument, priceSource: .book, field: field, clock: clock)
    stage = RowStage(capacity: min(RowStage.largest, max(16, expectedRows)))
    self.keepsOtherTime = keepsOtherTime
    self.keepsFundingInterval = keepsFundingInterval
    series.time.reserveCapacity(expectedRows)
    if keepsOtherTime { series.otherTime.reserveCapacity(expectedRows) }
    if keepsFundingInterval { series.fundingInterval.reserveCapacity(expectedRows) }
    series.bid.reserveCapacity(expectedRows)
    series.ask.reserveCapacity(expectedRows)
    series.bidSize.reserveCapacity(expectedRows)
    series.askSize.reserveCapacity(expectedRows)
  }

  /// Takes the time of an accepted row of the instrument for the order check: the time
  /// of the row before when `time` goes back from it (forward when `descending`) and
  /// the order is `checked`, else `nil` and the first and last row times kept.
  @inline(__always)
  mutating func takeRowTime(_ time: Int64, descending: Bool, checked: Bool) -> Int64? {
    let previous = lastRowTime
    if previous != .min && checked && (descending ? time > previous : time < previous) { return previous }
    if previous == .min { firstRowTime = time }
    lastRowTime = time
    return nil
  }

  /// Appends a point; `isBook`: its row had a bid or an ask.
  @inline(__always)
  mutating func append(
    time: Int64, otherTime: Int64?, bid: Double, ask: Double, bidSize: Double, askSize: Double, fundingInterval: Int64 = 0,
    isBook: Bool = false
  ) {
    if isBook { hasBook = true }
    if tally != nil {
      tally!.add(time)
      lastTime = time
      return
    }
    let k = stage.count
    stage.time[k] = time
    stage.otherTime[k] = otherTime ?? 0
    stage.fundingInterval[k] = fundingInterval
    stage.bid[k] = bid
    stage.ask[k] = ask
    stage.bidSize[k] = bidSize
    stage.askSize[k] = askSize
    stage.count = k + 1
    lastTime = time
    if k + 1 == stage.capacity { flush() }
  }

  /// Whether `other` builds the same series (instrument and field).
  func isSameSeries(_ other: SeriesBuilder) -> Bool {
    series.instrument == other.series.instrument && series.field == other.series.field
  }

  /// Points appended and not yet dropped.
  var pendingPoints: Int { series.count + stage.count }

  /// Counts the points `later`, which counts the same series' next rows, counted.
  mutating func appendCount(_ later: SeriesBuilder) {
    tally!.append(later.tally!)
  }

  /// Stops keeping points: those kept so far, and every later one, are only counted, as
  /// `finish` and `window` would count them.
  mutating func stopKeeping(window: TimeWindow) {
    flush()
    var counted = PointTally(window: window)
    for time in series.time { counted.add(time) }
    tally = counted
    dropFirst(series.count)
  }

  /// Removes the first `count` points (after `flush`), keeping the columns' capacity.
  mutating func dropFirst(_ count: Int) {
    series.time.removeFirst(count)
    if keepsOtherTime { series.otherTime.removeFirst(count) }
    if keepsFundingInterval { series.fundingInterval.removeFirst(count) }
    series.bid.removeFirst(count)
    series.ask.removeFirst(count)
    series.bidSize.removeFirst(count)
    series.askSize.removeFirst(count)
    series.depth?.removeFirst(count)
  }

  /// Moves the staged rows into the series' arrays.
  mutating func flush() {
    let n = stage.count
    guard n > 0 else { return }
    if series.count + n > populatedRows { populate(upTo: series.count + 16 * stage.capacity) }
    series.time.append(contentsOf: UnsafeBufferPointer(start: stage.time, count: n))
    if keepsOtherTime { series.otherTime.append(contentsOf: UnsafeBufferPointer(start: stage.otherTime, count: n)) }
    if keepsFundingInterval {
      series.fundingInterval.append(contentsOf: UnsafeBufferPointer(start: stage.fundingInterval, count: n))
    }
    series.bid.append(contentsOf: UnsafeBufferPointer(start: stage.bid, count: n))
    series.ask.append(contentsOf: UnsafeBufferPointer(start: stage.ask, count: n))
    series.bidSize.append(contentsOf: UnsafeBufferPointer(start: stage.bidSize, count: n))
    series.askSize.append(contentsOf: UnsafeBufferPointer(start: stage.askSize, count: n))
    stage.count = 0
  }

  /// Maps the pages of the columns' capacity for rows up to `rows` in one call per
  /// column (`MADV_POPULATE_WRITE`), where appending would take a page fault per page of
  /// fresh memory: about a third less system time. Only a hint; a column whose capacity
  /// ends earlier is mapped to its end.
  mutating func populate(upTo rows: Int) {
    let from = series.count
    Self.populate(&series.time, from, rows)
    if keepsOtherTime { Self.populate(&series.otherTime, from, rows) }
    if keepsFundingInterval { Self.populate(&series.fundingInterval, from, rows) }
    Self.populate(&series.bid, from, rows)
    Self.populate(&series.ask, from, rows)
    Self.populate(&series.bidSize, from, rows)
    Self.populate(&series.askSize, from, rows)
    populatedRows = max(populatedRows, rows)
  }

  private static func populate<T>(_ column: inout [T], _ from: Int, _ to: Int) {
    let end = min(to, column.capacity)
    guard end > from, (end - from) * MemoryLayout<T>.stride >= 1 << 16 else { return }
    column.withUnsafeMutableBufferPointer { rows in
      guard let base = rows.baseAddress else { return }
      let page = pageSize
      let start = Int(bitPattern: base + from) & ~(page - 1)
      let stop = Int(bitPattern: base + end) & ~(page - 1)
      if stop > start { madvise(UnsafeMutableRawPointer(bitPattern: start), stop - start, MADV_POPULATE_WRITE) }
    }
  }

  /// The finished series, ascending in time with duplicates collapsed to the last row
  /// in file order (kept, in file order, with `keepsEqualTimes`: trades at one time each
  /// trade their own size), and the number of rows collapsed away.
  ///
  /// - Parameter order: how the rows were checked while reading: ascending, descending
  ///   (reversed here) or unsorted (stable-sorted here).
  mutating func finish(order: RowOrder, keepsEqualTimes: Bool = false) -> (series: QuoteSeries, collapsed: Int) {
    flush()
    series.priceSource = hasBook ? .book : .last
    let n = series.count
    var permutation: [Int]? = nil
    switch order {
    case .ascending:
      var duplicates = false
      series.time.withUnsafeBufferPointer { t in
        for k in 1..<max(n, 1) where t[k] == t[k - 1] { duplicates = true; break }
      }
      if !duplicates || keepsEqualTimes { return (series, 0) }
    case .descending: permutation = Array((0..<n).reversed())
    case .unsorted:
      let time = series.time
      var index = Array(0..<n)
      index.sort { time[$0] != time[$1] ? time[$0] < time[$1] : $0 < $1 }
      if index != Array(0..<n) { permutation = index }
    }
    if keepsEqualTimes, let permutation {
      keepRows(permutation, increasing: false)
      return (series, 0)
    }
    // Keep, for each run of equal times, the row that came last in the file.
    let fileIndexOf: (Int) -> Int = { permutation?[$0] ?? $0 }
    var keep: [Int] = []
    keep.reserveCapacity(n)
    let time = series.time
    var i = 0
    while i < n {
      let t = time[permutation?[i] ?? i]
      var best = i
      var j = i + 1
      while j < n && time[permutation?[j] ?? j] == t {
        if fileIndexOf(j) > fileIndexOf(best) { best = j }
        j += 1
      }
      keep.append(permutation?[best] ?? best)
      i = j
    }
    let collapsed = n - keep.count
    // Without a permutation `keep` is increasing: the columns shrink in place.
    if permutation != nil || collapsed > 0 { keepRows(keep, increasing: permutation == nil) }
    return (series, collapsed)
  }

  /// The series reduced to its rows listed in `keep`, in that order.
  private mutating func keepRows(_ keep: [Int], increasing: Bool) {
    series.depth = series.depth?.selecting(keep)
    Self.select(&series.time, keep, increasing: increasing)
    Self.select(&series.otherTime, keep, increasing: increasing)
    Self.select(&series.fundingInterval, keep, increasing: increasing)
    Self.select(&series.bid, keep, increasing: increasing)
    Self.select(&series.ask, keep, increasing: increasing)
    Self.select(&series.bidSize, keep, increasing: increasing)
    Self.select(&series.askSize, keep, increasing: increasing)
  }

  /// `column` reduced to its rows listed in `keep`, in that order (an empty column stays
  /// empty). An `increasing` list (so `keep[w] >= w`) is applied in place, front to
  /// back, without a new array.
  private static func select<T>(_ column: inout [T], _ keep: [Int], increasing: Bool) {
    guard !column.isEmpty else { return }
    guard increasing else {
      column = keep.map { column[$0] }
      return
    }
    column.withUnsafeMutableBufferPointer { rows in
      for (w, r) in keep.enumerated() { rows[w] = rows[r] }
    }
    column.removeLast(column.count - keep.count)
  }
}

/// The points of one series counted as a file is read in time order, as the whole read
/// counts them: a run of rows at one time is one point (the others collapse), kept when
/// its time is inside the window.
struct PointTally {
  /// What one row is to the series.
  enum Row {
    /// A new point inside the window.
    case kept
    /// At the time of the row before, which was kept: it replaces that point.
    case replacing
    /// Outside the window (a new point, or a row at the time of one).
    case dropped
  }

  let window: TimeWindow
  /// The times of the first and the last row counted.
  private var firstTime: Int64? = nil
  private var lastTime: Int64? = nil
  private var lastKind = Row.dropped
  private(set) var collapsed = 0
  private(set) var kept = 0
  private(set) var outside = 0
  /// The first and last times kept.
  private(set) var firstKept: Int64? = nil
  private(set) var lastKept: Int64? = nil

  init(window: TimeWindow) { self.window = window }

  /// Counts a row at `time` (never before the last).
  @inline(__always)
  @discardableResult
  mutating func add(_ time: Int64) -> Row {
    if time == lastTime {
      collapsed += 1
      return lastKind == .dropped ? .dropped : .replacing
    }
    if lastTime == nil { firstTime = time }
    lastTime = time
    guard window.contains(time) else {
      outside += 1
      lastKind = .dropped
      return .dropped
    }
    kept += 1
    if firstKept == nil { firstKept = time }
    lastKept = time
    lastKind = .kept
    return .kept
  }

  /// Counts the rows `later` counted (in the same window) as if they followed these: a
  /// first row at the time of the last one here collapses into it.
  mutating func append(_ later: PointTally) {
    guard let first = later.firstTime else { return }
    if first == lastTime {
      // Counted there as a new point (kept or outside); here it replaces the last one.
      collapsed += 1
      if window.contains(first) { kept -= 1 } else { outside -= 1 }
    }
    if firstTime == nil { firstTime = first }
    collapsed += later.collapsed
    kept += later.kept
    outside += later.outside
    firstKept = firstKept ?? later.firstKept
    lastKept = later.lastKept ?? lastKept
    lastTime = later.lastTime
    lastKind = later.lastKind
  }
}

/// The size of a memory page.
private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

/// The order rows are expected in while reading.
enum RowOrder {
  case ascending, descending, unsorted
}

/// A block of raw column storage for rows on their way into a `SeriesBuilder`: one
/// allocation, so that a series of few rows (one of thousands a JSON line may name)
/// touches one page, not one a column.
private final class RowStage {
  /// The rows of the stage of a series expecting many.
  static let largest = 4096
  let capacity: Int
  let time: UnsafeMutablePointer<Int64>
  let otherTime: UnsafeMutablePointer<Int64>
  let fundingInterval: UnsafeMutablePointer<Int64>
  let bid: UnsafeMutablePointer<Double>
  let ask: UnsafeMutablePointer<Double>
  let bidSize: UnsafeMutablePointer<Double>
  let askSize: UnsafeMutablePointer<Double>
  var count = 0
  private let block: UnsafeMutableRawPointer

  init(capacity: Int) {
    self.capacity = capacity
    let block = UnsafeMutableRawPointer.allocate(byteCount: 7 * 8 * capacity, alignment: 16)
    self.block = block
    func column<T>(_ k: Int, _: T.Type) -> UnsafeMutablePointer<T> { (block + k * 8 * capacity).bindMemory(to: T.self, capacity: capacity) }
    time = column(0, Int64.self)
    otherTime = column(1, Int64.self)
    fundingInterval = column(2, Int64.self)
    bid = column(3, Double.self)
    ask = column(4, Double.self)
    bidSize = column(5, Double.self)
    askSize = column(6, Double.self)
  }

  deinit { block.deallocate() }
}

extension [SeriesBuilder] {
  /// The finished series of every builder, in `order` (indices), entered into `report`
  /// (collapsed rows, instruments, first and last times); the builders are emptied.
  /// - Parameters:
  ///   - rows: the order of the rows read (`SeriesBuilder.finish`).
  ///   - keepsEqualTimes: as `SeriesBuilder.finish`.
  ///   - dropsEmpty: a series without points is left out.
  mutating func finish(
    in order: [Int], rows: RowOrder, keepsEqualTimes: Bool = false, dropsEmpty: Bool = false, into report: inout IngestReport
  ) -> [QuoteSeries] {
    var series: [QuoteSeries] = []
    for k in order {
      let (finished, collapsed) = self[k].finish(order: rows, keepsEqualTimes: keepsEqualTimes)
      if finished.count == 0 && dropsEmpty { continue }
      report.rowsCollapsed += collapsed
      report.instruments.append((finished.instrument, finished.field, finished.count))
      if let first = finished.time.first { report.firstTime = Swift.min(report.firstTime ?? first, first) }
      if let last = finished.time.last { report.lastTime = Swift.max(report.lastTime ?? last, last) }
      series.append(finished)
    }
    self = []
    return series
  }
}
