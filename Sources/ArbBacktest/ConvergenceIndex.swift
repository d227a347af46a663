import ArbAnalytics
import ArbCore
import Dispatch
import Synchronization

/// The valid points of two aligned legs with the premiums the convergence rules test,
/// indexed for first-passage queries. Built once per data set and shared by every
/// sweep cell on it; a streamed run builds one per chunk of valid points.
///
/// Memory: per valid point 16 + 1 bytes (its `SignalPoint`, direction) and three
/// indexed premium columns of 8 bytes (plus 1/64 for their blocks); a chunk holds its
/// points' fill quotes instead of their rows.
public struct ConvergenceIndex: Sendable {
  /// Where the fills of the points are read.
  enum Points: Sendable {
    /// Each valid point's time and quote rows in the legs (held whole in memory).
    case rows([SignalPoint])
    /// Each valid point's time and fill quotes (the legs are streamed).
    case streamed(times: [Int64], fills: DelayedFills)
  }

  let points: Points
  /// Per valid point, its direction (rich leg is leg 1).
  let richIsFirst: [Bool]
  /// Executable premiums (percent), for entry queries.
  let entries: FirstPassage
  /// Closing premiums `ask_R / bid_C − 1` (percent) for R = leg 1 and R = leg 2, for
  /// exit queries.
  let exits: [FirstPassage]

  /// The leg every entry sells (`ConvergenceParameters.sellLeg`), or `nil`.
  let sellLeg: Int?

  /// Number of clock points, valid or not (of the whole run, for a chunk: 0).
  public let clockPoints: Int
  /// Number of valid points (what the runs decide on).
  public let validPoints: Int

  /// The time of valid point `p`.
  @inline(__always)
  func time(_ p: Int) -> Int64 {
    switch points {
    case .rows(let points): points[p].time
    case .streamed(let times, _): times[p]
    }
  }

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
    self.init(
      points: .rows(columns.points), richIsFirst: columns.richIsFirst, premiums: [columns.entry, columns.closeFirst, columns.closeSecond],
      sellLeg: sellLeg, clockPoints: columns.clockPoints)
  }

  /// The index of the valid points whose columns are given, each point's fills read
  /// from `points`; `premiums` are the entry premiums and the two closing premiums.
  init(points: Points, richIsFirst: [Bool], premiums: [[Double]], sellLeg: Int?, clockPoints: Int) {
    self.points = points
    self.richIsFirst = richIsFirst
    validPoints = richIsFirst.count
    self.clockPoints = clockPoints
    self.sellLeg = sellLeg
    // The three block indexes are independent: built side by side.
    let built = Mutex<[Int: FirstPassage]>([:])
    DispatchQueue.concurrentPerform(iterations: 3) { k in
      let index = FirstPassage(premiums[k], upward: k == 0)
      built.withLock { $0[k] = index }
    }
    entries = built.withLock { $0[0]! }
    exits = built.withLock { [$0[1]!, $0[2]!] }
  }

  /// The first valid-point position at or after `from` whose time is ≥ `t`
  /// (`validPoints` when there is none).
  func firstAtOrAfter(time t: Int64, from: Int) -> Int {
    var low = from, high = validPoints
    while low < high {
      let mid = (low + high) >> 1
      if time(mid) < t { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

/// The fill quotes of a chunk of streamed valid points: per slot (one leg at one
/// latency, `FillSlot`), each point's fill time (its time plus the slot's latency, fixed
/// or drawn for the point) and the as-of quote then, with that quote's own time (for the
/// staleness limit); and the quotes in force at its last point.
struct DelayedFills: Sendable {
  /// Per slot, per point (sizes read only when a run caps at the book; `nan` otherwise).
  var quotes: [[FillQuote]]
  var quoteTimes: [[Int64]]
  var fillTimes: [[Int64]]
  /// Leg 0's and leg 1's quotes in force at the chunk's last point (where a position
  /// still open at the end closes); `nil` for a run that closes nothing (mode inventory).
  var lastInForce: (FillQuote, FillQuote)?

  /// Point `p`'s fill through `slot`, or why it cannot happen: as `Fills` decides on
  /// whole legs.
  @inline(__always)
  func fill(slot: Int, _ p: Int, maxStale: Int64?, readsSizes: Bool) -> Result<FillQuote, SkipError> {
    // The age cannot leave the range once the legs are checked (`Scenario.checkTimes`); before, it counts as stale.
    let (age, overflow) = fillTimes[slot][p].subtractingReportingOverflow(quoteTimes[slot][p])
    if let limit = maxStale, overflow || age > limit { return .failure(SkipError(reason: .staleFill)) }
    var quote = quotes[slot][p]
    guard quote.bid.isFinite, quote.ask.isFinite else { return .failure(SkipError(reason: .oneSidedFill)) }
    if !readsSizes { (quote.bidSize, quote.askSize) = (.nan, .nan) }
    return .success(quote)
  }

  /// Both legs' fills after point `p` through slots `first` and `second`, or why the
  /// signal is skipped: as `Fills.after` decides on whole legs.
  @inline(__always)
  func fills(_ first: Int, _ second: Int, _ p: Int, maxStale: Int64?, readsSizes: Bool) -> Result<FillPair, SkipError> {
    FillPair.both(fill(slot: first, p, maxStale: maxStale, readsSizes: readsSizes), fill(slot: second, p, maxStale: maxStale, readsSizes: readsSizes))
  }
}
