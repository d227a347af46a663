import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import Dispatch
import Synchronization

/// One computed cell of a sweep.
public struct SweepRow: Sendable {
  public var cell: Int
  public var metrics: BacktestMetrics
  /// The cell's column of the PnL matrix, when the sweep writes one.
  public var column: SweepPnLMatrix.Column?

  /// `column`'s value; `nil` when undefined, or not a finite number (an overflow on
  /// extreme prices or amounts: named by `overflowed`).
  public func value(_ column: BacktestMetrics.Column) -> Double? {
    switch metrics.value(column) {
    case .int(let value): Double(value)
    case .number(let value) where value.isFinite: value
    default: nil
    }
  }

  /// The metrics whose value is not a finite number.
  public var overflowed: [BacktestMetrics.Column] { BacktestMetrics.Column.sweepColumns.filter { metrics.value($0).firstNonFinite() != nil } }

  /// The metric fields of the cell's CSV row, joined: counts as integers, numbers in
  /// their shortest form, undefined and non-finite figures empty.
  public var csvFields: String {
    BacktestMetrics.Column.sweepColumns.map { column -> String in
      switch metrics.value(column) {
      case .int(let value): String(value)
      case .number(let value) where value.isFinite: NumberText.csv(value)
      default: ""
      }
    }.joined(separator: ",")
  }
}

/// The work of a sweep: legs loaded once per distinct set of files, alignment (and
/// the first-passage index) once per distinct clock and staleness, and one
/// convergence or carry simulation per distinct set of rules, found by first-passage
/// queries and priced for every cell that shares it.
public struct SweepPlan: Sendable {
  /// One cell: its scenario, each leg's taker fee and the engine that runs it.
  struct Cell: Sendable {
    var cell: Int
    var scenario: Scenario
    var fees: [Double]
    var engine: ScenarioEngine
  }

  /// Cells with equal keys share one simulation: the same prepared data, and engines
  /// that decide the same round trips (`decisionKey`: every parameter but the
  /// price-only ones). Inventory cells never share.
  public enum SimulationKey: Hashable, Sendable {
    case convergence(data: Int, rules: ConvergenceParameters)
    case carry(data: Int, rules: ConvergenceParameters)
    case inventory(cell: Int)
  }

  /// What the runs on streamed legs are: decisions on one direction rule (mode
  /// convergence's, `nil`, or carry's), or inventory runs.
  private enum StreamedFamily: Equatable {
    case decided(sellLeg: Int?)
    case inventory
  }

  /// A leg as read: its source and the clock that orders its rows.
  private struct LegKey: Hashable {
    var leg: Scenario.Leg
    var clock: Clock
    /// Read with its books (`costs.fill` book).
    var depth: Bool
  }

  struct Group: Sendable {
    var cells: [Cell]
    var data: Int
    /// The scenario mode of every cell of the group.
    var mode: Strategy.Mode
  }

  /// Legs and what is built on them once for every cell.
  struct Prepared: Sendable {
    /// The legs, whole; none when they stream (`streamed`).
    var legs: [QuoteSeries]
    /// The legs as the cells' results name them (streamed: known once read).
    var runLegs: [ScenarioRun.Leg] = []
    /// Mode convergence on streamed legs: the clock points and the valid ones (the
    /// decisions are taken while the plan is made, `SweepPlan.streamed`).
    var streamed: (points: Int, valid: Int)?
    /// The scenario's alignment (staleness, grid).
    var alignment: ArbAnalytics.AlignmentOptions
    /// The aligned legs, for mode inventory.
    var aligned: AlignedLegs?
    /// The first-passage index of mode convergence and of mode carry (perp sold): each
    /// aligns the legs itself, keeping only the valid points.
    var index: ConvergenceIndex?
    var carryIndex: ConvergenceIndex?
    /// Mode carry: the perp's funding settlements.
    var funding: FundingSettlements
    /// The maker leg's trades (`ScenarioLegs.preparedTrades`); empty without a maker leg.
    var trades: [QuoteSeries?] = []
  }

