import ArbBacktest

/// The ledger columns of walked fills (`costs.fill` book or `costs.leg_fail_rate`, `docs/cli.md`).
extension ScenarioRun {
  /// `,rich_entry_requested,…,legged,unwound,unwind_pnl`: appended to the convergence ledger's header,
  /// the fills in the order of `Execution.fills`.
  static let executionColumns =
    ["rich_entry", "cheap_entry", "rich_exit", "cheap_exit"].map { fill in
      ["requested", "filled", "vwap", "levels", "slippage_bps"].map { ",\(fill)_\($0)" }.joined()
    }.joined() + ",legged,unwound,unwind_pnl"

  /// One trade's values of `executionColumns`.
  static func executionNumbers(_ execution: Execution) -> [Double] {
    execution.fills.flatMap { [$0.requested, $0.filled, $0.vwap, Double($0.levels), $0.slippageBps] } + [
      execution.legged ? 1 : 0, execution.unwound, execution.unwindPnL,
    ]
  }
}
