import ArbCore

/// How legs are put on one clock.
public struct AlignmentOptions: Sendable {
  /// A point is valid only when every leg's last quote is at most this old (µs).
  /// `nil`: no limit.
  public var maxStale: Int64? = nil
  /// Fixed grid step (µs); `nil` uses the union clock of all legs' events.
  public var grid: Int64? = nil

  public init(maxStale: Int64? = nil, grid: Int64? = nil) {
    self.maxStale = maxStale
    self.grid = grid
  }
}

/// Legs joined as-of onto a common clock (`docs/definitions.md`, "Alignment").
///
/// `state(leg: k, point: i)` is the index in leg `k` of its last quote with
/// `time ≤ time[i]` (`-1` when the leg has not quoted yet, possible only on a grid). A point is
/// valid when every leg has a quote no older than `maxStale` with both sides priced.
public struct AlignedLegs: Sendable {
  public var time: [Int64]
  /// Time to the next clock point; 0 for the last point.
  public var duration: [Int64]
  public var valid: [Bool]
  /// As-of quote indexes, point-major: `states[i * legCount + k]`.
  public var states: [Int32]
  public var legCount: Int
  public var validPoints: Int
  /// Points not valid (a stale, missing or one-sided leg).
  public var stalePoints: Int { time.count - validPoints }
  public var count: Int { time.count }

  /// Index in leg `leg` of its quote in force at point `point`, or -1.
  @inline(__always)
  public func state(leg: Int, point: Int) -> Int32 { states[point * legCount + leg] }
}

/// The reasons two or more legs cannot be aligned.
public enum AlignmentError: Error, Sendable, Equatable, CustomStringConvertible {
  case tooFewLegs(count: Int)
  case emptyLeg(instrument: String)
  case noOverlap(lastEnd: Int64, firstStart: Int64)

  public var description: String {
    switch self {
    case .tooFewLegs(let count): "need at least two legs, was \(count)"
    case .emptyLeg(let instrument): "leg '\(instrument)' has no quotes"
    case .noOverlap(let lastEnd, let firstStart):
      "legs do not overlap in time: one ends at \(TimeText.iso8601(lastEnd)) before another starts at \(TimeText.iso8601(firstStart))"
    }
  }
}

extension AlignedLegs {
  /// Joins `legs` as-of on the union clock (or a fixed grid).
  ///
  /// The union clock is the sorted set of distinct quote times, from the first time
  /// at which every leg has quoted. On a grid, points run from that time floored to
  /// the step up to the last quote time of any leg.
  ///
  /// - Throws: `AlignmentError` for fewer than two legs, an empty leg, or legs that
  ///   never overlap.
  /// - Complexity: O(points × legs).
  public init(legs: [QuoteSeries], options: AlignmentOptions = AlignmentOptions()) throws(AlignmentError) {
    guard legs.count >= 2 else { throw .tooFewLegs(count: legs.count) }
    for leg in legs where leg.count == 0 { throw .emptyLeg(instrument: leg.instrument.description) }
    let start = legs.map { $0.time[0] }.max()!
    let earliestEnd = legs.map { $0.time[$0.count - 1] }.min()!
    if earliestEnd < start { throw .noOverlap(lastEnd: earliestEnd, firstStart: start) }
    let end = legs.map { $0.time[$0.count - 1] }.max()!

    let legCount = legs.count
    let capacity: Int
    if let step = options.grid {
      precondition(step > 0, "grid step must be positive")
      capacity = Int((end - start.floorDiv(step) * step) / step) + 1
    } else {
      capacity = legs.reduce(0) { $0 + $1.count }
    }
    // One merge pass: clock points, each leg's as-of state, validity. Columns are
    // written through raw pointers, then trimmed to the points produced.
    var clock = [Int64](repeating: 0, count: capacity)
    var valid = [Bool](repeating: false, count: capacity)
    var state = [Int32](repeating: -1, count: capacity * legCount)
    var produced = 0
    let limit = options.maxStale ?? .max
    withUnsafeBuffers(legs.map(\.time)) { times in
      withUnsafeBuffers(legs.map(\.bid)) { bids in
        withUnsafeBuffers(legs.map(\.ask)) { asks in
          withUnsafeTemporaryAllocation(of: Int.self, capacity: legCount) { cursor in
            cursor.initialize(repeating: -1)
            clock.withUnsafeMutableBufferPointer { clockOut in
              valid.withUnsafeMutableBufferPointer { validOut in
                state.withUnsafeMutableBufferPointer { stateOut in
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
                    let row = produced * legCount
                    for k in 0..<legCount {
                      let column = times[k]
                      var c = cursor[k]
                      while c + 1 < column.count && column[c + 1] <= t { c += 1 }
                      cursor[k] = c
                      stateOut[row + k] = Int32(c)
                      // Usable: quoted, both sides finite and positive (an empty side is nan), fresh.
                      if c < 0 || !(bids[k][c] > 0 && bids[k][c] < .infinity) || !(asks[k][c] > 0 && asks[k][c] < .infinity)
                        || t - column[c] > limit
                      {
                        ok = false
                      }
                    }
                    clockOut[produced] = t
                    validOut[produced] = ok
                    produced += 1
                  }
                }
              }
            }
          }
        }
      }
    }
    clock.removeLast(capacity - produced)
    valid.removeLast(capacity - produced)
    state.removeLast((capacity - produced) * legCount)
    var duration = [Int64](repeating: 0, count: produced)
    for i in 0..<max(produced - 1, 0) { duration[i] = clock[i + 1] - clock[i] }
    time = clock
    self.duration = duration
    self.valid = valid
    states = state
    self.legCount = legCount
    validPoints = valid.reduce(0) { $0 + ($1 ? 1 : 0) }
  }
}
