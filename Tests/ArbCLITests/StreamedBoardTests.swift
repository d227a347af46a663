import ArbAnalytics
import ArbCLI
import ArbCore
import ArbIngest
import Foundation
import Testing
import TestSupport

/// `arbkit board` streams each instrument's legs through its row a `--chunk-rows` at a
/// time: the board does not depend on the chunk size nor on whether the legs come from
/// the files or from a store (counts, extremes, quantiles, bands, shares and the best
/// edge exactly; the mean to 1e-12), and its best edge and counts are those of the
/// whole series aligned in memory.
@Suite("arbkit board, streamed")
struct StreamedBoardTests {
  typealias Kimchi = KimchiCommandTests

  /// BTC/USDC on binanceus and kraken (minute bars), BTC/KRW on upbit, bithumb and
  /// coinone (daily closes), BTC/USD on bitstamp alone.
  static let legs = [DemoPair.binance, DemoPair.kraken, Kimchi.upbit, Kimchi.bithumb, Kimchi.coinone, Kimchi.bitstamp]
  static let options = ["--bands", "0.05,0.1,0.5", "--hysteresis", "0.02", "--format", "json"]

  /// `board` with all but the means identical: the means to 1e-12 relative.
  static func expectSameBoard(_ got: [String: Any], _ expected: [String: Any], _ comment: String) {
    StreamedPremiumTests.expectClose(got, expected, rel: 1e-12)
    #expect(NSDictionary(dictionary: withoutMeans(got)) == NSDictionary(dictionary: withoutMeans(expected)), "\(comment)")
  }

  /// `board`'s JSON without the means of the max premium.
  static func withoutMeans(_ board: [String: Any]) -> [String: Any] {
    var board = board
    board["instruments"] = (board["instruments"] as? [[String: Any]] ?? []).map { row in
      var row = row
      var premium = row["max_premium"] as? [String: Any] ?? [:]
      premium["mean"] = nil
      row["max_premium"] = premium
      return row
    }
    return board
  }

