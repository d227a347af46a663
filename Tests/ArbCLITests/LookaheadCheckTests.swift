import ArbBacktest
import ArbCore
import ArbIngest
@testable import ArbResearch
import Foundation
import TestSupport
import Testing

@testable import ArbCLI

// `arbkit backtest --lookahead-check`: the shipped scenarios pass; backtests that use
// future data (a sizing rule on the whole recording's mean, an input that peeks one
// quote ahead) are caught by the same checking function; the comparison rules (every
// field of a closed trade, the entry side of one open at the cut, a forced exit at the
// end of the cut data) hold; bad flag values are exit 64.

@Suite("arbkit backtest --lookahead-check")
struct LookaheadCheckTests {
  static let convergence = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let shipped = [
    convergence, Repository.data("scenarios/binanceus-kraken-inventory.json"),
    Repository.data("scenarios/bybit-btcusdt-carry.json"), Repository.data("scenarios/upbit-binance-kimchi.json"),
  ]

  @Test("every shipped scenario passes: 20 cuts, trades compared, no difference, exit 0", arguments: shipped)
  func shippedScenarioPasses(_ path: String) throws {
    let run = arbkit("backtest", path, "--lookahead-check", "--format", "json")
    #expect(run.code == .success, "\(run.errors)\(run.output)")
    let object = run.object
    #expect(object["cuts"] as? Int == 20 && object["differences"] as? Int == 0)
    #expect((object["trades_compared"] as? Int ?? 0) > 0)
    let cuts = try #require(object["by_cut"] as? [[String: Any]])
    #expect(cuts.count == 20 && (object["mismatches"] as? [Any])?.isEmpty == true)
    let times = cuts.compactMap { $0["cut_us"] as? Int }
    #expect(times.count == 20 && zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    #expect(cuts.reduce(0) { $0 + ($1["trades_compared"] as! Int) } == object["trades_compared"] as? Int)
    // A streamed backtest is checked with its own engine; one on legs read whole with both.
    let (scenario, fees, _) = try Self.setUp(path)
    let streams = try ScenarioRun.streams(scenario, fees: fees, registry: ExchangeRegistry.builtin)
    let engines = object["mode"] as? String == "inventory" ? ["pass"] : streams ? ["first_passage"] : ["pass", "first_passage"]
    #expect(object["engines"] as? [String] == engines)
    #expect(streams, "every shipped scenario streams, the kimchi one converted by its FX series as it is read")
    let table = arbkit("backtest", path, "--lookahead-check", "--cuts", "3")
    #expect(table.code == .success && table.output.contains(": 3 cuts, ") && table.output.contains(", 0 differences\n"), "\(table.output)")
  }

  @Test("the shipped scenarios with trades open at a cut compare their entry side")
  func openAtCutOnShippedData() {
    for path in Self.shipped.suffix(2) {
      let run = arbkit("backtest", path, "--lookahead-check", "--format", "json")
      #expect((run.object["open_at_cut"] as? Int ?? 0) > 0, "\(path)")
    }
  }

  /// The scenario at `path` with `overrides`, its fees, its recording and its backtest.
  static func setUp(_ path: String, _ overrides: [String] = []) throws -> (Scenario, [Double], ScenarioRecording) {
    let scenario = try Scenario.load(path: path, overrides: overrides)
    var options = IngestOptions()
    options.clock = scenario.clock
    let fees = try scenario.takerFees(registry: options.registry)
    return (scenario, fees, try ScenarioRecording.load(scenario, options: options))
  }

