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
    let never = upward ? -Double.infinity : Double.infinity
    let clean = values.map { $0.isNaN ? never : $0 }
    func extremes(_ column: [Double], _ size: Int) -> [Double] {
      stride(from: 0, to: column.count, by: size).map { start in
        let block = column[start..<min(start + size, column.count)]
        return upward ? block.max()! : block.min()!
      }
    }
    self.values = clean
    small = extremes(clean, Self.smallBlock)
    large = extremes(small, Self.largeBlock / Self.smallBlock)
    self.upward = upward
  }

  var count: Int { values.count }

  @inline(__always)
  private func passes(_ value: Double, _ threshold: Double) -> Bool { upward ? value >= threshold : value <= threshold }

  /// The first position `p ≥ from` with a passing value, or `nil`.
  func first(from start: Int, threshold: Double) -> Int? {
    var p = start
    let n = values.count
    while p < n {
      if p % Self.largeBlock == 0 && p + Self.largeBlock <= n && !passes(large[p / Self.largeBlock], threshold) {
        p += Self.largeBlock
      } else if p % Self.smallBlock == 0 && p + Self.smallBlock <= n && !passes(small[p / Self.smallBlock], threshold) {
        p += Self.smallBlock
      } else if passes(values[p], threshold) {
        return p
      } else {
        p += 1
      }
    }
    return nil
  }
}

/// The valid points of two aligned legs with the premiums the convergence rules test,
/// indexed for first-passage queries. Built once per data set and shared by every
/// sweep cell on it.
public struct ConvergenceIndex: Sendable {
  /// Per valid point: its clock point, time, entry premium and direction.
  let point: [Int]
  let time: [Int64]
  let exec: [Double]
  let richIsFirst: [Bool]
  let entries: FirstPassage
  /// Closing premiums `ask_R / bid_C − 1` (percent) for R = leg 1 and R = leg 2.
  let closing: [[Double]]
  let exits: [FirstPassage]

  /// The leg every entry sells (`ConvergenceParameters.sellLeg`), or `nil`.
  let sellLeg: Int?

  /// `sellLeg`: index only the entries that sell this leg (the entry premium is that
  /// direction's), as a run with the same `sellLeg` decides.
  public init(legs: [QuoteSeries], aligned: AlignedLegs, sellLeg: Int? = nil) {
    var point: [Int] = [], time: [Int64] = [], exec: [Double] = [], richIsFirst: [Bool] = []
    var closing: [[Double]] = [[], []]
    for i in aligned.time.indices where aligned.valid[i] {
      let a = Int(aligned.state(leg: 0, point: i)), b = Int(aligned.state(leg: 1, point: i))
      let forward = (legs[0].bid[a] / legs[1].ask[b] - 1) * 100, backward = (legs[1].bid[b] / legs[0].ask[a] - 1) * 100
      point.append(i)
      time.append(aligned.time[i])
      let first = sellLeg.map { $0 == 0 } ?? (forward >= backward)
      exec.append(first ? forward : backward)
      richIsFirst.append(first)
      closing[0].append((legs[0].ask[a] / legs[1].bid[b] - 1) * 100)
      closing[1].append((legs[1].ask[b] / legs[0].bid[a] - 1) * 100)
    }
    self.point = point
    self.time = time
    self.exec = exec
    self.richIsFirst = richIsFirst
    self.sellLeg = sellLeg
    self.closing = closing
    entries = FirstPassage(exec, upward: true)
    exits = closing.map { FirstPassage($0, upward: false) }
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
      var q: [FillQuote]
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
        entryTime: index.time[p], exitTime: index.time[p], rich: rich, cheap: cheap, entryPremium: index.exec[p], exitPremium: .nan,
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
          trade.exitPremium = index.closing[rich][n - 1]
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
          trade.exitPremium = index.closing[rich][signal]
          trade.exitTime = index.time[signal]
          trade.exitReason = index.closing[rich][signal] <= parameters.exit ? .signal : .maxHolding
          trades.append(trade)
          p = signal + 1
        }
        break
      }
      if let cooldown = parameters.cooldown {
        // Entry signals inside the cooldown are skipped and counted, as the pass does.
        let end = index.firstAtOrAfter(time: trade.exitTime + cooldown, from: p)
        while p < min(end, n - 1) {
          if index.exec[p] >= parameters.entry { skipped.add(.cooldown) }
          p += 1
        }
      }
    }
    return ConvergenceDecisions(trades: trades, skipped: skipped.list, firstTime: index.time[0], lastTime: index.time[n - 1])
  }
}
