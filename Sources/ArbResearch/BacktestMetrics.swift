import ArbBacktest
import ArbCore

/// The figures every mode reports (`docs/definitions.md`): the backtest's JSON and
/// summary, each sweep row, `--rank`, and the report's reading of a sweep all name them
/// through `Column`, the one list of them.
public struct BacktestMetrics: Sendable {
  /// The metric columns in the order of a sweep row and of the backtest's JSON.
  public enum Column: String, Sendable, CaseIterable {
    case trades, wins, pnl
    case pnlBps = "pnl_bps"
    case fees
    case maxDrawdown = "max_drawdown"
    case exposure
    case meanHoldingSeconds = "mean_holding_s"
    case forcedExits = "forced_exits"
    /// Only when fills are walked (`costs.fill` book, `costs.leg_fail_rate`): absent
    /// from the JSON otherwise, and not a sweep column (`sweepColumns`).
    case leggedTrades = "legged_trades"
    case leggedPnL = "legged_pnl"
    /// Only with a maker leg (`costs.maker_leg`): absent from the JSON otherwise, and not
    /// a sweep column.
    case makerOrders = "maker_orders"
    case makerFilled = "maker_filled"
    case makerCancelled = "maker_cancelled"
    case sharpe
    /// Mode carry only: absent from the other modes' JSON, empty in their sweep rows.
    case funding

    /// The column of `name`, or `nil` for a name that is no metric.
    public init?(name: String) { self.init(rawValue: name) }

    /// The columns of a sweep row, in order: every one but the legged trades' and the maker orders'.
    public static let sweepColumns = allCases.filter { ![.leggedTrades, .leggedPnL, .makerOrders, .makerFilled, .makerCancelled].contains($0) }

    /// The names of `sweepColumns`, in order: a sweep's header after its grid keys.
    public static var names: [String] { sweepColumns.map(\.rawValue) }

    /// Whether the metric is a count (trades, wins, forced exits, legged trades), not a number with a fraction.
    public var isCount: Bool { self == .trades || self == .wins || self == .forcedExits || self == .leggedTrades }
  }

  public var trades: Int
  public var wins: Int
  /// PnL in quote currency, and in basis points of the notional.
  public var pnl: Double
  public var pnlBps: Double
  public var fees: Double
  public var maxDrawdown: Double
  /// Share of the time a position is open (0 in mode inventory: nothing is held).
  public var exposure: Double
  /// `nil` without trades.
  public var meanHoldingSeconds: Double?
  public var forcedExits: Int
  /// Round trips where a leg filled and the other did not (in part or at all), and
  /// their PnL; `nil` unless fills are walked.
  public var leggedTrades: Int?
  public var leggedPnL: Double?
  /// Maker orders placed, filled (with those whose taker leg could not fill) and
  /// cancelled; `nil` without a maker leg.
  public var makerOrders: (placed: Int, filled: Int, cancelled: Int)?
  /// `nil` when the daily PnL has no spread.
  public var sharpe: Double?
  /// Mode carry: the funding received (+) or paid (−); `nil` in the other modes.
  public var funding: Double?
  /// Signals not taken, by reason.
  public var skipped: [(reason: SkipReason, count: Int)]

  /// The metrics of `run`, its `journal` built once by the caller.
  public init(_ run: ScenarioRun, journal: PnLJournal) {
    let common: (trades: Int, wins: Int, pnl: Double, fees: Double, skipped: [(reason: SkipReason, count: Int)])
    switch run.outcome {
    case .convergence(let result), .carry(let result, _):
      common = (result.trades.count, result.wins, result.pnl, result.fees, result.skipped)
      (exposure, meanHoldingSeconds, forcedExits) = (result.exposure, result.meanHoldingSeconds, result.forcedExits)
      if case .carry = run.outcome { funding = result.funding }
      if run.scenario.walksFills { (leggedTrades, leggedPnL) = (result.leggedTrades, result.leggedPnL) }
      if run.scenario.maker != nil {
        func count(_ reason: SkipReason) -> Int { result.skipped.first { $0.reason == reason }?.count ?? 0 }
        let (filled, cancelled) = (result.trades.count + count(.makerUnhedged), count(.makerCancelled))
        makerOrders = (filled + cancelled, filled, cancelled)
      }
    case .inventory(let result):
      common = (result.trades.count, result.wins, result.pnl, result.fees, result.skipped)
      // Round trips are immediate: nothing is held.
      (exposure, meanHoldingSeconds, forcedExits) = (0, result.trades.isEmpty ? nil : 0, 0)
    }
    (trades, wins, pnl, fees, skipped) = common
    pnlBps = pnl / run.scenario.strategy.notional * 10_000
    maxDrawdown = journal.maxDrawdown
    sharpe = journal.sharpe(offset: run.scenario.timeZoneOffset)
  }

  /// `column`'s value as JSON: a count, a number, or `null` when undefined.
  public func value(_ column: Column) -> JSONValue {
    switch column {
    case .trades: .int(trades)
    case .wins: .int(wins)
    case .pnl: .number(pnl)
    case .pnlBps: .number(pnlBps)
    case .fees: .number(fees)
    case .maxDrawdown: .number(maxDrawdown)
    case .exposure: .number(exposure)
    case .meanHoldingSeconds: .number(meanHoldingSeconds)
    case .forcedExits: .int(forcedExits)
    case .leggedTrades: .int(leggedTrades)
    case .leggedPnL: .number(leggedPnL)
    case .makerOrders: .int(makerOrders?.placed)
    case .makerFilled: .int(makerOrders?.filled)
    case .makerCancelled: .int(makerOrders?.cancelled)
    case .sharpe: .number(sharpe)
    case .funding: .number(funding)
    }
  }

  /// The columns this run has: funding only in mode carry, the legged trades only when
  /// fills are walked, the maker orders only with a maker leg.
  public var columns: [Column] {
    Column.allCases.filter { column in
      switch column {
      case .funding: funding != nil
      case .leggedTrades, .leggedPnL: leggedTrades != nil
      case .makerOrders, .makerFilled, .makerCancelled: makerOrders != nil
      default: true
      }
    }
  }

  /// The metrics as the backtest's JSON lists them: `columns`, then the skipped signals by reason.
  public var members: [(String, JSONValue)] {
    columns.map { ($0.rawValue, value($0)) } + [
      ("skipped", .object(skipped.map { ($0.reason.rawValue, .int($0.count)) }))
    ]
  }
}
