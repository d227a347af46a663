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
  public var mode: String = "convergence"
  public var entry: Double
  /// Mode convergence only.
  public var exit: Double
  public var notional: Double
  /// Mode inventory: the smallest base quantity worth trading.
  public var minSize: Double = 0
  /// Cap trades at the top-of-book sizes of the fill quotes.
  public var capAtBook = false
  /// Mode inventory: rebalancing transfer cost (quote) and delay; `nil`: never.
  public var rebalanceCost: Double? = nil
  public var rebalanceDelay: Int64 = 0
  public var maxHolding: Int64? = nil
  public var cooldown: Int64? = nil
  /// Taker fee per venue id, overriding the registry.
  public var fees: [String: Double] = [:]
  public var slippageBps: Double = 0
  public var latency: Int64 = 0
  /// Latency per venue id, overriding `latency` for that venue's leg.
  public var venueLatency: [String: Int64] = [:]
  /// `UTC` or `Asia/Seoul`: the days of the PnL journal and of the Sharpe ratio.
  public var timeZone: String = "UTC"
  /// Mode carry: book the perp's funding (`strategy.funding`); its settlement files and format.
  public var funding = true
  public var fundingFiles: [String] = []
  public var fundingFormat: String? = nil
  /// Column-spec assignments applied to `fundingFormat`, as a leg's `spec_set`.
  public var fundingSpecSet: [String] = []

  /// The type each key takes. `legs.N.…` and `costs.fees.VENUE` are patterns.
  public enum ValueType: String, Sendable {
    case string, number, bool, duration, list
    case offset = "signed duration"
    case market, clock, mode, timeZone = "time zone"
  }

  /// Every key a scenario may hold, with its type (`*` is a leg index or a venue id).
  public static let keys: [(key: String, type: ValueType)] = [
    ("description", .string),
    ("legs.*.venue", .string), ("legs.*.market", .market), ("legs.*.symbol", .string),
    ("legs.*.files", .list), ("legs.*.format", .string), ("legs.*.base", .number), ("legs.*.quote", .number),
    ("legs.*.contract_size", .number), ("legs.*.spec_set", .list),
    ("alignment.clock", .clock), ("alignment.max_stale", .duration), ("alignment.grid", .duration),
    ("alignment.offsets.*", .offset),
    ("strategy.mode", .mode), ("strategy.entry", .number), ("strategy.exit", .number),
    ("strategy.notional", .number), ("strategy.max_holding", .duration), ("strategy.cooldown", .duration),
    ("strategy.min_size", .number), ("strategy.funding", .bool),
    ("funding.files", .list), ("funding.format", .string), ("funding.spec_set", .list),
    ("fx.files", .list), ("fx.format", .string), ("fx.spec_set", .list), ("fx.max_stale", .duration), ("fx.converts", .string),
    ("costs.fees.*", .number), ("costs.slippage_bps", .number), ("costs.latency", .duration), ("costs.venue_latency.*", .duration),
    ("costs.cap_at_book", .bool),
    ("rebalance.cost", .number), ("rebalance.delay", .duration),
    ("journal.tz", .timeZone),
  ]

  /// The largest amount (`notional`, balances, sizes, costs) a scenario may hold: far
  /// above any real one, and far enough below `Double.greatestFiniteMagnitude` that
  /// quantities, prices and sums of such amounts stay finite.
  public static let maximumAmount = 1e15

  /// The modes this version runs.
  public static let modes = ["convergence", "inventory", "carry"]
  public static let timeZones = ["UTC": Int64(0), "Asia/Seoul": Int64(9 * 3600) * 1_000_000]

  /// Each leg's latency: its venue's `costs.venue_latency`, else `costs.latency`.
  public var legLatency: [Int64] { legs.map { venueLatency[$0.venue] ?? latency } }

  /// The journal zone's offset from UTC, µs.
  public var timeZoneOffset: Int64 { Self.timeZones[timeZone] ?? 0 }

  /// Reads a scenario file, applies `overrides` (`strategy.entry=0.12`), checks every
  /// key and value, and resolves relative paths against the file's folder.
  public static func load(path: String, overrides: [String] = []) throws(ScenarioError) -> Scenario {
    try load(path: path, document: try document(path: path), overrides: overrides)
  }

  /// The JSON object of a scenario file, unchecked: read once, it serves
  /// `load(path:document:overrides:)` for many sets of overrides (a sweep's cells).
  public static func document(path: String) throws(ScenarioError) -> [String: Any] {
    guard let data = FileManager.default.contents(atPath: path) else { throw ScenarioError(path: path, message: "no such file") }
    let parsed: Any
    do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
      throw ScenarioError(path: path, message: "not valid JSON: \(error.localizedDescription)")
    }
    guard let object = parsed as? [String: Any] else { throw ScenarioError(path: path, message: "expected a JSON object") }
    return object
  }

  /// `load(path:overrides:)` on the `document` already read from `path`.
  public static func load(path: String, document: [String: Any], overrides: [String]) throws(ScenarioError) -> Scenario {
    var object = document
    for assignment in overrides {
      guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else {
        throw ScenarioError(path: "--set", message: "'\(assignment)' is not KEY=VALUE")
      }
      let key = String(assignment[..<eq])
      let value = String(assignment[assignment.index(after: eq)...])
      guard let type = type(of: key) else { throw ScenarioError(path: "--set", message: "unknown key '\(key)'", unknownKey: key) }
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
  private static func typed(_ text: String, _ type: ValueType, key: String) throws(ScenarioError) -> Any {
    switch type {
    case .number:
      guard let value = Double(text), value.isFinite else { throw ScenarioError(path: "--set", message: "\(key) expects a number, was '\(text)'") }
      return value
    case .list: return text.split(separator: ",").map(String.init)
    case .bool:
      guard text == "true" || text == "false" else { throw ScenarioError(path: "--set", message: "\(key) expects true or false, was '\(text)'") }
      return text == "true"
    case .duration where text == "none": return NSNull()
    default: return text
    }
  }

  private static func set(_ object: inout [String: Any], _ key: ArraySlice<String>, _ value: Any) {
    guard let first = key.first else { return }
    if key.count == 1 {
      object[first] = value
    } else if let index = Int(key[key.index(after: key.startIndex)]), var array = object[first] as? [Any] {
      // legs.N.field: into the N-th element of an array.
      guard index >= 0 && index < array.count, var element = array[index] as? [String: Any] else { return }
      set(&element, key.dropFirst(2), value)
      array[index] = element
      object[first] = array
    } else {
      var inner = object[first] as? [String: Any] ?? [:]
      set(&inner, key.dropFirst(), value)
      object[first] = inner
    }
  }

  private init(object: [String: Any], path: String, folder: String) throws(ScenarioError) {
    // Every key present must be known, with a value of its type.
    var flat: [(String, Any)] = []
    Self.flatten(object, prefix: "", into: &flat)
    for (key, value) in flat {
      guard let type = Self.type(of: key) else { throw ScenarioError(path: path, message: "unknown key '\(key)'", unknownKey: key) }
      try Self.check(value, type, key: key, path: path)
    }
    // Looked up by key (a sweep loads thousands of scenarios; a scan copied every pair).
    let values = Dictionary(flat, uniquingKeysWith: { first, _ in first })
    func value(_ key: String) -> Any? { values[key].flatMap { $0 is NSNull ? nil : $0 } }
    func number(_ key: String) throws(ScenarioError) -> Double {
      guard let value = value(key) as? Double else { throw ScenarioError(path: path, message: "missing '\(key)'") }
      return value
    }
    func duration(_ key: String) -> Int64? { (value(key) as? String).flatMap(TimeText.parseDuration) }
    func resolve(_ file: String) -> String { file.hasPrefix("/") || folder.isEmpty ? file : folder + "/" + file }

    description = value("description") as? String
    let legCount = (object["legs"] as? [Any])?.count ?? 0
    var legs: [Leg] = []
    for k in 0..<legCount {
      guard let venue = value("legs.\(k).venue") as? String, let marketText = value("legs.\(k).market") as? String,
        let market = MarketKind(rawValue: marketText), let symbol = value("legs.\(k).symbol") as? String,
        let files = value("legs.\(k).files") as? [String], !files.isEmpty
      else { throw ScenarioError(path: path, message: "legs.\(k) needs venue, market, symbol and files") }
      // A format that is a file (a column spec) is a path like the data files.
      let format = (value("legs.\(k).format") as? String).map { $0.hasSuffix(".json") ? resolve($0) : $0 }
      legs.append(
        Leg(
          venue: venue, market: market, symbol: symbol, files: files.map(resolve), format: format,
          specSet: value("legs.\(k).spec_set") as? [String] ?? [], base: value("legs.\(k).base") as? Double, quote: value("legs.\(k).quote") as? Double,
          contractSize: value("legs.\(k).contract_size") as? Double))
    }
    self.legs = legs
    if object["fx"] != nil {
      guard let files = value("fx.files") as? [String], !files.isEmpty, let converts = value("fx.converts") as? String else {
        throw ScenarioError(path: path, message: "fx needs files and converts (the venue whose prices the rate converts)")
      }
      let format = (value("fx.format") as? String).map { $0.hasSuffix(".json") ? resolve($0) : $0 }
      fx = FX(
        files: files.map(resolve), format: format, specSet: value("fx.spec_set") as? [String] ?? [], maxStale: duration("fx.max_stale"),
        converts: converts)
    }
    clock = (value("alignment.clock") as? String).flatMap(Clock.init(rawValue:)) ?? .local
    maxStale = duration("alignment.max_stale")
    grid = duration("alignment.grid")
    let alignment = object["alignment"] as? [String: Any]
    offsets = (alignment?["offsets"] as? [String: Any])?.compactMapValues { ($0 as? String).flatMap(ClockOffset.parse) } ?? [:]
    mode = value("strategy.mode") as? String ?? "convergence"
    entry = try number("strategy.entry")
    exit = mode != "inventory" ? try number("strategy.exit") : (value("strategy.exit") as? Double ?? entry)
    notional = try number("strategy.notional")
    minSize = value("strategy.min_size") as? Double ?? 0
    capAtBook = value("costs.cap_at_book") as? Bool ?? false
    rebalanceCost = value("rebalance.cost") as? Double
    rebalanceDelay = duration("rebalance.delay") ?? 0
    maxHolding = duration("strategy.max_holding")
    cooldown = duration("strategy.cooldown")
    fees = (object["costs"] as? [String: Any])?["fees"].flatMap { $0 as? [String: Any] }?.compactMapValues { $0 as? Double } ?? [:]
    slippageBps = value("costs.slippage_bps") as? Double ?? 0
    latency = duration("costs.latency") ?? 0
    let costs = object["costs"] as? [String: Any]
    venueLatency = (costs?["venue_latency"] as? [String: Any])?.compactMapValues { ($0 as? String).flatMap(TimeText.parseDuration) } ?? [:]
    timeZone = value("journal.tz") as? String ?? "UTC"
    funding = value("strategy.funding") as? Bool ?? true
    fundingFiles = (value("funding.files") as? [String])?.map(resolve) ?? []
    fundingFormat = (value("funding.format") as? String).map { $0.hasSuffix(".json") ? resolve($0) : $0 }
    fundingSpecSet = value("funding.spec_set") as? [String] ?? []
    try validate(path: path)
  }

  /// The checks that need no data: counts, signs, files that exist.
  private func validate(path: String) throws(ScenarioError) {
    func fail(_ message: String) -> ScenarioError { ScenarioError(path: path, message: message) }
    if legs.count != 2 { throw fail("mode \(mode) trades exactly two legs, the scenario has \(legs.count)") }
    if mode == "inventory" {
      for (k, leg) in legs.enumerated() {
        guard let base = leg.base, let quote = leg.quote else { throw fail("mode inventory needs legs.\(k).base and legs.\(k).quote") }
        if base < 0 || quote < 0 { throw fail("legs.\(k): starting balances must be ≥ 0, were base \(base), quote \(quote)") }
        try checkAmount("legs.\(k).base", base, fail)
        try checkAmount("legs.\(k).quote", quote, fail)
      }
      if minSize < 0 { throw fail("strategy.min_size must be ≥ 0, was \(minSize)") }
      try checkAmount("strategy.min_size", minSize, fail)
      if let cost = rebalanceCost, cost < 0 { throw fail("rebalance.cost must be ≥ 0, was \(cost)") }
      if let cost = rebalanceCost { try checkAmount("rebalance.cost", cost, fail) }
    }
    if mode == "carry" { try validateCarry(fail) }
    if mode != "carry" && !fundingFiles.isEmpty { throw fail("funding.files is read by mode carry only (mode is \(mode))") }
    if exit > entry { throw fail("strategy.exit (\(exit)) is above strategy.entry (\(entry)): a position would close before it opens") }
    if notional <= 0 { throw fail("strategy.notional must be positive, was \(notional)") }
    try checkAmount("strategy.notional", notional, fail)
    // A slippage of 100 % or more would sell at a price ≤ 0.
    if slippageBps < 0 { throw fail("costs.slippage_bps must be ≥ 0, was \(slippageBps)") }
    if slippageBps >= 10_000 { throw fail("costs.slippage_bps must be below 10000 (100 % of the price), was \(slippageBps)") }
    if latency < 0 { throw fail("costs.latency must be ≥ 0") }
    if let grid, grid <= 0 { throw fail("alignment.grid must be positive") }
    if let fx { try validateFX(fx, fail) }
    // A fee, latency or clock offset for a venue no leg trades on is a misspelt venue.
    let groups = [("costs.fees", Array(fees.keys)), ("costs.venue_latency", Array(venueLatency.keys)), ("alignment.offsets", Array(offsets.keys))]
    for (group, venues) in groups {
      for venue in venues.sorted() where !legs.contains(where: { $0.venue == venue }) {
        throw ScenarioError(path: path, message: "unknown key '\(group).\(venue)' (no leg trades on \(venue))", unknownKey: "\(group).\(venue)")
      }
    }
    for (venue, fee) in fees.sorted(by: { $0.key < $1.key }) {
      if let problem = FeeRule.problem(fee) { throw fail("costs.fees.\(venue) \(problem)") }
    }
    for (k, leg) in legs.enumerated() {
      for file in leg.files + [leg.format].compactMap({ $0?.hasSuffix(".json") == true ? $0 : nil })
      where !FileManager.default.fileExists(atPath: file) {
        throw fail("legs.\(k): no such file \(file)")
      }
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
  private func validateCarry(_ fail: (String) -> ScenarioError) throws(ScenarioError) {
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
    if funding && fundingFiles.isEmpty {
      throw fail("mode carry needs funding.files (the perp's funding-rate settlements), or strategy.funding false to run without funding")
    }
    for file in fundingFiles + [fundingFormat].compactMap({ $0?.hasSuffix(".json") == true ? $0 : nil })
    where !FileManager.default.fileExists(atPath: file) {
      throw fail("funding: no such file \(file)")
    }
    if capAtBook { throw fail("costs.cap_at_book is not defined for mode carry") }
  }

  /// An amount at most `maximumAmount`.
  private func checkAmount(_ key: String, _ value: Double, _ fail: (String) -> ScenarioError) throws(ScenarioError) {
    if value > Self.maximumAmount { throw fail("\(key) must be at most 1e15, was \(value)") }
  }

  private static func flatten(_ object: [String: Any], prefix: String, into flat: inout [(String, Any)]) {
    for (key, value) in object.sorted(by: { $0.key < $1.key }) {
      let name = prefix + key
      if let inner = value as? [String: Any] {
        flatten(inner, prefix: name + ".", into: &flat)
      } else if name == "legs", let array = value as? [Any] {
        for (k, element) in array.enumerated() {
          guard let leg = element as? [String: Any] else {
            flat.append(("legs.\(k)", element))
            continue
          }
          flatten(leg, prefix: "legs.\(k).", into: &flat)
        }
      } else {
        flat.append((name, value))
      }
    }
  }

  private static func check(_ value: Any, _ type: ValueType, key: String, path: String) throws(ScenarioError) {
    let ok: Bool
    switch type {
    case .number:
      let number = isJSONBoolean(value) ? nil : (value as? NSNumber)?.doubleValue
      ok = number?.isFinite == true
      // A subnormal number (below 2.2e-308) loses precision and overflows when divided by.
      if ok, let number, number != 0 && !number.isNormal {
        throw ScenarioError(path: path, message: "\(key) is too close to 0 (a subnormal number), was \(number)")
      }
    case .string: ok = value is String
    case .bool: ok = isJSONBoolean(value)
    case .list: ok = (value as? [Any])?.allSatisfy { $0 is String } ?? false
    case .duration: ok = value is NSNull || value as? String == "none" || (value as? String).flatMap(TimeText.parseDuration).map { $0 >= 0 } ?? false
    case .offset: ok = (value as? String).flatMap(ClockOffset.parse) != nil
    case .market: ok = (value as? String).flatMap(MarketKind.init(rawValue:)) != nil
    case .clock: ok = (value as? String).flatMap(Clock.init(rawValue:)) != nil
    case .mode: ok = (value as? String).map(modes.contains) ?? false
    case .timeZone: ok = (value as? String).map { timeZones[$0] != nil } ?? false
    }
    guard ok else { throw ScenarioError(path: path, message: "\(key) expects \(expected(type)), was \(describe(value))") }
  }

  /// A boolean, from the JSON reader (a distinct NSNumber subclass, so that `1` is no
  /// boolean and `true` no number) or from `--set` (a Swift `Bool`).
  private static func isJSONBoolean(_ value: Any) -> Bool {
    value is Bool && ((value as? NSNumber).map { String(describing: Swift.type(of: $0)) == "__NSCFBoolean" } ?? true)
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
    }
  }

  private static func describe(_ value: Any) -> String {
    if let text = value as? String { return "'\(text)'" }
    if value is NSNull { return "null" }
    return "\(value)"
  }
}

/// A scenario that cannot be run, found before any data is read.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var message: String
  /// Set for an unknown key, so that the caller can suggest the closest known one.
  public var unknownKey: String? = nil
  public var description: String { "\(path): error: \(message)" }
}
