import ArbAnalytics
import ArbCore

/// The parameters of mode `convergence` (`docs/definitions.md`, "Threshold backtest").
public struct ConvergenceParameters: Sendable, Hashable {
  /// Open when the executable premium is at least this, in percent.
  public var entry: Double
  /// Close when the closing premium is at most this, in percent.
  public var exit: Double
  /// Quote currency per leg.
  public var notional: Double
  /// Taker fee per leg, a fraction per fill, in leg order.
  public var fees: [Double]
  /// Slippage per fill, in basis points.
  public var slippageBps: Double = 0
  /// Fills use the as-of quotes this long after the signal (µs).
  public var latency: Int64 = 0
  /// Per-leg latency (µs) replacing `latency` for the legs it names.
  public var legLatency: [Int64]? = nil
  /// Per-leg latency distributions (a scenario's `costs.latency`), replacing `latency`
  /// and `legLatency`; drawn from `seed`.
  public var latencyModels: [Latency]? = nil
  /// A fill quote older than this at the fill time skips the signal (µs); `nil`: no limit.
  public var maxStale: Int64? = nil
  /// Scale an entry down so that neither leg's quantity exceeds the top-of-book size
  /// of its fill quote (when the data has sizes).
  public var capAtBook = false
  /// Close at the first valid point at least this long after the entry (µs).
  public var maxHolding: Int64? = nil
  /// No entry until this long after a close (µs).
  public var cooldown: Int64? = nil
  /// When set, only the direction that sells this leg opens (mode carry sells the
  /// perp); `nil`: the direction of the executable premium.
  public var sellLeg: Int? = nil
  /// How each leg's order fills: at the top of book, or walking the recorded book.
  public var fill = FillRule.top
  /// What happens to a leg its book cannot fill in full (`fill = book`), or that fails.
  public var partial = PartialRule.fill
  /// The probability that a leg's order fails at entry (fills nothing on its fill row's
  /// book), drawn per trade and leg from `seed`.
  public var legFailRate = 0.0
  /// The seed of every draw: leg failures and drawn latencies.
  public var seed: UInt64 = 0
  /// The leg whose entry rests as a maker order, and its queue rule; `nil`: both legs take.
  public var maker: MakerRule? = nil
  /// Maker fee per leg, a fraction per fill, in leg order: the maker leg's entry fill pays it.
  public var makerFees: [Double] = []

  /// Whether trades are priced by walking fills (`BookWalker`): book fills, or leg failures.
  public var walksFills: Bool { fill == .book || legFailRate > 0 }

  /// The latency of each leg.
  var latencies: [Latency] { latencyModels ?? (legLatency ?? Array(repeating: latency, count: fees.count)).map(Latency.fixed) }

  public init(entry: Double, exit: Double, notional: Double, fees: [Double]) {
    self.entry = entry
    self.exit = exit
    self.notional = notional
    self.fees = fees
  }

  /// What `ConvergenceBacktest.decide` reads: these parameters with the price-only ones
  /// (`notional`, `fees`, `slippageBps`, read by `price` alone) zeroed. Runs with equal
  /// keys decide the same round trips on the same data; a new parameter is part of the
  /// key unless it is zeroed here.
  public var decisionKey: ConvergenceParameters {
    var key = self
    key.notional = 0
    // The count stays: without `legLatency`, it is the number of legs `latency` applies to.
    key.fees = fees.map { _ in 0 }
    key.makerFees = makerFees.map { _ in 0 }
    key.slippageBps = 0
    return key
  }
}

/// Why a trade was closed.
public enum ExitReason: String, Sendable, Equatable {
  /// The closing premium reached `exit`.
  case signal
  /// `maxHolding` elapsed.
  case maxHolding = "max_holding"
  /// Still open at the last valid point: closed at its quotes.
  case endOfData = "end_of_data"
}

