import ArbBacktest
import ArbCore
import Foundation

/// A backtest scenario: legs, alignment, strategy and costs, read from JSON
/// (`Data/scenarios/`), with any field overridable by a dotted key (`--set`).
///
/// Every key is checked against `Scenario.keys`: an unknown key or a value of the
/// wrong type is an error naming the key, never ignored. Relative data paths resolve
/// against the scenario file's folder.
public struct Scenario: Sendable, Hashable {
  /// One leg: the instrument and its recorded files.
  public struct Leg: Sendable, Hashable {
    public var venue: String
    public var market: MarketKind
    public var symbol: String
    /// Absolute or relative to the working folder (already resolved against the scenario's folder).
    public var files: [String]
    /// A named format or a column spec path (resolved like `files` when it is a path).
    public var format: String?
    /// Column-spec assignments applied to `format` as `--spec-set` does (`time.shift=5m`
    /// stamps a 5-minute candle's close at its end).
    public var specSet: [String] = []
    /// Mode inventory: the starting base and quote balances on this venue.
    public var base: Double?
    public var quote: Double?
    /// Mode carry, an inverse perp: quote per contract (else the registry's).
    public var contractSize: Double?
    /// The leg's recorded trades (resolved like `files`) and their format, read with
    /// their sizes for a maker leg (`costs.maker_leg`).
    public var trades: [String] = []
    public var tradesFormat: String? = nil
  }

  /// An FX series that converts the prices of one venue's legs (`fx`).
  public struct FX: Sendable, Hashable {
    /// Its files (resolved like the legs') and their format.
    public var files: [String]
    public var format: String?
    /// Column-spec assignments applied to `format`, as a leg's `spec_set`.
    public var specSet: [String] = []
    /// The oldest rate still used (µs before a quote); `nil`: no limit.
    public var maxStale: Int64?
    /// The venue whose legs' prices are divided by the rate.
    public var converts: String
  }

  public var description: String?
  public var legs: [Leg]
  public var fx: FX? = nil
  public var clock: Clock = .local
  public var maxStale: Int64? = nil
  public var grid: Int64? = nil
  /// Clock correction per venue id (µs, signed), added to the times of that venue's legs before alignment.
  public var offsets: [String: Int64] = [:]
  /// The mode and its rules (`strategy.*`, `funding.*`, `rebalance.*`).
  public var strategy: Strategy
  /// Cap trades at the top-of-book sizes of the fill quotes.
  public var capAtBook = false
  /// How each leg's order fills (`costs.fill`), and what a book too thin for it does (`costs.partial`).
  public var fill = FillRule.top
  public var partial = PartialRule.fill
  /// The probability that a leg's entry order fails (`costs.leg_fail_rate`), drawn from `costs.seed`.
  public var legFailRate = 0.0
  public var seed: UInt64 = 0
  /// The leg whose entry order rests at its touch (`costs.maker_leg`), with its queue
  /// model (`costs.queue`) and timeout (`costs.maker_timeout`).
  public var maker: MakerRule? = nil
  /// Taker fee per venue id, overriding the registry.
  public var fees: [String: Double] = [:]
  /// Maker fee per venue id (`costs.maker_fees.VENUE`), overriding the registry.
  public var makerFees: [String: Double] = [:]
  public var slippageBps: Double = 0
  /// The latency of every leg's fills, fixed or a distribution (`costs.latency`).
  public var latency: Latency = 0
  /// Latency per venue id, overriding `latency` for that venue's leg.
  public var venueLatency: [String: Latency] = [:]
  /// `UTC` or `Asia/Seoul`: the days of the PnL journal and of the Sharpe ratio.
  public var timeZone: String = "UTC"

  /// The type each key takes. `legs.N.…` and `costs.fees.VENUE` are patterns.
  public enum ValueType: String, Sendable {
    case string, number, bool, duration, list
    case offset = "signed duration"
    case market, clock, mode, timeZone = "time zone"
    case fill = "fill rule", partial = "partial-fill rule", latency
    case queue = "queue model", leg = "leg index"
  }

