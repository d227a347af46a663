import ArbAnalytics
import ArbBacktest
import ArbCore

/// The printed forms of a backtest: summary table, JSON (`docs/cli.md`), ledger and
/// equity CSV.
struct BacktestReport {
  let scenario: Scenario
  let legs: [QuoteSeries]
  let fees: [Double]
  let aligned: AlignedLegs
  let run: BacktestRun

  var days: [BacktestRun.Day] { run.daily(offset: scenario.timeZoneOffset) }

  var json: JSONValue {
    .object([
      ("trades", .int(run.trades.count)),
      ("wins", .int(run.wins)),
      ("pnl", .number(run.pnl)),
      ("pnl_bps", .number(run.pnlBps)),
      ("fees", .number(run.fees)),
      ("max_drawdown", .number(run.maxDrawdown)),
      ("exposure", .number(run.exposure)),
      ("mean_holding_s", .number(run.meanHoldingSeconds)),
      ("forced_exits", .int(run.forcedExits)),
      ("sharpe", .number(run.sharpe(offset: scenario.timeZoneOffset))),
      ("skipped", .object(run.skipped.map { ($0.reason.rawValue, .int($0.count)) })),
      ("points", .int(aligned.count)),
      ("valid_points", .int(aligned.validPoints)),
      ("price_sources", .array(legs.map { .string($0.priceSource.rawValue) })),
      ("time_zone", .string(scenario.timeZone)),
      ("daily", .array(days.map { .object([("date", .string($0.date)), ("pnl", .number($0.pnl)), ("trades", .int($0.trades))]) })),
    ])
  }

  var table: String {
    var text = "Legs\n"
    var legTable = TextTable(["#", "venue", "market", "symbol", "rows", "taker fee", "price"], rightAligned: [0, 4, 5])
    for (k, leg) in legs.enumerated() {
      legTable.add([
        "\(k + 1)", leg.instrument.venue, leg.instrument.market.rawValue, leg.instrument.symbol, "\(leg.count)",
        NumberText.fixed(fees[k] * 100, 4) + "%", leg.priceSource.rawValue,
      ])
    }
    text += legTable.rendered(indent: "  ") + "\n"
    text += "Points \(aligned.count), valid \(aligned.validPoints)\n"
    if legs.contains(where: { $0.priceSource == .last }) {
      text += "Note: price_source last for some legs (bid = ask = one price): fills at that price are not tradable quotes.\n"
    }
    let s = scenario
    text += "Strategy convergence: entry \(JSONValue.format(s.entry))%, exit \(JSONValue.format(s.exit))%, notional \(JSONValue.format(s.notional)) per leg, "
    text += "slippage \(JSONValue.format(s.slippageBps)) bps, latency \(TimeText.durationText(s.latency))\n\n"
    var summary = TextTable(["", "value"], rightAligned: [1])
    summary.add(["trades", "\(run.trades.count)"])
    summary.add(["wins", "\(run.wins)"])
    summary.add(["pnl", NumberText.fixed(run.pnl, 2)])
    summary.add(["pnl, bps of notional", NumberText.fixed(run.pnlBps, 2)])
    summary.add(["fees", NumberText.fixed(run.fees, 2)])
    summary.add(["max drawdown", NumberText.fixed(run.maxDrawdown, 2)])
    summary.add(["exposure", NumberText.percent(run.exposure)])
    summary.add(["mean holding, s", NumberText.fixed(run.meanHoldingSeconds, 1)])
    summary.add(["forced exits", "\(run.forcedExits)"])
    summary.add(["Sharpe (daily, \(s.timeZone))", NumberText.fixed(run.sharpe(offset: s.timeZoneOffset), 3)])
    for (reason, count) in run.skipped { summary.add(["skipped: \(reason.rawValue)", "\(count)"]) }
    text += summary.rendered(indent: "  ") + "\n"
    return text
  }

  var ledgerCSV: String {
    var text = "entry_ts_us,exit_ts_us,direction,rich,cheap,entry_premium,exit_premium,pnl,pnl_bps,fees\n"
    for trade in run.trades {
      text += "\(trade.entryTime),\(trade.exitTime),\(trade.rich + 1)>\(trade.cheap + 1),"
      text += CSV.field(legs[trade.rich].instrument.description) + "," + CSV.field(legs[trade.cheap].instrument.description) + ","
      text += [trade.entryPremium, trade.exitPremium, trade.pnl, trade.pnl / run.notional * 10_000, trade.fees].map { NumberText.csv($0) }
        .joined(separator: ",") + "\n"
    }
    return text
  }

  var equityCSV: String {
    var text = "ts_us,equity\n"
    var equity = 0.0
    for trade in run.trades {
      equity += trade.pnl
      text += "\(trade.exitTime),\(NumberText.csv(equity))\n"
    }
    return text
  }
}
