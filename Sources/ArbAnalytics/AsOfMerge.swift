import ArbCore

/// The as-of merge of N legs onto one clock (`docs/definitions.md`, "Alignment"),
/// shared by `AlignedLegs` (which stores every leg's state) and `PremiumSeries`
/// (which computes the premiums on the fly and stores no state).
struct AsOfMerge {
  let legs: [QuoteSeries]
  let options: AlignmentOptions
  /// First time at which every leg has quoted.
  let start: Int64
  /// Last quote time of any leg.
  let end: Int64
  /// Upper bound of the number of clock points.
  let capacity: Int

  /// Legs whose quotes a valid point needs (all, or `options.minimumLegs`).
  let required: Int

  init(legs: [QuoteSeries], options: AlignmentOptions) throws(AlignmentError) {
    guard legs.count >= 2 else { throw .tooFewLegs(count: legs.count) }
    for leg in legs where leg.count == 0 { throw .emptyLeg(instrument: leg.instrument.description) }
    required = min(options.minimumLegs ?? legs.count, legs.count)
    // The clock starts when `required` legs have quoted (every leg by default).
    start = legs.map { $0.time[0] }.sorted()[required - 1]
    let earliestEnd = legs.map { $0.time[$0.count - 1] }.min()!
    if !Self.overlap(legs, required) { throw .noOverlap(lastEnd: earliestEnd, firstStart: start) }
    end = legs.map { $0.time[$0.count - 1] }.max()!
    if let step = options.grid {
      precondition(step > 0, "grid step must be positive")
      capacity = Int((end - start.floorDiv(step) * step) / step) + 1
    } else {
      capacity = legs.reduce(0) { $0 + $1.count }
    }
    self.legs = legs
    self.options = options
  }

  /// Calls `visitor.visit(index, time, valid, cursor, quotes)` for every clock point in
  /// order (a generic visitor rather than a closure, so that it is inlined):
  /// `cursor[k]` is leg k's quote in force (-1 before its first quote),
  /// `quotes[k]` and `quotes[legCount + k]` its bid and ask (kept up to date as the
  /// cursors move, so a point reads them from L1; `nan` while the leg is not usable),
  /// and `valid` says at least `required` legs (every leg by default) have a quote no
  /// older than their staleness limit with both sides finite and positive. Returns the
  /// number of points.
  ///
  /// - Complexity: O(points × legs + quotes).
  ///
  /// `span` restricts the walk to the union-clock points in `from..<until`, numbered
  /// from `firstIndex` (for the halves of a parallel walk); a grid is walked whole.
  @inline(__always)
  func forEachPoint<Visitor: PointVisitor>(_ visitor: inout Visitor, span: Span? = nil) -> Int {
    let legCount = legs.count
    let limits = (0..<legCount).map(options.maxStale(leg:))
    let gridStart = options.grid.map { start.floorDiv($0) * $0 }
    let from = span?.from ?? gridStart ?? start
    let until = span?.until ?? .max
    return limits.withUnsafeBufferPointer { limit in withUnsafeBuffers(legs.map(\.time)) { times in
      withUnsafeBuffers(legs.map(\.bid)) { bids in
        withUnsafeBuffers(legs.map(\.ask)) { asks in
          withUnsafeTemporaryAllocation(of: Int.self, capacity: legCount) { cursor in
           withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * legCount) { quotes in
            // Each leg starts at its last quote before `from` (none: -1).
            for k in 0..<legCount {
              let c = Self.countBefore(from, in: times[k]) - 1
              cursor[k] = c
              quotes[k] = c >= 0 ? bids[k][c] : .nan
              quotes[legCount + k] = c >= 0 ? asks[k][c] : .nan
            }
            var produced = span?.firstIndex ?? 0
            var next: Int64 = gridStart ?? start
            while true {
              let t: Int64
              if let step = options.grid {
                guard next <= end else { break }
                t = next
                next += step
              } else {
                // The smallest next quote time among the legs: the next union point.
                var smallest = Int64.max
                for k in 0..<legCount {
                  let c = cursor[k] + 1
                  if c < times[k].count && times[k][c] < smallest { smallest = times[k][c] }
                }
                guard smallest < until else { break }
                t = max(smallest, start)
              }
              var usable = 0
              for k in 0..<legCount {
                let column = times[k]
                var c = cursor[k]
                if c + 1 < column.count && column[c + 1] <= t {
                  repeat { c += 1 } while c + 1 < column.count && column[c + 1] <= t
                  cursor[k] = c
                  quotes[k] = bids[k][c]
                  quotes[legCount + k] = asks[k][c]
                }
                // Usable: quoted, both sides finite and positive (an empty side is nan), fresh.
                // An unusable leg stays so until its cursor moves (age only grows), so
                // its quote is set to nan until then and no point reads it.
                let bid = quotes[k], ask = quotes[legCount + k]
                if c < 0 || !(bid > 0 && bid < .infinity) || !(ask > 0 && ask < .infinity) || t - column[c] > limit[k] {
                  quotes[k] = .nan
                  quotes[legCount + k] = .nan
                } else {
                  usable += 1
                }
              }
              visitor.visit(produced, time: t, valid: usable >= required, cursor: cursor, quotes: quotes)
              produced += 1
            }
            return produced - (span?.firstIndex ?? 0)
           }
          }
        }
      }
    } }
  }
}

extension AsOfMerge {
  /// Whether at some time at least `required` legs lie between their first and last
  /// quote (with every leg required: the last first quote is not after the first last).
  static func overlap(_ legs: [QuoteSeries], _ required: Int) -> Bool {
    // Starts before ends at equal times: spans that touch overlap.
    let edges = legs.flatMap { [($0.time[0], 1), ($0.time[$0.count - 1], -1)] }.sorted { ($0.0, -$0.1) < ($1.0, -$1.1) }
    var open = 0
    for (_, change) in edges {
      open += change
      if open >= required { return true }
    }
    return false
  }

  /// A part of the union clock: points at times in `from..<until`, numbered from
  /// `firstIndex`.
  struct Span {
    var from: Int64
    var until: Int64
    var firstIndex: Int
  }

  /// Number of values of the ascending `column` below `time`.
  static func countBefore(_ time: Int64, in column: UnsafeBufferPointer<Int64>) -> Int {
    var lo = 0, hi = column.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if column[mid] < time { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }

  /// Two spans that split the union clock near its middle event, and the most points
  /// the first can hold; `nil` on a grid or when there is too little to split.
  func halves(minimumEvents: Int) -> (first: Span, second: Span)? {
    guard options.grid == nil, capacity >= minimumEvents else { return nil }
    // The middle quote of the busiest leg splits the events about in half.
    let busiest = legs.max { $0.count < $1.count }!
    let middle = busiest.time[busiest.count / 2]
    guard middle > start else { return nil }
    let before = legs.reduce(0) { total, leg in
      total + leg.time.withUnsafeBufferPointer { Self.countBefore(middle, in: $0) }
    }
    return (Span(from: start, until: middle, firstIndex: 0), Span(from: middle, until: .max, firstIndex: before))
  }
}

/// Receives the clock points of an `AsOfMerge`.
protocol PointVisitor {
  mutating func visit(
    _ index: Int, time: Int64, valid: Bool, cursor: UnsafeMutableBufferPointer<Int>, quotes: UnsafeMutableBufferPointer<Double>)
}
