import ArbBacktest
import ArbCore
import ArbIngest

/// `backtest --lookahead-check` (`docs/cli.md`, `docs/definitions.md`): the backtest rerun
/// on its recording cut at evenly spaced times, each trade decided before a cut
/// compared with the same trade of the run on the cut recording. A backtest that uses
/// no data from its future reproduces every one of them.
public struct LookaheadCheck: Sendable {
  /// One field of a trade, valued as the ledger prints it.
  public struct Field: Sendable, Equatable {
    public var name: String
    public var value: JSONValue
  }

  /// A trade as the check compares it.
  public struct Record: Sendable, Equatable {
    /// The entry and exit signal times (equal for an immediate trade of mode inventory).
    public var entryTime: Int64
    public var exitTime: Int64
    /// Closed at the last valid point because the data ended (`end_of_data`).
    public var forced: Bool
    /// Every field, those of the entry side first.
    public var fields: [Field]
    public var entryFields: Int
  }

  /// A trade decided before a cut that the run on the cut recording does not reproduce.
  public struct Difference: Sendable {
    public enum Kind: String, Sendable {
      /// A field differs: any field of a trade closed before the cut, an entry field of one open at it.
      case differs
      /// The trade is not in the run on the cut recording.
      case missing
      /// The trade is only in the run on the cut recording.
      case extra
      /// Open at the cut in the full run, closed before it (not by the end of the data) in the other.
      case closedEarly = "closed_early"
    }
    public var cut: Int64
    /// The engine of both runs.
    public var engine: ScenarioRun.Engine = .pass
    /// The trade's number (from 1) in both runs.
    public var trade: Int
    public var kind: Kind
    /// The fields that differ (`differs`).
    public var fields: [String]
    public var full: Record?
    public var truncated: Record?
  }

  /// What one cut compared (with every engine).
  public struct Cut: Sendable {
    public var time: Int64
    /// Trades decided before the cut in either run, and those of them open at the cut (entry side compared).
    public var compared: Int
    public var open: Int
    public var differences: [Difference]
  }

  public let mode: String
  /// The engines checked: the pass, and for modes convergence and carry the first-passage search too.
  public let engines: [ScenarioRun.Engine]
  /// The largest fill latency of the legs: a signal at `t` is decided at `t + latency`.
  public let latency: Int64
  /// Trades of the run on the whole recording.
  public let trades: Int
  public let cuts: [Cut]

  public var differences: [Difference] { cuts.flatMap(\.differences) }

  public static let defaultCuts = 20

  /// `count` cut times evenly spaced strictly inside `span`: `first + ⌊k · (last − first) / (count + 1)⌋`, k = 1 … count.
  ///
  /// - Throws: `LookaheadCutsError` when the span holds fewer than `count + 1` µs (the cuts would not be distinct).
  static func cutTimes(_ count: Int, span: ClosedRange<Int64>) throws(LookaheadCutsError) -> [Int64] {
    let width = span.upperBound - span.lowerBound
    guard width > Int64(count) else { throw LookaheadCutsError(cuts: count, span: width) }
    let parts = Int64(count) + 1
    return (1...Int64(count)).map { k in span.lowerBound + parts.dividingFullWidth(width.multipliedFullWidth(by: k)).quotient }
  }

