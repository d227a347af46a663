import ArbCore
import Dispatch
import Synchronization

/// A clock point of two aligned legs as a strategy signal: its time and both legs'
/// quote indexes, side by side (what a fill reads, in one cache line).
public struct SignalPoint: Sendable, BitwiseCopyable {
  public var time: Int64
  public var states: (Int32, Int32)

  @inlinable
  public init(time: Int64, states: (Int32, Int32)) {
    self.time = time
    self.states = states
  }

  /// Leg `k`'s quote index.
  @inlinable @inline(__always)
  public func state(_ k: Int) -> Int { Int(k == 0 ? states.0 : states.1) }
}

/// The valid points of two legs joined as-of (`docs/definitions.md`, "Alignment") with
/// the premiums a threshold strategy tests there, from one walk of the union clock:
/// the aligned legs are never stored.
///
/// Per valid point: its `SignalPoint`; the entry premium and the leg it sells
/// (`entrySignal`); the closing premiums `ask_R / bid_C − 1` (percent) with R = leg 1
/// and R = leg 2.
public struct SignalColumns: Sendable {
  /// Points of the clock (valid or not), and the valid ones.
  public let clockPoints: Int
  public var validPoints: Int { points.count }
  public var points: [SignalPoint]
  public var richIsFirst: [Bool]
  public var entry: [Double]
  public var closeFirst: [Double]
  public var closeSecond: [Double]

  /// The columns of `legs` (exactly two) aligned with `options` (every leg required);
  /// `sellLeg` fixes the leg an entry sells (`nil`: the richer one).
  ///
  /// - Throws: `AlignmentError` as `AlignedLegs.init`.
  public init(legs: [QuoteSeries], options: AlignmentOptions, sellLeg: Int?) throws(AlignmentError) {
    try self.init(legs: legs, options: options, sellLeg: sellLeg, splitAbove: 1 << 20)
  }

  /// As `init(legs:options:sellLeg:)`; a union clock of at least `splitAbove` events is
  /// walked as two halves on two threads, the second half's points moved down behind
  /// the first's.
  init(legs: [QuoteSeries], options: AlignmentOptions, sellLeg: Int?, splitAbove: Int) throws(AlignmentError) {
    precondition(legs.count == 2 && (options.minimumLegs ?? 2) == 2, "signal columns need exactly two legs, both required")
    let merge = try AsOfMerge(legs: legs, options: options)
    var clockPoints = 0
    var richIsFirst: [Bool] = [], entry: [Double] = [], closeFirst: [Double] = [], closeSecond: [Double] = []
    points = [SignalPoint](largeCapacity: merge.capacity) { points in
      var valid = 0
      richIsFirst = [Bool](largeCapacity: merge.capacity) { richIsFirst in
        entry = [Double](largeCapacity: merge.capacity) { entry in
          closeFirst = [Double](largeCapacity: merge.capacity) { closeFirst in
            closeSecond = [Double](largeCapacity: merge.capacity) { closeSecond in
              let writer = SignalWriter(
                points: points, richIsFirst: richIsFirst, entry: entry, closeFirst: closeFirst, closeSecond: closeSecond, sellLeg: sellLeg)
              (clockPoints, valid) = writer.record(merge, splitAbove: splitAbove)
              return valid
            }
            return valid
          }
          return valid
        }
        return valid
      }
      return valid
    }
    self.clockPoints = clockPoints
    self.richIsFirst = richIsFirst
    self.entry = entry
    self.closeFirst = closeFirst
    self.closeSecond = closeSecond
  }

  /// The entry premium and the leg sold: the executable premium and its direction,
  /// or the premium of selling `sellLeg` when the direction is fixed.
  @inlinable @inline(__always)
  public static func entrySignal(forward: Double, backward: Double, sellLeg: Int?) -> (premium: Double, rich: Int) {
    switch sellLeg {
    case 0: return (forward, 0)
    case 1: return (backward, 1)
    default: return forward >= backward ? (forward, 0) : (backward, 1)
    }
  }
}

/// Writes the valid points of a walk, numbered from `next`.
private struct SignalWriter: PointVisitor {
  let points: UnsafeMutableBufferPointer<SignalPoint>
  let richIsFirst: UnsafeMutableBufferPointer<Bool>
  let entry, closeFirst, closeSecond: UnsafeMutableBufferPointer<Double>
  let sellLeg: Int?
  var next = 0

  @inline(__always)
  mutating func visit(
    _ i: Int, time: Int64, valid: Bool, cursor: UnsafeMutableBufferPointer<Int>, quotes: UnsafeMutableBufferPointer<Double>
  ) {
    guard valid else { return }
    // quotes: bid 0, bid 1, ask 0, ask 1.
    let (bid0, bid1, ask0, ask1) = (quotes[0], quotes[1], quotes[2], quotes[3])
    let signal = SignalColumns.entrySignal(forward: (bid0 / ask1 - 1) * 100, backward: (bid1 / ask0 - 1) * 100, sellLeg: sellLeg)
    points[next] = SignalPoint(time: time, states: (Int32(cursor[0]), Int32(cursor[1])))
    entry[next] = signal.premium
    richIsFirst[next] = signal.rich == 0
    closeFirst[next] = (ask0 / bid1 - 1) * 100
    closeSecond[next] = (ask1 / bid0 - 1) * 100
    next += 1
  }

  /// Records the valid points of `merge`, in two halves on two threads when it has at
  /// least `splitAbove` events; returns the numbers of clock points and valid points.
  func record(_ merge: AsOfMerge, splitAbove: Int) -> (points: Int, valid: Int) {
    var whole = self
    guard let (first, second) = merge.halves(minimumEvents: splitAbove) else {
      let points = merge.forEachPoint(&whole)
      return (points, whole.next)
    }
    // The second half writes from the first index it could hold: at least as many
    // valid points as the first half has.
    let counts = Mutex<[(points: Int, valid: Int)]>([(0, 0), (0, 0)])
    nonisolated(unsafe) let shared = self  // the halves write disjoint index ranges
    DispatchQueue.concurrentPerform(iterations: 2) { k in
      var half = shared
      half.next = k == 0 ? 0 : second.firstIndex
      let points = merge.forEachPoint(&half, span: k == 0 ? first : second)
      counts.withLock { $0[k] = (points, half.next - (k == 0 ? 0 : second.firstIndex)) }
    }
    let (a, b) = counts.withLock { ($0[0], $0[1]) }
    move(from: second.firstIndex, count: b.valid, to: a.valid)
    return (a.points + b.points, a.valid + b.valid)
  }

  /// Moves `count` points from index `from` down to `to` (the ranges may overlap),
  /// the columns side by side.
  private func move(from: Int, count: Int, to: Int) {
    nonisolated(unsafe) let columns = self  // each column moved by one thread
    DispatchQueue.concurrentPerform(iterations: 5) { k in
      switch k {
      case 0: movePoints(columns.points, from: from, count: count, to: to)
      case 1: movePoints(columns.entry, from: from, count: count, to: to)
      case 2: movePoints(columns.closeFirst, from: from, count: count, to: to)
      case 3: movePoints(columns.closeSecond, from: from, count: count, to: to)
      default: movePoints(columns.richIsFirst, from: from, count: count, to: to)
      }
    }
  }
}
