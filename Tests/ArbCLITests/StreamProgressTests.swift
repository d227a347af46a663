import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbCLI

// The progress of the streaming commands (premium, candles, profile): quotes read, the
// rate, and a bar with the time left when every leg knows its length (a store).

@Suite("Progress of the streaming commands")
struct StreamProgressTests {
  @Test("without a total: the count and the rate; with one: the bar and the time left")
  func lines() {
    #expect(Progress.line(done: 1500, total: nil, doneHere: 1500, seconds: 2, unit: "quotes") == "\r1500 quotes, 750.0/s")
    #expect(
      Progress.line(done: 500, total: 2000, doneHere: 500, seconds: 1, unit: "quotes")
        == "\r[" + String(repeating: "#", count: 7) + String(repeating: ".", count: 23) + "] 500/2000 quotes, 500.0/s, ETA 3 s")
  }

  @Test("redrawn at most every 0.2 s; finish draws the last count once and ends the line")
  func throttled() {
    var nanoseconds: UInt64 = 0
    var lines: [String] = []
    let progress = Progress(total: nil, unit: "quotes", show: true, every: 0.2, now: { nanoseconds }, write: { lines.append($0) })
    nanoseconds = 100_000_000
    progress.advance(100)  // 0.1 s after the start: not drawn
    nanoseconds = 200_000_000
    progress.advance(100)  // 0.2 s after the start: drawn, 200 in 0.2 s
    nanoseconds = 300_000_000
    progress.advance(100)  // 0.1 s after the last line: not drawn
    nanoseconds = 400_000_000
    progress.advance(100)  // 0.2 s after it: drawn, 400 in 0.4 s
    nanoseconds = 500_000_000
    progress.advance(100)
    progress.finish()
    progress.finish()
    #expect(lines == ["\r200 quotes, 1000.0/s", "\r400 quotes, 1000.0/s", "\r500 quotes, 1000.0/s", "\n"])
  }

  @Test("a counted stream reports every quote it hands out, against the series' length")
  func counted() throws {
    let time: [Int64] = Array(1...10)
    let series = QuoteSeries(
      instrument: Instrument(venue: "a", market: .spot, symbol: "X"), priceSource: .book, field: .price, clock: .exchange, time: time,
      otherTime: time, bid: Array(repeating: 1, count: 10), ask: Array(repeating: 2, count: 10), bidSize: Array(repeating: 1, count: 10),
      askSize: Array(repeating: 1, count: 10))
    var lines: [String] = []
    let base = SeriesQuoteStream(series)
    let progress = Progress(total: base.expectedRows, unit: "quotes", show: true, now: { 1 }, write: { lines.append($0) })
    let stream = CountingQuoteStream(base, counted: progress.advance)
    #expect(stream.expectedRows == 10)
    var handed = 0
    while let chunk = try stream.next(maxRows: 4) { handed += chunk.count }
    #expect(handed == 10)
    #expect(
      lines.map { $0.split(separator: "]").last.map(String.init) ?? "" }.map { $0.split(separator: ",").first ?? "" } == [
        " 4/10 quotes", " 8/10 quotes", " 10/10 quotes",
      ])
  }

  /// What stderr of the built `arbkit ARGS…` receives on a terminal (`script` gives it a
  /// pseudo-terminal; stdout goes to a file) or on a pipe.
  static func stderr(_ arguments: [String], terminal: Bool) throws -> String {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit").path
    try #require(FileManager.default.isExecutableFile(atPath: binary), "the arbkit binary is built beside the tests")
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let process = Process()
    let pipe = Pipe()
    if terminal {
      let command = ([binary] + arguments).map(Self.quoted).joined(separator: " ") + " >" + Self.quoted(folder.path + "/out")
      process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
      process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
      process.standardOutput = pipe
    } else {
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = pipe
    }
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let bytes = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `text` quoted for `sh`.
  static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

  @Test(
    "premium, candles, profile and rolling show the quotes read on a terminal, a bar for store legs, nothing on a pipe",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func commands() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let stores = ConvertCommandTests.convertDemo(in: folder)
    let quotes = [DemoPair.binance, DemoPair.kraken].map { arbkit("inspect", $0, "--format", "json").object["rows_accepted"] as? Int ?? 0 }
    let total = quotes.reduce(0, +)
    let files = ["--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--chunk-rows", "1000"]
    let fromFiles = try Self.stderr(["premium"] + files, terminal: true)
    #expect(fromFiles.contains("\r\(total) quotes, "), "\(fromFiles.debugDescription)")
    #expect(!fromFiles.contains("ETA"))
    let fromStores = try Self.stderr(["premium", "--leg", stores[0], "--leg", "kraken:spot:BTCUSDC=" + stores[1], "--chunk-rows", "1000"], terminal: true)
    #expect(fromStores.contains("\r[" + String(repeating: "#", count: 30) + "] \(total)/\(total) quotes, "), "\(fromStores.debugDescription)")
    for command in [["candles", "--every", "1h"], ["profile"], ["rolling", "--window", "60"]] {
      #expect(try Self.stderr(command + files, terminal: true).contains("\r\(total) quotes, "), "\(command)")
    }
    #expect(try Self.stderr(["premium"] + files, terminal: false) == "")
  }

  @Test(
    "a premium shard shows a bar of the quotes it reads, its merge one of the points it replays, on a terminal only",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func shards() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = ShardedPremiumTests.demoStore(folder)
    let parts = [1, 2].map { folder.path + "/part-\($0)" }
    let shard = try Self.stderr(["premium"] + legs + ["--chunk-rows", "1000", "--shard", "1/2", "--out", parts[0]], terminal: true)
    #expect(shard.contains(" quotes, ") && shard.contains("\r["), "\(shard.debugDescription)")
    #expect(try Self.stderr(["premium"] + legs + ["--chunk-rows", "1000", "--shard", "2/2", "--out", parts[1]], terminal: false) == "")
    let points = try #require(arbkit(["premium"] + legs + ["--format", "json"]).object["points"] as? Int)
    let merge = try Self.stderr(["merge"] + parts, terminal: true)
    #expect(merge.contains("] \(points)/\(points) points, "), "\(merge.debugDescription)")
    #expect(try Self.stderr(["merge"] + parts, terminal: false) == "")
  }

  @Test(
    "a streamed backtest and sweep show the quotes read on a terminal; a backtest that reads its legs whole (a maker leg) shows nothing",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func scenarioCommands() throws {
    let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
    let total = [DemoPair.binance, DemoPair.kraken].map { arbkit("inspect", $0, "--format", "json").object["rows_accepted"] as? Int ?? 0 }.reduce(0, +)
    #expect(try Self.stderr(["backtest", scenario, "--chunk-rows", "500"], terminal: true).contains("\r\(total) quotes, "))
    let sweep = try Self.stderr(["sweep", scenario, "--grid", "strategy.entry=0.5,0.8", "--chunk-rows", "500"], terminal: true)
    #expect(sweep.contains("\r\(total) quotes, ") && sweep.contains("2/2 cells"), "\(sweep.debugDescription)")
    // Failed legs' walks stream too, on a pass of their own that is not counted again.
    let failing = try Self.stderr(["backtest", scenario, "--set", "costs.leg_fail_rate=0.1", "--chunk-rows", "500"], terminal: true)
    #expect(failing.contains("\r\(total) quotes, ") && !failing.contains("\r\(2 * total) quotes, "), "\(failing.debugDescription)")
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    #expect(try Self.stderr(["backtest", MakerCommandTests.scenario(folder)], terminal: true) == "")
    #expect(try Self.stderr(["backtest", scenario], terminal: false) == "")
  }
}