  /// The check of the backtest of `recording` at `count` cuts, with each engine.
  ///
  /// The cuts lie inside the span where every leg quotes (from the latest first quote of
  /// a leg to the last quote of any, on the corrected clock), so that every cut
  /// recording still has quotes on every leg. `backtest` runs the scenario with an
  /// engine on the whole recording or a cut one; the cuts run concurrently.
  public static func run(
    _ scenario: Scenario, cuts count: Int, recording: ScenarioRecording,
    backtest: @Sendable (ScenarioRecording, ScenarioRun.Engine) throws -> ScenarioRun
  ) throws -> LookaheadCheck {
    let engines: [ScenarioRun.Engine] = scenario.strategy.mode == .inventory ? [.pass] : ScenarioRun.Engine.allCases
    let full = try engines.map { engine in try backtest(recording, engine) }
    // The full backtest has aligned every leg (none is empty) and moved its times by the
    // venue's offset without overflow.
    let moved = recording.legs.map { leg in
      let offset = scenario.offsets[leg.instrument.venue] ?? 0
      return (leg.time.first! + offset)...(leg.time.last! + offset)
    }
    return try check(scenario, cuts: count, engines: engines, full: full, legTimes: moved, latency: scenario.latencyBound(of: recording.legs)) { cut in
      let data = recording.truncated(before: cut, scenario: scenario)
      return try engines.map { engine in try backtest(data, engine) }
    }
  }

  /// The check of the streamed backtest of `scenario` (one that `ScenarioRun.streams`)
  /// at `count` cuts: the run on its legs read with `options` as streams, `chunkPoints`
  /// valid points at a time, and the run on the legs cut at each time, with the engine
  /// the streamed run has (mode inventory: the pass; convergence and carry: the first
  /// passage), each in memory that does not grow with the history.
  public static func run(streaming scenario: Scenario, cuts count: Int, fees: [Double], options: IngestOptions, chunkPoints: Int) throws -> LookaheadCheck {
    let engine = try ScenarioEngine(scenario, fees: fees, registry: options.registry)
    let legOptions = ScenarioRun.streamedLegOptions(scenario, options)
    let streams = try ScenarioStreams(scenario, options: legOptions, chunkRows: chunkPoints)
    let backtest = { @Sendable (streams: ScenarioStreams, cut: Int64?) in
      try ScenarioRun.streamed(scenario, fees: fees, engine: engine, streams: streams, options: legOptions, chunkPoints: chunkPoints, fundingCut: cut)
    }
    let (full, sight) = try backtest(streams, nil)
    // The full run has aligned every leg: none is empty.
    let legTimes = sight.legTimes.map { $0! }
    let engines: [ScenarioRun.Engine] = scenario.strategy.mode == .inventory ? [.pass] : [.firstPassage]
    return try check(scenario, cuts: count, engines: engines, full: [full], legTimes: legTimes, latency: sight.latencyBound) { cut in
      [try backtest(streams.truncated(before: cut), cut).run]
    }
  }

  /// The check of `full`, the runs of `engines` on the whole recording, whose legs span
  /// `legTimes` (corrected clock) and whose fills come at most `latency` after their
  /// signal, against `cutRuns(cut)`, the runs of the same engines on the recording cut
  /// at `cut`, at `count` cuts run concurrently.
  private static func check(
    _ scenario: Scenario, cuts count: Int, engines: [ScenarioRun.Engine], full: [ScenarioRun], legTimes: [ClosedRange<Int64>], latency: Int64,
    cutRuns: @Sendable (Int64) throws -> [ScenarioRun]
  ) throws -> LookaheadCheck {
    let fullRecords = try full.map { records(try checked($0)) }
    let start = legTimes.map(\.lowerBound).max()!, end = legTimes.map(\.upperBound).max()!
    let times = try cutTimes(count, span: start...end)
    let cuts = try concurrently(times.count) { k in
      var cut = Cut(time: times[k], compared: 0, open: 0, differences: [])
      for (engine, (records, run)) in zip(engines, zip(fullRecords, try cutRuns(times[k]))) {
        var compared = compare(full: records, truncated: Self.records(try checked(run)), cut: times[k], latency: latency)
        for j in compared.differences.indices { compared.differences[j].engine = engine }
        cut.compared += compared.compared
        cut.open += compared.open
        cut.differences += compared.differences
      }
      return cut
    }
    return LookaheadCheck(mode: scenario.strategy.mode.rawValue, engines: engines, latency: latency, trades: fullRecords[0].count, cuts: cuts)
  }

