import ArbAnalytics
import ArbCore

extension ConvergenceBacktest {
  /// The same decisions as `decide(legs:aligned:)`, found by first-passage queries
  /// on `index` instead of a pass over every point: O(trades × block skips) per run.
  public func decide(legs: [QuoteSeries], index: ConvergenceIndex, trades: [QuoteSeries?] = []) -> ConvergenceDecisions {
    Self.decide([self], legs: legs, index: index, trades: trades)[0]
  }

  /// The decisions of every run in `runs` on one index, each as `decide(legs:index:)`
  /// takes them. The runs advance together a span of `span` valid points at a time, so
  /// that the quotes and premiums one run reads there are still in the cache for the
  /// next: a sweep reads its data from memory about once per batch instead of once per
  /// run. `trades`: each leg's recorded trades, read for a maker leg alone.
  public static func decide(
    _ runs: [ConvergenceBacktest], legs: [QuoteSeries], index: ConvergenceIndex, trades: [QuoteSeries?] = [], span: Int = 1 << 12
  ) -> [ConvergenceDecisions] {
    precondition(legs.count == 2, "convergence trades exactly two legs")
    let n = index.validPoints
    guard n > 0 else { return runs.map { _ in ConvergenceDecisions(trades: [], skipped: [], firstTime: nil, lastTime: nil) } }
    var states = runs.map { run in
      precondition(index.sellLeg == run.parameters.sellLeg, "the index was built for another direction rule")
      return IndexedRun(
        parameters: run.parameters,
        fills: .rows(
          Fills(
            legs: legs, maxStale: run.parameters.maxStale, latency: run.parameters.latencies, seed: run.parameters.seed,
            readsSizes: run.parameters.capAtBook, trades: trades)))
    }
    IndexedRun.advance(&states[...], through: index, isLast: true, span: span)
    return states.map { ConvergenceDecisions(trades: $0.trades, skipped: $0.skipped.list, firstTime: index.time(0), lastTime: index.time(n - 1)) }
  }
}

/// One convergence run on a `ConvergenceIndex`, resumable: `advance(until:)` takes every
/// decision whose search starts before a valid-point position and keeps where it is.
/// A streamed run moves on to the next chunk's index with `rebase(by:)`.
struct IndexedRun {
  enum Phase {
    /// Looking for an entry signal from `position`.
    case flat
    /// Open: looking for an exit signal from `from`; every point at or after the time
    /// `held` is one (the holding limit).
    case open(TradeDecision, from: Int, held: Int64?)
    /// After a close: entry signals before the time `until` are skipped and counted.
    case coolingDown(until: Int64)
    case finished
  }

  /// Where the run's fills are read.
  enum RunFills {
    /// From the legs in memory, at the index's point rows.
    case rows(Fills)
    /// From a streamed index's fill quotes: the slots of leg 0 and leg 1 at the run's latencies (`FillSlot`).
    case slots(Int, Int)
  }

  let parameters: ConvergenceParameters
  let fills: RunFills
  var position = 0
  var phase = Phase.flat
  var trades: [TradeDecision] = []
  var skipped = SkipCounts()

  init(parameters: ConvergenceParameters, fills: RunFills) {
    self.parameters = parameters
    self.fills = fills
  }

  /// Advances every run of `runs` through `index`, a span of valid points at a time;
  /// `isLast`: the index holds the last valid point (the runs finish), else the runs
  /// stop before its last point, which the next index must hold first.
  static func advance(_ runs: inout ArraySlice<IndexedRun>, through index: ConvergenceIndex, isLast: Bool, span: Int) {
    precondition(span > 0, "span must be positive")
    let end = isLast ? index.validPoints : index.validPoints - 1
    var limit = 0
    repeat {
      limit = min(limit + span, end)
      for k in runs.indices { runs[k].advance(until: limit, index: index, isLast: isLast) }
    } while limit < end
  }

  /// Moves the run's positions `count` points down: the next index begins with this
  /// index's point `count`.
  mutating func rebase(by count: Int) {
    position -= count
    if case .open(let trade, let from, let held) = phase { phase = .open(trade, from: from - count, held: held) }
  }

  /// Both legs' fills after valid point `p`, or the reason the signal is skipped.
  @inline(__always)
  private func fill(_ p: Int, index: ConvergenceIndex) -> Result<FillPair, SkipError> {
    switch (fills, index.points) {
    case (.rows(let fills), .rows(let points)):
      return fills.after(points[p])
    case (.slots(let first, let second), .streamed(_, let delayed)):
      return delayed.fills(first, second, p, maxStale: parameters.maxStale, readsSizes: parameters.capAtBook)
    default:
      preconditionFailure("a run reads its fills as its index holds them")
    }
  }

  /// Leg `k`'s quote in force at the index's last valid point.
  private func lastQuote(_ k: Int, index: ConvergenceIndex) -> FillQuote {
    switch (fills, index.points) {
    case (.rows(let fills), .rows(let points)):
      return fills.quote(k, at: points[index.validPoints - 1])
    case (.slots, .streamed(_, let delayed)):
      var quote = k == 0 ? delayed.lastInForce!.0 : delayed.lastInForce!.1
      if !parameters.capAtBook { (quote.bidSize, quote.askSize) = (.nan, .nan) }
      return quote
    default:
      preconditionFailure("a run reads its fills as its index holds them")
    }
  }

