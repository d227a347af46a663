import ArbAnalytics
import ArbBacktest
import ArbCore

/// The results of a backtest as data: the JSON (`docs/cli.md`), the summary rows, the
/// ledger, equity, inventory and funding tables.
extension ScenarioRun {
  /// The positions held from an entry to an exit (modes convergence and carry); none
  /// in mode inventory, whose trades are immediate.
  public var roundTrips: [Trade] {
    switch outcome {
    case .convergence(let run), .carry(let run, _): run.trades
    case .inventory: []
    }
  }

  /// The figures every mode reports.
  public var metrics: BacktestMetrics { BacktestMetrics(self, journal: journal) }

  public var json: JSONValue {
    var members = metrics.members
    if case .inventory(let run) = outcome {
      members += [
        ("missed", .int(run.missed)), ("rebalances", .int(run.rebalances.count)), ("rebalance_cost", .number(run.rebalanceCost)),
        ("transfer_fees", .number(run.transferFees)), ("time_in_transit", .number(run.timeInTransit)),
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
  public static func fxJSON(_ fx: ScenarioLegs.FXSummary) -> JSONValue {
    .object([
      ("series", .string(fx.series.description)), ("converts", .string(fx.converts)),
      ("max_stale_us", fx.maxStale.map { .int($0) } ?? .null), ("quotes", .int(Int64(fx.quotes))),
      ("unusable_quotes", .int(Int64(fx.unusable))), ("usdt_as_usd", .bool(fx.usdtAsUSD)),
    ])
  }

  private static func balances(_ state: InventoryState) -> JSONValue {
    .array(state.base.indices.map { .object([("base", .number(state.base[$0])), ("quote", .number(state.quote[$0]))]) })
  }

  /// The metrics as the summary table prints them (skipped signals one row per reason;
  /// mode inventory adds rebalances and the balances at start and end).
  public var summaryRows: [(name: String, value: String)] {
    let metrics = metrics
    var rows: [(name: String, value: String)] = []
    for column in metrics.columns {
      let name = column.rawValue
      switch (column, metrics.value(column)) {
      case (.exposure, .number(let x)): rows.append((name, NumberText.percent(x)))
      case (_, .number(let x)): rows.append((name, NumberText.fixed(x, column == .sharpe ? 3 : 2)))
      case (_, .null): rows.append((name, "-"))
      case (_, let value): rows.append((name, value.rendered(indent: 0)))
      }
    }
    for (reason, count) in metrics.skipped { rows.append(("skipped: \(reason.rawValue)", "\(count)")) }
    if case .inventory(let run) = outcome {
      rows.append(("rebalances", "\(run.rebalances.count)"))
      rows.append(("rebalance cost", NumberText.fixed(run.rebalanceCost, 2)))
      rows.append(("transfer fees", NumberText.fixed(run.transferFees, 2)))
      rows.append(("time in transit, s", NumberText.fixed(run.timeInTransit, 0)))
      let start = run.path.first!, end = run.path.last!
      for k in legs.indices {
        rows.append(("leg \(k + 1) base, start → end", NumberText.fixed(start.base[k], 6) + " → " + NumberText.fixed(end.base[k], 6)))
        rows.append(("leg \(k + 1) quote, start → end", NumberText.fixed(start.quote[k], 2) + " → " + NumberText.fixed(end.quote[k], 2)))
      }
    }
    return rows
  }

  /// What the summary says after its table about the mode's own bookings (mode carry:
  /// the funding settlements); empty for the other modes.
  public var bookingNotes: String {
    guard case .carry(let run, let settlements) = outcome else { return "" }
    guard let first = settlements.time.first, let last = settlements.time.last else { return "Funding: not booked (strategy.funding false)\n" }
    return "Funding: \(run.payments.count) settlements paid or received; the funding file has \(settlements.time.count) "
      + "from \(TimeText.iso8601(first)) to \(TimeText.iso8601(last))\n"
  }

  /// The trades, one row each (by mode).
  public var ledger: CSVTable {
    switch outcome {
    case .convergence(let run):
      let maker = scenario.maker != nil
      var table = CSVTable(
        "entry_ts_us,exit_ts_us,direction,rich,cheap" + (maker ? Self.makerTextColumns : "") + ",entry_premium,exit_premium,pnl,pnl_bps,fees"
          + (scenario.walksFills ? Self.executionColumns : "") + (maker ? Self.makerNumberColumns : ""))
      for trade in run.trades {
        table.add(
          ["\(trade.entryTime)", "\(trade.exitTime)", "\(trade.rich + 1)>\(trade.cheap + 1)", name(trade.rich), name(trade.cheap)]
            + (trade.maker.map(Self.makerTexts) ?? []),
          [trade.entryPremium, trade.exitPremium, trade.pnl, trade.pnl / scenario.strategy.notional * 10_000, trade.fees]
            + (trade.execution.map(Self.executionNumbers) ?? []) + (trade.maker.map { [$0.queueAhead, $0.price] } ?? []))
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
  public var equity: CSVTable {
    var table = CSVTable("ts_us,equity")
    var equity = 0.0
    for booking in journal.bookings {
      equity += booking.pnl
      table.add(["\(booking.time)"], [equity])
    }
    return table
  }

  /// Balances after each trade and each start and end of a rebalance, with the base and
  /// quote in transit (mode inventory; header only otherwise).
  public var inventory: CSVTable {
    var table = CSVTable("ts_us" + legs.indices.map { ",base_\($0 + 1),quote_\($0 + 1)" }.joined() + ",base_in_transit,quote_in_transit")
    guard case .inventory(let run) = outcome else { return table }
    for state in run.path {
      table.add(["\(state.time)"], state.base.indices.flatMap { [state.base[$0], state.quote[$0]] } + [state.baseInTransit, state.quoteInTransit])
    }
    return table
  }

  /// Funding settlements paid or received (mode carry; header only otherwise).
  public var funding: CSVTable {
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
  public func checkedFinite() throws(NonFiniteResult) -> JSONValue {
    let json = try json.checkedFinite()
    for (name, table) in [("trades", ledger), ("equity", equity), ("inventory", inventory), ("funding", funding)] {
      if let found = table.firstNonFinite() { throw found.inside(name) }
    }
    return json
  }

  private func name(_ k: Int) -> String { CSV.field(legs[k].instrument.description) }
}