  /// `report` after checking that it holds only finite numbers (the check prints its trades).
  private static func checked(_ report: ScenarioRun) throws -> ScenarioRun {
    _ = try report.checkedFinite()
    return report
  }

  /// The trades decided before `cut` (entry signal + `latency` < cut) in either run,
  /// compared in order: every field of a trade whose exit is also decided before the cut;
  /// the entry side of one still open at the cut, which the other run must not have
  /// closed before the cut either (a close at the end of its data is no difference).
  static func compare(full: [Record], truncated: [Record], cut: Int64, latency: Int64) -> Cut {
    let decided = { (record: Record) in record.entryTime + latency < cut }
    let before = full.filter(decided), cutRun = truncated.filter(decided)
    var result = Cut(time: cut, compared: max(before.count, cutRun.count), open: 0, differences: [])
    func found(_ k: Int, _ kind: Difference.Kind, _ fields: [String] = []) {
      result.differences.append(
        Difference(
          cut: cut, trade: k + 1, kind: kind, fields: fields, full: k < before.count ? before[k] : nil, truncated: k < cutRun.count ? cutRun[k] : nil))
    }
    for k in 0..<result.compared {
      guard k < before.count else { found(k, .extra); continue }
      guard k < cutRun.count else { found(k, .missing); continue }
      let (a, b) = (before[k], cutRun[k])
      let closed = a.exitTime + latency < cut
      if !closed { result.open += 1 }
      let compared = closed ? a.fields.count : a.entryFields
      let differing = zip(a.fields, b.fields).prefix(compared).filter { $0.0 != $0.1 }.map(\.0.name)
      if !differing.isEmpty {
        found(k, .differs, differing)
      } else if !closed && !b.forced && b.exitTime + latency < cut {
        found(k, .closedEarly)
      }
    }
    return result
  }

  /// The trades of a backtest as the check compares them, with the ledger's field names
  /// and the fill prices, quantities and exit reason the convergence ledger leaves out.
  static func records(_ report: ScenarioRun) -> [Record] {
    let name = { (k: Int) in JSONValue.string(report.legs[k].instrument.description) }
    let bps = { (pnl: Double) in JSONValue.number(pnl / report.scenario.strategy.notional * 10_000) }
    switch report.outcome {
    case .convergence(let run):
      return run.trades.map { t in
        let entry: [(String, JSONValue)] = [
          ("entry_ts_us", .int(t.entryTime)), ("direction", .string("\(t.rich + 1)>\(t.cheap + 1)")), ("rich", name(t.rich)), ("cheap", name(t.cheap)),
          ("entry_premium", .number(t.entryPremium)), ("rich_sell", .number(t.richSell)), ("cheap_buy", .number(t.cheapBuy)),
          ("rich_quantity", .number(t.richQuantity)), ("cheap_quantity", .number(t.cheapQuantity)),
        ]
        let exit: [(String, JSONValue)] = [
          ("exit_ts_us", .int(t.exitTime)), ("exit_premium", .number(t.exitPremium)), ("rich_buy", .number(t.richBuy)),
          ("cheap_sell", .number(t.cheapSell)), ("exit_reason", .string(t.exitReason.rawValue)), ("pnl", .number(t.pnl)), ("pnl_bps", bps(t.pnl)),
          ("fees", .number(t.fees)),
        ]
        return Record(t, entry: entry, exit: exit)
      }
    case .carry(let run, _):
      return run.trades.map { t in
        let entry: [(String, JSONValue)] = [
          ("entry_ts_us", .int(t.entryTime)), ("spot", name(t.cheap)), ("perp", name(t.rich)), ("entry_basis", .number(t.entryPremium)),
          ("spot_buy", .number(t.cheapBuy)), ("perp_sell", .number(t.richSell)), ("spot_quantity", .number(t.cheapQuantity)),
          ("perp_quantity", .number(t.richQuantity)),
        ]
        let exit: [(String, JSONValue)] = [
          ("exit_ts_us", .int(t.exitTime)), ("exit_basis", .number(t.exitPremium)), ("spot_sell", .number(t.cheapSell)),
          ("perp_buy", .number(t.richBuy)), ("exit_reason", .string(t.exitReason.rawValue)), ("funding", .number(t.funding)),
          ("fees", .number(t.fees)), ("pnl", .number(t.pnl)), ("pnl_bps", bps(t.pnl)),
        ]
        return Record(t, entry: entry, exit: exit)
      }
    case .inventory(let run):
      return run.trades.map { t in
        let fields: [(String, JSONValue)] = [
          ("ts_us", .int(t.time)), ("direction", .string("\(t.rich + 1)>\(t.cheap + 1)")), ("rich", name(t.rich)), ("cheap", name(t.cheap)),
          ("premium", .number(t.premium)), ("sell_price", .number(t.sellPrice)), ("buy_price", .number(t.buyPrice)),
          ("quantity", .number(t.quantity)), ("pnl", .number(t.pnl)), ("pnl_bps", bps(t.pnl)), ("fees", .number(t.fees)),
        ]
        // Immediate: decided, entered and closed at its signal.
        return Record(entryTime: t.time, exitTime: t.time, forced: false, fields: fields.map { Field(name: $0.0, value: $0.1) }, entryFields: fields.count)
      }
    }
  }

