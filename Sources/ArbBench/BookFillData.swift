import ArbBacktest
import ArbCore
import Foundation

/// The data and rules of the book-fill benchmark: two generated venues' Tardis
/// `book_snapshot_5` files (`BookGenerator`) and a convergence scenario on them with
/// `costs.fill` `book` and `costs.partial` `unwind`. ArbKit reads the CSV files as a user's
/// run does; the numba peer reads the same files with polars.
struct BookFillData {
  /// Rows per venue; the union clock has about twice as many points.
  let rows: Int
  let files: [String]
  let scenario: String

  static let maxStale: Int64 = 250_000
  static let latency: Int64 = 20_000
  static let slippageBps = 1.0
  static let notional = 10_000.0
  static let fees = [0.0002, 0.0004]
  static let entry = 0.2
  static let exit = 0.0
  static let partial = PartialRule.unwind

  /// Generates the book files in `folder` when missing and writes the scenario.
  init(rows: Int, folder: String) throws {
    self.rows = rows
    files = (0..<2).map { "\(folder)/books_\(rows)_\(QuoteGenerator.venues[$0].exchange).csv" }
    for (venue, file) in files.enumerated() where !FileManager.default.fileExists(atPath: file) {
      FileHandle.standardError.write(Data("generating \(file)\n".utf8))
      try BookGenerator(rows: rows, seed: 20_230_301).write(venue: venue, to: file + ".part")
      try FileManager.default.moveItem(atPath: file + ".part", toPath: file)
    }
    scenario = "\(folder)/bookfill_\(rows).json"
    try Self.scenarioText(files: files).write(toFile: scenario, atomically: true, encoding: .utf8)
  }

  /// The scenario `arbkit backtest` runs on `files` (named relative to the scenario).
  static func scenarioText(files: [String]) throws -> String {
    let venues = QuoteGenerator.venues.prefix(2)
    let markets = try venues.map { venue in
      guard let market = ExchangeRegistry.builtin.tardisMarket(venue.exchange) else { throw BenchError("no market for Tardis id \(venue.exchange)") }
      return market
    }
    let legs = zip(zip(venues, markets), files).map { venueMarket, file in
      let ((venue, market), name) = (venueMarket, URL(fileURLWithPath: file).lastPathComponent)
      return ["venue": market.venue, "market": market.market.rawValue, "symbol": venue.symbol, "files": [name]] as [String: Any]
    }
    let object: [String: Any] = [
      "description": "Benchmark: convergence with book-walking fills on two generated venues (arbkit-bench)",
      "legs": legs,
      "alignment": ["clock": "local", "max_stale": "\(maxStale / 1000)ms"],
      "strategy": ["mode": "convergence", "entry": entry, "exit": exit, "notional": notional],
      "costs": [
        "fill": "book", "partial": partial.rawValue, "slippage_bps": slippageBps, "latency": "\(latency / 1000)ms",
        "fees": Dictionary(uniqueKeysWithValues: zip(markets.map(\.venue), fees)),
      ],
    ]
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  /// The engine's parameters for the same rules.
  static var parameters: ConvergenceParameters {
    var parameters = ConvergenceParameters(entry: entry, exit: exit, notional: notional, fees: fees)
    parameters.slippageBps = slippageBps
    parameters.latency = latency
    parameters.maxStale = maxStale
    parameters.fill = .book
    parameters.partial = partial
    return parameters
  }
}
