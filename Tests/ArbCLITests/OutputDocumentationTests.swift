import Foundation
import TestSupport
import Testing

/// The output contract users' scripts rely on: every JSON key and every CSV column a
/// command prints is named in that command's section of docs/cli.md, so the docs
/// cannot fall behind the output.
@Suite("Output keys and columns are documented")
struct OutputDocumentationTests {
  static let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
  static let investing = Repository.data("samples/investing")
  static let daily = Repository.data("formats/investing-daily-ko.json")
  static let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let demo = ["--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m"]
  static let third =
    "binanceus:spot:BTCUSDT=" + Repository.data("samples/binanceus_BTCUSDT_1m_2023-03-01_02.csv") + "@"
    + Repository.data("formats/binanceus-kline-1m.json")

  /// A command run on shipped data, and the other sections its section refers to for
  /// shared objects (a basis summary is "as `mid` of `arbkit premium`").
  struct Case: CustomStringConvertible, Sendable {
    var command: String
    var arguments: [String]
    var sharedWith: [String] = []
    var description: String { command + " " + (arguments.last ?? "") }
  }

  static let jsonCases: [Case] = [
    Case(command: "inspect", arguments: [DemoPair.binance, "--format", "json"]),
    Case(command: "premium", arguments: demo + ["--format", "json"]),
    Case(command: "premium", arguments: demo + ["--leg", third, "--format", "json"]),
    Case(
      command: "basis",
      arguments: [
        "--spot", fixtures + "/XRP_USDT_USDT-1h-mark.json", "--perp", fixtures + "/XRP_USDT_USDT-1h-futures.json",
        "--funding", fixtures + "/XRP_USDT_USDT-8h-funding_rate.json", "--window", "8h", "--max-stale", "1h", "--format", "json",
      ], sharedWith: ["premium"]),
    Case(
      command: "kimchi",
      arguments: [
        "--krw", "upbit:spot:KRW-BTC=\(investing)/upbit_BTC_KRW_daily.csv@\(daily)",
        "--krw", "bithumb:spot:BTC_KRW=\(investing)/bithumb_BTC_KRW_daily.csv@\(daily)",
        "--usd", "bitstamp:spot:BTCUSD=\(investing)/bitstamp_BTC_USD_daily.csv@\(daily)",
        "--fx", "\(investing)/USD_KRW_daily.csv@" + Repository.data("formats/investing-usdkrw-ko.json"), "--max-stale", "1h", "--format", "json",
      ], sharedWith: ["premium", "basis"]),
    Case(command: "rolling", arguments: demo + ["--window", "60", "--ewma", "30", "--format", "json"]),
    Case(command: "candles", arguments: demo + ["--every", "1d", "--format", "json"]),
    Case(command: "correlate", arguments: demo + ["--leg", third, "--format", "json"]),
    Case(command: "board", arguments: [fixtures + "/json", "--sort-rows", "--format", "json"]),
    Case(command: "venues", arguments: ["--format", "json"]),
    Case(command: "backtest", arguments: [scenario, "--format", "json"]),
    Case(command: "backtest", arguments: [Repository.data("scenarios/binanceus-kraken-inventory.json"), "--format", "json"]),
    Case(command: "backtest", arguments: [Repository.data("scenarios/bybit-btcusdt-carry.json"), "--format", "json"]),
    Case(
      command: "backtest", arguments: [Repository.data("scenarios/upbit-binance-kimchi.json"), "--set", "alignment.offsets.upbit=+1ms", "--format", "json"]),
    Case(command: "backtest", arguments: [Repository.data("scenarios/upbit-binance-kimchi.json"), "--lookahead-check", "--format", "json"]),
    Case(command: "sweep", arguments: [scenario, "--grid", "strategy.entry=0.6,1", "--quiet", "--format", "json"]),
    Case(command: "profile", arguments: demo + ["--format", "json"]),
  ]

