import ArbAnalytics
import ArbCore
import Dispatch
import Synchronization

/// The valid points of two aligned legs with the premiums the convergence rules test,
/// indexed for first-passage queries. Built once per data set and shared by every
/// sweep cell on it.
///
/// Memory: per valid point 16 + 1 bytes (its `SignalPoint`, direction) and three
/// indexed premium columns of 8 bytes (plus 1/64 for their blocks).
public struct ConvergenceIndex: Sendable {
  /// Per valid point: its time and quotes, and its direction (rich leg is leg 1).
  let points: [SignalPoint]
  let richIsFirst: [Bool]
  /// Executable premiums (percent), for entry queries.
  let entries: FirstPassage
  /// Closing premiums `ask_R / bid_C − 1` (percent) for R = leg 1 and R = leg 2, for
  /// exit queries.
  let exits: [FirstPassage]

  /// The leg every entry sells (`ConvergenceParameters.sellLeg`), or `nil`.
  let sellLeg: Int?

  /// Number of clock points, valid or not.
  public let clockPoints: Int
  /// Number of valid points (what the runs decide on).
  public var validPoints: Int { points.count }

  /// The time of valid point `p`.
  @inline(__always)
  func time(_ p: Int) -> Int64 { points[p].time }

  /// The index of `legs` aligned with `options` (as `AlignedLegs` would align them, in
  /// one walk that stores only the valid points). `sellLeg`: index only the entries
  /// that sell this leg (the entry premium is that direction's), as a run with the same
  /// `sellLeg` decides.
  ///
  /// - Throws: `AlignmentError` as `AlignedLegs.init`.
  /// - Complexity: one walk of the union clock (two halves on two threads), then the
  ///   three block indexes side by side; no allocation per point.
  public init(legs: [QuoteSeries], options: AlignmentOptions, sellLeg: Int? = nil) throws(AlignmentError) {
    let columns = try SignalColumns(legs: legs, options: options, sellLeg: sellLeg)
    points = columns.points
    richIsFirst = columns.richIsFirst
    clockPoints = columns.clockPoints
    self.sellLeg = sellLeg
    // The three block indexes are independent: built side by side.
    let built = Mutex<[Int: FirstPassage]>([:])
    let premiums = [columns.entry, columns.closeFirst, columns.closeSecond]
    DispatchQueue.concurrentPerform(iterations: 3) { k in
      let index = FirstPassage(premiums[k], upward: k == 0)
      built.withLock { $0[k] = index }
    }
    entries = built.withLock { $0[0]! }
    exits = built.withLock { [$0[1]!, $0[2]!] }
  }

  /// The first valid-point position at or after `from` whose time is ≥ `t`.
  func firstAtOrAfter(time t: Int64, from: Int) -> Int {
    var low = from, high = validPoints
    while low < high {
      let mid = (low + high) >> 1
      if time(mid) < t { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