  /// Every key a scenario may hold, with its type (`*` is a leg index or a venue id).
  public static let keys: [(key: String, type: ValueType)] = [
    ("description", .string),
    ("legs.*.venue", .string), ("legs.*.market", .market), ("legs.*.symbol", .string),
    ("legs.*.files", .list), ("legs.*.format", .string), ("legs.*.base", .number), ("legs.*.quote", .number),
    ("legs.*.contract_size", .number), ("legs.*.spec_set", .list), ("legs.*.trades", .list), ("legs.*.trades_format", .string),
    ("alignment.clock", .clock), ("alignment.max_stale", .duration), ("alignment.grid", .duration),
    ("alignment.offsets.*", .offset),
    ("strategy.mode", .mode), ("strategy.entry", .number), ("strategy.exit", .number),
    ("strategy.notional", .number), ("strategy.max_holding", .duration), ("strategy.cooldown", .duration),
    ("strategy.min_size", .number), ("strategy.funding", .bool),
    ("funding.files", .list), ("funding.format", .string), ("funding.spec_set", .list),
    ("fx.files", .list), ("fx.format", .string), ("fx.spec_set", .list), ("fx.max_stale", .duration), ("fx.converts", .string),
    ("costs.fees.*", .number), ("costs.slippage_bps", .number), ("costs.latency", .latency), ("costs.venue_latency.*", .latency),
    ("costs.cap_at_book", .bool), ("costs.fill", .fill), ("costs.partial", .partial),
    ("costs.leg_fail_rate", .number), ("costs.seed", .number),
    ("costs.maker_leg", .leg), ("costs.queue", .queue), ("costs.maker_timeout", .duration), ("costs.maker_fees.*", .number),
    ("rebalance.cost", .number), ("rebalance.delay", .latency), ("rebalance.asset_fees.*", .number),
    ("journal.tz", .timeZone),
  ]

  /// The largest amount (`notional`, balances, sizes, costs) a scenario may hold: far
  /// above any real one, and far enough below `Double.greatestFiniteMagnitude` that
  /// quantities, prices and sums of such amounts stay finite.
  public static let maximumAmount = 1e15

  /// The modes this version runs.
  public static let modes = Strategy.Mode.allCases.map(\.rawValue)
  public static let timeZones = ["UTC": Int64(0), "Asia/Seoul": Int64(9 * 3600) * 1_000_000]

  /// Whether fills are walked (`costs.fill` book or leg failures): the ledger shows the
  /// walks and the metrics the one-legged trades.
  public var walksFills: Bool { fill == .book || legFailRate > 0 }

  /// Each leg's latency: its venue's `costs.venue_latency`, else `costs.latency`.
  public var legLatency: [Latency] { legs.map { venueLatency[$0.venue] ?? latency } }

  /// Whether a leg's fills read its two recorded clocks (`recorded` latency).
  public var readsBothClocks: Bool { legLatency.contains(.recorded) }

  /// The journal zone's offset from UTC, µs.
  public var timeZoneOffset: Int64 { Self.timeZones[timeZone] ?? 0 }

  /// Reads a scenario file, applies `overrides` (`strategy.entry=0.12`), checks every
  /// key and value, and resolves relative paths against the file's folder.
  public static func load(path: String, overrides: [String] = []) throws(ScenarioError) -> Scenario {
    try load(path: path, document: try document(path: path), overrides: overrides)
  }

  /// The JSON object of a scenario file, unchecked: read once, it serves
  /// `load(path:document:overrides:)` for many sets of overrides (a sweep's cells).
  public static func document(path: String) throws(ScenarioError) -> [String: JSONTree] {
    guard let data = FileManager.default.contents(atPath: path) else { throw ScenarioError(path: path, message: "no such file") }
    let parsed: JSONTree
    do { parsed = try JSONDecoder().decode(JSONTree.self, from: data) } catch {
      throw ScenarioError(path: path, message: "not valid JSON: \(error.localizedDescription)")
    }
    guard let object = parsed.object else { throw ScenarioError(path: path, message: "expected a JSON object") }
    return object
  }

  /// `load(path:overrides:)` on the `document` already read from `path`.
  public static func load(path: String, document: [String: JSONTree], overrides: [String]) throws(ScenarioError) -> Scenario {
    var object = document
    for assignment in overrides {
      guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else {
        throw ScenarioError(path: nil, message: "'\(assignment)' is not KEY=VALUE")
      }
      let key = String(assignment[..<eq])
      let value = String(assignment[assignment.index(after: eq)...])
      guard let type = type(of: key) else { throw ScenarioError(path: nil, message: "unknown key '\(key)'", unknownKey: key) }
      set(&object, key.split(separator: ".").map(String.init)[...], try typed(value, type, key: key))
    }
    let folder = (path as NSString).deletingLastPathComponent
    return try Scenario(object: object, path: path, folder: folder)
  }

