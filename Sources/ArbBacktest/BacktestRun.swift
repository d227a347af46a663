import ArbCore

/// The trades of one backtest and the figures `docs/definitions.md` defines on them.
public struct BacktestRun: Sendable {
  /// In exit order (one position at a time, so also entry order).
  public var trades: [Trade]
  /// Signals not acted on, by reason, in a fixed order.
  public var skipped: [(reason: SkipReason, count: Int)]
  /// The first and last valid points: the span that exposure and days are measured on.
  public var firstTime: Int64?
  public var lastTime: Int64?
  public var notional: Double
  /// Mode carry: every funding settlement a position took part in, in time order.
  public var payments: [FundingPayment] = []

  public var wins: Int { trades.reduce(0) { $0 + ($1.pnl > 0 ? 1 : 0) } }
  public var pnl: Double { trades.reduce(0) { $0 + $1.pnl } }
  /// Total PnL in basis points of the notional per leg.
  public var pnlBps: Double { pnl / notional * 10_000 }
  public var fees: Double { trades.reduce(0) { $0 + $1.fees } }
  public var forcedExits: Int { trades.reduce(0) { $0 + ($1.exitReason == .endOfData ? 1 : 0) } }
  /// One-legged trades (`Execution.legged`) and their total PnL.
  public var leggedTrades: Int { trades.reduce(0) { $0 + ($1.execution?.legged == true ? 1 : 0) } }
  public var leggedPnL: Double { trades.reduce(0) { $0 + ($1.execution?.legged == true ? $1.pnl : 0) } }

  /// Funding received over all trades (paid: negative), quote.
  public var funding: Double { trades.reduce(0) { $0 + $1.funding } }

  /// Each trade's PnL without its funding at its exit and each funding payment at its
  /// settlement time (before an exit at the same time), over the span of valid points.
  public var journal: PnLJournal {
    var bookings = payments.map { (time: $0.time, pnl: $0.amount, isTrade: false) }
    bookings += trades.map { ($0.exitTime, $0.pnl - $0.funding, true) }
    if !payments.isEmpty {
      // Stable: a payment stays before an exit at the same time.
      bookings = bookings.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }
    return PnLJournal(bookings: bookings, firstTime: firstTime, lastTime: lastTime)
  }

  public var maxDrawdown: Double { journal.maxDrawdown }

  /// Share of the span from the first to the last valid point spent in a position.
  public var exposure: Double {
    guard let firstTime, let lastTime, lastTime > firstTime else { return 0 }
    let held = trades.reduce(Int64(0)) { $0 + ($1.exitTime - $1.entryTime) }
    return Double(held) / Double(lastTime - firstTime)
  }

  /// Mean time from entry signal to exit signal, seconds; `nil` without trades.
  public var meanHoldingSeconds: Double? {
    guard !trades.isEmpty else { return nil }
    return Double(trades.reduce(Int64(0)) { $0 + ($1.exitTime - $1.entryTime) }) / Double(trades.count) / 1e6
  }
}

/// One funding settlement of a carry position.
public struct FundingPayment: Sendable, Equatable {
  /// The settlement instant τ.
  public var time: Int64
  /// The funding rate at τ, a signed fraction.
  public var rate: Double
  /// The perp's price p(τ) that the notional is valued at.
  public var price: Double
  /// Received by the short perp (negative: paid), quote.
  public var amount: Double
  /// The trade (index into `BacktestRun.trades`).
  public var trade: Int
}
