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

  /// Largest fall of the cumulative PnL (booked at each exit, from 0) from its peak.
  public var maxDrawdown: Double {
    var cumulative = 0.0, peak = 0.0, drawdown = 0.0
    for trade in trades {
      cumulative += trade.pnl
      peak = max(peak, cumulative)
      drawdown = max(drawdown, peak - cumulative)
    }
    return drawdown
  }

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

  /// One day of the PnL journal.
  public struct Day: Sendable, Equatable {
    /// `YYYY-MM-DD` in the journal's zone.
    public var date: String
    public var pnl: Double
    public var trades: Int
  }

  /// PnL booked per day (by exit time) on every calendar day from the first to the
  /// last valid point, days without an exit included as 0. `offset` is the zone's
  /// offset from UTC in µs (0 for UTC days, +9 h for Asia/Seoul).
  public func daily(offset: Int64 = 0) -> [Day] {
    guard let firstTime, let lastTime else { return [] }
    let dayLength = TimeText.microsPerDay
    let firstDay = (firstTime + offset).floorDiv(dayLength), lastDay = (lastTime + offset).floorDiv(dayLength)
    var days = (firstDay...lastDay).map { Day(date: TimeText.isoDate($0 * dayLength), pnl: 0, trades: 0) }
    for trade in trades {
      let k = Int((trade.exitTime + offset).floorDiv(dayLength) - firstDay)
      days[k].pnl += trade.pnl
      days[k].trades += 1
    }
    return days
  }

  /// mean(daily PnL) / std(daily PnL) × √365 with the sample std over `daily(offset:)`;
  /// `nil` with fewer than two days or no variation (never inf or NaN).
  public func sharpe(offset: Int64 = 0) -> Double? {
    let values = daily(offset: offset).map(\.pnl)
    guard values.count >= 2 else { return nil }
    let mean = values.reduce(0, +) / Double(values.count)
    let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
    guard variance > 0 else { return nil }
    return mean / variance.squareRoot() * (365.0).squareRoot()
  }
}