  /// The type of `key`, matching `*` patterns; `nil` for an unknown key.
  public static func type(of key: String) -> ValueType? {
    if let type = exactTypes[key] { return type }
    let parts = key.split(separator: ".", omittingEmptySubsequences: false)
    return patterns.first { pattern in
      pattern.parts.count == parts.count && zip(pattern.parts, parts).allSatisfy { $0 == "*" ? !$1.isEmpty : $0 == $1 }
    }?.type
  }

  /// The keys without `*` by name, and those with one split at the dots, once (a sweep
  /// checks every key of thousands of scenarios).
  private static let exactTypes = Dictionary(uniqueKeysWithValues: keys.filter { !$0.key.contains("*") }.map { ($0.key, $0.type) })
  private static let patterns = keys.filter { $0.key.contains("*") }.map { (parts: $0.key.split(separator: "."), type: $0.type) }

  /// An override's text as the JSON value its key's type takes.
  private static func typed(_ text: String, _ type: ValueType, key: String) throws(ScenarioError) -> JSONTree {
    switch type {
    case .duration where text == "none", .latency where text == "none", .leg where text == "none": return .null
    case .number, .leg:
      guard let value = Double(text), value.isFinite else { throw ScenarioError(path: nil, message: "\(key) expects a number, was '\(text)'") }
      return .number(value)
    case .list: return .array(text.split(separator: ",").map { .string(String($0)) })
    case .bool:
      guard text == "true" || text == "false" else { throw ScenarioError(path: nil, message: "\(key) expects true or false, was '\(text)'") }
      return .bool(text == "true")
    default: return .string(text)
    }
  }

  private static func set(_ object: inout [String: JSONTree], _ key: ArraySlice<String>, _ value: JSONTree) {
    guard let first = key.first else { return }
    if key.count == 1 {
      object[first] = value
    } else if let index = Int(key[key.index(after: key.startIndex)]), var array = object[first]?.array {
      // legs.N.field: into the N-th element of an array.
      guard index >= 0 && index < array.count, var element = array[index].object else { return }
      set(&element, key.dropFirst(2), value)
      array[index] = .object(element)
      object[first] = .array(array)
    } else {
      var inner = object[first]?.object ?? [:]
      set(&inner, key.dropFirst(), value)
      object[first] = .object(inner)
    }
  }

