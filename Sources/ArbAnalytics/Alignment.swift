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
/// `state[k][i]` is the index in leg `k` of its last quote with `time ≤ time[i]`
/// (`-1` when the leg has not quoted yet, possible only on a grid). A point is
/// valid when every leg has a quote no older than `maxStale` with both sides priced.
public struct AlignedLegs: Sendable {
  public var time: [Int64]
  /// Time to the next clock point; 0 for the last point.
  public var duration: [Int64]
  public var valid: [Bool]
  public var state: [[Int32]]
  public var validPoints: Int
  /// Points not valid (a stale, missing or one-sided leg).
  public var stalePoints: Int { time.count - validPoints }
  public var count: Int { time.count }
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

    var clock: [Int64]
    if let step = options.grid {
      precondition(step > 0, "grid step must be positive")
      let first = start.floorDiv(step) * step
      let count = Int((end - first) / step) + 1
      clock = (0..<count).map { first + Int64($0) * step }
    } else {
      clock = Self.unionClock(legs.map(\.time), from: start)
    }
    let n = clock.count
    var state: [[Int32]] = []
    var valid = [Bool](repeating: true, count: n)
    for leg in legs {
      let indexes = [Int32](unsafeUninitializedCapacity: n) { buffer, initialized in
        leg.time.withUnsafeBufferPointer { times in
          var j = -1
          for i in 0..<n {
            let t = clock[i]
            while j + 1 < times.count && times[j + 1] <= t { j += 1 }
            buffer[i] = Int32(j)
          }
        }
        initialized = n
      }
      // Validity: quoted, fresh enough, both sides priced.
      leg.bid.withUnsafeBufferPointer { bid in
        leg.ask.withUnsafeBufferPointer { ask in
          leg.time.withUnsafeBufferPointer { times in
            for i in 0..<n {
              let j = Int(indexes[i])
              if j < 0 || !(bid[j] > 0) || !(ask[j] > 0) {
                valid[i] = false
              } else if let limit = options.maxStale, clock[i] - times[j] > limit {
                valid[i] = false
              }
            }
          }
        }
      }
      state.append(indexes)
    }
    var duration = [Int64](repeating: 0, count: n)
    for i in 0..<max(n - 1, 0) { duration[i] = clock[i + 1] - clock[i] }
    time = clock
    self.duration = duration
    self.valid = valid
    self.state = state
    validPoints = valid.reduce(0) { $0 + ($1 ? 1 : 0) }
  }

  /// Distinct times of all `times` arrays (each ascending) that are `≥ start`, merged.
  static func unionClock(_ times: [[Int64]], from start: Int64) -> [Int64] {
    var cursor = times.map { column in
      var lo = 0, hi = column.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if column[mid] < start { lo = mid + 1 } else { hi = mid }
      }
      return lo
    }
    var clock: [Int64] = []
    clock.reserveCapacity(times.reduce(0) { $0 + $1.count })
    while true {
      var next = Int64.max
      for k in times.indices where cursor[k] < times[k].count { next = min(next, times[k][cursor[k]]) }
      if next == .max { break }
      clock.append(next)
      for k in times.indices where cursor[k] < times[k].count && times[k][cursor[k]] == next { cursor[k] += 1 }
    }
    return clock
  }
}