  static let csvCases: [Case] = [
    Case(command: "inspect", arguments: [DemoPair.binance, "--format", "csv"]),
    Case(command: "candles", arguments: demo + ["--every", "1d", "--format", "csv"]),
    Case(command: "correlate", arguments: demo + ["--leg", third, "--format", "csv"]),
    Case(command: "board", arguments: [fixtures + "/json", "--sort-rows", "--format", "csv"]),
    Case(command: "sweep", arguments: [scenario, "--grid", "strategy.entry=0.6,1", "--quiet"]),
    Case(command: "profile", arguments: demo + ["--format", "csv"]),
  ]

  @Test("every JSON key is in the command's section of docs/cli.md", arguments: jsonCases)
  func jsonKeys(_ test: Case) throws {
    let run = arbkit([test.command] + test.arguments)
    #expect(run.code == .success, "\(run.errors)")
    let json = try #require(run.json)
    var keys = Set<String>()
    Self.collectKeys(json, into: &keys)
    #expect(!keys.isEmpty)
    let documented = try Self.documentedNames([test.command] + test.sharedWith)
    let missing = keys.filter(Self.isName).subtracting(documented).sorted()
    #expect(missing.isEmpty, "arbkit \(test.command) prints keys docs/cli.md does not name: \(missing)")
  }

  @Test("every CSV column is in the command's section of docs/cli.md", arguments: csvCases)
  func csvColumns(_ test: Case) throws {
    let run = arbkit([test.command] + test.arguments)
    #expect(run.code == .success, "\(run.errors)")
    let header = try #require(run.output.split(separator: "\n").first).split(separator: ",").map(String.init)
    #expect(header.count >= 2)
    let documented = try Self.documentedNames([test.command])
    // Grid keys of a sweep (`strategy.entry`) are the user's own axes.
    let missing = header.filter(Self.isName).filter { !documented.contains($0) }
    #expect(missing.isEmpty, "arbkit \(test.command) CSV has columns docs/cli.md does not name: \(missing)")
  }

  @Test("the check itself: an undocumented key is found")
  func checkFindsMissingKeys() throws {
    let documented = try Self.documentedNames(["premium"])
    #expect(documented.contains("valid_points") && documented.contains("share_events_neg"))
    #expect(!documented.contains("valid_point") && !documented.contains("sharpe"))
    var keys = Set<String>()
    Self.collectKeys(["a": [["b": 1, "0.05": 2]], "c": ["d": NSNull()], "offsets_us": ["okx": 1]] as [String: Any], into: &keys)
    #expect(Set(keys.filter(Self.isName)) == Set(["a", "b", "c", "d", "offsets_us"]))
  }

  /// Keys that are names (`share_time`), not data (`"0.05"`, `"50"`, `strategy.entry`).
  static func isName(_ key: String) -> Bool {
    guard let first = key.unicodeScalars.first, first.properties.isLowercase || first == "_" else { return false }
    return key.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
  }

  /// Objects keyed by data (venue ids), whose own keys are not names to document.
  static let keyedByData: Set = ["offsets_us"]

  static func collectKeys(_ value: Any, into keys: inout Set<String>, keyedByData: Bool = false) {
    if let object = value as? [String: Any] {
      for (key, inner) in object {
        if !keyedByData { keys.insert(key) }
        collectKeys(inner, into: &keys, keyedByData: Self.keyedByData.contains(key))
      }
    } else if let array = value as? [Any] {
      for inner in array { collectKeys(inner, into: &keys) }
    }
  }

  /// The names inside backquotes in the sections `## \`arbkit COMMAND …` of docs/cli.md.
  static func documentedNames(_ commands: [String]) throws -> Set<String> {
    let text = try String(contentsOf: Repository.root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
    let sections = text.components(separatedBy: "\n## ").filter { section in commands.contains { section.hasPrefix("`arbkit \($0) ") } }
    var names = Set<String>()
    for section in sections {
      // Odd pieces between backquotes are code spans (they may wrap over lines).
      for (k, span) in section.components(separatedBy: "`").enumerated() where k % 2 == 1 {
        let words = span.split { !($0.isLetter || $0.isNumber || $0 == "_") }
        names.formUnion(words.map(String.init))
      }
    }
    return names
  }
}
