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
  /// Upper bound of the number of clock points (on a grid: their number).
  let capacity: Int
  /// The first grid point (`start` floored to the step); `nil` without a grid.
  let gridStart: Int64?

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
    // Every age and step of the walk is a difference of two times in this span.
    do { _ = try TimeArithmetic.bounds(of: legs.map(\.time)) } catch { throw .time(error) }
    // The walk takes `Int64.max` for a leg past its last quote.
    if end == .max { throw .time(TimeError(.lastInstant)) }
    if let step = options.grid {
      precondition(step > 0, "grid step must be positive")
      do { (gridStart, capacity) = try TimeArithmetic.grid(from: start, through: end, step: step) } catch { throw .time(error) }
    } else {
      gridStart = nil
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
    if legs.count == 2 && required == 2 && options.grid == nil { return forEachPointOfTwo(&visitor, span: span) }
    let legCount = legs.count
    let limits = (0..<legCount).map(options.maxStale(leg:))
    let from = span?.from ?? gridStart ?? start
    let until = span?.until ?? .max
    return limits.withUnsafeBufferPointer { limit in
      withUnsafeBuffers(legs.map(\.time)) { times in
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
                while true {
                  let t: Int64
                  if let step = options.grid, let gridStart {
                    // Point `produced` of `capacity`: at most `end`, so the product and sum fit.
                    guard produced < capacity else { break }
                    t = gridStart + Int64(produced) * step
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
                    // Usable: quoted, and `isUsable`. An unusable leg stays so until its
                    // cursor moves (age only grows), so its quote is set to nan until then
                    // and no point reads it.
                    if c < 0 || !Self.isUsable(bid: quotes[k], ask: quotes[legCount + k], age: t - column[c], limit: limit[k]) {
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
      }
    }
  }
}

extension AsOfMerge {
  /// `forEachPoint` for two legs, both required, on the union clock: the same points,
  /// walked without a branch on which leg quotes next (the general walk mispredicts it
  /// about every other point on interleaved legs).
  ///
  /// Every visited point is at or after `start`, when both legs have quoted, so both
  /// cursors are at a quote there.
  @inline(__always)
  private func forEachPointOfTwo<Visitor: PointVisitor>(_ visitor: inout Visitor, span: Span?) -> Int {
    let limit0 = options.maxStale(leg: 0), limit1 = options.maxStale(leg: 1)
    let from = span?.from ?? start, until = span?.until ?? .max
    return withUnsafeBuffers([legs[0].time, legs[1].time]) { times in
      withUnsafeBuffers([legs[0].bid, legs[1].bid, legs[0].ask, legs[1].ask]) { prices in
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2) { cursor in
          withUnsafeTemporaryAllocation(of: Double.self, capacity: 4) { quotes in
            let (time0, time1) = (times[0], times[1])
            let (bid0, bid1, ask0, ask1) = (prices[0], prices[1], prices[2], prices[3])
            /// Leg quote times after cursor `c`: `Int64.max` past the last.
            @inline(__always) func next(_ column: UnsafeBufferPointer<Int64>, after c: Int) -> Int64 {
              c + 1 < column.count ? column[c + 1] : .max
            }
            var c0 = Self.countBefore(from, in: time0) - 1, c1 = Self.countBefore(from, in: time1) - 1
            var next0 = next(time0, after: c0), next1 = next(time1, after: c1)
            var produced = span?.firstIndex ?? 0
            while true {
              let smallest = min(next0, next1)
              guard smallest < until else { break }
              let t = max(smallest, start)
              // The leg (or both) quoting at t moves one quote, then past any other
              // quote at the same time.
              c0 += next0 == smallest ? 1 : 0
              c1 += next1 == smallest ? 1 : 0
              next0 = next(time0, after: c0)
              next1 = next(time1, after: c1)
              while next0 <= t {
                c0 += 1
                next0 = next(time0, after: c0)
              }
              while next1 <= t {
                c1 += 1
                next1 = next(time1, after: c1)
              }
              let (b0, a0, b1, a1) = (bid0[c0], ask0[c0], bid1[c1], ask1[c1])
              let usable0 = Self.isUsable(bid: b0, ask: a0, age: t - time0[c0], limit: limit0)
              let usable1 = Self.isUsable(bid: b1, ask: a1, age: t - time1[c1], limit: limit1)
              cursor[0] = c0
              cursor[1] = c1
              quotes[0] = usable0 ? b0 : .nan
              quotes[1] = usable1 ? b1 : .nan
              quotes[2] = usable0 ? a0 : .nan
              quotes[3] = usable1 ? a1 : .nan
              visitor.visit(produced, time: t, valid: usable0 && usable1, cursor: cursor, quotes: quotes)
              produced += 1
            }
            return produced - (span?.firstIndex ?? 0)
          }
        }
      }
    }
  }

  /// Whether a leg's quote can make a point valid: both sides finite and positive (an
  /// empty side is nan), and no older than the leg's staleness limit.
  @inline(__always)
  static func isUsable(bid: Double, ask: Double, age: Int64, limit: Int64) -> Bool {
    bid > 0 && bid < .infinity && ask > 0 && ask < .infinity && age <= limit
  }

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