  @Test("a sizing rule on the whole recording's mean price is caught: quantities and PnL differ at every cut with trades")
  func wholeSampleStatisticIsCaught() throws {
    let (scenario, fees, recording) = try Self.setUp(Self.convergence)
    // Lookahead: the notional is one coin at the mean price of the data given, future included.
    // Only the first-passage engine (sweep's) leaks: the pass stays honest.
    let leaking: @Sendable (ScenarioRecording, ScenarioRun.Engine) throws -> ScenarioRun = { data, engine in
      var sized = scenario
      if engine == .firstPassage { sized.strategy.notional = data.legs[0].bid.reduce(0, +) / Double(data.legs[0].count) }
      return try ScenarioRun(sized, fees: fees, recording: data, registry: ExchangeRegistry.builtin, engine: engine)
    }
    let check = try LookaheadCheck.run(scenario, cuts: 20, recording: recording, backtest: leaking)
    #expect(check.engines == [.pass, .firstPassage] && check.differences.allSatisfy { $0.engine == .firstPassage })
    let cutsWithTrades = check.cuts.filter { $0.compared > 0 }
    #expect(!cutsWithTrades.isEmpty && cutsWithTrades.allSatisfy { !$0.differences.isEmpty })
    let first = try #require(check.differences.first)
    #expect(first.kind == .differs && first.fields.contains("rich_quantity") && first.fields.contains("pnl"))
    #expect(!first.fields.contains("entry_ts_us") && !first.fields.contains("entry_premium"))
    #expect(check.table.contains("differs in ") && check.table.contains("  full run:      entry_ts_us="))
    // The honest backtest of the same scenario passes.
    let honest: @Sendable (ScenarioRecording, ScenarioRun.Engine) throws -> ScenarioRun = { data, engine in
      try ScenarioRun(scenario, fees: fees, recording: data, registry: ExchangeRegistry.builtin, engine: engine)
    }
    #expect(try LookaheadCheck.run(scenario, cuts: 20, recording: recording, backtest: honest).differences.isEmpty)
  }

  /// The streamed check's cut runs read exactly the cut recording: at every cut, the
  /// streamed run on streams ending at the cut (a few hundred points a chunk, so that
  /// chunk boundaries fall everywhere) has the trades of the run on the recording cut in
  /// memory, with the same engine; and the streamed check finds the cuts, latency and
  /// trades the in-memory check finds, with no difference.
  @Test(
    "a streamed check's cut runs equal the runs on the recording cut in memory, for every mode, with a clock offset",
    arguments: [
      (convergence, ["alignment.offsets.kraken=+90s"]), (shipped[1], []), (shipped[2], ["alignment.offsets.bybit=-30s"]),
      (ScenarioFXTests.kimchi, ["alignment.offsets.upbit=+40s"]),
    ])
  func streamedCutsEqualCutsInMemory(_ path: String, _ overrides: [String]) throws {
    let (scenario, fees, recording) = try Self.setUp(path, overrides)
    let registry = ExchangeRegistry.builtin
    #expect(try ScenarioRun.streams(scenario, fees: fees, registry: registry))
    let engine: ScenarioRun.Engine = scenario.strategy.mode == .inventory ? .pass : .firstPassage
    var options = IngestOptions()
    options.clock = scenario.clock
    let chunkPoints = 300
    let streamed = try LookaheadCheck.run(streaming: scenario, cuts: 20, fees: fees, options: options, chunkPoints: chunkPoints)
    let inMemory = try LookaheadCheck.run(scenario, cuts: 20, recording: recording) { data, engine in
      try ScenarioRun(scenario, fees: fees, recording: data, registry: registry, engine: engine)
    }
    #expect(streamed.engines == [engine] && streamed.differences.isEmpty && inMemory.differences.isEmpty)
    #expect(streamed.cuts.map(\.time) == inMemory.cuts.map(\.time))
    #expect(streamed.latency == inMemory.latency && streamed.trades == inMemory.trades && streamed.trades > 0)
    let legOptions = ScenarioRun.streamedLegOptions(scenario, options)
    let streams = try ScenarioStreams(scenario, options: legOptions, chunkRows: chunkPoints)
    let scenarioEngine = try ScenarioEngine(scenario, fees: fees, registry: registry)
    var tradesCompared = 0
    for cut in streamed.cuts.map(\.time) {
      let onStreams = try ScenarioRun.streamed(
        scenario, fees: fees, engine: scenarioEngine, streams: streams.truncated(before: cut), options: legOptions, chunkPoints: chunkPoints,
        fundingCut: cut
      ).run
      let cutInMemory = try ScenarioRun(
        scenario, fees: fees, recording: recording.truncated(before: cut, scenario: scenario), registry: registry, engine: engine)
      let (a, b) = (LookaheadCheck.records(onStreams), LookaheadCheck.records(cutInMemory))
      #expect(a == b, "cut \(cut): \(a.count) trades on streams, \(b.count) in memory")
      #expect(onStreams.points == cutInMemory.points && onStreams.validPoints == cutInMemory.validPoints)
      #expect(onStreams.legs.map(\.count) == cutInMemory.legs.map(\.count))
      #expect(onStreams.fx?.quotes == cutInMemory.fx?.quotes && onStreams.fx?.unusable == cutInMemory.fx?.unusable)
      tradesCompared += a.count
    }
    #expect(tradesCompared > 0)
  }