  private init(object: [String: JSONTree], path: String, folder: String) throws(ScenarioError) {
    // Every key present must be known, with a value of its type.
    var flat: [(String, JSONTree)] = []
    Self.flatten(object, prefix: "", into: &flat)
    for (key, value) in flat {
      guard let type = Self.type(of: key) else { throw ScenarioError(path: path, message: "unknown key '\(key)'", unknownKey: key) }
      try Self.check(value, type, key: key, path: path)
    }
    // Looked up by key (a sweep loads thousands of scenarios; a scan copied every pair).
    let values = Dictionary(flat, uniquingKeysWith: { first, _ in first })
    func value(_ key: String) -> JSONTree? { values[key].flatMap { $0 == .null ? nil : $0 } }
    func number(_ key: String) throws(ScenarioError) -> Double {
      guard let value = value(key)?.number else { throw ScenarioError(path: path, message: "missing '\(key)'") }
      return value
    }
    func duration(_ key: String) -> Int64? { value(key)?.string.flatMap(TimeText.parseDuration) }
    func resolve(_ file: String) -> String { file.hasPrefix("/") || folder.isEmpty ? file : folder + "/" + file }
    // A format that is a file (a column spec) is a path like the data files.
    func format(_ key: String) -> String? { value(key)?.string.map { $0.hasSuffix(".json") ? resolve($0) : $0 } }

    description = value("description")?.string
    let legCount = object["legs"]?.array?.count ?? 0
    var legs: [Leg] = []
    for k in 0..<legCount {
      guard let venue = value("legs.\(k).venue")?.string, let market = value("legs.\(k).market")?.string.flatMap(MarketKind.init(rawValue:)),
        let symbol = value("legs.\(k).symbol")?.string, let files = value("legs.\(k).files")?.strings, !files.isEmpty
      else { throw ScenarioError(path: path, message: "legs.\(k) needs venue, market, symbol and files") }
      legs.append(
        Leg(
          venue: venue, market: market, symbol: symbol, files: files.map(resolve), format: format("legs.\(k).format"),
          specSet: value("legs.\(k).spec_set")?.strings ?? [], base: value("legs.\(k).base")?.number, quote: value("legs.\(k).quote")?.number,
          contractSize: value("legs.\(k).contract_size")?.number, trades: value("legs.\(k).trades")?.strings?.map(resolve) ?? [],
          tradesFormat: format("legs.\(k).trades_format")))
    }
    self.legs = legs
    if object["fx"] != nil {
      guard let files = value("fx.files")?.strings, !files.isEmpty, let converts = value("fx.converts")?.string else {
        throw ScenarioError(path: path, message: "fx needs files and converts (the venue whose prices the rate converts)")
      }
      fx = FX(
        files: files.map(resolve), format: format("fx.format"), specSet: value("fx.spec_set")?.strings ?? [], maxStale: duration("fx.max_stale"),
        converts: converts)
    }
    clock = value("alignment.clock")?.string.flatMap(Clock.init(rawValue:)) ?? .local
    maxStale = duration("alignment.max_stale")
    grid = duration("alignment.grid")
    offsets = object["alignment"]?.object?["offsets"]?.object?.compactMapValues { $0.string.flatMap(ClockOffset.parse) } ?? [:]
    let mode = value("strategy.mode")?.string.flatMap(Strategy.Mode.init(rawValue:)) ?? .convergence
    let entry = try number("strategy.entry")
    let exit = mode != .inventory ? try number("strategy.exit") : (value("strategy.exit")?.number ?? entry)
    let threshold = ThresholdRules(
      entry: entry, exit: exit, notional: try number("strategy.notional"), maxHolding: duration("strategy.max_holding"),
      cooldown: duration("strategy.cooldown"))
    let funding = FundingFiles(
      files: value("funding.files")?.strings?.map(resolve) ?? [], format: format("funding.format"), specSet: value("funding.spec_set")?.strings ?? [])
    switch mode {
    case .convergence:
      strategy = .convergence(threshold)
    case .inventory:
      let delay = value("rebalance.delay")?.string.flatMap(Latency.init(parsing:)) ?? 0
      let rebalance = value("rebalance.cost")?.number.map { InventoryParameters.Rebalance(cost: $0, delay: delay) }
      let assetFees = object["rebalance"]?.object?["asset_fees"]?.object?.compactMapValues(\.number) ?? [:]
      strategy = .inventory(
        InventoryRules(
          entry: entry, notional: threshold.notional, minSize: value("strategy.min_size")?.number ?? 0, rebalance: rebalance, assetFees: assetFees))
    case .carry:
      strategy = .carry(CarryRules(threshold: threshold, booksFunding: value("strategy.funding")?.bool ?? true, funding: funding))
    }
    capAtBook = value("costs.cap_at_book")?.bool ?? false
    fill = value("costs.fill")?.string.flatMap(FillRule.init(rawValue:)) ?? .top
    partial = value("costs.partial")?.string.flatMap(PartialRule.init(rawValue:)) ?? .fill
    legFailRate = value("costs.leg_fail_rate")?.number ?? 0
    let seed = value("costs.seed")?.number ?? 0
    // Whole numbers up to 2^53 are exact in JSON and in a double.
    guard seed >= 0 && seed <= 0x1p53 && seed == seed.rounded() else {
      throw ScenarioError(path: path, message: "costs.seed must be a whole number from 0 to 2^53, was \(seed)")
    }
    self.seed = UInt64(seed)
    let queue = value("costs.queue")?.string.flatMap(QueueModel.init(parsing:)), makerTimeout = duration("costs.maker_timeout")
    // costs.queue and costs.maker_timeout rule the maker leg's order: without one they are read, not used.
    maker = value("costs.maker_leg")?.number.map { MakerRule(leg: Int($0), queue: queue ?? .riskAverse, timeout: makerTimeout) }
    fees = object["costs"]?.object?["fees"]?.object?.compactMapValues(\.number) ?? [:]
    makerFees = object["costs"]?.object?["maker_fees"]?.object?.compactMapValues(\.number) ?? [:]
    slippageBps = value("costs.slippage_bps")?.number ?? 0
    latency = value("costs.latency")?.string.flatMap(Latency.init(parsing:)) ?? 0
    venueLatency = object["costs"]?.object?["venue_latency"]?.object?.compactMapValues { $0.string.flatMap(Latency.init(parsing:)) } ?? [:]
    timeZone = value("journal.tz")?.string ?? "UTC"
    try validate(path: path, exit: exit, fundingFiles: funding.files)
  }

