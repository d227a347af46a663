import ArbBacktest
import ArbIngest
@testable import ArbResearch
import Foundation
import TestSupport
import Testing

@testable import ArbCLI

// A sweep runs one simulation per group of cells whose data and deciding rules agree,
// and prices it for each cell. Two cells that differ in a scenario key are in one group
// only when the key is price-only (fees, slippage, notional, a carry perp's contract
// size, the journal's zone, the description); mode inventory runs every cell alone.

@Suite("arbkit sweep groups cells into shared simulations by their types")
struct SweepGroupingTests {
  static let convergence = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let carry = Repository.data("scenarios/bybit-btcusdt-carry.json")
  static let inventory = Repository.data("scenarios/binanceus-kraken-inventory.json")

  /// The groups of a plan over one cell per set of overrides.
  static func groups(_ path: String, _ cells: [[String]]) throws -> [[Int]] {
    let scenarios = try cells.enumerated().map { (cell: $0.offset, scenario: try Scenario.load(path: path, overrides: $0.element)) }
    return try SweepPlan(cells: scenarios, options: IngestOptions()).groups.map { $0.cells.map(\.cell) }
  }

  /// A scenario key, two values for it, and whether cells that differ in it share a simulation.
  struct Case: CustomTestStringConvertible, Sendable {
    var path: String
    var key: String
    var values: (String, String)
    var shares: Bool
    var testDescription: String { "\((path as NSString).lastPathComponent): \(key)=\(values.0) | \(values.1)" }
  }

  static let cases: [Case] = [
    Case(path: convergence, key: "strategy.entry", values: ("0.8", "0.9"), shares: false),
    Case(path: convergence, key: "strategy.exit", values: ("0.1", "0.2"), shares: false),
    Case(path: convergence, key: "strategy.max_holding", values: ("1d", "none"), shares: false),
    Case(path: convergence, key: "strategy.cooldown", values: ("none", "1h"), shares: false),
    Case(path: convergence, key: "costs.latency", values: ("1m", "2m"), shares: false),
    Case(path: convergence, key: "costs.venue_latency.kraken", values: ("1m", "0ms"), shares: false),
    Case(path: convergence, key: "costs.cap_at_book", values: ("false", "true"), shares: false),
    Case(path: convergence, key: "alignment.max_stale", values: ("2m", "5m"), shares: false),
    Case(path: convergence, key: "alignment.offsets.kraken", values: ("+0ms", "+1m"), shares: false),
    Case(path: convergence, key: "strategy.notional", values: ("10000", "500"), shares: true),
    Case(path: convergence, key: "costs.fees.kraken", values: ("0.0016", "0.004"), shares: true),
    Case(path: convergence, key: "costs.slippage_bps", values: ("2", "0"), shares: true),
    Case(path: convergence, key: "journal.tz", values: ("UTC", "Asia/Seoul"), shares: true),
    Case(path: convergence, key: "description", values: ("a", "b"), shares: true),
    Case(path: carry, key: "strategy.entry", values: ("-0.0403", "-0.0404"), shares: false),
    Case(path: carry, key: "strategy.mode", values: ("carry", "convergence"), shares: false),
    Case(path: carry, key: "legs.1.contract_size", values: ("10", "100"), shares: true),
    Case(path: inventory, key: "costs.slippage_bps", values: ("0", "2"), shares: false),
    Case(path: inventory, key: "rebalance.asset_fees.BTC", values: ("0", "0.0005"), shares: false),
    Case(path: inventory, key: "rebalance.delay", values: ("2h", "uniform:1h:3h"), shares: false),
    Case(path: inventory, key: "costs.seed", values: ("1", "2"), shares: false),
  ]

  @Test("two cells that differ in one key share a simulation only when the key is price-only", arguments: cases)
  func oneKey(_ test: Case) throws {
    var sets = [["\(test.key)=\(test.values.0)"], ["\(test.key)=\(test.values.1)"]]
    if test.key == "legs.1.contract_size" { sets = sets.map { $0 + ["legs.1.market=inverse"] } }
    #expect(try Self.groups(test.path, sets) == (test.shares ? [[0, 1]] : [[0], [1]]))
  }

  @Test("costs.fill book: cells that differ in a fill rule never share a simulation, cells that differ in fees still do")
  func bookFills() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let book = BookFillCommandTests.scenario(folder)
    #expect(try Self.groups(book, [["costs.fill=top"], ["costs.fill=book"]]) == [[0], [1]])
    #expect(try Self.groups(book, [["costs.partial=fill"], ["costs.partial=hedge"], ["costs.partial=unwind"]]) == [[0], [1], [2]])
    #expect(try Self.groups(book, [["costs.fees.binance=0.0004"], ["costs.fees.binance=0.001"], ["costs.slippage_bps=3"]]) == [[0, 1, 2]])
    // Seeds, failure rates and partial rules only price: their cells share the prepared
    // legs (read once, with their books); the fill rule decides how the legs are read.
    let cells = [["costs.seed=1"], ["costs.seed=2", "costs.leg_fail_rate=0.2"], ["costs.partial=unwind"], ["costs.fill=top"]]
    let scenarios = try cells.enumerated().map { (cell: $0.offset, scenario: try Scenario.load(path: book, overrides: $0.element)) }
    let plan = try SweepPlan(cells: scenarios, options: IngestOptions())
    #expect(plan.groups.map { $0.cells.map(\.cell) } == [[0], [1], [2], [3]])
    #expect(plan.groups.map(\.data) == [0, 0, 0, 1])
  }

  @Test("cells that share a simulation need not be next to each other")
  func scattered() throws {
    let sets = [["strategy.entry=0.8"], ["strategy.entry=0.9"], ["strategy.entry=0.8", "costs.slippage_bps=5"]]
    #expect(try Self.groups(Self.convergence, sets) == [[0, 2], [1]])
  }
}
