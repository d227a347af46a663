import Foundation

/// The rolling figures of one chunk of points: one entry per point of the chunk, `nan`
/// where undefined; a column that was not asked for is empty.
public struct RollingPoints: Sendable {
  /// `RollingStatistics`.
  public var mean: [Double] = []
  public var std: [Double] = []
  public var z: [Double] = []
  /// `EWMA`.
  public var ewmaMean: [Double] = []
  public var ewmaStd: [Double] = []
  /// `RollingHalfLife`.
  public var beta: [Double] = []
  public var halfLifePoints: [Double] = []
  public var halfLifeSeconds: [Double] = []
}

/// Rolling statistics, EWMA and rolling half-life of a series fed in chunks of points
/// (valid points in time order): the state of every window is carried from one chunk
/// to the next, and only the points a window can still reach are kept, so memory
/// depends on the window and the chunk, not on the length of the series.
///
/// Each figure is computed by the same updates in the same order whatever the chunks:
/// any split of the series gives the same bits as one chunk of it. `RollingStatistics`,
/// `EWMA` and `RollingHalfLife` are this stream over one chunk.
public final class RollingStream {
  public let window: RollingWindow
  public let ewmaHalfLife: EWMAHalfLife?
  private let statistics: Bool
  private let halfLife: Bool

  // The points a window may still read, by index relative to `shift` (the number of
  // points dropped): values, times, and `changes[k] = x[k + 1] − x[k]`.
  private var x: UnsafeMutableBufferPointer<Double>
  private var t: UnsafeMutableBufferPointer<Int64>
  private var changes: UnsafeMutableBufferPointer<Double>
  private var held = 0
  /// Points seen so far.
  public private(set) var count = 0
  /// Points held for the windows (what memory grows with).
  var heldPoints: Int { held }

  /// The statistics' window, and how many trailing points equal the newest one.
  private var moments: WindowedMoments
  private var run = 0
  /// The half-life's window of pairs `(x_k, changes[k])`, its first point, and the run
  /// of equal lagged values.
  private var pairs: WindowedMoments
  private var pairsStart = 0
  private var pairsRun = 0
  /// EWMA state: mean, variance, the decay per point or per µs, and the last time.
  private var ewma = (mean: 0.0, variance: 0.0)
  private let pointDecay: Double
  private let timeScale: Double

  /// A stream computing the rolling statistics (`statistics`), the EWMA (`ewma`) and
  /// the rolling half-life (`halfLife`) over `window`.
  public init(window: RollingWindow, statistics: Bool = true, ewma: EWMAHalfLife? = nil, halfLife: Bool = true) {
    self.window = window
    self.statistics = statistics
    self.halfLife = halfLife
    ewmaHalfLife = ewma
    switch ewma {
    case .points(let h): (pointDecay, timeScale) = (pow(0.5, 1 / h), 0)
    case .time(let h): (pointDecay, timeScale) = (0, -log(2) / Double(h))
    case nil: (pointDecay, timeScale) = (0, 0)
    }
    // Distinct buffers from the start: `WindowedMoments` tells one series from two by address.
    x = .allocate(capacity: 1)
    t = .allocate(capacity: 1)
    changes = .allocate(capacity: 1)
    moments = WindowedMoments(x: UnsafeBufferPointer(x), y: UnsafeBufferPointer(x))
    pairs = WindowedMoments(x: UnsafeBufferPointer(x), y: UnsafeBufferPointer(changes))
  }

  deinit {
    x.deallocate()
    t.deallocate()
    changes.deallocate()
  }