  /// The checks that need no data: counts, signs, files that exist. `exit` and
  /// `fundingFiles` are checked as read, in every mode, though only some modes keep them.
  private func validate(path: String, exit: Double, fundingFiles: [String]) throws(ScenarioError) {
    func fail(_ message: String) -> ScenarioError { ScenarioError(path: path, message: message) }
    let mode = strategy.mode
    if legs.count != 2 { throw fail("mode \(mode) trades exactly two legs, the scenario has \(legs.count)") }
    switch strategy {
    case .inventory(let rules):
      for (k, leg) in legs.enumerated() {
        guard let base = leg.base, let quote = leg.quote else { throw fail("mode inventory needs legs.\(k).base and legs.\(k).quote") }
        if base < 0 || quote < 0 { throw fail("legs.\(k): starting balances must be ≥ 0, were base \(base), quote \(quote)") }
        try checkAmount("legs.\(k).base", base, fail)
        try checkAmount("legs.\(k).quote", quote, fail)
      }
      if rules.minSize < 0 { throw fail("strategy.min_size must be ≥ 0, was \(rules.minSize)") }
      try checkAmount("strategy.min_size", rules.minSize, fail)
      if let cost = rules.rebalance?.cost, cost < 0 { throw fail("rebalance.cost must be ≥ 0, was \(cost)") }
      if let cost = rules.rebalance?.cost { try checkAmount("rebalance.cost", cost, fail) }
      if rules.rebalance?.delay == .recorded { throw fail("rebalance.delay is a duration or a distribution, was recorded") }
      for (asset, fee) in rules.assetFees.sorted(by: { $0.key < $1.key }) {
        if fee < 0 { throw fail("rebalance.asset_fees.\(asset) must be ≥ 0, was \(fee)") }
        try checkAmount("rebalance.asset_fees.\(asset)", fee, fail)
      }
    case .carry(let rules): try validateCarry(rules, fail)
    case .convergence: break
    }
    if mode != .carry && !fundingFiles.isEmpty { throw fail("funding.files is read by mode carry only (mode is \(mode))") }
    let (entry, notional) = (strategy.entry, strategy.notional)
    if exit > entry { throw fail("strategy.exit (\(exit)) is above strategy.entry (\(entry)): a position would close before it opens") }
    if notional <= 0 { throw fail("strategy.notional must be positive, was \(notional)") }
    try checkAmount("strategy.notional", notional, fail)
    // A slippage of 100 % or more would sell at a price ≤ 0.
    if slippageBps < 0 { throw fail("costs.slippage_bps must be ≥ 0, was \(slippageBps)") }
    if slippageBps >= 10_000 { throw fail("costs.slippage_bps must be below 10000 (100 % of the price), was \(slippageBps)") }
    if let grid, grid <= 0 { throw fail("alignment.grid must be positive") }
    if let fx { try validateFX(fx, fail) }
    if !(0...1).contains(legFailRate) { throw fail("costs.leg_fail_rate must be a probability from 0 to 1, was \(legFailRate)") }
    if legFailRate > 0 {
      if mode != .convergence { throw fail("costs.leg_fail_rate is defined for mode convergence only (mode is \(mode))") }
      if capAtBook { throw fail("costs.cap_at_book is not defined with costs.leg_fail_rate: set one of them") }
    }
    if fill == .book {
      if mode != .convergence { throw fail("costs.fill book is defined for mode convergence only (mode is \(mode))") }
      if capAtBook { throw fail("costs.cap_at_book caps at the top level, costs.fill book walks the book: set one of them") }
      if fx != nil { throw fail("costs.fill book walks book levels that fx does not convert: use costs.fill top with fx") }
    }
    if let maker { try validateMaker(maker, fail) }
    // A fee, latency or clock offset for a venue no leg trades on is a misspelt venue.
    let groups = [
      ("costs.fees", Array(fees.keys)), ("costs.maker_fees", Array(makerFees.keys)), ("costs.venue_latency", Array(venueLatency.keys)),
      ("alignment.offsets", Array(offsets.keys)),
    ]
    for (group, venues) in groups {
      for venue in venues.sorted() where !legs.contains(where: { $0.venue == venue }) {
        throw ScenarioError(path: path, message: "unknown key '\(group).\(venue)' (no leg trades on \(venue))", unknownKey: "\(group).\(venue)")
      }
    }
    for (venue, fee) in fees.sorted(by: { $0.key < $1.key }) {
      if let problem = FeeRule.problem(fee) { throw fail("costs.fees.\(venue) \(problem)") }
    }
    for (venue, fee) in makerFees.sorted(by: { $0.key < $1.key }) {
      if let problem = FeeRule.problem(fee, in: FeeRule.maker) { throw fail("costs.maker_fees.\(venue) \(problem)") }
    }
    for (k, leg) in legs.enumerated() {
      for file in leg.files + leg.trades + [leg.format, leg.tradesFormat].compactMap({ $0?.hasSuffix(".json") == true ? $0 : nil })
      where !FileManager.default.fileExists(atPath: file) {
        throw fail("legs.\(k): no such file \(file)")
      }
    }
  }

