import ArbCLI
import Foundation
import Testing
import TestSupport

/// `--size`: the executable premium at a trade size from book depth, on `premium` and
/// `board`, against hand-worked books and a slow walk of the real snapshot files' text.
@Suite("Size-aware executable premium (--size)")
struct SizeFlagTests {
  static let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
  static let snapshot5 = fixtures + "/binance-futures_book_snapshot_5_BTCUSDT.csv"
  static let snapshot25 = fixtures + "/binance-futures_book_snapshot_25_BTCUSDT.csv"

  /// The books of a snapshot file read from its text: time (local), bids and asks best first.
  static func books(_ path: String) throws -> [(time: Int64, bids: [(Double, Double)], asks: [(Double, Double)])] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
      let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      var bids: [(Double, Double)] = [], asks: [(Double, Double)] = []
      for level in 0..<((f.count - 4) / 4) {
        if let p = Double(f[4 + 4 * level]) { asks.append((p, Double(f[5 + 4 * level])!)) }
        if let p = Double(f[6 + 4 * level]) { bids.append((p, Double(f[7 + 4 * level])!)) }
      }
      return (Int64(f[3])!, bids, asks)
    }
  }

  /// Plain fill of levels already best first.
  static func walk(_ levels: [(Double, Double)], _ q: Double) -> Double? {
    var left = q, notional = 0.0
    for (p, s) in levels where left > 0 {
      notional += min(s, left) * p
      left -= min(s, left)
    }
    return left > 0 ? nil : notional / q
  }

  @Test("premium --size on the real book_snapshot_25 and _5 slices against a slow walk of their text", arguments: [0.5, 10.0, 20.0])
  func realSnapshots(size: Double) throws {
    let run = arbkit("premium", "--leg", Self.snapshot25, "--leg", Self.snapshot5, "--size", JSONValueText(size), "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let sized = try #require(run.object["size"] as? [String: Any])
    #expect(sized["depth"] as? [String] == ["book, up to 25 levels", "book, up to 5 levels"])
    // The union clock over both files, each leg's book as of each time (linear search).
    let a = try Self.books(Self.snapshot25), b = try Self.books(Self.snapshot5)
    let start = max(a[0].time, b[0].time)
    let times = Set(a.map(\.time) + b.map(\.time)).filter { $0 >= start }.sorted()
    var values: [Double] = []
    var short = 0
    for t in times {
      let x = a.last { $0.time <= t }!, y = b.last { $0.time <= t }!
      var best: Double? = nil
      for (sell, buy) in [(x, y), (y, x)] {
        guard let bid = Self.walk(sell.bids, size), let ask = Self.walk(buy.asks, size) else { continue }
        best = max(best ?? -.infinity, (bid / ask - 1) * 100)
      }
      if let best { values.append(best) } else { short += 1 }
    }
    #expect(sized["valid_points"] as? Int == values.count && sized["short_points"] as? Int == short)
    let exec = try #require(sized["exec"] as? [String: Any])
    #expect(exec["count"] as? Int == values.count)
    if values.isEmpty {
      #expect(exec["mean"] is NSNull && exec["max"] is NSNull)
    } else {
      #expect(isClose(exec["mean"] as? Double, values.reduce(0, +) / Double(values.count), rel: 1e-9, abs: 1e-12))
      #expect(isClose(exec["max"] as? Double, values.max(), rel: 1e-12, abs: 1e-12))
    }
    if size == 20 { #expect(values.isEmpty && short == times.count) }  // five levels never hold 20 BTC
    if size == 10 { #expect(!values.isEmpty) }  // one direction fills (the 5-level bids hold 12.4)
    #expect(allNumbersFinite(run.object))
  }

  @Test("board --size, hand-worked: exec at the size and capacity on two venues' snapshots")
  func boardHandWorked() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var header = "exchange,symbol,timestamp,local_timestamp"
    for i in 0..<5 { header += ",asks[\(i)].price,asks[\(i)].amount,bids[\(i)].price,bids[\(i)].amount" }
    let empty = String(repeating: ",,,,", count: 3)
    folder.write("a.csv", header + "\nbinance-futures,BTCUSDT,1000,1000,100.2,1,100.1,1,100.3,2,100.0,3" + empty + "\n")
    folder.write("b.csv", header + "\nbybit,BTCUSDT,1000,1000,99.9,0.5,99.8,2,100.0,1,99.7,2" + empty + "\n")
    let run = arbkit("board", folder.path, "--size", "1", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let row = try #require((run.object["instruments"] as? [[String: Any]])?.first)
    #expect(row["instrument"] as? String == "BTC/USDT linear perp")
    let sized = try #require(row["size"] as? [String: Any])
    // Sell 1 on binance at 100.1, buy 1 on bybit at (0.5·99.9 + 0.5·100)/1 = 99.95.
    let exec = try #require(sized["exec"] as? [String: Any])
    #expect(isClose(exec["max"] as? Double, (100.1 / 99.95 - 1) * 100, rel: 1e-12))
    // Capacity at 0.1 % (k = 1.001): slopes 100.1 − 99.9999 = 0.1001 over 0.5, 100.1 − 100.1 = 0
    // over 0.5, 100 − 100.1 = −0.1 over 0.5: g = 0.05005 − 0.05 ≥ 0 when bybit's asks run out at 1.5.
    let capacity = try #require(sized["capacity"] as? [[String: Any]])
    #expect(capacity.map { $0["band"] as? Double } == [0.05, 0.1])
    #expect(capacity.allSatisfy { isClose($0["max"] as? Double, 1.5, rel: 1e-12) })
    #expect(sized["depth"] as? [String] == ["book, up to 2 levels", "book, up to 2 levels"])
    // Two BTC: bybit's asks hold 1.5, binance's bids 4 but bybit's bids 4 and binance's asks 3:
    // only selling on bybit fills, at a loss.
    let two = arbkit("board", folder.path, "--size", "2", "--format", "csv")
    let line = two.output.split(separator: "\n")
    let header2 = line[0].split(separator: ",").map(String.init), values = line[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    let column = { (name: String) in values[header2.firstIndex(of: name)!] }
    let bid = (99.8 * 2) / 2, ask = (100.2 + 100.3) / 2
    #expect(isClose(Double(column("size_exec_max")), (bid / ask - 1) * 100, rel: 1e-12))
    #expect(column("size_short_points") == "0" && column("size_valid_points") == "1")
  }

  @Test("a level-1 source says so; a size without a value is a usage error")
  func levelOne() throws {
    let run = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--size", "0.5")
    #expect(run.code == .success)
    #expect(run.output.contains("depth binanceus:spot:BTCUSDC: none: no sizes"))
    #expect(arbkit("premium", "--leg", "a", "--leg", "b", "--size", "0").errors.contains("invalid value for '--size'"))
    // REST book tickers carry the top level with its sizes: used as a one-level book, and said so
    // (without the fixture's Bybit order book, whose whole-book series a leg would take first).
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let lines = try String(contentsOfFile: Self.fixtures + "/json/rest-snapshots.jsonl", encoding: .utf8).split(separator: "\n")
    let tickers = folder.write("tickers.jsonl", lines.filter { !$0.contains("/v5/market/orderbook") }.joined(separator: "\n") + "\n")
    let rest = arbkit("board", tickers, "--size", "0.01", "--format", "json")
    let perp = try #require((rest.object["instruments"] as? [[String: Any]])?.first { $0["instrument"] as? String == "BTC/USDT linear perp" })
    #expect((perp["size"] as? [String: Any])?["depth"] as? [String] == ["level 1 only", "level 1 only"])
  }
}

extension SizeFlagTests {
  /// A Tardis `book_snapshot_5` file of `rows` books on a random walk: 1 to 5 levels a
  /// side, times `gap` µs apart at most, every 37th row at the time of the row before
  /// (collapsed to the later one); the header, then the rows.
  static func snapshots(venue: String, rows: Int, seed: UInt64, gap: UInt64 = 400_000) -> (header: String, rows: [String]) {
    var random = SplitMix64(seed: seed)
    var header = "exchange,symbol,timestamp,local_timestamp"
    for i in 0..<5 { header += ",asks[\(i)].price,asks[\(i)].amount,bids[\(i)].price,bids[\(i)].amount" }
    var time: Int64 = 1_700_000_000_000_000, tenths = 300_000
    var lines: [String] = []
    lines.reserveCapacity(rows)
    for j in 0..<rows {
      if j % 37 != 1 { time += 1 + Int64(random.next() % gap) }
      tenths += Int(random.next() % 61) - 30
      let ask = tenths + 1 + Int(random.next() % 10), bid = tenths - 1 - Int(random.next() % 10)
      var line = "\(venue),BTCUSDT,\(time),\(time)"
      let levels = 1 + Int(random.next() % 5)
      for i in 0..<5 {
        guard i < levels else {
          line += ",,,,"
          continue
        }
        let askSize = 1 + Int(random.next() % 40), bidSize = 1 + Int(random.next() % 40)
        line += ",\(BoundedMemoryTests.decimal(ask + i)),\(BoundedMemoryTests.decimal(askSize))"
        line += ",\(BoundedMemoryTests.decimal(bid - i)),\(BoundedMemoryTests.decimal(bidSize))"
      }
      lines.append(line)
    }
    return (header, lines)
  }

  @Test func `book snapshots stream with their books: the figures of a slow walk, and of the files read whole`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let a = Self.snapshots(venue: "binance-futures", rows: 400, seed: 5), b = Self.snapshots(venue: "bybit", rows: 400, seed: 6)
    // binance's books in two files, the second gzipped; bybit's in one.
    let a1 = folder.write("a1.csv", ([a.header] + a.rows[..<150]).joined(separator: "\n") + "\n")
    let a2 = folder.write("a2.csv", ([a.header] + a.rows[150...]).joined(separator: "\n") + "\n")
    #expect(try runProgram("/bin/sh", ["-c", "gzip '\(a2)'"]) == 0)
    let bPath = folder.write("b.csv", ([b.header] + b.rows).joined(separator: "\n") + "\n")
    let legs = ["--leg", "binance:linear:BTCUSDT=\(a1),\(a2).gz", "--leg", bPath]
    let common = ["--size", "2", "--max-stale", "3s", "--format", "json"]
    let streamed = arbkit(["premium"] + legs + common + ["--chunk-rows", "3"])
    #expect(streamed.code == .success, "\(streamed.errors)")
    let sized = try #require(streamed.object["size"] as? [String: Any])
    #expect(sized["depth"] as? [String] == ["book, up to 5 levels", "book, up to 5 levels"])
    // The slow walk: the union clock, each leg's usable book as of each time.
    let books = { (rows: [String]) in try Self.books(folder.write("all.csv", ([a.header] + rows).joined(separator: "\n") + "\n")) }
    let x = try books(a.rows), y = try books(b.rows)
    let times = Set(x.map(\.time) + y.map(\.time)).filter { $0 >= max(x[0].time, y[0].time) }.sorted()
    var values: [Double] = []
    for t in times {
      guard let p = x.last(where: { $0.time <= t }), let q = y.last(where: { $0.time <= t }), t - p.time <= 3_000_000, t - q.time <= 3_000_000 else {
        continue
      }
      var best: Double? = nil
      for (sell, buy) in [(p, q), (q, p)] {
        guard let bid = Self.walk(sell.bids, 2), let ask = Self.walk(buy.asks, 2) else { continue }
        best = max(best ?? -.infinity, (bid / ask - 1) * 100)
      }
      if let best { values.append(best) }
    }
    let exec = try #require(sized["exec"] as? [String: Any])
    #expect(values.count > 100 && exec["count"] as? Int == values.count)
    #expect(isClose(exec["mean"] as? Double, values.reduce(0, +) / Double(values.count), rel: 1e-9, abs: 1e-12))
    // The walk's average is kept between the prices taken: equal to 1e-12.
    #expect(isClose(exec["max"] as? Double, values.max(), rel: 1e-12) && isClose(exec["min"] as? Double, values.min(), rel: 1e-12))
    // Read whole (--sort) at the same chunk size, the figures are the same to the byte;
    // so are the sized basis's, on a grid and in a window too.
    for extra in [[], ["--grid", "1s"], ["--from", "2023-11-14T22:13:40Z", "--to", "2023-11-14T22:14:20Z"]] {
      for command in [["premium"] + legs, ["basis", "--perp", legs[1], "--spot", "bybit:linear:BTCUSDT=\(bPath)"]] {
        let once = arbkit(command + common + ["--chunk-rows", "3"] + extra), whole = arbkit(command + common + ["--chunk-rows", "3", "--sort"] + extra)
        #expect(once.code == .success && once.output == whole.output, "\(command[0]) \(extra): \(once.errors)")
      }
    }
  }
}

extension SizeFlagTests {
  @Test func `rebuilt L2 books stream with their books: the figures of the files read whole`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Two venues' books, each file with a second instrument the legs do not take.
    let files = [("binance-futures", UInt64(41)), ("bybit", 42)].map { venue, seed in
      let rows = TardisL2Generator.rows(exchange: venue, symbols: ["BTCUSDT", "ETHUSDT"], messages: 1_200, seed: seed, gap: 2_000_000)
      return folder.write("\(venue).csv", ([TardisL2Generator.header] + rows).joined(separator: "\n") + "\n")
    }
    try Self.expectStreamedAsWhole("binance:linear:BTCUSDT=\(files[0])", "bybit:linear:BTCUSDT=\(files[1])")
  }

  @Test func `recorded REST books stream with their books: the figures of the files read whole`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Ticker tops and depth responses (1.125 BTC on the asks), with bad lines, an error
    // response and a torn last line.
    let files = [("linear", UInt64(43)), ("spot", 44)].map { market, seed in
      folder.write("binance-\(market).jsonl", RecordingGenerator.lines(market: market, tickersFirst: 50, mixed: 1_500, seed: seed))
    }
    try Self.expectStreamedAsWhole(
      "binance:linear:BTCUSDT=\(files[0])", "binance:spot:BTCUSDT=\(files[1])", size: "1",
      extra: ["--bad-rows", "skip", "--quarantine", folder.path + "/rejected.jsonl"])
  }

  /// `premium` (plain and at `size`), `basis` and `board` at `size` over the legs `a` and
  /// `b` print what they print with the legs' files read whole (rows sorted by time).
  static func expectStreamedAsWhole(_ a: String, _ b: String, size: String = "2", extra: [String] = []) throws {
    let common = ["--max-stale", "10s", "--format", "json", "--chunk-rows", "3"] + extra
    let runs: [[String]] = [
      ["premium", "--leg", a, "--leg", b], ["premium", "--leg", a, "--leg", b, "--size", size],
      ["basis", "--perp", a, "--spot", b, "--size", size], ["board", a, b, "--size", size],
    ]
    for command in runs {
      // Rows sorted by time: the files read whole.
      let sort = command[0] == "board" ? "--sort-rows" : "--sort"
      let streamed = arbkit(command + common), whole = arbkit(command + common + [sort])
      #expect(streamed.code == .success && streamed.output == whole.output, "\(command): \(streamed.errors)")
      if command.contains("--size") && command[0] != "board" {
        let sized = try #require(streamed.object["size"] as? [String: Any], "\(command)")
        let exec = try #require(sized["exec"] as? [String: Any] ?? sized["open"] as? [String: Any], "\(command)")
        #expect((exec["count"] as? Int ?? 0) > 100, "\(command): points priced at the size")
      }
    }
  }
}

/// Shortest text of a size for the command line.
private func JSONValueText(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
