import ArbAnalytics
import ArbCore

/// A column of values with block maxima (or minima), answering "the first position at
/// or after `i` whose value is ≥ (or ≤) a threshold" without scanning every position:
/// blocks of 64 and of 4096 are skipped by their extreme value.
///
/// Memory is the column plus 1/64 + 1/4096 of it, whatever the number of queries.
struct FirstPassage {
  private let values: [Double]
  private let small: [Double]
  private let large: [Double]
  /// `true`: queries ask for ≥ threshold (blocks keep maxima); `false`: ≤ (minima).
  private let upward: Bool
  static let smallBlock = 64
  static let largeBlock = 4096

  /// `values` with `nan` where no passage may happen (never ≥ or ≤ anything).
  init(_ values: [Double], upward: Bool) {
    // nan never passes: store it as the value that never reaches any threshold.
    var clean = values
    let never = upward ? -Double.infinity : Double.infinity
    for k in clean.indices where clean[k].isNaN { clean[k] = never }
    self.values = clean
    small = Self.extremes(clean, Self.smallBlock, upward: upward)
    large = Self.extremes(small, Self.largeBlock / Self.smallBlock, upward: upward)
    self.upward = upward
  }

  /// The maximum (or minimum) of each block of `size` values, the last one possibly short.
  private static func extremes(_ column: [Double], _ size: Int, upward: Bool) -> [Double] {
    var result = [Double](repeating: 0, count: (column.count + size - 1) / size)
    column.withUnsafeBufferPointer { column in
      for b in result.indices {
        var extreme = column[b * size]
        for value in column[(b * size + 1)..<min(b * size + size, column.count)] {
          extreme = upward ? max(extreme, value) : min(extreme, value)
        }
        result[b] = extreme
      }
    }
    return result
  }

  var count: Int { values.count }

  /// The value at position `p` (`nan` stored as ∓infinity).
  subscript(p: Int) -> Double { values[p] }

  @inline(__always)
  private func passes(_ value: Double, _ threshold: Double) -> Bool { upward ? value >= threshold : value <= threshold }

  /// The first position `p ≥ from` with a passing value, or `nil`.
  ///
  /// A block whose extreme does not pass is skipped from wherever `p` is inside it
  /// (its extreme bounds every value after `p` in it too); only a small block that
  /// may pass is scanned value by value.
  func first(from start: Int, threshold: Double) -> Int? {
    var p = start
    let n = values.count
    while p < n {
      let big = p / Self.largeBlock
      if !passes(large[big], threshold) {
        p = (big + 1) * Self.largeBlock
        continue
      }
      let block = p / Self.smallBlock
      let end = min((block + 1) * Self.smallBlock, n)
      if passes(small[block], threshold) {
        while p < end {
          if passes(values[p], threshold) { return p }
          p += 1
        }
      }
      p = end
    }
    return nil
  }
}

/// The valid points of two aligned legs with the premiums the convergence rules test,
/// indexed for first-passage queries. Built once per data set and shared by every
/// sweep cell on it.
///
/// Memory: per valid point 8 + 8 + 1 bytes (point, time, direction) and three indexed
/// premium columns of 8 bytes (plus 1/64 for their blocks).
public struct ConvergenceIndex: Sendable {
  /// Per valid point: its clock point, time and direction (rich leg is leg 1).
  let point: [Int]
  let time: [Int64]
  let richIsFirst: [Bool]
  /// Executable premiums (percent), for entry queries.
  let entries: FirstPassage
  /// Closing premiums `ask_R / bid_C − 1` (percent) for R = leg 1 and R = leg 2, for
  /// exit queries.
  let exits: [FirstPassage]

  /// The leg every entry sells (`ConvergenceParameters.sellLeg`), or `nil`.
  let sellLeg: Int?

  /// `sellLeg`: index only the entries that sell this leg (the entry premium is that
  /// direction's), as a run with the same `sellLeg` decides.
  ///
  /// - Complexity: one pass over the clock points; no allocation per point.
  public init(legs: [QuoteSeries], aligned: AlignedLegs, sellLeg: Int? = nil) {
    precondition(legs.count == 2 && aligned.legCount == 2, "convergence trades exactly two legs")
    let n = aligned.validPoints
    var point = [Int](repeating: 0, count: n), time = [Int64](repeating: 0, count: n), richIsFirst = [Bool](repeating: false, count: n)
    var exec = [Double](repeating: 0, count: n), closeFirst = [Double](repeating: 0, count: n), closeSecond = [Double](repeating: 0, count: n)
    let (bid0, ask0, bid1, ask1) = (legs[0].bid, legs[0].ask, legs[1].bid, legs[1].ask)
    var v = 0
    for i in aligned.time.indices where aligned.valid[i] {
      let a = Int(aligned.states[2 * i]), b = Int(aligned.states[2 * i + 1])
      let signal = ConvergenceBacktest.entrySignal(
        forward: (bid0[a] / ask1[b] - 1) * 100, backward: (bid1[b] / ask0[a] - 1) * 100, sellLeg: sellLeg)
      point[v] = i
      time[v] = aligned.time[i]
      exec[v] = signal.premium
      richIsFirst[v] = signal.rich == 0
      closeFirst[v] = (ask0[a] / bid1[b] - 1) * 100
      closeSecond[v] = (ask1[b] / bid0[a] - 1) * 100
      v += 1
    }
    self.point = point
    self.time = time
    self.richIsFirst = richIsFirst
    self.sellLeg = sellLeg
    entries = FirstPassage(exec, upward: true)
    exits = [FirstPassage(closeFirst, upward: false), FirstPassage(closeSecond, upward: false)]
  }