  /// `costs.maker_leg`: mode convergence at the top of book, without the rules it does not
  /// combine with, on a leg with recorded trades.
  private func validateMaker(_ maker: MakerRule, _ fail: (String) -> ScenarioError) throws(ScenarioError) {
    let mode = strategy.mode
    if mode != .convergence { throw fail("costs.maker_leg is defined for mode convergence only (mode is \(mode))") }
    if fill == .book { throw fail("costs.maker_leg rests its order at the top of book: use costs.fill top") }
    if capAtBook { throw fail("costs.cap_at_book is not defined with costs.maker_leg: set one of them") }
    if legFailRate > 0 { throw fail("costs.leg_fail_rate is not defined with costs.maker_leg: set one of them") }
    if fx != nil { throw fail("costs.maker_leg reads trades that fx does not convert: use no maker leg with fx") }
    if let timeout = maker.timeout, timeout <= 0 { throw fail("costs.maker_timeout must be positive, was \(TimeText.durationText(timeout))") }
    if legs[maker.leg].trades.isEmpty {
      throw fail("costs.maker_leg \(maker.leg) needs legs.\(maker.leg).trades: the leg's recorded trades, each with its price and size")
    }
  }

  /// `fx`: a venue of some legs but not all, and files that exist.
  private func validateFX(_ fx: FX, _ fail: (String) -> ScenarioError) throws(ScenarioError) {
    let venues = Set(legs.map(\.venue)).sorted().joined(separator: ", ")
    if !legs.contains(where: { $0.venue == fx.converts }) {
      throw fail("fx.converts names venue '\(fx.converts)', which has no leg (legs are on \(venues))")
    }
    if legs.allSatisfy({ $0.venue == fx.converts }) {
      throw fail("fx.converts: every leg is on \(fx.converts), so no leg is left in the currency the rate converts into")
    }
    for file in fx.files + [fx.format].compactMap({ $0?.hasSuffix(".json") == true ? $0 : nil })
    where !FileManager.default.fileExists(atPath: file) {
      throw fail("fx: no such file \(file)")
    }
  }

  /// Mode carry: a spot leg, then a linear or inverse perp, and its funding settlements.
  private func validateCarry(_ rules: CarryRules, _ fail: (String) -> ScenarioError) throws(ScenarioError) {
    if legs[0].market != .spot { throw fail("mode carry: legs.0 is the spot leg (market spot), was \(legs[0].market.rawValue)") }
    if legs[1].market != .linear && legs[1].market != .inverse {
      throw fail("mode carry: legs.1 is the perp leg (market linear or inverse), was \(legs[1].market.rawValue)")
    }
    for (k, leg) in legs.enumerated() {
      guard let size = leg.contractSize else { continue }
      if leg.market != .inverse { throw fail("legs.\(k).contract_size is for an inverse perp, the leg is \(leg.market.rawValue)") }
      if !(size > 0) { throw fail("legs.\(k).contract_size must be positive, was \(size)") }
      try checkAmount("legs.\(k).contract_size", size, fail)
    }
    let funding = rules.funding
    if rules.booksFunding && funding.files.isEmpty {
      throw fail("mode carry needs funding.files (the perp's funding-rate settlements), or strategy.funding false to run without funding")
    }
    for file in funding.files + [funding.format].compactMap({ $0?.hasSuffix(".json") == true ? $0 : nil })
    where !FileManager.default.fileExists(atPath: file) {
      throw fail("funding: no such file \(file)")
    }
    if capAtBook { throw fail("costs.cap_at_book is not defined for mode carry") }
  }

