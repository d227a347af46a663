import ArbCore
import ArbResearch

/// The summary of a backtest as `arbkit backtest` prints it.
extension ScenarioRun {
  /// `FX: upbit prices divided by fx:…:USDKRW …`, and the USDT assumption when made.
  static func fxLine(_ fx: ScenarioLegs.FXSummary) -> String {
    let limit = fx.maxStale.map { "at most \(TimeText.durationText($0)) old" } ?? "no age limit"
    var text = "FX: \(fx.converts) prices divided by \(fx.series.symbol), the rate in force (\(limit)); "
    text += "\(fx.unusable) of \(fx.quotes) quotes without a usable rate\n"
    if fx.usdtAsUSD { text += "Note: USDT is taken as 1 USD: the premium includes the USDT/USD deviation.\n" }
    return text
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
    text += "\(strategy.notionalScope), "
    text += "slippage \(JSONValue.format(s.slippageBps)) bps, latency \(s.latency)\n\n"
    var summary = TextTable(["", "value"], rightAligned: [1])
    for row in summaryRows { summary.add([row.name, row.value]) }
    text += summary.rendered(indent: "  ") + "\n"
    text += bookingNotes
    return text
  }
}