  /// The keys of `docs/cli.md`.
  public var json: JSONValue {
    func object(_ record: Record?) -> JSONValue { record.map { .object($0.fields.map { ($0.name, $0.value) }) } ?? .null }
    return .object([
      ("mode", .string(mode)), ("engines", .array(engines.map { .string($0.rawValue) })), ("cuts", .int(cuts.count)),
      ("latency_us", .int(latency)), ("trades", .int(trades)),
      ("trades_compared", .int(cuts.reduce(0) { $0 + $1.compared })), ("open_at_cut", .int(cuts.reduce(0) { $0 + $1.open })),
      ("differences", .int(differences.count)),
      (
        "by_cut",
        .array(
          cuts.map { cut in
            .object([
              ("cut", .string(TimeText.iso8601(cut.time))), ("cut_us", .int(cut.time)), ("trades_compared", .int(cut.compared)),
              ("open_at_cut", .int(cut.open)), ("differences", .int(cut.differences.count)),
            ])
          })
      ),
      (
        "mismatches",
        .array(
          differences.map { d in
            .object([
              ("cut", .string(TimeText.iso8601(d.cut))), ("cut_us", .int(d.cut)), ("engine", .string(d.engine.rawValue)), ("trade", .int(d.trade)),
              ("kind", .string(d.kind.rawValue)),
              ("fields", .array(d.fields.map { .string($0) })), ("full", object(d.full)), ("truncated", object(d.truncated)),
            ])
          })
      ),
    ])
  }
}

extension LookaheadCheck.Record {
  /// A round trip of mode convergence or carry with its entry-side and exit-side fields.
  fileprivate init(_ trade: Trade, entry: [(String, JSONValue)], exit: [(String, JSONValue)]) {
    self.init(
      entryTime: trade.entryTime, exitTime: trade.exitTime, forced: trade.exitReason == .endOfData,
      fields: (entry + exit).map { LookaheadCheck.Field(name: $0.0, value: $0.1) }, entryFields: entry.count)
  }
}

/// A lookahead check asked for more cuts than the legs' common span has microseconds:
/// the cuts would not be distinct (exit 64).
public struct LookaheadCutsError: Diagnostic, Equatable {
  public var cuts: Int
  /// µs the legs quote together.
  public var span: Int64

  public init(cuts: Int, span: Int64) {
    self.cuts = cuts
    self.span = span
  }

  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
  public var description: String { "\(cuts) cuts need data spanning more than \(cuts) µs, the legs quote together for \(span) µs" }
}
