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

  init(legs: [QuoteSeries], options: AlignmentOptions) throws(AlignmentError) {
    guard legs.count >= 2 else { throw .tooFewLegs(count: legs.count) }
    for leg in legs where leg.count == 0 { throw .emptyLeg(instrument: leg.instrument.description) }
    start = legs.map { $0.time[0] }.max()!
    let earliestEnd = legs.map { $0.time[$0.count - 1] }.min()!
    if earliestEnd < start { throw .noOverlap(lastEnd: earliestEnd, firstStart: start) }
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

  /// Calls `body(index, time, cursor, valid)` for every clock point in order, where
  /// `cursor[k]` is leg k's quote in force (-1 before its first quote, on a grid) and
  /// `valid` says every leg has a quote no older than `maxStale` with both sides
  /// priced by finite positive numbers. Returns the number of points.
  ///
  /// - Complexity: O(points × legs + quotes).
  @inline(__always)
  func forEachPoint(_ body: (Int, Int64, UnsafeMutableBufferPointer<Int>, Bool) -> Void) -> Int {
    let legCount = legs.count
    let limit = options.maxStale ?? .max
    return withUnsafeBuffers(legs.map(\.time)) { times in
      withUnsafeBuffers(legs.map(\.bid)) { bids in
        withUnsafeBuffers(legs.map(\.ask)) { asks in
          withUnsafeTemporaryAllocation(of: Int.self, capacity: legCount) { cursor in
            cursor.initialize(repeating: -1)
            var produced = 0
            var next: Int64 = options.grid.map { start.floorDiv($0) * $0 } ?? start
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
                guard smallest != .max else { break }
                t = max(smallest, start)
              }
              var ok = true
              for k in 0..<legCount {
                let column = times[k]
                var c = cursor[k]
                while c + 1 < column.count && column[c + 1] <= t { c += 1 }
                cursor[k] = c
                // Usable: quoted, both sides finite and positive (an empty side is nan), fresh.
                if c < 0 || !(bids[k][c] > 0 && bids[k][c] < .infinity) || !(asks[k][c] > 0 && asks[k][c] < .infinity)
                  || t - column[c] > limit
                {
                  ok = false
                }
              }
              body(produced, t, cursor, ok)
              produced += 1
            }
            return produced
          }
        }
      }
    }
  }
}
