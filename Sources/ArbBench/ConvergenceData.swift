import ArbCore
import ArbIngest
import Foundation

/// The data and parameters of the backtest and sweep benchmarks: two generated venues'
/// Tardis quotes (`QuoteGenerator`: irregular arrivals, a mean-reverting premium per
/// venue) converted once to one columnar cache per leg. ArbKit opens the caches as
/// any leg; the Python peers read the same column files with `np.fromfile`.
struct ConvergenceData {
  /// Rows per venue; the union clock has about twice as many points.
  let rows: Int
  let caches: [String]
  let instruments: [Instrument]
  let scenario: String

  // The rules of the single backtest (the sweep varies entry, exit and leg 2's fee).
  static let maxStale: Int64 = 250_000
  static let latency: Int64 = 20_000
  static let slippageBps = 1.0
  static let notional = 10_000.0
  static let fees = [0.0002, 0.0004]
  static let entry = 0.1
  static let exit = 0.0

  /// The sweep axes as `--grid` lists: 20 entries × 10 exits × 5 fees of leg 2.
  static let entries = (5...24).map { decimal($0, scale: 2) }
  static let exits = (0..<10).map { decimal(-45 + 5 * $0, scale: 3) }
  static let legTwoFees = (0..<5).map { decimal(2 * $0, scale: 4) }

  /// Generates the venue files and caches in `folder` when missing and writes the scenario.
  init(rows: Int, folder: String) throws {
    self.rows = rows
    var caches: [String] = [], instruments: [Instrument] = []
    for venue in 0..<2 {
      let name = "\(folder)/quotes_\(rows)_\(QuoteGenerator.venues[venue].exchange)"
      let cache = name + ".cache"
      if !Store.isStore(path: cache) {
        if !FileManager.default.fileExists(atPath: name + ".csv") {
          FileHandle.standardError.write(Data("generating \(name).csv\n".utf8))
          try QuoteGenerator(rows: rows, seed: 20_230_301).write(venue: venue, to: name + ".csv")
        }
        FileHandle.standardError.write(Data("converting \(name).csv to a store\n".utf8))
        let store = try StoreTransaction(path: cache, clock: .local)
        _ = try store.add(try Ingest.read(path: name + ".csv"))
        try store.commit()
      }
      let series = try Ingest.read(path: cache).series
      guard series.count == 1 else { throw BenchError("\(cache) holds \(series.count) series, expected one") }
      caches.append(cache)
      instruments.append(series[0].instrument)
    }
    self.caches = caches
    self.instruments = instruments
    scenario = "\(folder)/convergence_\(rows).json"
    try writeScenario()
  }

  /// The scenario `arbkit sweep` runs: the single backtest's rules on the two caches.
  private func writeScenario() throws {
    let legs = zip(instruments, caches).map { instrument, cache in
      [
        "venue": instrument.venue, "market": instrument.market.rawValue, "symbol": instrument.symbol,
        "files": [URL(fileURLWithPath: cache).lastPathComponent],
      ] as [String: Any]
    }
    let fees = Dictionary(uniqueKeysWithValues: zip(instruments.map(\.venue), Self.fees))
    let object: [String: Any] = [
      "description": "Benchmark: convergence on two generated venues (arbkit-bench)",
      "legs": legs,
      "alignment": ["clock": "local", "max_stale": "\(Self.maxStale / 1000)ms"],
      "strategy": ["mode": "convergence", "entry": Self.entry, "exit": Self.exit, "notional": Self.notional],
      "costs": ["slippage_bps": Self.slippageBps, "latency": "\(Self.latency / 1000)ms", "fees": fees],
    ]
    try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: scenario))
  }

  /// The fee key of leg 2 in the scenario (`costs.fees.VENUE`).
  var legTwoFeeKey: String { "costs.fees.\(instruments[1].venue)" }

  /// The `--grid` arguments of the sweep: all 1,000 cells, or the first `entries` entries.
  func grid(entries count: Int = Self.entries.count) -> [String] {
    [
      "--grid", "strategy.entry=" + Self.entries.prefix(count).joined(separator: ","),
      "--grid", "strategy.exit=" + Self.exits.joined(separator: ","),
      "--grid", legTwoFeeKey + "=" + Self.legTwoFees.joined(separator: ","),
    ]
  }

  /// `value / 10^scale` as the shortest decimal text (`5`, 2 → `0.05`).
  private static func decimal(_ value: Int, scale: Int) -> String {
    var text = String(value.magnitude)
    text = String(repeating: "0", count: max(0, scale + 1 - text.count)) + text
    text.insert(".", at: text.index(text.endIndex, offsetBy: -scale))
    while text.last == "0" { text.removeLast() }
    if text.last == "." { text.removeLast() }
    return (value < 0 ? "-" : "") + text
  }
}