  /// The figures at each point of `values` (at `time`), the points that follow those
  /// added before.
  ///
  /// - Precondition: times do not decrease, and `window.checkRange` passes for them.
  public func add(values: UnsafeBufferPointer<Double>, time: UnsafeBufferPointer<Int64>) -> RollingPoints {
    precondition(values.count == time.count, "RollingStream: \(values.count) values vs \(time.count) times")
    make(room: values.count)
    let n = values.count
    var out = RollingPoints()
    if statistics { (out.mean, out.std, out.z) = (Array(repeating: .nan, count: n), Array(repeating: .nan, count: n), Array(repeating: .nan, count: n)) }
    if ewmaHalfLife != nil { (out.ewmaMean, out.ewmaStd) = (Array(repeating: .nan, count: n), Array(repeating: .nan, count: n)) }
    if halfLife {
      (out.beta, out.halfLifePoints, out.halfLifeSeconds) = (
        Array(repeating: .nan, count: n), Array(repeating: .nan, count: n), Array(repeating: .nan, count: n)
      )
    }
    let tt = UnsafeBufferPointer(t)
    for j in 0..<n {
      let i = held
      x[i] = values[j]
      t[i] = time[j]
      if i > 0 { changes[i - 1] = x[i] - x[i - 1] }
      held += 1
      let first = count == 0
      count += 1
      if statistics {
        moments.advance(to: window.start(at: i, after: moments.lo, time: tt))
        run = !first && x[i] == x[i - 1] ? run + 1 : 1
        let points = moments.count
        if run >= points {
          // Every value of the window is x_i: exact mean, zero spread, no z.
          out.mean[j] = x[i]
          out.std[j] = points >= 2 ? 0 : .nan
        } else {
          let s = (moments.sxx / Double(points - 1)).squareRoot()
          out.mean[j] = moments.meanX
          out.std[j] = s
          out.z[j] = s > 0 ? (x[i] - moments.meanX) / s : .nan
        }
      }
      if ewmaHalfLife != nil {
        if first {
          ewma = (x[i], 0)
        } else {
          let decay = timeScale == 0 ? pointDecay : exp(timeScale * Double(t[i] - t[i - 1]))
          let d = x[i] - ewma.mean
          let alpha = 1 - decay
          ewma.mean += alpha * d
          ewma.variance = decay * (ewma.variance + alpha * d * d)
          out.ewmaStd[j] = ewma.variance.squareRoot()
        }
        out.ewmaMean[j] = ewma.mean
      }
      if halfLife && !first { fitHalfLife(at: i, into: &out, j) }
    }
    return out
  }

  /// The AR(1) fit over the pairs of the window ending at point `i`: pairs `lo..<i`.
  @inline(__always)
  private func fitHalfLife(at i: Int, into out: inout RollingPoints, _ j: Int) {
    let lo = window.start(at: i, after: pairsStart, time: UnsafeBufferPointer(t))
    pairsStart = lo
    // No pair when the window is one point.
    if lo == i {
      pairs = WindowedMoments(x: UnsafeBufferPointer(x), y: UnsafeBufferPointer(changes), start: i)
      return
    }
    pairs.advance(to: lo)
    pairsRun = count > 2 && x[i - 1] == x[i - 2] ? pairsRun + 1 : 1
    guard pairs.count >= 2, pairsRun < pairs.count, pairs.sxx > 0 else { return }
    let b = pairs.sxy / pairs.sxx
    out.beta[j] = b
    if let h = HalfLife.points(beta: b) {
      out.halfLifePoints[j] = h
      out.halfLifeSeconds[j] = h * Double(t[i] - t[lo]) / Double(i - lo) / 1e6
    }
  }

  /// Drops the points no window can reach again and makes room for `more`.
  private func make(room more: Int) {
    // Windows start at or after their last start; the runs read the two newest points.
    var keep = max(0, held - 2)
    if statistics { keep = min(keep, moments.lo) }
    if halfLife { keep = min(keep, pairsStart, pairs.lo) }
    let kept = held - keep
    let capacity = max(x.count, kept + more)
    if keep == 0 && capacity == x.count { return }
    let (newX, newT, newChanges) = (
      UnsafeMutableBufferPointer<Double>.allocate(capacity: capacity), UnsafeMutableBufferPointer<Int64>.allocate(capacity: capacity),
      UnsafeMutableBufferPointer<Double>.allocate(capacity: capacity)
    )
    if kept > 0 {
      _ = newX.initialize(from: x[keep..<held])
      _ = newT.initialize(from: t[keep..<held])
      // The newest point has no change yet.
      _ = newChanges.initialize(from: changes[keep..<held - 1])
    }
    x.deallocate()
    t.deallocate()
    changes.deallocate()
    (x, t, changes) = (newX, newT, newChanges)
    held = kept
    pairsStart -= keep
    if statistics { moments.rebase(x: UnsafeBufferPointer(x), y: UnsafeBufferPointer(x), by: keep) }
    if halfLife { pairs.rebase(x: UnsafeBufferPointer(x), y: UnsafeBufferPointer(changes), by: keep) }
  }
}
