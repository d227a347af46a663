@testable import ArbBacktest
import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbCLI
@testable import ArbResearch

#if canImport(Glibc)
import Glibc
#endif

// Inputs a hostile review found crashing, hanging or losing data on the paths added
// with book fills, latency distributions, the live board and table outputs: each
// must end with its exit code and leave the inputs as they were.

@Suite("Hostile inputs on the live board, latency distributions and table outputs")
struct HostileInputTests {
  static let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")

  @Test func `a sweep cell with recorded latency on one-clock legs is refused, not a crash, whatever the cell order`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    for grid in ["costs.latency=1m,recorded", "costs.latency=recorded,1m"] {
      let run = arbkit("sweep", Self.scenario, "--grid", grid, "--quiet", "--out", folder.path + "/s.csv")
      #expect(run.code == .usage, "\(grid): \(run.errors)")
      #expect(run.errors.contains("latency recorded reads the receive and the exchange time"), "\(grid): \(run.errors)")
      // Refused before its first cell: the new output and its sidecar are removed again.
      #expect(folderNames(folder.path).isEmpty, "\(grid)")
    }
  }

  @Test func `a lognormal latency of sigma 0 or median 0 is the fixed latency, and the lookahead check compares trades`() throws {
    func trades(_ latency: String) -> [String: Any] { arbkit("backtest", Self.scenario, "--set", "costs.latency=" + latency, "--format", "json").object }
    for (lognormal, fixed) in [("lognormal:1m:0", "1m"), ("lognormal:0ms:0.5", "0ms")] {
      let drawn = trades(lognormal), plain = trades(fixed)
      #expect(drawn["trades"] as? Int == plain["trades"] as? Int && (drawn["trades"] as? Int ?? 0) > 0, "\(lognormal)")
      #expect(drawn["pnl"] as? Double == plain["pnl"] as? Double, "\(lognormal)")
    }
    let check = arbkit("backtest", Self.scenario, "--set", "costs.latency=lognormal:1m:0.5", "--lookahead-check", "--cuts", "3", "--format", "json")
    let object = check.object
    #expect((object["trades_compared"] as? Int ?? 0) > 0, "\(check.output)")
    // The bound: 1 min × exp(0.5 × Φ⁻¹(1 − 2⁻⁵³)), Φ⁻¹(1 − 2⁻⁵³) = 8.2095…
    #expect(object["latency_us"] as? Int == Int((60e6 * exp(0.5 * 8.209536151601386)).rounded(.down)), "\(check.output)")
  }

  @Test func `the off-ends draw stays inside (0, 1) at both ends, its quantile finite`() {
    let largest = 1 - 0x1p-53  // the largest uniform draw
    #expect(Latency.offEnds(0) == 0x1p-53)
    #expect(Latency.offEnds(largest) == 1 - 0x1p-53)
    #expect(Latency.maximumZ.isFinite && abs(Latency.maximumZ - 8.209536151601386) < 1e-9)
  }

  @Test func `a recorded delay of clocks too far apart is clamped, not an overflow`() {
    let series = QuoteSeries(
      instrument: Instrument(venue: "a", market: .spot, symbol: "X"), priceSource: .book, clock: .local, time: [Int64.max - 1, -5],
      otherTime: [-9_223_372_036_854_775_000, 10], bid: [1, 1], ask: [2, 2])
    #expect(series.recordedDelay(at: 0) == Int64.max / 2)
    #expect(series.recordedDelay(at: 1) == 0)
  }

  @Test func `a walk's average price stays between the prices it took, where the division rounds outside them`() {
    // Three takes at one price whose sum, divided, rounds to 11657.080000000002.
    let price = 11657.08, quantities = [0.6726868563178937, 4.237321250949226, 3.819109320264093]
    var walk = BookWalker.Walk()
    for q in quantities { (walk.notional, walk.levels) = (walk.notional + q * price, walk.levels + 1) }
    (walk.filled, walk.lastPrice, walk.lowest, walk.highest) = (quantities.reduce(0, +), price, price, price)
    #expect(walk.notional / walk.filled != price)
    #expect(walk.average == price)
  }

  @Test func `sweep axes of latency distributions are lists; three durations are still a range`() throws {
    let list = try SweepGrid(parsing: ["costs.latency=1m,uniform:0s:2m,lognormal:1m:0.5"])
    #expect(list.axes[0].values == ["1m", "uniform:0s:2m", "lognormal:1m:0.5"])
    #expect(try SweepGrid(parsing: ["costs.latency=0ms:100ms:50ms"]).axes[0].values == ["0s", "50ms", "100ms"])
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let run = arbkit("sweep", Self.scenario, "--grid", "costs.latency=1m,uniform:0s:2m", "--quiet")
    #expect(run.code == .success, "\(run.errors)")
    let backtest = arbkit("backtest", Self.scenario, "--set", "costs.latency=uniform:0s:2m", "--format", "json").object
    let row = run.output.split(separator: "\n")[2].split(separator: ",", omittingEmptySubsequences: false)
    #expect(row[0] == "uniform:0s:2m" && Int(row[1]) == backtest["trades"] as? Int)
  }

  @Test func `two outputs of one run on one file are refused before anything is written`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let run = arbkit("backtest", Self.scenario, "--trades", folder.path + "/t.csv", "--equity", folder.path + "/./t.csv")
    #expect(run.code == .usage)
    #expect(run.errors.contains("is also \(folder.path)/t.csv, another output of this run"), "\(run.errors)")
    #expect(folderNames(folder.path).isEmpty)
  }

  @Test func `convert refuses a second series of one instrument in a quotes table`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    folder.write("a.csv", "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n1000000,x,spot,BTCUSD,100,101,1,1,\n")
    folder.write("b.csv", "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n500000,x,spot,BTCUSD,,,,,100.5\n")
    let run = arbkit("convert", folder.path + "/a.csv", folder.path + "/b.csv", "--out", folder.path + "/q.parquet")
    #expect(run.code == .usage)
    #expect(run.errors.contains("its x:spot:BTCUSD quotes (last prices) do not continue the book ones before them"), "\(run.errors)")
    #expect(!folderNames(folder.path).contains("q.parquet"))
    // The next file of the same quotes, later: one series, read back whole.
    folder.write("c.csv", "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n2000000,x,spot,BTCUSD,100,102,1,1,\n")
    folder.write("d.csv", "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n1500000,y,spot,BTCUSD,99,101,1,1,\n")
    let joined = arbkit("convert", folder.path + "/a.csv", folder.path + "/d.csv", folder.path + "/c.csv", "--out", folder.path + "/q.parquet")
    #expect(joined.code == .success, "\(joined.errors)")
    let back = arbkit("inspect", folder.path + "/q.parquet", "--format", "json").object
    let instruments = (back["instruments"] as? [[String: Any]] ?? []).map { "\($0["venue"]!) \($0["rows"]!)" }
    #expect(instruments.sorted() == ["x 2", "y 1"], "\(back)")
  }

  /// A recording folder of `files` (name → lines).
  static func recording(_ files: [(String, [String])]) -> TemporaryFolder {
    let folder = TemporaryFolder()
    for (name, lines) in files { folder.write(name, lines.map { $0 + "\n" }.joined()) }
    return folder
  }

  @Test func `the live board leaves out quotes too extreme for double arithmetic instead of trapping`() {
    let t0 = BoardFollowTests.t0
    let folder = Self.recording([
      ("binance-spot-20260101T000000Z.jsonl", [BoardFollowTests.Line.binance(t0, "BTCUSDT", "1e308", "1.7e308")]),
      ("bybit-spot-20260101T000000Z.jsonl", [BoardFollowTests.Line.bybit(t0, "BTCUSDT", "1e-307", "1e-307")]),
      ("okx-spot-20260101T000000Z.jsonl", []),
    ])
    defer { folder.cleanup() }
    let run = arbkit("board", "--follow", folder.path, "--speed", "100x", "--alert", "BTC/USDT premium > 1")
    #expect(run.code == .success, "\(run.errors)")
    #expect(!run.output.contains("inf") && !run.output.contains("nan"), "\(run.output)")
  }

  @Test func `--alerts inside the recording it follows is refused`() {
    let folder = Self.recording([("binance-spot-20260101T000000Z.jsonl", [BoardFollowTests.Line.binance(BoardFollowTests.t0, "BTCUSDT", "1", "2")])])
    defer { folder.cleanup() }
    let before = fileText(folder.path + "/binance-spot-20260101T000000Z.jsonl")
    for alerts in ["/binance-spot-20260101T000000Z.jsonl", "/alerts.log", "/./sub/../a.log"] {
      let run = arbkit("board", "--follow", folder.path, "--speed", "100x", "--alert", "BTC/USDT premium > 1", "--alerts", folder.path + alerts)
      #expect(run.code == .usage, "\(alerts): \(run.errors)")
      #expect(run.errors.contains("is inside the recording"), "\(run.errors)")
    }
    #expect(fileText(folder.path + "/binance-spot-20260101T000000Z.jsonl") == before)
  }

  @Test func `a pipe named like a recording file is no recording: the board does not block on it`() {
    let folder = Self.recording([("binance-spot-20260101T000000Z.jsonl", [BoardFollowTests.Line.binance(BoardFollowTests.t0, "BTCUSDT", "1", "2")])])
    defer { folder.cleanup() }
    #expect(mkfifo(folder.path + "/bybit-spot-20260101T000000Z.jsonl", 0o600) == 0)
    let names = (try? RecordingFollower.recordingFiles(in: folder.path))?.map(\.plain) ?? []
    #expect(names == ["binance-spot-20260101T000000Z.jsonl"])
  }

  @Test func `files a restarted recorder adds replay after the first one of their hour`() {
    let names = ["b-spot-20260101T000000Z-10.jsonl", "b-spot-20260101T000000Z-2.jsonl", "b-spot-20260101T010000Z.jsonl", "b-spot-20260101T000000Z.jsonl"]
    #expect(
      names.sorted(by: RecordingFollower.recordedOrder) == [
        "b-spot-20260101T000000Z.jsonl", "b-spot-20260101T000000Z-2.jsonl", "b-spot-20260101T000000Z-10.jsonl", "b-spot-20260101T010000Z.jsonl",
      ])
  }

  @Test(arguments: ["0x10", "0x1p3", "inf", "nan", "--1", "1-", "1e"])
  func `an alert's number is a decimal number, not hexadecimal, inf or nan`(number: String) {
    #expect(throws: UsageError.self) { try BoardAlert(parsing: "BTC/USDT premium > " + number) }
  }
}