/// One round trip: short the rich leg, long the cheap one, then both closed.
public struct Trade: Sendable, Equatable {
  public var entryTime: Int64
  public var exitTime: Int64
  /// Leg indexes: `rich` is sold at entry, `cheap` bought.
  public var rich: Int
  public var cheap: Int
  /// Executable premium at the entry signal and closing premium at the exit signal, percent.
  public var entryPremium: Double
  public var exitPremium: Double
  /// Fill prices (slippage included).
  public var richSell: Double
  public var richBuy: Double
  public var cheapBuy: Double
  public var cheapSell: Double
  public var richQuantity: Double
  public var cheapQuantity: Double
  public var fees: Double
  /// Net of fees, quote currency; funding included (mode carry).
  public var pnl: Double
  public var exitReason: ExitReason
  /// Mode carry: the funding the short perp received (negative: paid), quote; 0 otherwise.
  public var funding: Double = 0
  /// The book walks of the fills (`fill = book`); `nil` at the top of book.
  public var execution: Execution? = nil
  /// The maker order of the entry (`costs.maker_leg`); `nil` when both legs took.
  public var maker: MakerFill? = nil
}

/// A round trip as the rules decide it: when, in which direction, and on which
/// quotes it fills. Fees, slippage and notional only price it (`price`), so one
/// decision list serves every cell of a sweep that varies only those.
public struct TradeDecision: Sendable, Equatable {
  public var entryTime: Int64
  public var exitTime: Int64
  public var rich: Int
  public var cheap: Int
  public var entryPremium: Double
  public var exitPremium: Double
  /// The fill quotes: the rich leg's bid (and its size) and the cheap leg's ask (and
  /// its size) at entry; the rich leg's ask and the cheap leg's bid at exit. The sizes
  /// are read with `capAtBook` only (`nan` otherwise).
  public var richBid: Double
  public var richBidSize: Double
  public var cheapAsk: Double
  public var cheapAskSize: Double
  public var richAsk: Double
  public var cheapBid: Double
  public var exitReason: ExitReason
  /// The rows of those quotes in their legs, at entry and at exit (`fill = book` walks
  /// the books of these rows).
  public var richEntryRow: Int
  public var cheapEntryRow: Int
  public var richExitRow = 0
  public var cheapExitRow = 0
  /// The maker order of the entry: `richBid` or `cheapAsk` is its price, and
  /// `entryTime` its fill time.
  public var maker: MakerFill? = nil
}

/// The decided trades of one run, with the skipped signals and the span.
public struct ConvergenceDecisions: Sendable {
  public var trades: [TradeDecision]
  public var skipped: [(reason: SkipReason, count: Int)]
  public var firstTime: Int64?
  public var lastTime: Int64?
}

/// Runs the threshold strategy of mode `convergence` over two aligned legs.
///
/// The rules are `docs/definitions.md` literally: a signal on a valid point's quotes,
/// fills on the as-of quotes `latency` later, one position at a time, the exit test
/// from the next valid point after the entry, no entry at the last valid point, and a
/// position still open at the end closed at the last valid point's quotes.
public struct ConvergenceBacktest: Sendable {
  public let parameters: ConvergenceParameters

  public init(parameters: ConvergenceParameters) {
    self.parameters = parameters
  }

  /// The trades and skipped signals over `aligned` (built from exactly `legs`); `trades`:
  /// each leg's recorded trades, read for a maker leg (`maker`) alone.
  public func run(legs: [QuoteSeries], aligned: AlignedLegs, trades: [QuoteSeries?] = []) -> BacktestRun {
    price(decide(legs: legs, aligned: aligned, trades: trades), legs: legs)
  }

