import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("Help, usage errors and exit codes")
struct HelpAndUsageTests {
  @Test func `overview lists every command and exits 0`() {
    let run = arbkit("--help")
    #expect(run.code == .success)
    for command in ["inspect", "premium", "basis", "kimchi", "convert", "report", "profile", "rolling", "venues", "record"] {
      #expect(run.output.contains("  \(command)"))
    }
    #expect(run.errors.isEmpty)
  }

  static let helpForms: [[String]] = [["premium", "--help"], ["help", "premium"], ["premium", "-h"]]

  @Test("command help goes to stdout", arguments: helpForms)
  func commandHelp(arguments: [String]) {
    let run = arbkit(arguments)
    #expect(run.code == .success)
    #expect(run.output.hasPrefix("Usage: arbkit premium"))
  }

  /// The help texts are part of the contract users read: a change must be deliberate.
  @Test(
    "help text matches its snapshot",
    arguments: [
      "inspect", "premium", "board", "basis", "kimchi", "convert", "backtest", "sweep", "merge", "report", "profile", "rolling", "candles", "correlate",
      "venues", "validate", "record",
    ])
  func helpSnapshot(command: String) throws {
    let snapshot = Repository.root.appendingPathComponent("Tests/ArbCLITests/Snapshots/\(command)-help.txt")
    let expected = try String(contentsOf: snapshot, encoding: .utf8)
    #expect(arbkit(command, "--help").output == expected)
  }

  static let usageErrors: [(arguments: [String], message: String)] = [
    (["primium"], "unknown command 'primium', did you mean 'premium'?"),
    (["premium", "--leg", "a.csv"], "need at least 2 --leg, was 1"),
    (
      ["premium", "--leg", "d.csv#funding_rate", "--leg", "b.csv"],
      "the series leg d.csv asks for with #funding_rate is a funding_rate series, a rate: a premium needs price, mark or index legs"
    ),
    (
      ["premium", "--leg", "a.csv#last", "--leg", "b.csv"],
      "unknown field 'last' in leg 'a.csv#last', expected one of price, mark, index, funding_rate, premium_index"
    ),
    (["premium", "--leg", "a", "--leg", "b", "--max-stal", "5s"], "unknown option '--max-stal', did you mean '--max-stale'?"),
    (["premium", "--leg", "a", "--leg", "b", "--max-stale", "soon"], "invalid value for '--max-stale'"),
    (["premium", "--leg", "a", "--leg", "b", "--bands", "0.1,x"], "invalid value for '--bands'"),
    (["premium", "--leg", "a", "--leg", "b", "--format", "xml"], "invalid value for '--format'"),
    (["premium", "--leg", "x:perp:BTC=a", "--leg", "b"], "unknown market 'perp'"),
    (["premium", "--leg", "a", "--leg", "b", "--hysteresis", "0.2"], "--hysteresis must be smaller than every band"),
    (["inspect"], "no file given"),
    (["convert", "a.csv"], "missing --out DIR"),
    (["inspect", "a.csv", "--bad-rows", "maybe"], "invalid value for '--bad-rows'"),
    (["record", "upbit:spot"], "missing --out DIR"),
    (
      ["record", "kraken:spot", "--out", "r"], "invalid target, expected VENUE:MARKET[:SYMBOL,…] with VENUE one of upbit, bithumb, coinone, bybit, binance, okx"
    ),
    (["record", "upbit:linear", "--out", "r"], "invalid market for upbit, expected one of spot, was 'linear'"),
    (["record", "bybit:linear", "--books", "--out", "r"], "--books on bybit:linear needs a symbol list"),
    (["record", "upbit:spot", "--out", "r", "--every", "0s"], "invalid value for '--every'"),
    (["record", "upbit:spot", "--out", "r", "--every", "2d"], "invalid value for '--every', expected a duration from 1ms to 1d"),
    (["record", "upbit:spot", "--out", "r", "--rotate", "2h"], "invalid value for '--rotate', expected 1h or 1d, was '2h'"),
    (["record", "upbit:spot", "--out", "r", "--base-url", "upbit=ftp://x"], "invalid value for '--base-url'"),
    (
      ["premium", "--leg", "a", "--leg", "b", "--output-format", "xml", "--series", "s"], "invalid value for '--output-format', expected csv, arrow or parquet"
    ),
    (
      ["rolling", "--leg", "a", "--leg", "b", "--window", "2", "--output-format", "arrow"],
      "--output-format arrow names the format of --out, none of which was given"
    ),
    (
      ["backtest", "Data/scenarios/binanceus-kraken-btcusdc.json", "--output-format", "parquet"],
      "--output-format parquet names the format of --trades, --equity, --inventory, --funding, none of which was given"
    ),
  ]

  @Test("usage errors exit 64 with the message, the usage line and a pointer to help", arguments: usageErrors)
  func usageError(c: (arguments: [String], message: String)) {
    let run = arbkit(c.arguments)
    #expect(run.code == .usage)
    #expect(run.output.isEmpty)
    #expect(run.errors.hasPrefix("arbkit: error: "))
    #expect(run.errors.contains(c.message))
    #expect(run.errors.contains("--help"))
  }

  @Test func `a missing file exits 66`() {
    let run = arbkit("inspect", "/nonexistent/quotes.csv")
    #expect(run.code == .noInput)
    #expect(run.errors.contains("/nonexistent/quotes.csv: error: no such file"))
  }

  @Test func `bad data exits 65 with path, line and column`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("q.csv", "ts_us,pair,rate\n1,USDKRW,1300.5\n2,USDKRW,abc\n")
    let run = arbkit("inspect", path)
    #expect(run.code == .dataError)
    #expect(run.errors == "\(path):3:10: error: invalid number in column 'rate', was 'abc'\n")
  }

  @Test func `version prints and exits 0`() {
    let run = arbkit("--version")
    #expect(run.code == .success)
    #expect(run.output.hasPrefix("arbkit "))
  }
}
