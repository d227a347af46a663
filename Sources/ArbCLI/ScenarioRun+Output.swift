import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbResearch

/// The printed forms of a backtest: summary table, JSON (`docs/cli.md`), ledger,
/// equity and inventory CSV.
extension ScenarioRun {
  /// The figures every mode reports, in `docs/cli.md` order.
  var metrics: [(String, JSONValue)] { metrics(journal: journal) }

  /// `metrics` from the run's `journal`, built once by the caller.
  func metrics(journal: PnLJournal) -> [(String, JSONValue)] {
    let offset = scenario.timeZoneOffset
    let common: (trades: Int, wins: Int, pnl: Double, fees: Double, skipped: [(reason: SkipReason, count: Int)])
    var holding: [(String, JSONValue)]
    var funding: [(String, JSONValue)] = []
    switch outcome {
    case .convergence(let run), .carry(let run, _):
      common = (run.trades.count, run.wins, run.pnl, run.fees, run.skipped)
      if case .carry = outcome { funding = [("funding", .number(run.funding))] }
      holding = [
        ("exposure", .number(run.exposure)), ("mean_holding_s", .number(run.meanHoldingSeconds)), ("forced_exits", .int(run.forcedExits)),
      ]
      if scenario.walksFills { holding += [("legged_trades", .int(run.leggedTrades)), ("legged_pnl", .number(run.leggedPnL))] }
    case .inventory(let run):
      // Round trips are immediate: nothing is held.
      common = (run.trades.count, run.wins, run.pnl, run.fees, run.skipped)
      holding = [("exposure", .number(0)), ("mean_holding_s", .number(run.trades.isEmpty ? nil : 0)), ("forced_exits", .int(0))]
    }
    return [
      ("trades", .int(common.trades)), ("wins", .int(common.wins)), ("pnl", .number(common.pnl)),
      ("pnl_bps", .number(common.pnl / scenario.strategy.notional * 10_000)), ("fees", .number(common.fees)),
    ] + funding + [
      ("max_drawdown", .number(journal.maxDrawdown))
    ] + holding + [
      ("sharpe", .number(journal.sharpe(offset: offset))),
      ("skipped", .object(common.skipped.map { ($0.reason.rawValue, .int($0.count)) })),
    ]
  }

  var json: JSONValue {
    var members = metrics
    if case .inventory(let run) = outcome {
      members += [
        ("missed", .int(run.missed)), ("rebalances", .int(run.rebalances.count)), ("rebalance_cost", .number(run.rebalanceCost)),
        ("inventory_start", Self.balances(run.path.first!)), ("inventory_end", Self.balances(run.path.last!)),
      ]
    }
    if case .carry(let run, let settlements) = outcome {
      members += [
        ("funding_payments", .int(run.payments.count)),
        ("funding_from", settlements.time.first.map { .string(TimeText.iso8601($0)) } ?? .null),
        ("funding_to", settlements.time.last.map { .string(TimeText.iso8601($0)) } ?? .null),
      ]
    }
    members += [
      ("mode", .string(scenario.strategy.mode.rawValue)),
      ("points", .int(points)),
      ("valid_points", .int(validPoints)),
      ("price_sources", .array(legs.map { .string($0.priceSource.rawValue) })),
      ("offsets_us", .object(ScenarioLegs.offsets(scenario).map { ($0.venue, .int($0.micros)) })),
      ("fx", fx.map(Self.fxJSON) ?? .null),
      ("time_zone", .string(scenario.timeZone)),
      (
        "daily",
        .array(
          journal.daily(offset: scenario.timeZoneOffset).map { .object([("date", .string($0.date)), ("pnl", .number($0.pnl)), ("trades", .int($0.trades))]) })
      ),
    ]
    return .object(members)
  }

  /// `fx`: the series, the converted venue, its staleness limit and what it left unusable.
  static func fxJSON(_ fx: ScenarioLegs.FXSummary) -> JSONValue {
    .object([
      ("series", .string(fx.series.description)), ("converts", .string(fx.converts)),
      ("max_stale_us", fx.maxStale.map { .int($0) } ?? .null), ("quotes", .int(Int64(fx.quotes))),
      ("unusable_quotes", .int(Int64(fx.unusable))), ("usdt_as_usd", .bool(fx.usdtAsUSD)),
    ])
  }