  /// The round trips the rules take: entry/exit thresholds, latency, staleness,
  /// holding limit, cooldown; independent of fees, slippage and notional.
  ///
  /// - Complexity: O(points + quotes passed over by latency); no allocation per point.
  public func decide(legs: [QuoteSeries], aligned: AlignedLegs, trades legTrades: [QuoteSeries?] = []) -> ConvergenceDecisions {
    precondition(legs.count == 2 && aligned.legCount == 2, "convergence trades exactly two legs")
    precondition(parameters.maker.map { legTrades.count == 2 && legTrades[$0.leg] != nil } ?? true, "a maker leg needs its trades")
    var trades: [TradeDecision] = []
    var skipped = SkipCounts()
    guard let lastValid = aligned.valid.lastIndex(of: true), let firstValid = aligned.valid.firstIndex(of: true) else {
      return ConvergenceDecisions(trades: [], skipped: [], firstTime: nil, lastTime: nil)
    }
    let fills = Fills(
      legs: legs, maxStale: parameters.maxStale, latency: parameters.latencies, seed: parameters.seed, readsSizes: parameters.capAtBook, trades: legTrades)
    let (entry, exit, maxHolding, sellLeg) = (parameters.entry, parameters.exit, parameters.maxHolding ?? .max, parameters.sellLeg)
    let holdingLimited = parameters.maxHolding != nil  // else the open loop never reads the clock
    var open: TradeDecision? = nil
    var cooldownUntil = Int64.min
    var i = firstValid
    PassColumns.with(legs, aligned) { c in
      let (bid0, ask0, bid1, ask1, time, valid, states) = (c.bid0, c.ask0, c.bid1, c.ask1, c.time, c.valid, c.states)
      // Two tight loops in turn: flat, scan for an entry signal (never at the last valid
      // point); open, scan the points after the entry for an exit signal.
      pass: while i < lastValid {
        var signal = (premium: 0.0, rich: 0)
        while i < lastValid {
          if valid[i] {
            let a = Int(states[2 * i]), b = Int(states[2 * i + 1])
            signal = SignalColumns.entrySignal(forward: (bid0[a] / ask1[b] - 1) * 100, backward: (bid1[b] / ask0[a] - 1) * 100, sellLeg: sellLeg)
            if signal.premium >= entry { break }
          }
          i += 1
        }
        guard i < lastValid else { break }
        let t = time[i]
        if t < cooldownUntil {
          skipped.add(.cooldown)
          i += 1
          continue
        }
        let rich = signal.rich, cheap = 1 - rich
        switch fills.after(aligned.signal(i)) {
        case .failure(let skip):
          skipped.add(skip.reason)
          i += 1
          continue pass
        case .success(var q):
          if parameters.capAtBook && (q[rich].bidSize == 0 || q[cheap].askSize == 0) {
            skipped.add(.noBookSize)
            i += 1
            continue pass
          }
          var maker: MakerFill? = nil
          if let rule = parameters.maker {
            switch fills.makerEntry(aligned.signal(i), quotes: q, rich: rich, rule: rule) {
            case .failure(let skip):
              skipped.add(skip.reason)
              i += 1
              // No signal is acted on while the order rests.
              while i < lastValid && time[i] <= skip.until { i += 1 }
              continue pass
            case .success(let entry): (q, maker) = (entry.quotes, entry.fill)
            }
          }
          let opened = maker?.fillTime ?? t
          open = TradeDecision(
            entryTime: opened, exitTime: opened, rich: rich, cheap: cheap, entryPremium: signal.premium, exitPremium: .nan,
            richBid: q[rich].bid, richBidSize: q[rich].bidSize, cheapAsk: q[cheap].ask, cheapAskSize: q[cheap].askSize,
            richAsk: .nan, cheapBid: .nan, exitReason: .signal, richEntryRow: q[rich].row, cheapEntryRow: q[cheap].row, maker: maker)
        }
        // Open from point i (or the maker's fill): the exit test starts at the next valid point.
        let opened = open!.entryTime
        i += 1
        while i <= lastValid && time[i] <= opened { i += 1 }
        while i <= lastValid {
          if valid[i] {
            let a = Int(states[2 * i]), b = Int(states[2 * i + 1])
            let closing = ((rich == 0 ? ask0[a] / bid1[b] : ask1[b] / bid0[a]) - 1) * 100
            if closing <= exit || (holdingLimited && time[i] - opened >= maxHolding) {
              switch fills.after(aligned.signal(i)) {
              case .failure(let skip): skipped.add(skip.reason)  // the position stays open
              case .success(let q):
                close(&open!, q[rich], q[cheap], premium: closing, time: time[i], reason: closing <= exit ? .signal : .maxHolding)
                trades.append(open!)
                open = nil
                cooldownUntil = parameters.cooldown.map { time[i] + $0 } ?? .min
              }
              if open == nil { break }
            }
          }
          i += 1
        }
        // A point that closes a position never opens one.
        i += 1
      }
    }
    if var trade = open {
      // Still open: closed at the last valid point's own quotes (at its opening, when a
      // maker order filled after that point).
      let a = fills.quote(0, at: aligned.signal(lastValid)), b = fills.quote(1, at: aligned.signal(lastValid))
      let closing = (pick(a.ask, b.ask, trade.rich) / pick(a.bid, b.bid, trade.cheap) - 1) * 100
      let end = max(aligned.time[lastValid], trade.entryTime)
      close(&trade, trade.rich == 0 ? a : b, trade.rich == 0 ? b : a, premium: closing, time: end, reason: .endOfData)
      trades.append(trade)
    }
    return ConvergenceDecisions(trades: trades, skipped: skipped.list, firstTime: aligned.time[firstValid], lastTime: aligned.time[lastValid])
  }