  /// The first valid-point position at or after `from` whose time is ≥ `t`.
  func firstAtOrAfter(time t: Int64, from: Int) -> Int {
    var low = from, high = time.count
    while low < high {
      let mid = (low + high) >> 1
      if time[mid] < t { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

extension ConvergenceBacktest {
  /// The same decisions as `decide(legs:aligned:)`, found by first-passage queries
  /// on `index` instead of a pass over every point: O(trades × block skips) per run.
  public func decide(legs: [QuoteSeries], aligned: AlignedLegs, index: ConvergenceIndex) -> ConvergenceDecisions {
    precondition(legs.count == 2 && aligned.legCount == 2, "convergence trades exactly two legs")
    precondition(index.sellLeg == parameters.sellLeg, "the index was built for another direction rule")
    let n = index.time.count
    guard n > 0 else { return ConvergenceDecisions(trades: [], skipped: [], firstTime: nil, lastTime: nil) }
    let fills = Fills(legs: legs, aligned: aligned, maxStale: parameters.maxStale, latency: parameters.latencies)
    var trades: [TradeDecision] = []
    var skipped = SkipCounts()
    var p = 0
    search: while let found = index.entries.first(from: p, threshold: parameters.entry), found < n - 1 {
      p = found
      let rich = index.richIsFirst[p] ? 0 : 1, cheap = 1 - rich
      let q: FillPair
      switch fills.after(signal: index.point[p]) {
      case .failure(let skip):
        skipped.add(skip.reason)
        p += 1
        continue search
      case .success(let quotes): q = quotes
      }
      if parameters.capAtBook && (q[rich].bidSize == 0 || q[cheap].askSize == 0) {
        skipped.add(.noBookSize)
        p += 1
        continue search
      }
      var trade = TradeDecision(
        entryTime: index.time[p], exitTime: index.time[p], rich: rich, cheap: cheap, entryPremium: index.entries[p], exitPremium: .nan,
        richBid: q[rich].bid, richBidSize: q[rich].bidSize, cheapAsk: q[cheap].ask, cheapAskSize: q[cheap].askSize,
        richAsk: .nan, cheapBid: .nan, exitReason: .signal)
      // The exit: the first later point at or under the exit premium, or past the
      // holding limit, whose fill quotes are usable.
      var e = p + 1
      let held = parameters.maxHolding.map { index.firstAtOrAfter(time: trade.entryTime + $0, from: p + 1) } ?? n
      while true {
        // Past the holding limit every point is an exit signal.
        let signal = min(index.exits[rich].first(from: e, threshold: parameters.exit) ?? n, max(held, e))
        guard signal < n else {
          // Still open at the end: closed at the last valid point's own quotes.
          let last = index.point[n - 1]
          trade.richAsk = fills.quote(rich, point: last).ask
          trade.cheapBid = fills.quote(cheap, point: last).bid
          trade.exitPremium = index.exits[rich][n - 1]
          trade.exitTime = index.time[n - 1]
          trade.exitReason = .endOfData
          trades.append(trade)
          break search
        }
        switch fills.after(signal: index.point[signal]) {
        case .failure(let skip):
          skipped.add(skip.reason)
          e = signal + 1
          continue
        case .success(let quotes):
          trade.richAsk = quotes[rich].ask
          trade.cheapBid = quotes[cheap].bid
          trade.exitPremium = index.exits[rich][signal]
          trade.exitTime = index.time[signal]
          trade.exitReason = index.exits[rich][signal] <= parameters.exit ? .signal : .maxHolding
          trades.append(trade)
          p = signal + 1
        }
        break
      }
      if let cooldown = parameters.cooldown {
        // Entry signals inside the cooldown are skipped and counted, as the pass does.
        let end = index.firstAtOrAfter(time: trade.exitTime + cooldown, from: p)
        while p < min(end, n - 1) {
          if index.entries[p] >= parameters.entry { skipped.add(.cooldown) }
          p += 1
        }
      }
    }
    return ConvergenceDecisions(trades: trades, skipped: skipped.list, firstTime: index.time[0], lastTime: index.time[n - 1])
  }
}