  /// `FX: upbit prices divided by fx:…:USDKRW …`, and the USDT assumption when made.
  static func fxLine(_ fx: ScenarioLegs.FXSummary) -> String {
    let limit = fx.maxStale.map { "at most \(TimeText.durationText($0)) old" } ?? "no age limit"
    var text = "FX: \(fx.converts) prices divided by \(fx.series.symbol), the rate in force (\(limit)); "
    text += "\(fx.unusable) of \(fx.quotes) quotes without a usable rate\n"
    if fx.usdtAsUSD { text += "Note: USDT is taken as 1 USD: the premium includes the USDT/USD deviation.\n" }
    return text
  }

  private static func balances(_ state: InventoryState) -> JSONValue {
    .array(state.base.indices.map { .object([("base", .number(state.base[$0])), ("quote", .number(state.quote[$0]))]) })
  }

  /// The metrics as the summary table prints them (skipped signals one row per reason;
  /// mode inventory adds rebalances and the balances at start and end).
  var summaryRows: [(name: String, value: String)] {
    var rows: [(name: String, value: String)] = []
    for (key, value) in metrics {
      switch value {
      case .object(let counts): for (reason, count) in counts { rows.append(("skipped: \(reason)", count.rendered(indent: 0))) }
      case .number(let x) where key == "exposure": rows.append((key, NumberText.percent(x)))
      case .number(let x): rows.append((key, NumberText.fixed(x, key == "sharpe" ? 3 : 2)))
      default: rows.append((key, value == .null ? "-" : value.rendered(indent: 0)))
      }
    }
    if case .inventory(let run) = outcome {
      rows.append(("rebalances", "\(run.rebalances.count)"))
      rows.append(("rebalance cost", NumberText.fixed(run.rebalanceCost, 2)))
      let start = run.path.first!, end = run.path.last!
      for k in legs.indices {
        rows.append(("leg \(k + 1) base, start → end", NumberText.fixed(start.base[k], 6) + " → " + NumberText.fixed(end.base[k], 6)))
        rows.append(("leg \(k + 1) quote, start → end", NumberText.fixed(start.quote[k], 2) + " → " + NumberText.fixed(end.quote[k], 2)))
      }
    }
    return rows
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
    text += "Points \(points), valid \(validPoints)\n"
    text += ExecutionFlags.offsetsLine(ScenarioLegs.offsets(scenario))
    if let fx { text += Self.fxLine(fx) }
    if legs.contains(where: { $0.priceSource == .last }) {
      text += "Note: price_source last for some legs (bid = ask = one price): fills at that price are not tradable quotes.\n"
    }
    let s = scenario, strategy = scenario.strategy
    let exit = strategy.threshold.map { ", exit \(JSONValue.format($0.exit))%" } ?? ""
    text += "Strategy \(strategy.mode): entry \(JSONValue.format(strategy.entry))%\(exit), notional \(JSONValue.format(strategy.notional)) "
    text += [.inventory: "per trade, ", .carry: "on spot, "][strategy.mode] ?? "per leg, "
    text += "slippage \(JSONValue.format(s.slippageBps)) bps, latency \(s.latency)\n\n"
    var summary = TextTable(["", "value"], rightAligned: [1])
    for row in summaryRows { summary.add([row.name, row.value]) }
    text += summary.rendered(indent: "  ") + "\n"
    if case .carry(let run, let settlements) = outcome {
      if let first = settlements.time.first, let last = settlements.time.last {
        text += "Funding: \(run.payments.count) settlements paid or received; the funding file has \(settlements.time.count) "
        text += "from \(TimeText.iso8601(first)) to \(TimeText.iso8601(last))\n"
      } else {
        text += "Funding: not booked (strategy.funding false)\n"
      }
    }
    return text
  }