  /// An amount at most `maximumAmount`.
  private func checkAmount(_ key: String, _ value: Double, _ fail: (String) -> ScenarioError) throws(ScenarioError) {
    if value > Self.maximumAmount { throw fail("\(key) must be at most 1e15, was \(value)") }
  }

  private static func flatten(_ object: [String: JSONTree], prefix: String, into flat: inout [(String, JSONTree)]) {
    for (key, value) in object.sorted(by: { $0.key < $1.key }) {
      let name = prefix + key
      switch value {
      case .object(let inner):
        flatten(inner, prefix: name + ".", into: &flat)
      case .array(let array) where name == "legs":
        for (k, element) in array.enumerated() {
          guard let leg = element.object else {
            flat.append(("legs.\(k)", element))
            continue
          }
          flatten(leg, prefix: "legs.\(k).", into: &flat)
        }
      default:
        flat.append((name, value))
      }
    }
  }

  private static func check(_ value: JSONTree, _ type: ValueType, key: String, path: String) throws(ScenarioError) {
    let ok: Bool
    switch type {
    case .number:
      let number = value.number
      ok = number?.isFinite == true
      // A subnormal number (below 2.2e-308) loses precision and overflows when divided by.
      if ok, let number, number != 0 && !number.isNormal {
        throw ScenarioError(path: path, message: "\(key) is too close to 0 (a subnormal number), was \(number)")
      }
    case .string: ok = value.string != nil
    case .bool: ok = value.bool != nil
    case .list: ok = value.strings != nil
    case .duration: ok = value == .null || value.string == "none" || value.string.flatMap(TimeText.parseDuration).map { $0 >= 0 } ?? false
    case .offset: ok = value.string.flatMap(ClockOffset.parse) != nil
    case .market: ok = value.string.flatMap(MarketKind.init(rawValue:)) != nil
    case .clock: ok = value.string.flatMap(Clock.init(rawValue:)) != nil
    case .mode: ok = value.string.flatMap(Strategy.Mode.init(rawValue:)) != nil
    case .timeZone: ok = value.string.map { timeZones[$0] != nil } ?? false
    case .fill: ok = value.string.flatMap(FillRule.init(rawValue:)) != nil
    case .latency: ok = value == .null || value.string == "none" || value.string.flatMap(Latency.init(parsing:)) != nil
    case .partial: ok = value.string.flatMap(PartialRule.init(rawValue:)) != nil
    case .queue: ok = value.string.flatMap(QueueModel.init(parsing:)) != nil
    case .leg: ok = value == .null || value.string == "none" || value.number.map { $0 == 0 || $0 == 1 } ?? false
    }
    guard ok else { throw ScenarioError(path: path, message: "\(key) expects \(expected(type)), was \(describe(value))") }
  }

  private static func expected(_ type: ValueType) -> String {
    switch type {
    case .number: "a number"
    case .string: "a string"
    case .bool: "true or false"
    case .list: "a list of file paths"
    case .duration: "a duration such as 2m, 500ms or none"
    case .offset: "a signed duration such as +35ms or -1s"
    case .market: "one of " + MarketKind.allCases.map(\.rawValue).joined(separator: ", ")
    case .clock: "local or exchange"
    case .mode: "one of " + modes.joined(separator: ", ")
    case .timeZone: "UTC or Asia/Seoul"
    case .fill: "top or book"
    case .latency: "a duration such as 20ms or none, fixed:20ms, uniform:10ms:40ms, lognormal:MEDIAN:SIGMA (SIGMA from 0 to 3) or recorded"
    case .partial: "fill, hedge or unwind"
    case .queue: "risk_averse or probabilistic:POWER (POWER a number above 0)"
    case .leg: "a leg index, 0 or 1, or none"
    }
  }

  private static func describe(_ value: JSONTree) -> String {
    if let text = value.string { return "'\(text)'" }
    return value.description
  }
}

/// A scenario that cannot be run, found before any data is read.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
  /// The scenario file; `nil` for an override (`KEY=VALUE`) given beside it.
  public var path: String?
  public var message: String
  /// Set for an unknown key, so that the caller can suggest the closest known one.
  public var unknownKey: String? = nil
  public var description: String { "\(path ?? "override"): error: \(message)" }
}