  let groups: [Group]
  let data: [Prepared]
  /// The decisions of the groups on streamed data, by group.
  let streamed: [Int: ConvergenceDecisions]
  /// The runs of the inventory cells on streamed data, by cell.
  let streamedInventory: [Int: InventoryRun]
  let cellOrder: [Int]
  /// The period of the PnL matrix (µs), when the sweep writes one.
  let period: Int64?

  /// The plan of `cells`, their legs read with `options`. When every cell on some legs
  /// is a run that streams (`ScenarioEngine.streams`) without walking its books, all of
  /// mode inventory or all on one direction rule (mode convergence's or carry's), and
  /// `stream`, those legs stream: their runs' decisions (inventory: the runs) are taken
  /// here, in one pass over the legs `chunkPoints` valid points (and quotes per leg) at
  /// a time, on `jobs` threads, `counted` told the quotes read as they are.
  public init(
    cells: [(cell: Int, scenario: Scenario)], options: IngestOptions, period: Int64? = nil, stream: Bool = false, chunkPoints: Int = 1 << 16,
    jobs: Int = 1, counted: (@Sendable (Int) -> Void)? = nil
  ) throws {
    self.period = period
    var dataIndexes: [Scenario: Int] = [:]
    var data: [Prepared] = []
    var loaded: [LegKey: QuoteSeries] = [:]
    var groupIndexes: [SimulationKey: Int] = [:]
    var groups: [Group] = []
    // Only cap_at_book and a maker leg read the book sizes, and recorded latency the other clock.
    let readsSizes = cells.contains { $0.scenario.capAtBook || $0.scenario.maker != nil || $0.scenario.readsBothClocks }
    let engines = try cells.map { try ScenarioEngine($0.scenario, fees: $0.scenario.takerFees(registry: options.registry), registry: options.registry) }
    // The legs whose every cell streams, all of mode inventory or on one direction rule (mode convergence's or carry's).
    var streamedKeys: [Scenario: StreamedFamily] = [:]
    if stream {
      var refused: Set<Scenario> = []
      for ((_, scenario), engine) in zip(cells, engines) {
        let key = scenario.preparationKey
        guard !refused.contains(key) else { continue }
        let family: StreamedFamily = engine.rules.map { .decided(sellLeg: $0.parameters.sellLeg) } ?? .inventory
        // A cell that walks its books would read the legs again to price its trades: those are read whole.
        if engine.streams, !scenario.walksFills, streamedKeys[key].map({ $0 == family }) ?? true {
          streamedKeys[key] = family
        } else {
          refused.insert(key)
          streamedKeys[key] = nil
        }
      }
    }
    var streams: [Int: ScenarioStreams] = [:]
    for ((cell, scenario), engine) in zip(cells, engines) {
      let dataKey = scenario.preparationKey
      var dataIndex = dataIndexes[dataKey]
      if dataIndex == nil, streamedKeys[dataKey] != nil {
        var legOptions = scenario.legOptions(options)
        legOptions.clock = scenario.clock
        let legs = try ScenarioStreams(scenario, options: legOptions, chunkRows: chunkPoints, counted: counted)
        streams[data.count] = legs
        // Mode carry's settlements, priced on a pass over the perp (none outside mode carry).
        let settlements = try ScenarioRun.settlements(scenario, streams: legs, options: legOptions)
        data.append(Prepared(legs: [], alignment: AlignmentOptions(maxStale: scenario.maxStale, grid: scenario.grid), funding: settlements))
        dataIndex = data.count - 1
        dataIndexes[dataKey] = dataIndex
      }
      if dataIndex == nil {
        var legOptions = scenario.legOptions(options)
        legOptions.clock = scenario.clock
        legOptions.storeColumns = readsSizes ? .all : .skippingSizesAndOtherClock
        // The legs not read yet (on this clock), side by side.
        let specs = try ScenarioLegs.specs(scenario)
        let legKeys = dataKey.legs.map { LegKey(leg: $0, clock: scenario.clock, depth: legOptions.keepDepth) }
        let missing = legKeys.indices.filter { k in loaded[legKeys[k]] == nil && legKeys.firstIndex(of: legKeys[k]) == k }
        for (k, leg) in zip(missing, try LoadedLegs.load(missing.map { specs[$0] }, options: legOptions)) { loaded[legKeys[k]] = leg.series }
        let loadedLegs = legKeys.map { loaded[$0]! }
        let legs = try ScenarioLegs.prepared(scenario, loaded: loadedLegs, options: legOptions).legs
        // None outside mode carry.
        let settlements = try ScenarioRun.settlements(scenario, perp: legs[1], options: legOptions)
        let trades = try ScenarioLegs.preparedTrades(scenario, trades: ScenarioLegs.trades(scenario, options: legOptions), legs: legs)
        data.append(
          Prepared(
            legs: legs, runLegs: legs.map(ScenarioRun.Leg.init), alignment: AlignmentOptions(maxStale: scenario.maxStale, grid: scenario.grid),
            funding: settlements, trades: trades))
        dataIndex = data.count - 1
        dataIndexes[dataKey] = dataIndex
      }
      let prepared = data[dataIndex!]
      // Cells sharing the legs may differ in latency, cooldown, holding or zone (streamed legs: checked once read).
      if streams[dataIndex!] == nil { try scenario.checkTimes(of: prepared.legs) }
      switch scenario.strategy.mode {
      case _ where streams[dataIndex!] != nil: break
      case .inventory where prepared.aligned == nil:
        data[dataIndex!].aligned = try AlignedLegs(legs: prepared.legs, options: prepared.alignment)
      case .carry where prepared.carryIndex == nil:
        data[dataIndex!].carryIndex = try ConvergenceIndex(legs: prepared.legs, options: prepared.alignment, sellLeg: 1)
      case .convergence where prepared.index == nil:
        data[dataIndex!].index = try ConvergenceIndex(legs: prepared.legs, options: prepared.alignment)
      default: break
      }
      let fees = try scenario.takerFees(registry: options.registry)
      let key: SimulationKey =
        switch engine {
        case .inventory: .inventory(cell: cell)
        case .carry(let carry): .carry(data: dataIndex!, rules: carry.decisionKey)
        case .convergence(let convergence): .convergence(data: dataIndex!, rules: convergence.parameters.decisionKey)
        }
      let run = Cell(cell: cell, scenario: scenario, fees: fees, engine: engine)
      if let g = groupIndexes[key] {
        groups[g].cells.append(run)
      } else {
        groupIndexes[key] = groups.count
        groups.append(Group(cells: [run], data: dataIndex!, mode: scenario.strategy.mode))
      }
    }
    var streamed: [Int: ConvergenceDecisions] = [:]
    var streamedInventory: [Int: InventoryRun] = [:]
    for (d, legs) in streams.sorted(by: { $0.key < $1.key }) {
      let decided = groups.indices.filter { groups[$0].data == d }
      let scenarios = decided.flatMap { groups[$0].cells.map(\.scenario) }
      if groups[decided[0]].mode == .inventory {
        // One cell per group (`SimulationKey.inventory`).
        let cells = decided.map { groups[$0].cells[0] }
        let engines = cells.map { cell in
          guard case .inventory(let engine) = cell.engine else { preconditionFailure("streamed legs of mode inventory run inventory cells") }
          return engine
        }
        let result = try legs.run(engines, checking: scenarios, alignment: data[d].alignment, chunkPoints: chunkPoints, jobs: jobs)
        for (cell, run) in zip(cells, result.runs) { streamedInventory[cell.cell] = run }
        data[d].streamed = (result.clockPoints, result.validPoints)
        data[d].runLegs = ScenarioRun.Leg.streamed(result, instruments: legs.instruments)
        continue
      }
      let result = try legs.decide(
        decided.map { groups[$0].cells[0].engine.rules! }, checking: scenarios, alignment: data[d].alignment, chunkPoints: chunkPoints, jobs: jobs)
      for (g, decisions) in zip(decided, result.runs) { streamed[g] = decisions }
      data[d].streamed = (result.clockPoints, result.validPoints)
      data[d].runLegs = ScenarioRun.Leg.streamed(result, instruments: legs.instruments)
    }
    self.groups = groups
    self.data = data
    self.streamed = streamed
    self.streamedInventory = streamedInventory
    cellOrder = cells.map(\.cell)
  }

