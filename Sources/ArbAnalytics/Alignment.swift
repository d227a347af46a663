import ArbCore
import Dispatch
import Synchronization

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
  /// Time to the next clock point; 0 for the last point (computed on each use: no
  /// command needs it on a large clock).
  public var duration: [Int64] { time.indices.map { $0 + 1 < time.count ? time[$0 + 1] - time[$0] : 0 } }
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
  @inlinable @inline(__always)
  public func state(leg: Int, point: Int) -> Int32 { states[point * legCount + leg] }
}

/// The reasons two or more legs cannot be aligned.
public enum AlignmentError: Error, Sendable, Equatable, CustomStringConvertible {
  case tooFewLegs(count: Int)
  case emptyLeg(instrument: String)
  case noOverlap(lastEnd: Int64, firstStart: Int64)
  /// The legs' times span more than a duration holds, or a grid over them is too large.
  case time(TimeError)

  public var description: String {
    switch self {
    case .tooFewLegs(let count): "need at least two legs, was \(count)"
    case .emptyLeg(let instrument): "leg '\(instrument)' has no quotes"
    case .noOverlap(let lastEnd, let firstStart):
      "legs do not overlap in time: one ends at \(TimeText.iso8601(lastEnd)) before another starts at \(TimeText.iso8601(firstStart))"
    case .time(let error): error.description
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
  /// - Throws: `AlignmentError` for fewer than two legs, an empty leg, legs that
  ///   never overlap, or `.time` for times spanning more than an `Int64` or a grid of
  ///   more than `TimeArithmetic.gridPointLimit` points.
  /// - Complexity: O(points × legs).
  public init(legs: [QuoteSeries], options: AlignmentOptions = AlignmentOptions()) throws(AlignmentError) {
    try self.init(legs: legs, options: options, splitAbove: 1 << 20)
  }

  /// As `init(legs:options:)`; a union clock of at least `splitAbove` events is walked
  /// as two halves on two threads (as `PremiumSeries` does), and the second half's
  /// points are moved down behind the first's.
  init(legs: [QuoteSeries], options: AlignmentOptions, splitAbove: Int) throws(AlignmentError) {
    let merge = try AsOfMerge(legs: legs, options: options)
    let legCount = legs.count
    var valid: [Bool] = [], state: [Int32] = []
    let clock = [Int64](largeCapacity: merge.capacity) { clock in
      var produced = 0
      valid = [Bool](largeCapacity: merge.capacity) { valid in
        state = [Int32](largeCapacity: merge.capacity * legCount) { state in
          let recorder = StateRecorder(
            clock: clock, valid: valid, state: state, legCount: legCount, marksUnusable: merge.required < legCount)
          produced = recorder.record(merge, splitAbove: splitAbove)
          return produced * legCount
        }
        return produced
      }
      return produced
    }
    time = clock
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

  /// Records every point of `merge`, in two halves on two threads when it has at least
  /// `splitAbove` events; returns the number of points.
  func record(_ merge: AsOfMerge, splitAbove: Int) -> Int {
    var whole = self
    guard let (first, second) = merge.halves(minimumEvents: splitAbove) else { return merge.forEachPoint(&whole) }
    let counts = Mutex<[Int]>([0, 0])
    nonisolated(unsafe) let shared = self  // the halves write disjoint index ranges
    DispatchQueue.concurrentPerform(iterations: 2) { k in
      var half = shared
      let points = merge.forEachPoint(&half, span: k == 0 ? first : second)
      counts.withLock { $0[k] = points }
    }
    let (a, b) = counts.withLock { ($0[0], $0[1]) }
    move(from: second.firstIndex, count: b, to: a)
    return a + b
  }

  /// Moves `count` points from index `from` down to `to` (the ranges may overlap).
  private func move(from: Int, count: Int, to: Int) {
    movePoints(clock, from: from, count: count, to: to)
    movePoints(valid, from: from, count: count, to: to)
    movePoints(state, from: from, count: count, to: to, width: legCount)
  }
}
