import ArbCLI
import Foundation
import TestSupport

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

/// The demo pair shipped in Data/: Binance.US and Kraken BTC/USDC 1-minute candles.
enum DemoPair {
  static let binance = "binanceus:spot:BTCUSDC=" + Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv")
    + "@" + Repository.data("formats/binanceus-kline-1m.json")
  static let kraken = "kraken:spot:BTCUSDC=" + Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz")
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