  /// Computes every group on `jobs` threads and hands finished rows to `deliver` in
  /// cell order (on the calling thread).
  public func run(jobs: Int, deliver: ([SweepRow]) throws -> Void) throws {
    let batches = batched(jobs: jobs)
    let state = Mutex<(next: Int, finished: [Int: SweepRow], error: (any Error)?)>((0, [:], nil))
    let ready = DispatchSemaphore(value: 0)
    let workers = min(jobs, max(batches.count, 1))
    let queue = DispatchQueue(label: "arbkit.sweep", attributes: .concurrent)
    for _ in 0..<workers {
      queue.async {
        while true {
          let g: Int? = state.withLock { s in
            guard s.error == nil, s.next < batches.count else { return nil }
            s.next += 1
            return s.next - 1
          }
          guard let g else { break }
          do {
            let rows = try compute(batches[g])
            state.withLock { s in for row in rows { s.finished[row.cell] = row } }
          } catch {
            state.withLock { s in s.error = s.error ?? error }
          }
          ready.signal()
        }
      }
    }
    var delivered = 0
    var batchesDone = 0
    while batchesDone < batches.count {
      ready.wait()
      batchesDone += 1
      let (batch, failure) = state.withLock { s -> ([SweepRow], (any Error)?) in
        var batch: [SweepRow] = []
        while delivered + batch.count < cellOrder.count, let row = s.finished.removeValue(forKey: cellOrder[delivered + batch.count]) {
          batch.append(row)
        }
        return (batch, s.error)
      }
      if let failure {
        queue.sync(flags: .barrier) {}
        throw failure
      }
      delivered += batch.count
      if !batch.isEmpty { try deliver(batch) }
    }
  }

