import ArbAnalytics
import ArbCore

extension ConvergenceBacktest {
  /// The same decisions as `decide(legs:aligned:)`, found by first-passage queries
  /// on `index` instead of a pass over every point: O(trades × block skips) per run.
  public func decide(legs: [QuoteSeries], index: ConvergenceIndex) -> ConvergenceDecisions {
    Self.decide([self], legs: legs, index: index)[0]
  }

  /// The decisions of every run in `runs` on one index, each as `decide(legs:index:)`
  /// takes them. The runs advance together a span of `span` valid points at a time, so
  /// that the quotes and premiums one run reads there are still in the cache for the
  /// next: a sweep reads its data from memory about once per batch instead of once per
  /// run.
  public static func decide(
    _ runs: [ConvergenceBacktest], legs: [QuoteSeries], index: ConvergenceIndex, span: Int = 1 << 12
  ) -> [ConvergenceDecisions] {
    precondition(legs.count == 2, "convergence trades exactly two legs")
    precondition(span > 0, "span must be positive")
    let n = index.validPoints
    guard n > 0 else { return runs.map { _ in ConvergenceDecisions(trades: [], skipped: [], firstTime: nil, lastTime: nil) } }
    var states = runs.map { run in
      precondition(index.sellLeg == run.parameters.sellLeg, "the index was built for another direction rule")
      return IndexedRun(
        parameters: run.parameters,
        fills: Fills(
          legs: legs, maxStale: run.parameters.maxStale, latency: run.parameters.latencies, seed: run.parameters.seed,
          readsSizes: run.parameters.capAtBook))
    }
    var limit = 0
    repeat {
      limit = min(limit + span, n)
      for k in states.indices { states[k].advance(until: limit, index: index) }
    } while limit < n
    return states.map { ConvergenceDecisions(trades: $0.trades, skipped: $0.skipped.list, firstTime: index.time(0), lastTime: index.time(n - 1)) }
  }
}

/// One convergence run on a `ConvergenceIndex`, resumable: `advance(until:)` takes every
/// decision whose search starts before a valid-point position and keeps where it is.
private struct IndexedRun {
  enum Phase {
    /// Looking for an entry signal from `position`.
    case flat
    /// Open: looking for an exit signal from `from`; every point at or after `held`
    /// is one (the holding limit).
    case open(TradeDecision, from: Int, held: Int)
    /// After a close: entry signals before `until` are skipped and counted.
    case coolingDown(until: Int)
    case finished
  }

  let parameters: ConvergenceParameters
  let fills: Fills
  var position = 0
  var phase = Phase.flat
  var trades: [TradeDecision] = []
  var skipped = SkipCounts()

  init(parameters: ConvergenceParameters, fills: Fills) {
    self.parameters = parameters
    self.fills = fills
  }

  /// Takes the run's decisions until a search would start at or after valid-point
  /// position `limit`; with `limit == index.validPoints`, to the end.
  mutating func advance(until limit: Int, index: ConvergenceIndex) {
    let n = index.validPoints
    while true {
      switch phase {
      case .finished:
        return
      case .flat:
        // No entry at the last valid point.
        guard let p = index.entries.first(from: position, threshold: parameters.entry, before: min(limit, n - 1)) else {
          if limit >= n - 1 { phase = .finished } else { position = max(position, limit) }
          return
        }
        let rich = index.richIsFirst[p] ? 0 : 1, cheap = 1 - rich
        position = p + 1
        let q: FillPair
        switch fills.after(index.points[p]) {
        case .failure(let skip):
          skipped.add(skip.reason)
          continue
        case .success(let quotes): q = quotes
        }
        if parameters.capAtBook && (q[rich].bidSize == 0 || q[cheap].askSize == 0) {
          skipped.add(.noBookSize)
          continue
        }
        let trade = TradeDecision(
          entryTime: index.time(p), exitTime: index.time(p), rich: rich, cheap: cheap, entryPremium: index.entries[p], exitPremium: .nan,
          richBid: q[rich].bid, richBidSize: q[rich].bidSize, cheapAsk: q[cheap].ask, cheapAskSize: q[cheap].askSize,
          richAsk: .nan, cheapBid: .nan, exitReason: .signal, richEntryRow: q[rich].row, cheapEntryRow: q[cheap].row)
        let held = parameters.maxHolding.map { index.firstAtOrAfter(time: trade.entryTime + $0, from: p + 1) } ?? n
        phase = .open(trade, from: p + 1, held: held)
      case .open(var trade, let from, let held):
        // The exit: the first later point at or under the exit premium, or past the
        // holding limit, whose fill quotes are usable.
        let end = min(limit, n)
        let signal = min(index.exits[trade.rich].first(from: from, threshold: parameters.exit, before: end) ?? n, max(held, from))
        guard signal < end else {
          guard limit >= n else {
            phase = .open(trade, from: max(from, end), held: held)
            return
          }
          // Still open at the end: closed at the last valid point's own quotes.
          let last = index.points[n - 1]
          let (richQuote, cheapQuote) = (fills.quote(trade.rich, at: last), fills.quote(trade.cheap, at: last))
          trade.richAsk = richQuote.ask
          trade.cheapBid = cheapQuote.bid
          trade.richExitRow = richQuote.row
          trade.cheapExitRow = cheapQuote.row
          trade.exitPremium = index.exits[trade.rich][n - 1]
          trade.exitTime = index.time(n - 1)
          trade.exitReason = .endOfData
          trades.append(trade)
          phase = .finished
          return
        }
        switch fills.after(index.points[signal]) {
        case .failure(let skip):
          skipped.add(skip.reason)
          phase = .open(trade, from: signal + 1, held: held)
        case .success(let quotes):
          trade.richAsk = quotes[trade.rich].ask
          trade.cheapBid = quotes[trade.cheap].bid
          trade.richExitRow = quotes[trade.rich].row
          trade.cheapExitRow = quotes[trade.cheap].row
          trade.exitPremium = index.exits[trade.rich][signal]
          trade.exitTime = index.time(signal)
          trade.exitReason = index.exits[trade.rich][signal] <= parameters.exit ? .signal : .maxHolding
          trades.append(trade)
          position = signal + 1
          phase = parameters.cooldown.map { .coolingDown(until: index.firstAtOrAfter(time: trade.exitTime + $0, from: signal + 1)) } ?? .flat
        }
      case .coolingDown(let until):
        // Entry signals inside the cooldown are skipped and counted, as the pass does.
        let end = min(until, n - 1)
        while position < min(end, limit) {
          if index.entries[position] >= parameters.entry { skipped.add(.cooldown) }
          position += 1
        }
        guard position >= end else { return }
        phase = .flat
      }
    }
  }
}
