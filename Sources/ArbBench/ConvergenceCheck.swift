/// The agreement the convergence benchmark requires before its timings mean anything:
/// arbkit and numba give the same trade count and total PnL (within 1e-9 relative) for
/// the single backtest and for every sweep cell, and for the book-fill backtest.
enum ConvergenceCheck {
  static let tolerance = 1e-9

  /// Throws a `BenchError` naming every disagreement (the first ten cells of a sweep).
  static func verify(backtest: BacktestMeasurement?, sweep: SweepMeasurement?, peers: [String: Any]) throws {
    var problems: [String] = []
    if let backtest, let numba = peers["backtest"] as? [String: Any] {
      let trades = numba["trades"] as? Int, pnl = numba["pnl"] as? Double
      if trades != backtest.trades || !close(pnl, backtest.pnl) {
        problems.append(
          "backtest: arbkit \(backtest.trades) trades, PnL \(backtest.pnl); numba \(trades.map(String.init) ?? "-") trades, PnL \(pnl.map { "\($0)" } ?? "-")")
      }
    }
    if let sweep, let numba = peers["sweep"] as? [String: Any] {
      let trades = numba["trades"] as? [Int] ?? [], pnl = numba["pnl"] as? [Double] ?? []
      if trades.count != sweep.trades.count || pnl.count != sweep.pnl.count {
        problems.append("sweep: arbkit \(sweep.trades.count) cells, numba \(trades.count)")
      } else {
        let bad = sweep.trades.indices.filter { trades[$0] != sweep.trades[$0] || !close(pnl[$0], sweep.pnl[$0]) }
        problems += bad.prefix(10).map { "sweep cell \($0): arbkit \(sweep.trades[$0]) trades, PnL \(sweep.pnl[$0]); numba \(trades[$0]), \(pnl[$0])" }
        if bad.count > 10 { problems.append("… \(bad.count) cells disagree") }
      }
    }
    guard problems.isEmpty else { throw BenchError("arbkit and numba disagree:\n  " + problems.joined(separator: "\n  ")) }
  }

  /// Throws a `BenchError` unless `arbkit backtest`, the engine in process and numba
  /// (`peers["bookfill"]`) give the same trade count and total PnL.
  static func verify(bookFill m: BookFillMeasurement, peers: [String: Any]) throws {
    let numba = peers["bookfill"] as? [String: Any]
    let trades = numba?["trades"] as? Int, pnl = numba?["pnl"] as? Double
    guard trades == m.trades, m.commandTrades == m.trades, close(pnl, m.pnl), close(m.commandPnL, m.pnl) else {
      throw BenchError(
        "book fills: arbkit backtest \(m.commandTrades) trades, PnL \(m.commandPnL); engine \(m.trades), \(m.pnl); "
          + "numba \(trades.map(String.init) ?? "-"), \(pnl.map { "\($0)" } ?? "-")")
    }
  }

  private static func close(_ a: Double?, _ b: Double) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-300) || a == b
  }
}
