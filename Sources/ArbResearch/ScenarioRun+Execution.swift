import ArbBacktest

/// The ledger columns of walked fills (`costs.fill` book or `costs.leg_fail_rate`) and of a
/// maker leg (`costs.maker_leg`), `docs/cli.md`.
extension ScenarioRun {
  /// `,rich_entry_requested,…,legged,unwound,unwind_pnl`: appended to the convergence ledger's header,
  /// the fills in the order of `Execution.fills`.
  static let executionColumns =
    ["rich_entry", "cheap_entry", "rich_exit", "cheap_exit"].map { fill in
      ["requested", "filled", "vwap", "levels", "slippage_bps"].map { ",\(fill)_\($0)" }.joined()
    }.joined() + ",legged,unwound,unwind_pnl"

  /// `,maker_leg,maker_place_ts_us,maker_fill_ts_us`: after the convergence ledger's `cheap`
  /// (its text columns), with a maker leg.
  static let makerTextColumns = ",maker_leg,maker_place_ts_us,maker_fill_ts_us"
  /// `,maker_queue_ahead,maker_price`: last in the convergence ledger, with a maker leg.
  static let makerNumberColumns = ",maker_queue_ahead,maker_price"

  /// One maker order's values of `makerTextColumns`: its leg (0-based, as `costs.maker_leg`) and times.
  static func makerTexts(_ maker: MakerFill) -> [String] { ["\(maker.leg)", "\(maker.placeTime)", "\(maker.fillTime)"] }

  /// One trade's values of `executionColumns`.
  static func executionNumbers(_ execution: Execution) -> [Double] {
    execution.fills.flatMap { [$0.requested, $0.filled, $0.vwap, Double($0.levels), $0.slippageBps] } + [
      execution.legged ? 1 : 0, execution.unwound, execution.unwindPnL,
    ]
  }
}