  /// The groups in batches that one worker decides together (`ConvergenceBacktest.decide`
  /// of several runs reads the data once per batch): consecutive groups on the same
  /// data and mode, at most 16, and a multiple of `jobs` batches of about equal size so
  /// that every worker stays busy.
  private func batched(jobs: Int) -> [[Int]] {
    let workers = max(jobs, 1)
    let count = workers * ((groups.count + 16 * workers - 1) / (16 * workers))
    let size = max(1, (groups.count + count - 1) / max(count, 1))
    var batches: [[Int]] = []
    for g in groups.indices {
      if let last = batches.last?.last, batches[batches.count - 1].count < size, groups[last].data == groups[g].data,
        groups[last].mode == groups[g].mode, groups[g].mode != .inventory
      {
        batches[batches.count - 1].append(g)
      } else {
        batches.append([g])
      }
    }
    return batches
  }

  /// The rows of a batch of groups: one simulation per group (convergence, carry; the
  /// batch's simulations side by side), priced per cell.
  private func compute(_ indexes: [Int]) throws -> [SweepRow] {
    let batch = indexes.map { groups[$0] }
    let prepared = data[batch[0].data]
    // The rules of each group's first cell: its other cells differ only in pricing.
    let rules = batch.compactMap { $0.cells[0].engine.rules }
    let decisions: [ConvergenceDecisions?]
    switch batch[0].mode {
    case _ where prepared.streamed != nil: decisions = indexes.map { streamed[$0] }
    case .inventory: decisions = batch.map { _ in nil }
    case .carry: decisions = ConvergenceBacktest.decide(rules, legs: prepared.legs, index: prepared.carryIndex!)
    case .convergence: decisions = ConvergenceBacktest.decide(rules, legs: prepared.legs, index: prepared.index!, trades: prepared.trades)
    }
    return zip(batch, decisions).flatMap { group, decisions in rows(group, decisions: decisions, prepared: prepared) }
  }