  /// Two spot legs quoting every minute for 100 minutes at 100, the first leg at
  /// `spikePrice` over `spike` (row numbers): an executable premium of 2 % there.
  static func synthetic(spike: Range<Int>, spikePrice: Double = 102) -> ScenarioRecording {
    let minute: Int64 = 60_000_000
    let time = (0..<100).map { Int64($0) * minute + 1_700_000_000_000_000 }
    func leg(_ venue: String, _ price: (Int) -> Double) -> QuoteSeries {
      let prices = (0..<100).map(price)
      return QuoteSeries(
        instrument: Instrument(venue: venue, market: .spot, symbol: "BTCUSDC"), priceSource: .last, time: time, bid: prices, ask: prices,
        bidSize: [], askSize: [])
    }
    return ScenarioRecording(legs: [leg("binanceus") { spike.contains($0) ? spikePrice : 100 }, leg("kraken") { _ in 100 }])
  }

  /// The shipped convergence scenario's rules with fills at the signal and no holding limit.
  static let immediate = ["costs.latency=0s", "strategy.max_holding=1000d"]

  @Test("an input that peeks one quote ahead is caught at the cut: the trade decided before it is missing from the cut run")
  func peekOneAheadIsCaught() throws {
    let (scenario, fees, _) = try Self.setUp(Self.convergence, Self.immediate)
    // One cut, at 49.5 min; the premium spikes from row 50 (minute 50), after the cut.
    let recording = Self.synthetic(spike: 50..<60)
    // Lookahead: each quote replaced by the next one (the last, which has none, dropped).
    let peeking: @Sendable (ScenarioRecording, ScenarioRun.Engine) throws -> ScenarioRun = { data, engine in
      var ahead = data
      ahead.legs = data.legs.map { leg in
        var next = leg
        next.time = Array(leg.time.dropLast())
        next.bid = Array(leg.bid.dropFirst())
        next.ask = Array(leg.ask.dropFirst())
        return next
      }
      return try ScenarioRun(scenario, fees: fees, recording: ahead, registry: ExchangeRegistry.builtin, engine: engine)
    }
    let check = try LookaheadCheck.run(scenario, cuts: 1, recording: recording, backtest: peeking)
    // Caught with both engines.
    #expect(check.differences.map(\.engine) == [.pass, .firstPassage])
    let difference = try #require(check.differences.first)
    #expect(difference.kind == .missing && difference.trade == 1)
    #expect(difference.cut == recording.legs[0].time[0] + 99 * 60_000_000 / 2)
    // The full run entered at minute 49 on minute 50's spike.
    #expect(difference.full?.entryTime == recording.legs[0].time[49] && difference.truncated == nil)
    #expect(check.table.contains("trade 1 is missing from the run on the cut data") && check.table.contains("  truncated run: -"))
    let json = check.json.rendered()
    #expect(json.contains("\"kind\": \"missing\"") && json.contains("\"differences\": 2"), "\(json)")
  }