  /// Prices decided round trips on `legs` (those they were decided on) with this run's
  /// fees, slippage and notional (and the book-size cap): `docs/definitions.md`,
  /// quantities and PnL. With `fill = book` the trades walk the legs' books in turn, each
  /// on the liquidity the ones before it left; with leg failures, `partial` settles them.
  public func price(_ decisions: ConvergenceDecisions, legs: [QuoteSeries]) -> BacktestRun {
    do { return try price(decisions, rows: parameters.walksFills ? legs.map(LegRows.init) : []) } catch {
      preconditionFailure("legs in memory are read without a stream: \(error)")
    }
  }

  /// `price(_:legs:)` with the legs read again as `streams` (each from its first quote,
  /// with its books), `chunkRows` quotes at a time, as the walks reach their rows: the
  /// rows below the lowest one a later trade's walk starts at are dropped, so that memory
  /// does not grow with the legs (`docs/definitions.md`, "Book-walking fills").
  /// - Throws: what a stream throws.
  public func price(_ decisions: ConvergenceDecisions, streams: [any QuoteStream], chunkRows: Int) throws -> BacktestRun {
    try price(decisions, rows: streams.map { LegRows(streaming: $0, chunkRows: chunkRows) })
  }

  private func price(_ decisions: ConvergenceDecisions, rows: [LegRows]) throws -> BacktestRun {
    let s = parameters.slippageBps / 10_000
    var walker = parameters.walksFills ? BookWalker(legs: rows, fill: parameters.fill) : nil
    let floors = walker == nil ? [] : Self.floors(decisions.trades, legCount: rows.count)
    let trades = try decisions.trades.indices.map { n -> Trade in
      let d = decisions.trades[n]
      if walker != nil {
        try walker!.release(below: floors[(rows.count * n)..<(rows.count * (n + 1))])
        return try bookTrade(d, walker: &walker!)
      }
      // A maker fill is at its limit price: no slippage.
      let richSell = d.maker?.leg == d.rich ? d.richBid : d.richBid * (1 - s), cheapBuy = d.maker?.leg == d.cheap ? d.cheapAsk : d.cheapAsk * (1 + s)
      let richBuy = d.richAsk * (1 + s), cheapSell = d.cheapBid * (1 - s)
      var richQuantity = parameters.notional / richSell, cheapQuantity = parameters.notional / cheapBuy
      if parameters.capAtBook {
        // Both legs scale together, so that the hedge stays matched.
        let richRoom = d.richBidSize.isFinite ? d.richBidSize / richQuantity : 1
        let cheapRoom = d.cheapAskSize.isFinite ? d.cheapAskSize / cheapQuantity : 1
        let scale = min(1, richRoom, cheapRoom)
        richQuantity *= scale
        cheapQuantity *= scale
      }
      let fees =
        d.maker == nil
        ? parameters.fees[d.rich] * richQuantity * (richSell + richBuy) + parameters.fees[d.cheap] * cheapQuantity * (cheapBuy + cheapSell)
        : entryFee(d, leg: d.rich) * richQuantity * richSell + parameters.fees[d.rich] * richQuantity * richBuy
          + entryFee(d, leg: d.cheap) * cheapQuantity * cheapBuy + parameters.fees[d.cheap] * cheapQuantity * cheapSell
      return Trade(
        entryTime: d.entryTime, exitTime: d.exitTime, rich: d.rich, cheap: d.cheap, entryPremium: d.entryPremium,
        exitPremium: d.exitPremium, richSell: richSell, richBuy: richBuy, cheapBuy: cheapBuy, cheapSell: cheapSell,
        richQuantity: richQuantity, cheapQuantity: cheapQuantity, fees: fees,
        pnl: richQuantity * (richSell - richBuy) + cheapQuantity * (cheapSell - cheapBuy) - fees, exitReason: d.exitReason, maker: d.maker)
    }
    return BacktestRun(
      trades: trades, skipped: decisions.skipped, firstTime: decisions.firstTime, lastTime: decisions.lastTime, notional: parameters.notional)
  }

