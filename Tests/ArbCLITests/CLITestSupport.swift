import ArbCLI
import Foundation
import TestSupport
import Testing

/// The result of one in-process `arbkit` run.
struct RunResult {
  var code: ExitCode
  var output: String
  var errors: String

  /// stdout parsed as JSON.
  var json: Any? { try? JSONSerialization.jsonObject(with: Data(output.utf8)) }
  var object: [String: Any] { json as? [String: Any] ?? [:] }
}

/// Runs `arbkit ARGS…` in process and collects stdout, stderr and the exit code.
func arbkit(_ arguments: String...) -> RunResult { arbkit(arguments) }

func arbkit(_ arguments: [String]) -> RunResult {
  var terminal = Terminal()
  let code = ArbCLI.run(["arbkit"] + arguments, terminal: &terminal)
  return RunResult(code: code, output: terminal.output, errors: terminal.errors)
}

/// Runs `arbkit ARGS…` and expects exit 64 with `message` on stderr.
func expectUsageError(_ arguments: [String], _ message: String, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
  let run = arbkit(arguments)
  #expect(run.code == .usage, "\(comment)", sourceLocation: sourceLocation)
  #expect(run.errors.contains(message), "\(comment): \(run.errors)", sourceLocation: sourceLocation)
}

/// `backtest`, `sweep` and `report` of the scenario at `path`, with `extra` arguments,
/// each stop with exit 64 and `message`.
func expectScenarioCommandsRefuse(
  _ path: String, _ extra: [String], in folder: TemporaryFolder, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  for command in ["backtest", "sweep", "report"] {
    var arguments = [command, path] + extra
    if command == "sweep" { arguments += ["--grid", "strategy.entry=0.5,0.6", "--quiet", "--out", folder.path + "/sweep.csv"] }
    if command == "report" { arguments += ["--out", folder.path + "/report"] }
    expectUsageError(arguments, message, command, sourceLocation: sourceLocation)
  }
}

/// The demo pair shipped in Data/: Binance.US and Kraken BTC/USDC 1-minute candles.
enum DemoPair {
  static let binance =
    "binanceus:spot:BTCUSDC=" + Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv")
    + "@" + Repository.data("formats/binanceus-kline-1m.json")
  static let kraken =
    "kraken:spot:BTCUSDC=" + Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz")
    + "@" + Repository.data("formats/kraken-ohlcvt-1m.json")
}

/// Every number anywhere in a parsed JSON value is finite (JSON cannot hold NaN/inf,
/// but this also proves no placeholder such as 0 replaced a missing value silently
/// where the caller checks for null separately).
func allNumbersFinite(_ value: Any) -> Bool {
  switch value {
  case let number as Double: return number.isFinite
  case let array as [Any]: return array.allSatisfy(allNumbersFinite)
  case let object as [String: Any]: return object.values.allSatisfy(allNumbersFinite)
  default: return true
  }
}