  @Test("a trade open at the cut and forced out at the end of the cut data is no difference; closed before a later cut, all fields agree")
  func openTradeForcedOutIsNoDifference() throws {
    let (scenario, fees, _) = try Self.setUp(Self.convergence, Self.immediate)
    // Cuts at 24.75, 49.5 and 74.25 min; the trade opens at minute 45 and closes at 60.
    let recording = Self.synthetic(spike: 45..<60)
    let honest: @Sendable (ScenarioRecording, ScenarioRun.Engine) throws -> ScenarioRun = { data, engine in
      try ScenarioRun(scenario, fees: fees, recording: data, registry: ExchangeRegistry.builtin, engine: engine)
    }
    #expect(LookaheadCheck.records(try honest(recording, .pass)).count == 1)
    let check = try LookaheadCheck.run(scenario, cuts: 3, recording: recording, backtest: honest)
    #expect(check.differences.isEmpty)
    // Counted once per engine.
    #expect(check.cuts.map(\.compared) == [0, 2, 2] && check.cuts.map(\.open) == [0, 2, 0])
    // At the middle cut both engines' cut runs forced the trade out at its last valid point.
    let cut = recording.truncated(before: check.cuts[1].time, scenario: scenario)
    for engine in ScenarioRun.Engine.allCases {
      let truncated = LookaheadCheck.records(try honest(cut, engine))
      #expect(truncated.count == 1 && truncated[0].forced && truncated[0].exitTime == recording.legs[0].time[49])
    }
  }

  /// A record with entry fields `entry` and exit fields `exit` (numbers).
  static func record(_ entryTime: Int64, _ exitTime: Int64, entry: Double = 1, exit: Double = 2, forced: Bool = false) -> LookaheadCheck.Record {
    LookaheadCheck.Record(
      entryTime: entryTime, exitTime: exitTime, forced: forced,
      fields: [
        .init(name: "entry_ts_us", value: .int(entryTime)), .init(name: "entry_premium", value: .number(entry)),
        .init(name: "exit_ts_us", value: .int(exitTime)), .init(name: "pnl", value: .number(exit)),
      ], entryFields: 2)
  }

  @Test("the comparison: all fields when closed before the cut, the entry side when open, decided means signal + latency < cut")
  func comparisonRules() {
    let compare = { (full: [LookaheadCheck.Record], cut: [LookaheadCheck.Record]) in
      LookaheadCheck.compare(full: full, truncated: cut, cut: 100, latency: 10)
    }
    // Closed before the cut (80 + 10 < 100): a different exit field is a difference.
    #expect(compare([Self.record(10, 80)], [Self.record(10, 80)]).differences.isEmpty)
    let exit = compare([Self.record(10, 80)], [Self.record(10, 80, exit: 3)])
    #expect(exit.differences.map(\.fields) == [["pnl"]] && exit.open == 0 && exit.compared == 1)
    // Decided at 80 + 10 = 90 < 100 but its exit at 90 + 10 = 100 is not before the cut: open, entry side only.
    let forced = compare([Self.record(80, 95)], [Self.record(80, 89, exit: 7, forced: true)])
    #expect(forced.differences.isEmpty && forced.open == 1)
    let later = compare([Self.record(80, 95)], [Self.record(80, 92, exit: 7)])
    #expect(later.differences.isEmpty, "closed at or after the cut in both runs")
    #expect(compare([Self.record(80, 95)], [Self.record(80, 95, entry: 5)]).differences.map(\.fields) == [["entry_premium"]])
    #expect(compare([Self.record(80, 95)], [Self.record(80, 85, exit: 7)]).differences.map(\.kind) == [.closedEarly])
    // A trade decided exactly at the cut (90 + 10) is not compared; one only in the cut run is.
    #expect(compare([Self.record(90, 95)], []).compared == 0)
    #expect(compare([], [Self.record(20, 30)]).differences.map(\.kind) == [.extra])
    #expect(compare([Self.record(20, 30)], []).differences.map(\.kind) == [.missing])
  }