  /// The trades, one row each (by mode).
  var ledger: CSVTable {
    switch outcome {
    case .convergence(let run):
      var table = CSVTable(
        "entry_ts_us,exit_ts_us,direction,rich,cheap,entry_premium,exit_premium,pnl,pnl_bps,fees" + (scenario.walksFills ? Self.executionColumns : ""))
      for trade in run.trades {
        table.add(
          ["\(trade.entryTime)", "\(trade.exitTime)", "\(trade.rich + 1)>\(trade.cheap + 1)", name(trade.rich), name(trade.cheap)],
          [trade.entryPremium, trade.exitPremium, trade.pnl, trade.pnl / scenario.strategy.notional * 10_000, trade.fees]
            + (trade.execution.map(Self.executionNumbers) ?? []))
      }
      return table
    case .carry(let run, _):
      var table = CSVTable(
        "entry_ts_us,exit_ts_us,spot,perp,entry_basis,exit_basis,spot_buy,spot_sell,perp_sell,perp_buy,spot_quantity,perp_quantity,funding,fees,pnl,pnl_bps")
      for trade in run.trades {
        table.add(
          ["\(trade.entryTime)", "\(trade.exitTime)", name(trade.cheap), name(trade.rich)],
          [
            trade.entryPremium, trade.exitPremium, trade.cheapBuy, trade.cheapSell, trade.richSell, trade.richBuy, trade.cheapQuantity,
            trade.richQuantity, trade.funding, trade.fees, trade.pnl, trade.pnl / scenario.strategy.notional * 10_000,
          ])
      }
      return table
    case .inventory(let run):
      var table = CSVTable("ts_us,direction,rich,cheap,premium,sell_price,buy_price,quantity,pnl,pnl_bps,fees")
      for trade in run.trades {
        table.add(
          ["\(trade.time)", "\(trade.rich + 1)>\(trade.cheap + 1)", name(trade.rich), name(trade.cheap)],
          [trade.premium, trade.sellPrice, trade.buyPrice, trade.quantity, trade.pnl, trade.pnl / scenario.strategy.notional * 10_000, trade.fees])
      }
      return table
    }
  }

  /// The running sum of the journal's bookings.
  var equity: CSVTable {
    var table = CSVTable("ts_us,equity")
    var equity = 0.0
    for booking in journal.bookings {
      equity += booking.pnl
      table.add(["\(booking.time)"], [equity])
    }
    return table
  }

  /// Balances after each trade and rebalance (mode inventory; header only otherwise).
  var inventory: CSVTable {
    var table = CSVTable("ts_us" + legs.indices.map { ",base_\($0 + 1),quote_\($0 + 1)" }.joined())
    guard case .inventory(let run) = outcome else { return table }
    for state in run.path { table.add(["\(state.time)"], state.base.indices.flatMap { [state.base[$0], state.quote[$0]] }) }
    return table
  }

  /// Funding settlements paid or received (mode carry; header only otherwise).
  var funding: CSVTable {
    var table = CSVTable("ts_us,trade,rate,price,amount")
    guard case .carry(let run, _) = outcome else { return table }
    for payment in run.payments { table.add(["\(payment.time)", "\(payment.trade + 1)"], [payment.rate, payment.price, payment.amount]) }
    return table
  }

  /// The JSON, after checking that it and every CSV table hold only finite numbers: the
  /// one check before any output of the backtest is written.
  ///
  /// - Throws: `NonFiniteResult` naming the first figure that is not finite
  ///   (`pnl`, `trades.2.entry_premium`).
  func checkedFinite() throws(NonFiniteResult) -> JSONValue {
    let json = try json.checkedFinite()
    for (name, table) in [("trades", ledger), ("equity", equity), ("inventory", inventory), ("funding", funding)] {
      if let found = table.firstNonFinite() { throw found.inside(name) }
    }
    return json
  }

  private func name(_ k: Int) -> String { CSV.field(legs[k].instrument.description) }
}

/// A CSV file of rows that start with text fields and end with numbers, whose numbers are
/// checked before it is written.
struct CSVTable {
  let header: String
  private(set) var rows: [(fields: [String], numbers: [Double])] = []

  init(_ header: String) { self.header = header }

  mutating func add(_ fields: [String], _ numbers: [Double]) { rows.append((fields, numbers)) }

  /// Header and rows, each line ended by a newline.
  var text: String {
    var text = header + "\n"
    for row in rows { text += (row.fields + row.numbers.map { NumberText.csv($0) }).joined(separator: ",") + "\n" }
    return text
  }

  /// The first number that is not finite, as `ROW.COLUMN` (rows from 1, after the header).
  func firstNonFinite() -> NonFiniteResult? {
    let columns = header.split(separator: ",").map(String.init)
    for (k, row) in rows.enumerated() {
      if let j = row.numbers.firstIndex(where: { !$0.isFinite }) {
        return NonFiniteResult(key: columns[row.fields.count + j], value: row.numbers[j]).inside(String(k + 1))
      }
    }
    return nil
  }
}