  /// Per trade of `trades`, per leg (`legCount` values a trade), the lowest row at which
  /// a walk of that trade or a later one starts on the leg (its fill rows, entry and exit).
  private static func floors(_ trades: [TradeDecision], legCount: Int) -> [Int] {
    var floors = Array(repeating: Int.max, count: trades.count * legCount)
    var lowest = Array(repeating: Int.max, count: legCount)
    for n in trades.indices.reversed() {
      let d = trades[n]
      for row in [d.richEntryRow, d.richExitRow] where row >= 0 { lowest[d.rich] = min(lowest[d.rich], row) }
      for row in [d.cheapEntryRow, d.cheapExitRow] where row >= 0 { lowest[d.cheap] = min(lowest[d.cheap], row) }
      for k in 0..<legCount { floors[legCount * n + k] = lowest[k] }
    }
    return floors
  }

  /// The fee of leg `leg`'s entry fill in `d`: the maker fee for the maker leg, else the taker fee.
  private func entryFee(_ d: TradeDecision, leg: Int) -> Double {
    d.maker?.leg == leg ? parameters.makerFees[leg] : parameters.fees[leg]
  }

  /// Records the exit of `trade` on the rich leg's and the cheap leg's quotes.
  private func close(_ trade: inout TradeDecision, _ rich: FillQuote, _ cheap: FillQuote, premium: Double, time: Int64, reason: ExitReason) {
    trade.richAsk = rich.ask
    trade.cheapBid = cheap.bid
    trade.richExitRow = rich.row
    trade.cheapExitRow = cheap.row
    trade.exitPremium = premium
    trade.exitTime = time
    trade.exitReason = reason
  }

  @inline(__always)
  private func pick(_ first: Double, _ second: Double, _ k: Int) -> Double { k == 0 ? first : second }
}

/// The columns the plain pass reads at every point, as buffers: the loops touch only
/// their elements (no copy of a series, no reference counting or bounds check per point).
private struct PassColumns {
  let bid0, ask0, bid1, ask1: UnsafeBufferPointer<Double>
  let time: UnsafeBufferPointer<Int64>
  let valid: UnsafeBufferPointer<Bool>
  let states: UnsafeBufferPointer<Int32>

  static func with<Result>(_ legs: [QuoteSeries], _ aligned: AlignedLegs, _ body: (PassColumns) -> Result) -> Result {
    legs[0].bid.withUnsafeBufferPointer { bid0 in
      legs[0].ask.withUnsafeBufferPointer { ask0 in
        legs[1].bid.withUnsafeBufferPointer { bid1 in
          legs[1].ask.withUnsafeBufferPointer { ask1 in
            aligned.time.withUnsafeBufferPointer { time in
              aligned.valid.withUnsafeBufferPointer { valid in
                aligned.states.withUnsafeBufferPointer { states in
                  body(PassColumns(bid0: bid0, ask0: ask0, bid1: bid1, ask1: ask1, time: time, valid: valid, states: states))
                }
              }
            }
          }
        }
      }
    }
  }
}
