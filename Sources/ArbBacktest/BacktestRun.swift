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

  public var wins: Int { trades.reduce(0) { $0 + ($1.pnl > 0 ? 1 : 0) } }
  public var pnl: Double { trades.reduce(0) { $0 + $1.pnl } }
  /// Total PnL in basis points of the notional per leg.
  public var pnlBps: Double { pnl / notional * 10_000 }
  public var fees: Double { trades.reduce(0) { $0 + $1.fees } }
  public var forcedExits: Int { trades.reduce(0) { $0 + ($1.exitReason == .endOfData ? 1 : 0) } }

  /// Each trade's PnL at its exit, over the span of valid points.
  public var journal: PnLJournal {
    PnLJournal(bookings: trades.map { ($0.exitTime, $0.pnl, true) }, firstTime: firstTime, lastTime: lastTime)
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