  @Test("cut times are evenly spaced strictly inside the span; a span too short for the cuts is refused")
  func cutTimes() throws {
    #expect(try LookaheadCheck.cutTimes(3, span: 0...100) == [25, 50, 75])
    #expect(try LookaheadCheck.cutTimes(2, span: 10...13) == [11, 12])
    // k × width is taken at full width: no overflow on the widest span.
    #expect(try LookaheadCheck.cutTimes(3, span: 0...Int64.max) == [Int64.max / 4, Int64.max / 2, Int64.max / 4 * 3 + 2])
    #expect(throws: LookaheadCutsError(cuts: 3, span: 3)) { try LookaheadCheck.cutTimes(3, span: 0...3) }
  }

  @Test(
    "bad flag values are exit 64",
    arguments: [
      (["--lookahead-check", "--cuts", "0"], "invalid value for '--cuts', expected a whole number of cuts, at least 1, was '0'"),
      (["--lookahead-check", "--cuts", "-3"], "was '-3'"), (["--lookahead-check", "--cuts", "1.5"], "was '1.5'"),
      (["--lookahead-check", "--cuts", "many"], "was 'many'"), (["--lookahead-check", "--cuts", ""], "was ''"),
      (["--cuts", "5"], "--cuts is a setting of --lookahead-check, was --cuts 5 without it"),
      (["--lookahead-check", "--trades", "t.csv"], "--lookahead-check writes no ledger, was --trades t.csv"),
      (["--lookahead-check", "--cuts", "100000000"], "--cuts 100000000 needs data spanning more than 100000000 µs"),
    ])
  func badFlags(_ extra: [String], _ message: String) {
    expectUsageError(["backtest", Repository.data("scenarios/bybit-btcusdt-carry.json")] + extra, message)
  }
}

@Suite("ScenarioRecording.truncated")
struct ScenarioRecordingTruncationTests {
  /// A series of `count` rows at `start`, `start + 1000`, … µs.
  static func series(_ venue: String, from start: Int64, count: Int, field: SeriesField = .price) -> QuoteSeries {
    QuoteSeries(
      instrument: Instrument(venue: venue, market: .spot, symbol: "BTCUSDC"), priceSource: .last, field: field,
      time: (0..<Int64(count)).map { start + $0 * 1000 }, bid: Array(repeating: 1, count: count), ask: Array(repeating: 1, count: count),
      bidSize: Array(repeating: 2, count: count), askSize: Array(repeating: 2, count: count))
  }

  @Test("every leg's, the FX series' and the funding records' rows at or after the cut go, each leg on its venue's corrected clock")
  func truncation() throws {
    // binanceus runs 2 ms fast: its row at 9000 is at 11000 on the corrected clock.
    let scenario = try Scenario.load(path: LookaheadCheckTests.convergence, overrides: ["alignment.offsets.binanceus=+2ms"])
    let recording = ScenarioRecording(
      legs: [Self.series("binanceus", from: 0, count: 10), Self.series("kraken", from: 0, count: 10)],
      rate: Self.series("fx", from: 500, count: 10), funding: Self.series("kraken", from: 0, count: 10, field: .fundingRate))
    let cut = recording.truncated(before: 5000, scenario: scenario)
    #expect(cut.legs[0].time == [0, 1000, 2000] && cut.legs[1].time == [0, 1000, 2000, 3000, 4000])
    #expect(cut.legs.allSatisfy { $0.bid.count == $0.count && $0.ask.count == $0.count && $0.bidSize.count == $0.count && $0.askSize.count == $0.count })
    #expect(cut.rate?.time == [500, 1500, 2500, 3500, 4500])
    // The funding records are the perp venue's (legs.1, kraken: no offset).
    #expect(cut.funding?.time == [0, 1000, 2000, 3000, 4000])
    #expect(recording.truncated(before: 0, scenario: scenario).legs.allSatisfy { $0.count == 0 })
    #expect(recording.truncated(before: 20_000, scenario: scenario).legs.map(\.count) == [10, 10])
  }
}