  @Test func `the real legs from files and from a store, in chunks of 1 to 65536 rows, give the one-chunk board`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    #expect(arbkit(["convert"] + Self.legs + ["--out", store]).code == .success)
    let reference = arbkit(["board"] + Self.legs + Self.options + ["--chunk-rows", "1000000"])
    #expect(reference.code == .success, "\(reference.errors)")
    let rows = reference.object["instruments"] as? [[String: Any]] ?? []
    #expect(Set(rows.map { $0["instrument"] as? String }) == ["BTC/USDC spot", "BTC/KRW spot"])
    #expect(rows.allSatisfy { $0["valid_points"] as? Int ?? 0 > 100 })
    #expect((reference.object["single_venue"] as? [[String: Any]])?.map { $0["instrument"] as? String } == ["BTC/USD spot"])
    // The store's series are the board's inputs as its manifest names them, or named legs.
    let named = Self.legs.map { String($0.prefix { $0 != "=" }) + "=" + store }
    let chunks = ["1", "2", "7", "300", "65536"]
    // The named store legs stream as the store's series do: two chunk sizes suffice.
    for (source, legs, chunks) in [("files", Self.legs, chunks), ("store", [store], chunks), ("store legs", named, ["7", "65536"])] {
      for chunk in chunks {
        let run = arbkit(["board"] + legs + Self.options + ["--chunk-rows", chunk])
        #expect(run.code == .success, "\(source) \(chunk): \(run.errors)")
        Self.expectSameBoard(run.object, reference.object, "\(source), chunk \(chunk)")
      }
    }
  }

  @Test func `files read whole, legs that never overlap and a venue alone give the same board in any chunks`() throws {
    let inputs = [BoardCommandTests.fixtures + "/json", "--sort-rows"] + Self.options
    let reference = arbkit(["board"] + inputs + ["--chunk-rows", "1000000"])
    #expect(reference.code == .success, "\(reference.errors)")
    let rows = reference.object["instruments"] as? [[String: Any]] ?? []
    let apart = rows.first { $0["instrument"] as? String == "ETH/USDT spot" }
    #expect((apart?["problem"] as? String)?.hasPrefix("legs do not overlap in time") == true)
    #expect(apart?["points"] as? Int == 0 && (apart?["venues"] as? [[String: Any]])?.map { $0["rows"] as? Int } == [1, 1])
    for chunk in ["1", "2", "7"] {
      let run = arbkit(["board"] + inputs + ["--chunk-rows", chunk])
      Self.expectSameBoard(run.object, reference.object, "chunk \(chunk)")
    }
  }

  @Test func `the best edge, the counts and each venue's rows are those of the whole series`() throws {
    let legs = try Self.legs.map { try LegSpec(parsing: $0).load(options: IngestOptions()).series }
    // The board's default --max-stale: a day.
    let alignment = AlignmentOptions(maxStale: 86_400_000_000, minimumLegs: 2)
    for chunk in ["1", "7", "65536"] {
      let run = arbkit(["board"] + Self.legs + Self.options + ["--chunk-rows", chunk])
      // The CSV prints each figure as it is (JSON is parsed here only for the venues' integers).
      let csv = arbkit(["board"] + Self.legs + ["--chunk-rows", chunk, "--format", "csv"])
      let lines = csv.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
      let header = try #require(lines.first)
      for (name, group) in [("BTC/USDC spot", Array(legs[0..<2])), ("BTC/KRW spot", Array(legs[2..<5]))] {
        let line = try #require(lines.first { $0.first == name })
        let column = { (key: String) in line[header.firstIndex(of: key)!] }
        let sorted = group.sorted { $0.instrument.venue < $1.instrument.venue }
        let whole = try PremiumSeries(legs: sorted, options: alignment, maxPremium: true)
        let i = try #require(whole.bestExecPoint)
        #expect(Double(column("best_exec")) == whole.exec[i], "\(name), chunk \(chunk)")
        #expect(column("best_exec_sell") == sorted[Int(whole.rich[i])].instrument.venue)
        #expect(column("best_exec_buy") == sorted[Int(whole.cheap[i])].instrument.venue)
        #expect(column("best_exec_ts_us") == "\(whole.time[i])")
        #expect(column("points") == "\(whole.count)" && column("valid_points") == "\(whole.validPoints)")
        let row = try #require((run.object["instruments"] as? [[String: Any]])?.first { $0["instrument"] as? String == name })
        #expect(row["stale_points"] as? Int == whole.count - whole.validPoints)
        let venues = row["venues"] as? [[String: Any]] ?? []
        #expect(venues.map { $0["venue"] as? String } == sorted.map(\.instrument.venue))
        #expect(venues.map { $0["rows"] as? Int } == sorted.map(\.count))
        #expect(venues.map { $0["first_ts_us"] as? Int } == sorted.map { $0.time.first.map(Int.init) })
        #expect(venues.map { $0["last_ts_us"] as? Int } == sorted.map { $0.time.last.map(Int.init) })
      }
    }
  }

  /// An instrument's files are streamed one after another; an overlap between two of them
  /// must stop the run before anything is read, as when they were joined in memory: also
  /// when the instrument is a duplicate left out, or on a venue alone.
  @Test func `files of one instrument that overlap stop the run at the later one's first data line, before any quote is read`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    func rows(_ venue: String, _ symbol: String, _ seconds: ClosedRange<Int>) -> String {
      header + seconds.map { "\(venue),\(symbol),\(1_709_251_200_000_000 + $0 * 1_000_000),\(1_709_251_200_000_000 + $0 * 1_000_000),1,100.1,100,1\n" }.joined()
    }
    let days = folder.path + "/days"
    try FileManager.default.createDirectory(atPath: days, withIntermediateDirectories: true)
    _ = folder.write("days/bn-1.csv", rows("binance", "BTCUSDT", 0...9))
    _ = folder.write("days/bn-2.csv", rows("binance", "BTCUSDT", 9...19))  // touches: its first quote replaces
    _ = folder.write("days/bn-3.csv", rows("binance", "BTCUSDT", 18...25))  // overlaps
    _ = folder.write("days/ok-1.csv", rows("okex", "BTC-USDT", 0...25))
    let expected = "bn-3.csv:2:1: error: "
    for arguments in [[days], ["binance:spot:BTCUSDT=" + folder.path + "/days/bn-1.csv", days], [days, "--offset", "bybit=+35ms"]] {
      let run = arbkit(["board"] + arguments + ["--format", "json"])
      #expect(run.code == .dataError && run.output.isEmpty, "\(arguments): \(run.errors)")
      #expect(run.errors.contains(expected) && run.errors.contains("19000000"), "\(arguments): \(run.errors)")
    }
    // Touching files only: one board, the replaced quote counted once.
    try FileManager.default.removeItem(atPath: days + "/bn-3.csv")
    let run = arbkit(["board", days, "--format", "json"])
    #expect(run.code == .success, "\(run.errors)")
    let legs = try #require((run.object["instruments"] as? [[String: Any]])?.first?["venues"] as? [[String: Any]])
    #expect(legs.map { $0["rows"] as? Int } == [20, 26])
  }

  @Test func `rejected rows of an instrument streamed are reported when a later one then fails`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    func row(_ venue: String, _ symbol: String, _ time: Int, _ prices: String) -> String { "\(venue),\(symbol),\(time),\(time),1,\(prices),1\n" }
    let a = header + (0..<5).map { row("binance", "BTCUSDT", 1_709_251_200_000_000 + $0 * 1_000_000, "100.1,100") }.joined()
    // The last row goes back in time: rejected with --bad-rows skip.
    let b = header + [0, 1, 2, 3, 4, 0].map { row("okex", "BTC-USDT", 1_709_251_200_500_000 + $0 * 1_000_000, "100.3,100.2") }.joined()
    let legs = [
      "binance:spot:BTCUSDT=" + folder.write("a.csv", a), "okx:spot:BTC-USDT=" + folder.write("b.csv", b),
      "binance:spot:ETHUSDT=" + folder.write("c.csv", "not,a,quote,header\n1,2,3,4\n"), "okx:spot:ETH-USDT=" + folder.write("d.csv", a),
    ]
    let run = arbkit(["board"] + legs + ["--bad-rows", "skip", "--quarantine", folder.path + "/q.csv"])
    #expect(run.code != .success && run.output.isEmpty, "\(run.errors)")
    #expect(run.errors.contains("b.csv: warning: 1 of 6 rows rejected (timestamp_backwards 1)"), "\(run.errors)")
  }

  @Test(
    "board shows the quotes read on a terminal: a count for named file legs, a bar for stores; nothing on a pipe",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func progress() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let stores = ConvertCommandTests.convertDemo(in: folder)
    let total = [DemoPair.binance, DemoPair.kraken].map { arbkit("inspect", $0, "--format", "json").object["rows_accepted"] as? Int ?? 0 }.reduce(0, +)
    let files = ["board", DemoPair.binance, DemoPair.kraken, "--chunk-rows", "1000"]
    let fromFiles = try StreamProgressTests.stderr(files, terminal: true)
    #expect(fromFiles.contains("\r\(total) quotes, ") && !fromFiles.contains("ETA"), "\(fromFiles.debugDescription)")
    let fromStores = try StreamProgressTests.stderr(["board"] + stores + ["--chunk-rows", "1000"], terminal: true)
    #expect(fromStores.contains("\r[" + String(repeating: "#", count: 30) + "] \(total)/\(total) quotes, "), "\(fromStores.debugDescription)")
    #expect(try StreamProgressTests.stderr(files, terminal: false) == "")
  }
}
