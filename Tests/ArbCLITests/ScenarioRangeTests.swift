import Foundation
import TestSupport
import Testing

/// Scenario values that would make a backtest's numbers overflow or lose their meaning are
/// refused before any data is read (exit 64), wherever they come from (file, `--set`, `--grid`).
@Suite("Scenario value ranges")
struct ScenarioRangeTests {
  static let refusedValues: [(scenario: String, set: String, message: String)] = [
    ("binanceus-kraken-btcusdc.json", "costs.slippage_bps=10000", "costs.slippage_bps must be below 10000 (100 % of the price), was 10000.0"),
    ("binanceus-kraken-btcusdc.json", "costs.slippage_bps=30000", "costs.slippage_bps must be below 10000 (100 % of the price), was 30000.0"),
    ("binanceus-kraken-btcusdc.json", "strategy.notional=1e300", "strategy.notional must be at most 1e15, was 1e+300"),
    ("binanceus-kraken-btcusdc.json", "strategy.exit=5e-324", "strategy.exit is too close to 0 (a subnormal number), was 5e-324"),
    ("binanceus-kraken-inventory.json", "legs.0.base=1e308", "legs.0.base must be at most 1e15, was 1e+308"),
    ("binanceus-kraken-inventory.json", "legs.1.quote=1e16", "legs.1.quote must be at most 1e15, was 1e+16"),
    ("binanceus-kraken-inventory.json", "rebalance.cost=1e308", "rebalance.cost must be at most 1e15, was 1e+308"),
    ("binanceus-kraken-inventory.json", "strategy.min_size=1e20", "strategy.min_size must be at most 1e15, was 1e+20"),
    ("bybit-btcusdt-carry.json", "legs.1.contract_size=1e-320", "legs.1.contract_size is too close to 0 (a subnormal number), was 1e-320"),
  ]

  @Test("scenario values out of range are refused by backtest, sweep and report (exit 64)", arguments: refusedValues)
  func refusedValue(c: (scenario: String, set: String, message: String)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    expectScenarioCommandsRefuse(Repository.data("scenarios/" + c.scenario), ["--set", c.set], in: folder, c.message)
  }

  @Test("an inverse perp's contract size above 1e15 is refused")
  func contractSizeAbove() throws {
    let carry = Repository.data("scenarios/bybit-btcusdt-carry.json")
    let run = arbkit("backtest", carry, "--set", "legs.1.market=inverse", "--set", "legs.1.contract_size=1e20")
    #expect(run.code == .usage && run.errors.contains("legs.1.contract_size must be at most 1e15, was 1e+20"), "\(run.errors)")
  }

  @Test("a scenario's duration may be \"none\" in the file as on the command line")
  func noneDuration() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let text = try String(contentsOfFile: Repository.data("scenarios/binanceus-kraken-btcusdc.json"), encoding: .utf8)
    let folderOfData = Repository.data("scenarios")
    let path = folder.write(
      "none.json",
      text.replacing("\"max_stale\": \"2m\"", with: "\"max_stale\": \"none\"").replacing("\"../", with: "\"\(folderOfData)/../"))
    let none = arbkit("backtest", path, "--format", "json")
    #expect(none.code == .success, "\(none.errors)")
    let shell = arbkit("backtest", Repository.data("scenarios/binanceus-kraken-btcusdc.json"), "--set", "alignment.max_stale=none", "--format", "json")
    #expect(none.output == shell.output)
  }

  @Test("a number axis given with an exponent says so")
  func exponentAxis() {
    expectUsageError(
      ["sweep", Repository.data("scenarios/binanceus-kraken-btcusdc.json"), "--grid", "strategy.entry=0:1e6:1", "--quiet"],
      "--grid strategy.entry: '0:1e6:1' needs three plain decimals such as 0.05:0.30:0.01 (no exponent)")
  }
}
