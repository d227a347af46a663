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

  /// Number of valid points.
  var count: Int { points.count }

  /// The time of valid point `p`.
  @inline(__always)
  func time(_ p: Int) -> Int64 { points[p].time }

  /// `sellLeg`: index only the entries that sell this leg (the entry premium is that
  /// direction's), as a run with the same `sellLeg` decides.
  ///
  /// - Complexity: one pass over the clock points, in two halves on two threads, then
  ///   the three block indexes side by side; no allocation per point.
  public init(legs: [QuoteSeries], aligned: AlignedLegs, sellLeg: Int? = nil) {
    precondition(legs.count == 2 && aligned.legCount == 2, "convergence trades exactly two legs")
    let n = aligned.validPoints
    // The halves: clock points before and from `middle`, the second half's valid points
    // numbered after the first's.
    let middle = aligned.count / 2
    let firstHalf = aligned.valid.withUnsafeBufferPointer { valid in valid[..<middle].reduce(0) { $0 + ($1 ? 1 : 0) } }
    var richIsFirst: [Bool] = []
    var exec: [Double] = [], closeFirst: [Double] = [], closeSecond: [Double] = []
    points = [SignalPoint](largeCapacity: n) { points in
      richIsFirst = [Bool](largeCapacity: n) { richIsFirst in
        exec = [Double](largeCapacity: n) { exec in
          closeFirst = [Double](largeCapacity: n) { closeFirst in
            closeSecond = [Double](largeCapacity: n) { closeSecond in
              let columns = IndexColumns(points: points, richIsFirst: richIsFirst, exec: exec, closeFirst: closeFirst, closeSecond: closeSecond)
              DispatchQueue.concurrentPerform(iterations: 2) { half in
                columns.fill(
                  clockPoints: half == 0 ? 0..<middle : middle..<aligned.count, from: half == 0 ? 0 : firstHalf,
                  legs: legs, aligned: aligned, sellLeg: sellLeg)
              }
              return n
            }
            return n
          }
          return n
        }
        return n
      }
      return n
    }
    self.richIsFirst = richIsFirst
    self.sellLeg = sellLeg
    // The three block indexes are independent: built side by side.
    let built = Mutex<[Int: FirstPassage]>([:])
    let columns = [exec, closeFirst, closeSecond]
    DispatchQueue.concurrentPerform(iterations: 3) { k in
      let index = FirstPassage(columns[k], upward: k == 0)
      built.withLock { $0[k] = index }
    }
    entries = built.withLock { $0[0]! }
    exits = built.withLock { [$0[1]!, $0[2]!] }
  }

  /// The first valid-point position at or after `from` whose time is ≥ `t`.
  func firstAtOrAfter(time t: Int64, from: Int) -> Int {
    var low = from, high = count
    while low < high {
      let mid = (low + high) >> 1
      if time(mid) < t { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

/// The index's columns while they are written, by two threads over disjoint ranges.
private struct IndexColumns: @unchecked Sendable {
  let points: UnsafeMutableBufferPointer<SignalPoint>
  let richIsFirst: UnsafeMutableBufferPointer<Bool>
  let exec, closeFirst, closeSecond: UnsafeMutableBufferPointer<Double>

  /// Writes the valid points among clock points `clockPoints`, the first at position `from`.
  func fill(clockPoints: Range<Int>, from: Int, legs: [QuoteSeries], aligned: AlignedLegs, sellLeg: Int?) {
    legs[0].bid.withUnsafeBufferPointer { bid0 in
      legs[0].ask.withUnsafeBufferPointer { ask0 in
        legs[1].bid.withUnsafeBufferPointer { bid1 in
          legs[1].ask.withUnsafeBufferPointer { ask1 in
            aligned.valid.withUnsafeBufferPointer { valid in
              aligned.states.withUnsafeBufferPointer { states in
                aligned.time.withUnsafeBufferPointer { clock in
                  var v = from
                  for i in clockPoints where valid[i] {
                    let a = Int(states[2 * i]), b = Int(states[2 * i + 1])
                    let signal = ConvergenceBacktest.entrySignal(
                      forward: (bid0[a] / ask1[b] - 1) * 100, backward: (bid1[b] / ask0[a] - 1) * 100, sellLeg: sellLeg)
                    points[v] = SignalPoint(time: clock[i], states: (states[2 * i], states[2 * i + 1]))
                    exec[v] = signal.premium
                    richIsFirst[v] = signal.rich == 0
                    closeFirst[v] = (ask0[a] / bid1[b] - 1) * 100
                    closeSecond[v] = (ask1[b] / bid0[a] - 1) * 100
                    v += 1
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
