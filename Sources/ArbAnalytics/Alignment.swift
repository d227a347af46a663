import ArbCore

/// How legs are put on one clock.
public struct AlignmentOptions: Sendable {
  /// A point is valid only when every leg's last quote is at most this old (µs).
  /// `nil`: no limit.
  public var maxStale: Int64? = nil
  /// Fixed grid step (µs); `nil` uses the union clock of all legs' events.
  public var grid: Int64? = nil
  /// Per-leg staleness limits (µs) replacing `maxStale` for the legs given (an FX leg
  /// of daily rates needs days where prices need seconds); `nil` entries, and legs
  /// past the end of the array, use `maxStale`.
  public var legMaxStale: [Int64?] = []
  /// A point is valid when at least this many legs (≥ 2) have a usable quote; the others
  /// are left out of that point (the premium board's "-"). `nil`: every leg.
  public var minimumLegs: Int? = nil

  public init(maxStale: Int64? = nil, grid: Int64? = nil, legMaxStale: [Int64?] = [], minimumLegs: Int? = nil) {
    precondition(minimumLegs.map { $0 >= 2 } ?? true, "minimumLegs must be at least 2")
    self.maxStale = maxStale
    self.grid = grid
    self.legMaxStale = legMaxStale
    self.minimumLegs = minimumLegs
  }

  /// The staleness limit of leg `k` (µs), `Int64.max` for none.
  public func maxStale(leg k: Int) -> Int64 {
    (k < legMaxStale.count ? legMaxStale[k] : nil) ?? maxStale ?? .max
  }
}

/// Legs joined as-of onto a common clock (`docs/definitions.md`, "Alignment").
///
/// `state(leg: k, point: i)` is the index in leg `k` of its last quote with
/// `time ≤ time[i]` (`-1` when the leg has not quoted yet, on a grid; with
/// `minimumLegs`, also when the leg is left out of the point). A point is valid when every leg (or `minimumLegs` of them) has a quote
/// no older than `maxStale` with both sides priced.
public struct AlignedLegs: Sendable {
  public var time: [Int64]
  /// Time to the next clock point; 0 for the last point.
  public var duration: [Int64]
  public var valid: [Bool]
  /// As-of quote indexes, point-major: `states[i * legCount + k]`.
  public var states: [Int32]
  public var legCount: Int
  /// Legs a valid point needs (`legCount` unless the options set `minimumLegs`).
  public var requiredLegs: Int
  public var validPoints: Int
  /// Points not valid (a stale, missing or one-sided leg; with `minimumLegs`, too few usable legs).
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
  /// Joins `legs` as-of on the union clock (or a fixed grid), keeping every leg's
  /// quote index at every point (what `--series` prints).
  ///
  /// The union clock is the sorted set of distinct quote times, from the first time
  /// at which every leg has quoted. On a grid, points run from that time floored to
  /// the step up to the last quote time of any leg.
  ///
  /// - Throws: `AlignmentError` for fewer than two legs, an empty leg, or legs that
  ///   never overlap.
  /// - Complexity: O(points × legs).
  public init(legs: [QuoteSeries], options: AlignmentOptions = AlignmentOptions()) throws(AlignmentError) {
    let merge = try AsOfMerge(legs: legs, options: options)
    let legCount = legs.count
    var clock = [Int64](repeating: 0, count: merge.capacity)
    var valid = [Bool](repeating: false, count: merge.capacity)
    var state = [Int32](repeating: -1, count: merge.capacity * legCount)
    let produced = clock.withUnsafeMutableBufferPointer { clock in
      valid.withUnsafeMutableBufferPointer { valid in
        state.withUnsafeMutableBufferPointer { state in
          var recorder = StateRecorder(
            clock: clock, valid: valid, state: state, legCount: legCount, marksUnusable: merge.required < legCount)
          return merge.forEachPoint(&recorder)
        }
      }
    }
    clock.removeLast(merge.capacity - produced)
    valid.removeLast(merge.capacity - produced)
    state.removeLast((merge.capacity - produced) * legCount)
    var duration = [Int64](repeating: 0, count: produced)
    for i in 0..<max(produced - 1, 0) { duration[i] = clock[i + 1] - clock[i] }
    time = clock
    self.duration = duration
    self.valid = valid
    states = state
    self.legCount = legCount
    requiredLegs = merge.required
    validPoints = valid.reduce(0) { $0 + ($1 ? 1 : 0) }
  }
}

/// Stores each clock point, its validity and every leg's quote index.
private struct StateRecorder: PointVisitor {
  let clock: UnsafeMutableBufferPointer<Int64>
  let valid: UnsafeMutableBufferPointer<Bool>
  let state: UnsafeMutableBufferPointer<Int32>
  let legCount: Int
  /// Record -1 for a leg left out of a point (with `minimumLegs`).
  let marksUnusable: Bool

  @inline(__always)
  mutating func visit(
    _ i: Int, time: Int64, valid ok: Bool, cursor: UnsafeMutableBufferPointer<Int>, quotes: UnsafeMutableBufferPointer<Double>
  ) {
    clock[i] = time
    valid[i] = ok
    for k in 0..<legCount { state[i * legCount + k] = marksUnusable && quotes[k].isNaN ? -1 : Int32(cursor[k]) }
  }
}