  /// The rows of one group's cells, each pricing the group's `decisions` (inventory:
  /// each cell run in full, or its streamed run).
  private func rows(_ group: Group, decisions: ConvergenceDecisions?, prepared: Prepared) -> [SweepRow] {
    let legs = prepared.legs
    return group.cells.map { cell in
      let outcome: ScenarioRun.Outcome
      let points: (count: Int, valid: Int)
      switch cell.engine {
      case .inventory(let engine):
        if let run = streamedInventory[cell.cell], let streamed = prepared.streamed {
          outcome = .inventory(run)
          points = (streamed.points, streamed.valid)
        } else {
          let aligned = prepared.aligned!
          outcome = .inventory(engine.run(legs: legs, aligned: aligned))
          points = (aligned.count, aligned.validPoints)
        }
      case .carry(let engine):
        outcome = .carry(engine.price(decisions!, funding: prepared.funding), prepared.funding)
        points = prepared.streamed ?? (prepared.carryIndex!.clockPoints, prepared.carryIndex!.validPoints)
      case .convergence(let engine):
        outcome = .convergence(engine.price(decisions!, legs: legs))
        points = prepared.streamed ?? (prepared.index!.clockPoints, prepared.index!.validPoints)
      }
      let report = ScenarioRun(
        scenario: cell.scenario, legs: prepared.runLegs, fees: cell.fees, points: points.count, validPoints: points.valid, outcome: outcome)
      let journal = report.journal
      let column = period.map { SweepPnLMatrix.Column(cell: cell.cell, journal: journal, length: $0, offset: cell.scenario.timeZoneOffset) }
      return SweepRow(cell: cell.cell, metrics: BacktestMetrics(report, journal: journal), column: column)
    }
  }
}

extension Scenario {
  /// What the prepared legs of a sweep depend on: the legs' sources (their balances and
  /// contract size cleared), clock, alignment, offsets, FX, mode carry's funding files
  /// when it books funding, and the maker leg (its trades are read), with every other
  /// field reset. Cells with equal keys
  /// share their legs, their alignment and their first-passage indexes; a new field is
  /// part of the key unless it is reset here.
  public var preparationKey: Scenario {
    var key = self
    key.description = nil
    for k in key.legs.indices {
      key.legs[k].base = nil
      key.legs[k].quote = nil
      key.legs[k].contractSize = nil
    }
    let none = ThresholdRules(entry: 0, exit: 0, notional: 0)
    if case .carry(let rules) = strategy, rules.booksFunding {
      key.strategy = .carry(CarryRules(threshold: none, booksFunding: true, funding: rules.funding))
    } else {
      key.strategy = .convergence(none)
    }
    (key.capAtBook, key.fees, key.makerFees, key.slippageBps, key.timeZone) = (false, [:], [:], 0, "UTC")
    // A maker leg reads its trades: its cells prepare their legs apart, whatever its queue rule.
    key.maker = maker.map { MakerRule(leg: $0.leg, queue: .riskAverse) }
    // A recorded latency reads the legs' two clocks: its cells prepare (and check) their legs apart.
    (key.latency, key.venueLatency) = (latency == .recorded ? .recorded : 0, venueLatency.filter { $0.value == .recorded })
    // The fill rule stays: `book` reads the legs with their books.
    (key.partial, key.legFailRate, key.seed) = (.fill, 0, 0)
    return key
  }
}