  /// `time + duration`, `Int64.max` past it. A whole-leg run has checked every such sum
  /// before it starts (`Scenario.checkTimes`); a streamed one checks once its legs are
  /// read, and a sum out of range must not stop it first.
  @inline(__always)
  static func adding(_ duration: Int64, to time: Int64) -> Int64 {
    let (sum, overflow) = time.addingReportingOverflow(duration)
    return overflow ? (duration > 0 ? .max : .min) : sum
  }

  /// Takes the run's decisions until a search would start at or after valid-point
  /// position `limit`; with `isLast` and `limit == index.validPoints`, to the end.
  mutating func advance(until limit: Int, index: ConvergenceIndex, isLast: Bool) {
    let n = index.validPoints
    while true {
      switch phase {
      case .finished:
        return
      case .flat:
        // No entry at the last valid point.
        guard let p = index.entries.first(from: position, threshold: parameters.entry, before: isLast ? min(limit, n - 1) : limit) else {
          if isLast && limit >= n - 1 { phase = .finished } else { position = max(position, limit) }
          return
        }
        let rich = index.richIsFirst[p] ? 0 : 1, cheap = 1 - rich
        position = p + 1
        var q: FillPair
        switch fill(p, index: index) {
        case .failure(let skip):
          skipped.add(skip.reason)
          continue
        case .success(let quotes): q = quotes
        }
        if parameters.capAtBook && (q[rich].bidSize == 0 || q[cheap].askSize == 0) {
          skipped.add(.noBookSize)
          continue
        }
        var maker: MakerFill? = nil
        if let rule = parameters.maker {
          guard case .rows(let fills) = fills, case .rows(let points) = index.points else {
            preconditionFailure("a maker leg's run reads its legs whole")
          }
          switch fills.makerEntry(points[p], quotes: q, rich: rich, rule: rule) {
          case .failure(let skip):
            skipped.add(skip.reason)
            // No signal is acted on while the order rests.
            position = index.firstAtOrAfter(time: Self.adding(1, to: skip.until), from: position)
            continue
          case .success(let entry): (q, maker) = (entry.quotes, entry.fill)
          }
        }
        let opened = maker?.fillTime ?? index.time(p)
        let from = maker == nil ? p + 1 : index.firstAtOrAfter(time: opened + 1, from: p + 1)
        let trade = TradeDecision(
          entryTime: opened, exitTime: opened, rich: rich, cheap: cheap, entryPremium: index.entries[p], exitPremium: .nan,
          richBid: q[rich].bid, richBidSize: q[rich].bidSize, cheapAsk: q[cheap].ask, cheapAskSize: q[cheap].askSize,
          richAsk: .nan, cheapBid: .nan, exitReason: .signal, richEntryRow: q[rich].row, cheapEntryRow: q[cheap].row, maker: maker)
        phase = .open(trade, from: from, held: parameters.maxHolding.map { Self.adding($0, to: trade.entryTime) })
      case .open(var trade, let from, let heldTime):
        // The exit: the first later point at or under the exit premium, or past the
        // holding limit, whose fill quotes are usable.
        let end = min(limit, n)
        let held = heldTime.map { index.firstAtOrAfter(time: $0, from: from) } ?? n
        let signal = min(index.exits[trade.rich].first(from: from, threshold: parameters.exit, before: end) ?? n, held)
        guard signal < end else {
          guard isLast && limit >= n else {
            phase = .open(trade, from: max(from, end), held: heldTime)
            return
          }
          // Still open at the end: closed at the last valid point's own quotes (at its
          // opening, when a maker order filled after that point).
          let (richQuote, cheapQuote) = (lastQuote(trade.rich, index: index), lastQuote(trade.cheap, index: index))
          trade.richAsk = richQuote.ask
          trade.cheapBid = cheapQuote.bid
          trade.richExitRow = richQuote.row
          trade.cheapExitRow = cheapQuote.row
          trade.exitPremium = index.exits[trade.rich][n - 1]
          trade.exitTime = max(index.time(n - 1), trade.entryTime)
          trade.exitReason = .endOfData
          trades.append(trade)
          phase = .finished
          return
        }
        switch fill(signal, index: index) {
        case .failure(let skip):
          skipped.add(skip.reason)
          phase = .open(trade, from: signal + 1, held: heldTime)
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
          phase = parameters.cooldown.map { .coolingDown(until: Self.adding($0, to: trade.exitTime)) } ?? .flat
        }
      case .coolingDown(let untilTime):
        // Entry signals inside the cooldown are skipped and counted, as the pass does.
        let until = index.firstAtOrAfter(time: untilTime, from: position)
        // In a chunk that does not reach the cooldown's end, the cooldown goes on.
        let end = isLast ? min(until, n - 1) : until
        while position < min(end, limit) {
          if index.entries[position] >= parameters.entry { skipped.add(.cooldown) }
          position += 1
        }
        guard position >= end, isLast || until < n else { return }
        phase = .flat
      }
    }
  }
}
