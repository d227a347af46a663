import ArbIngest
import Foundation
import TestSupport
import Testing

// `arbkit inspect` and `convert`, `premium`, `rolling`, `basis`, `kimchi`, `correlate`, `board`, a sweep of convergence cells, an inventory backtest and sweep, and a
// backtest and sweep at drawn latencies, and an FX-converted backtest stream their legs: their peak
// memory does not grow with the length of the history, from CSV or Parquet files or from a store.
// Twice to eight times the rows must not cost more than a fixed allowance, far below what
// keeping the columns would add.
@Suite("Bounded memory")
struct BoundedMemoryTests {
  static let venues = [("binance", "BTCUSDT", "binance:spot:BTCUSDT"), ("bybit", "BTCUSDT", "bybit:linear:BTCUSDT"), ("okex", "BTC-USDT", "okx:spot:BTC-USDT")]
  /// What the peak may grow by from the small to the large input (keeping the columns
  /// of the rows the large input adds would cost 25 MiB or more).
  static let allowance = 8 << 20

  /// Writes Tardis quote files of `rows` quotes per venue, prices on independent walks,
  /// quotes `spread` µs apart on average (and at least 50 ms).
  static func quotes(_ folder: TemporaryFolder, rows: Int, spread: Int64 = 625_000) -> [String] {
    venues.enumerated().map { k, venue in
      var random = SplitMix64(seed: UInt64(k + 1))
      var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
      text.reserveCapacity(rows * 80)
      var time: Int64 = 1_709_251_200_000_000 + Int64(k) * 137
      var tenths = 620_000
      for _ in 0..<rows {
        time += 50_000 + Int64(random.next() % UInt64(2 * spread - 100_000))
        tenths += Int(random.next() % 41) - 20
        text += "\(venue.0),\(venue.1),\(time),\(time + 900),1.5,\(decimal(tenths)),\(decimal(tenths - 1)),2.0\n"
      }
      return folder.write("\(venue.0)-\(rows).csv", text)
    }
  }

  /// The Tardis quotes CSV at `path` as a Parquet file beside it, in row groups of 20,000
  /// rows (a streamed Parquet leg holds one row group).
  static func parquet(_ path: String) throws -> String {
    let out = path.replacingOccurrences(of: ".csv", with: ".parquet")
    let fields = [
      ArrowField("exchange", .utf8), ArrowField("symbol", .utf8), ArrowField("timestamp", .timestampMicros), ArrowField("local_timestamp", .int64),
      ArrowField("ask_amount", .float64), ArrowField("ask_price", .float64), ArrowField("bid_price", .float64), ArrowField("bid_amount", .float64),
    ]
    let writer = try ParquetFileWriter(path: out, fields: fields)
    let rows = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
    for start in stride(from: 0, to: rows.count, by: 20_000) {
      let group = rows[start..<min(start + 20_000, rows.count)]
      try writer.write(
        [.strings(group.map { $0[0] }), .strings(group.map { $0[1] })] + (2...3).map { k in .integers(group.map { Int64($0[k])! }) }
          + (4...7).map { k in .doubles(group.map { Double($0[k])! }) })
    }
    try writer.commit()
    return out
  }

  /// `tenths` / 10 with one decimal.
  static func decimal(_ tenths: Int) -> String { "\(tenths / 10).\(tenths % 10)" }

  /// Runs the arbkit beside the tests with `arguments` under GNU time (a child of the
  /// test process would inherit the test's own peak); its exit status and peak resident
  /// memory in bytes.
  static func peak(
    _ arguments: [String], folder: TemporaryFolder, environment: [String: String] = [:], output: String? = nil
  ) throws -> (status: Int32, bytes: Int) {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit").path
    try #require(FileManager.default.isExecutableFile(atPath: binary), "the arbkit binary is built beside the tests")
    try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time is installed (make test installs it)")
    let report = folder.path + "/peak.txt"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
    process.arguments = ["-f", "%M", "-o", report, binary] + arguments
    process.standardOutput = FileHandle.nullDevice
    if let output {
      _ = FileManager.default.createFile(atPath: output, contents: nil)
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    try process.run()
    process.waitUntilExit()
    let kilobytes = try #require(Int(try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").last ?? ""))
    return (process.terminationStatus, kilobytes * 1024)
  }

  /// A command and the flags that name its legs, one per venue of `venues` (the first
  /// ones); without flags, the legs are arguments (`board`): the files as named legs, the
  /// store as a whole, each of its series a leg.
  struct Analysis: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var legFlags: [String]
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let analyses = [
    Analysis(arguments: ["premium", "--max-stale", "5s"], legFlags: ["--leg", "--leg", "--leg"]),
    Analysis(arguments: ["premium", "--max-stale", "5s", "--size", "1"], legFlags: ["--leg", "--leg", "--leg"]),
    Analysis(arguments: ["rolling", "--max-stale", "5s", "--window", "300", "--ewma", "100", "--out", "rows.csv"], legFlags: ["--leg", "--leg", "--leg"]),
    Analysis(arguments: ["basis", "--max-stale", "5s", "--series", "rows.csv"], legFlags: ["--spot", "--perp"]),
    Analysis(arguments: ["basis", "--max-stale", "5s", "--size", "1"], legFlags: ["--spot", "--perp"]),
    // The third venue stands in for the rate (a market): the premium's level does not matter here.
    Analysis(arguments: ["correlate", "--max-stale", "5s"], legFlags: ["--leg", "--leg", "--leg"]),
    Analysis(arguments: ["correlate", "--max-stale", "5s", "--pairwise"], legFlags: ["--leg", "--leg", "--leg"]),
    Analysis(arguments: ["kimchi", "--max-stale", "5s", "--series", "rows.csv"], legFlags: ["--krw", "--usd", "--fx-market"]),
    // binance and okx on the board, bybit's perp alone beside it.
    Analysis(arguments: ["board", "--max-stale", "5s"], legFlags: []),
    Analysis(arguments: ["board", "--max-stale", "5s", "--size", "1"], legFlags: []),
  ]

  @Test("an analysis's peak memory does not grow with the rows, from CSV, from Parquet and from a store", arguments: analyses)
  func analysis(_ analysis: Analysis) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let arguments = analysis.arguments.map { $0 == "rows.csv" ? folder.path + "/rows.csv" : $0 }
    var peaks: [String: [Int]] = [:]
    // Both sizes hold a whole day (about 138 K quotes at these gaps): a store's partition
    // is a day, and the system maps a mapped column's pages in whole page-cache folios
    // (up to about 1 MiB a column here), so a store read from a part-day partition peaks
    // lower by the part missing, whatever the history's length.
    for rows in [160_000, 320_000] {
      let files = Self.quotes(folder, rows: rows)
      let tables = try files.map(Self.parquet)
      let store = folder.path + "/store-\(rows)"
      #expect(try Self.peak(["convert"] + files + ["--out", store], folder: folder).status == 0)
      let legs: [String: [String]] =
        analysis.legFlags.isEmpty
        ? ["csv": zip(Self.venues, files).map { "\($0.2)=\($1)" }, "parquet": zip(Self.venues, tables).map { "\($0.2)=\($1)" }, "store": [store]]
        : [
          "csv": zip(analysis.legFlags, files).flatMap { [$0, $1] },
          "parquet": zip(analysis.legFlags, tables).flatMap { [$0, $1] },
          "store": zip(analysis.legFlags, Self.venues).flatMap { [$0, "\($1.2)=\(store)"] },
        ]
      for (source, legArguments) in legs {
        let run = try Self.peak([arguments[0]] + legArguments + arguments.dropFirst() + ["--chunk-rows", "256", "--format", "json"], folder: folder)
        #expect(run.status == 0, "\(source) \(rows)")
        peaks[source, default: []].append(run.bytes)
      }
    }
    for (source, bytes) in peaks {
      #expect(bytes[1] - bytes[0] <= Self.allowance, "\(source): peak \(bytes[0] >> 10) KiB at 160 K rows a leg, \(bytes[1] >> 10) KiB at 320 K")
    }
  }

  /// The peak memory of `premium`, `basis` and `board` at a size and of a backtest walking
  /// the books, by command, over `files`: the `BTCUSDT` books of the two `markets` (venue
  /// and market; `tag` names the backtest's scenario).
  static func bookPeaks(
    _ files: [String], markets: [(venue: String, market: String)] = [("binance", "linear"), ("bybit", "linear")], tag: String,
    folder: TemporaryFolder
  ) throws -> [String: Int] {
    let (a, b) = ("\(markets[0].venue):\(markets[0].market):BTCUSDT=\(files[0])", "\(markets[1].venue):\(markets[1].market):BTCUSDT=\(files[1])")
    let common = ["--size", "2", "--max-stale", "5s", "--chunk-rows", "256", "--format", "json"]
    let scenario = folder.write(
      "walk-\(tag).json",
      #"{ "legs": [{ "venue": "\#(markets[0].venue)", "market": "\#(markets[0].market)", "symbol": "BTCUSDT", "files": ["\#(files[0])"] }, "#
        + #"{ "venue": "\#(markets[1].venue)", "market": "\#(markets[1].market)", "symbol": "BTCUSDT", "files": ["\#(files[1])"] }], "#
        + #""strategy": { "mode": "convergence", "entry": 0.05, "exit": 0.0, "notional": 60000, "max_holding": "10s" }, "#
        + #""costs": { "fill": "book", "partial": "hedge", "latency": "50ms" } }"#)
    let runs = [
      "premium": ["premium", "--leg", a, "--leg", b] + common,
      "basis": ["basis", "--perp", a, "--spot", b] + common,
      "board": ["board", a, b] + common,
      "backtest": ["backtest", scenario, "--chunk-rows", "256", "--format", "json"],
    ]
    var peaks: [String: Int] = [:]
    for (name, arguments) in runs {
      let run = try Self.peak(arguments, folder: folder)
      #expect(run.status == 0, "\(name) \(tag)")
      peaks[name] = run.bytes
    }
    return peaks
  }

  /// Expects the `bookPeaks` over the files `files(size)` made at the two `sizes` (of
  /// `unit`s) to differ by at most the allowance.
  static func expectBookPeaksKept(
    sizes: [Int], unit: String, markets: [(venue: String, market: String)] = [("binance", "linear"), ("bybit", "linear")],
    folder: TemporaryFolder, files: (Int) -> [String]
  ) throws {
    var peaks: [String: [Int]] = [:]
    for size in sizes {
      for (name, bytes) in try bookPeaks(files(size), markets: markets, tag: "\(size)", folder: folder) { peaks[name, default: []].append(bytes) }
    }
    for (name, bytes) in peaks {
      #expect(bytes[1] - bytes[0] <= allowance, "\(name): peak \(bytes[0] >> 10) KiB at \(sizes[0]) \(unit), \(bytes[1] >> 10) KiB at \(sizes[1])")
    }
  }

  /// Book snapshots with their depth kept (`--size`, book-walking fills) stream with the
  /// book behind each quote: four times the books cost no more (read whole, they would
  /// add about 80 MB).
  @Test func `premium, basis and board at a size, and a backtest walking the books, over book snapshots keep their peak`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    try Self.expectBookPeaksKept(sizes: [40_000, 160_000], unit: "books a leg", folder: folder) { rows in
      [("binance-futures", UInt64(1)), ("bybit", 2)].map { venue, seed in
        let file = SizeFlagTests.snapshots(venue: venue, rows: rows, seed: seed)
        return folder.write("\(venue)-\(rows).csv", ([file.header] + file.rows).joined(separator: "\n") + "\n")
      }
    }
  }

  /// Rebuilt L2 books stream too, with the book behind each quote when a size asks for
  /// it: three times the messages cost no more (read whole, each file's two instruments'
  /// quotes and books would add tens of MB).
  @Test func `premium, basis and board at a size, and a backtest walking the books, over rebuilt L2 books keep their peak`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    try Self.expectBookPeaksKept(sizes: [80_000, 240_000], unit: "messages a file", folder: folder) { messages in
      [("binance-futures", UInt64(3)), ("bybit", 4)].map { venue, seed in
        let rows = TardisL2Generator.rows(exchange: venue, symbols: ["BTCUSDT", "ETHUSDT"], messages: messages, seed: seed, gap: 400_000)
        return folder.write("\(venue)-\(messages).csv", ([TardisL2Generator.header] + rows).joined(separator: "\n") + "\n")
      }
    }
  }

  /// JSON-lines recordings stream too, the books of their depth responses behind the
  /// quotes: four times the polls cost no more (read whole, each file's three series and
  /// its books would add about 15 MB).
  @Test func `premium, basis and board at a size, and a backtest walking the books, over recorded REST books keep their peak`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    try Self.expectBookPeaksKept(sizes: [20_000, 80_000], unit: "polls a file", markets: [("binance", "linear"), ("binance", "spot")], folder: folder) {
      polls in
      [("linear", UInt64(6)), ("spot", 5)].map { market, seed in
        folder.write("binance-\(market)-\(polls).jsonl", RecordingGenerator.lines(market: market, tickersFirst: 0, mixed: polls, faults: false, seed: seed))
      }
    }
  }

  /// Each instrument of the board in several files (one per day, as recordings come) used
  /// to be joined in memory, and each file spilled kept about half a MiB of heap.
  @Test func `board over files of 20,000 quotes, more of them for more quotes, keeps its peak and its figures`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var peaks: [Int] = []
    for rows in [160_000, 320_000] {
      let days = folder.path + "/days-\(rows)"
      try FileManager.default.createDirectory(atPath: days, withIntermediateDirectories: true)
      for (k, file) in Self.quotes(folder, rows: rows).enumerated() {
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let length = 20_000
        for (part, start) in stride(from: 1, to: lines.count, by: length).enumerated() {
          let text = ([lines[0]] + lines[start..<min(start + length, lines.count)]).joined(separator: "\n") + "\n"
          _ = folder.write("days-\(rows)/\(Self.venues[k].0)-\(part).csv", text)
        }
      }
      let whole = folder.path + "/whole.json", split = folder.path + "/split.json"
      let arguments = ["--max-stale", "5s", "--chunk-rows", "256", "--format", "json"]
      let files = Self.venues.map { folder.path + "/\($0.0)-\(rows).csv" }
      #expect(try Self.peak(["board"] + files + arguments, folder: folder, output: whole).status == 0)
      let run = try Self.peak(["board", days] + arguments, folder: folder, output: split)
      #expect(run.status == 0)
      peaks.append(run.bytes)
      // The same rows and figures as from one file a venue.
      let (a, b) = (
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: whole))),
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: split)))
      )
      #expect(((a as? [String: Any])?["instruments"] as? NSArray) == ((b as? [String: Any])?["instruments"] as? NSArray), "\(rows)")
      #expect(((b as? [String: Any])?["instruments"] as? [Any])?.count == 1)
    }
    #expect(peaks[1] - peaks[0] <= Self.allowance, "peak \(peaks[0] >> 10) KiB at 160 K rows a venue, \(peaks[1] >> 10) KiB at 320 K")
  }

  @Test func `a sweep's and a lookahead check's peak memory does not grow with the rows, from CSV and from a store`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var peaks: [String: [Int]] = [:]
    var rows: [String: [String]] = [:]
    for count in [40_000, 320_000] {
      // A store streams a day's partition at a time: a quote every 5 s puts several
      // whole days in the smaller input too, so that only the number of days grows.
      let files = Array(Self.quotes(folder, rows: count, spread: 5_000_000).prefix(2))
      let stores = files.map { $0 + ".store" }
      for (file, store) in zip(files, stores) { #expect(try Self.peak(["convert", file, "--out", store], folder: folder).status == 0) }
      for (source, paths) in [("csv", files), ("store", stores)] {
        let scenario = folder.write(
          "sweep-\(source)-\(count).json",
          """
          { "legs": [
              { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["\(paths[0])"] },
              { "venue": "bybit", "market": "linear", "symbol": "BTCUSDT", "files": ["\(paths[1])"] } ],
            "alignment": { "max_stale": "30s" },
            "strategy": { "mode": "convergence", "entry": 0.05, "exit": 0, "notional": 10000 },
            "costs": { "latency": "20ms" } }
          """)
        let out = folder.path + "/sweep-\(source)-\(count).csv"
        let run = try Self.peak(
          [
            "sweep", scenario, "--grid", "strategy.entry=0.01:0.1:0.01", "--grid", "strategy.exit=-0.02,0", "--grid", "costs.latency=0ms,20ms",
            "--chunk-rows", "256", "--quiet", "--out", out,
          ], folder: folder)
        #expect(run.status == 0, "\(source) \(count)")
        peaks[source, default: []].append(run.bytes)
        rows[source, default: []].append(try String(contentsOfFile: out, encoding: .utf8))
        guard source == "store" else { continue }
        // The lookahead check reruns the streamed backtest on legs cut at each time.
        let check = try Self.peak(["backtest", scenario, "--lookahead-check", "--cuts", "4", "--chunk-rows", "256", "--format", "json"], folder: folder)
        #expect(check.status == 0, "lookahead check \(count)")
        peaks["lookahead check", default: []].append(check.bytes)
      }
    }
    for (run, bytes) in peaks {
      #expect(
        bytes[1] - bytes[0] <= Self.allowance,
        "\(run == "lookahead check" ? run : "sweep \(run)"): peak \(bytes[0] >> 10) KiB at 40 K rows a leg, \(bytes[1] >> 10) KiB at 320 K")
    }
    // The same cells from the files and from the stores; the cells trade.
    #expect(rows["csv"] == rows["store"])
    #expect(rows["csv"]?.last?.split(separator: "\n").dropFirst().contains { !$0.contains(",0,0,0,") } == true)
  }

  @Test func `an inventory backtest's and sweep's peak memory does not grow with the rows`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var peaks: [String: [Int]] = [:]
    var trades: [Int] = []
    for count in [40_000, 320_000] {
      let quotes = Self.quotes(folder, rows: count, spread: 5_000_000)
      let files = [quotes[0], quotes[2]]
      // Balances for about one trade between hourly rebalances: the trades grow with the hours, not the rows.
      let scenario = folder.write(
        "inventory-\(count).json",
        """
        { "legs": [
            { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["\(files[0])"], "base": 0.02, "quote": 1500 },
            { "venue": "okx", "market": "spot", "symbol": "BTC-USDT", "files": ["\(files[1])"], "base": 0.02, "quote": 1500 } ],
          "alignment": { "max_stale": "30s" },
          "strategy": { "mode": "inventory", "entry": 0.02, "notional": 1000 },
          "costs": { "latency": "20ms" }, "rebalance": { "cost": 1, "delay": "1h" } }
        """)
      let backtest = try Self.peak(
        ["backtest", scenario, "--chunk-rows", "256", "--format", "json", "--inventory", folder.path + "/balances.csv"], folder: folder)
      let out = folder.path + "/inventory-\(count).csv"
      let sweep = try Self.peak(
        ["sweep", scenario, "--grid", "strategy.entry=0.02:0.1:0.02", "--grid", "costs.latency=0ms,20ms", "--chunk-rows", "256", "--quiet", "--out", out],
        folder: folder)
      #expect(backtest.status == 0 && sweep.status == 0, "\(count)")
      peaks["backtest", default: []].append(backtest.bytes)
      peaks["sweep", default: []].append(sweep.bytes)
      trades.append(try String(contentsOfFile: folder.path + "/balances.csv", encoding: .utf8).split(separator: "\n").count)
    }
    for (command, bytes) in peaks {
      #expect(bytes[1] - bytes[0] <= Self.allowance, "\(command): peak \(bytes[0] >> 10) KiB at 40 K rows a leg, \(bytes[1] >> 10) KiB at 320 K")
    }
    #expect(trades[0] > 10 && trades[1] > trades[0], "the runs trade and rebalance: \(trades)")
  }

  @Test func `a backtest's and sweep's peak memory at drawn latencies does not grow with the rows`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var peaks: [String: [Int]] = [:]
    var outputs: [String] = []
    for count in [40_000, 320_000] {
      let files = Array(Self.quotes(folder, rows: count, spread: 5_000_000).prefix(2))
      // Drawn on both legs, bybit's recorded from its two clocks (receive 900 µs after the exchange).
      let scenario = folder.write(
        "drawn-\(count).json",
        """
        { "legs": [
            { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["\(files[0])"] },
            { "venue": "bybit", "market": "linear", "symbol": "BTCUSDT", "files": ["\(files[1])"] } ],
          "alignment": { "max_stale": "30s" },
          "strategy": { "mode": "convergence", "entry": 0.05, "exit": 0, "notional": 10000 },
          "costs": { "latency": "lognormal:2s:1", "venue_latency": { "bybit": "recorded" }, "seed": 4 } }
        """)
      let backtest = try Self.peak(["backtest", scenario, "--chunk-rows", "256", "--format", "json"], folder: folder)
      let out = folder.path + "/drawn-\(count).csv"
      let sweep = try Self.peak(
        [
          "sweep", scenario, "--grid", "strategy.entry=0.02:0.1:0.02", "--grid", "costs.latency=uniform:0ms:20s,lognormal:1s:2,recorded",
          "--chunk-rows", "256", "--quiet", "--out", out,
        ], folder: folder)
      #expect(backtest.status == 0 && sweep.status == 0, "\(count)")
      peaks["backtest", default: []].append(backtest.bytes)
      peaks["sweep", default: []].append(sweep.bytes)
      outputs.append(try String(contentsOfFile: out, encoding: .utf8))
    }
    for (command, bytes) in peaks {
      #expect(bytes[1] - bytes[0] <= Self.allowance, "\(command): peak \(bytes[0] >> 10) KiB at 40 K rows a leg, \(bytes[1] >> 10) KiB at 320 K")
    }
    #expect(outputs[1].split(separator: "\n").dropFirst().contains { !$0.contains(",0,0,0,") }, "the cells trade")
  }

  @Test func `an FX-converted backtest's peak memory does not grow with the rows of its legs nor of its FX series`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    _ = folder.write("rate.json", #"{ "kind": "fx", "header": true, "time": { "column": "time", "form": "us" }, "price": "rate", "symbol": "USDX" }"#)
    var peaks: [Int] = []
    var summaries: [[String: Any]] = []
    for count in [40_000, 320_000] {
      let files = Array(Self.quotes(folder, rows: count).prefix(2))
      // A rate near 1 every 0.6 s on average, as many as each leg has quotes.
      var random = SplitMix64(seed: 9)
      var rates = "time,rate\n"
      var time: Int64 = 1_709_251_200_000_000
      for _ in 0..<count {
        time += 100_000 + Int64(random.next() % 1_000_000)
        rates += "\(time),1.000\(random.next() % 10)\n"
      }
      let fx = folder.write("fx-\(count).csv", rates)
      let scenario = folder.write(
        "fx-\(count).json",
        """
        { "legs": [
            { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["\(files[0])"] },
            { "venue": "bybit", "market": "linear", "symbol": "BTCUSDT", "files": ["\(files[1])"] } ],
          "fx": { "files": ["\(fx)"], "format": "rate.json", "max_stale": "700ms", "converts": "bybit" },
          "alignment": { "max_stale": "30s" },
          "strategy": { "mode": "convergence", "entry": 0.05, "exit": 0, "notional": 10000 } }
        """)
      let backtest = try Self.peak(["backtest", scenario, "--chunk-rows", "256", "--format", "json"], folder: folder)
      #expect(backtest.status == 0, "\(count)")
      peaks.append(backtest.bytes)
      let run = arbkit("backtest", scenario, "--chunk-rows", "256", "--format", "json")
      summaries.append(try #require(run.object["fx"] as? [String: Any]))
      #expect(run.object["trades"] as? Int ?? 0 > 10, "the run trades")
    }
    #expect(peaks[1] - peaks[0] <= Self.allowance, "peak \(peaks[0] >> 10) KiB at 40 K rows a leg and rate, \(peaks[1] >> 10) KiB at 320 K")
    // Every quote of the converted leg counted; a rate older than 700 ms leaves some without one.
    #expect(summaries.map { $0["quotes"] as? Int } == [40_000, 320_000])
    #expect(summaries.allSatisfy { ($0["unusable_quotes"] as? Int ?? 0) > 0 })
  }

  @Test func `board over files whose rows name their instruments streams each through a temporary store, removed at the end`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let temporary = folder.path + "/tmp"
    try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    var peaks: [Int] = []
    for rows in [20_000, 160_000] {
      // One file per venue, each with BTC and ETH rows: the board's legs are known only
      // once the files are read.
      var files: [String] = []
      for path in Self.quotes(folder, rows: rows) {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").enumerated().map { k, line in
          k > 0 && k % 2 == 0 ? line.replacingOccurrences(of: "BTC", with: "ETH") : String(line)
        }
        files.append(folder.write("both-" + (path.split(separator: "/").last.map(String.init) ?? ""), lines.joined(separator: "\n") + "\n"))
      }
      let unnamed = folder.path + "/unnamed-\(rows).json"
      let run = try Self.peak(
        ["board"] + files + ["--max-stale", "5s", "--chunk-rows", "256", "--format", "json"], folder: folder, environment: ["TMPDIR": temporary],
        output: unnamed)
      #expect(run.status == 0, "\(rows)")
      peaks.append(run.bytes)
      #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "the temporary stores are removed")
      // The same legs named, each streamed from its file: the same board (at the same
      // chunk size, by which the means are merged).
      let named = zip(Self.venues, files).flatMap { venue, file in
        [venue.2 + "=" + file, venue.2.replacingOccurrences(of: "BTC", with: "ETH") + "=" + file]
      }
      let expected = arbkit(["board"] + named + ["--max-stale", "5s", "--chunk-rows", "256", "--format", "json"])
      #expect(expected.code == .success, "\(expected.errors)")
      let board = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: unnamed))) as? [String: Any]
      let rows = try #require(board?["instruments"] as? [[String: Any]])
      #expect(rows.count == 2 && NSArray(array: rows).isEqual(to: expected.object["instruments"] as? [Any] ?? []), "\(rows)")
    }
    #expect(peaks[1] - peaks[0] <= Self.allowance, "board: peak \(peaks[0] >> 10) KiB at 20 K rows a file, \(peaks[1] >> 10) KiB at 160 K")
  }

  @Test func `inspect's and convert's peak memory does not grow with the rows of a CSV, a compressed or a Parquet file`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var peaks: [String: [Int]] = [:]
    // Both sizes past the sizes at which a file is read on two threads (a plain file of
    // 16 MiB, a compressed one of 1 MiB): those add a fixed amount, not one that grows.
    for rows in [320_000, 640_000] {
      let csv = Self.quotes(folder, rows: rows)[0]
      let gzip = Process()
      gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
      gzip.arguments = ["-k", csv]
      try gzip.run()
      gzip.waitUntilExit()
      for (kind, path) in [("csv", csv), ("gzip", csv + ".gz"), ("parquet", try Self.parquet(csv))] {
        let run = try Self.peak(["inspect", path, "--format", "json"], folder: folder)
        #expect(run.status == 0, "\(kind) \(rows)")
        peaks["inspect " + kind, default: []].append(run.bytes)
        let store = folder.path + "/\(kind)-\(rows).store"
        let converted = try Self.peak(["convert", path, "--out", store], folder: folder)
        #expect(converted.status == 0, "convert \(kind) \(rows)")
        peaks["convert " + kind, default: []].append(converted.bytes)
        #expect(arbkit("inspect", store, "--format", "json").object["rows_accepted"] as? Int == rows, "\(kind) \(rows)")
      }
      #expect(arbkit("inspect", csv, "--format", "json").object["rows_accepted"] as? Int == rows)
    }
    for (kind, bytes) in peaks {
      #expect(bytes[1] - bytes[0] <= Self.allowance, "\(kind): peak \(bytes[0] >> 10) KiB at 320 K rows, \(bytes[1] >> 10) KiB at 640 K")
    }
  }

  /// A JSON-lines recording is counted and converted line after line (read whole, three
  /// times the polls would add about 30 MB).
  @Test func `inspect's and convert's peak memory does not grow with the lines of a JSON recording`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var peaks: [String: [Int]] = [:]
    for polls in [100_000, 300_000] {
      let path = folder.write("binance-spot-\(polls).jsonl", RecordingGenerator.lines(tickersFirst: polls, mixed: 0, faults: false, seed: 8))
      let run = try Self.peak(["inspect", path, "--format", "json"], folder: folder)
      #expect(run.status == 0, "inspect \(polls)")
      peaks["inspect", default: []].append(run.bytes)
      let store = folder.path + "/\(polls).store"
      let converted = try Self.peak(["convert", path, "--out", store], folder: folder)
      #expect(converted.status == 0, "convert \(polls)")
      peaks["convert", default: []].append(converted.bytes)
      // Two series of `polls` quotes each: BTCUSDT's and ETHUSDT's.
      #expect(arbkit("inspect", store, "--format", "json").object["rows_accepted"] as? Int == polls, "\(polls)")
      let series = arbkit("inspect", store, "--format", "json").object["instruments"] as? [[String: Any]]
      #expect(series?.map { $0["rows"] as? Int } == [polls, polls], "\(polls)")
    }
    for (kind, bytes) in peaks {
      #expect(bytes[1] - bytes[0] <= Self.allowance, "\(kind): peak \(bytes[0] >> 10) KiB at 100 K polls, \(bytes[1] >> 10) KiB at 300 K")
    }
  }

  /// A venue's ticker response for every symbol is one line naming thousands of
  /// instruments: each series reserves a few rows, not pages of them (20,000 series of
  /// 4,096-row stages peaked at 650 MB).
  @Test func `a recording whose lines name 20,000 instruments is read in little memory`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let items = (0..<20_000).map { #"{"symbol":"S\#($0)USDT","bidPrice":"1.0","bidQty":"1","askPrice":"1.1","askQty":"1"}"# }.joined(separator: ",")
    let lines = (0..<3).map { t in
      #"{"recv_ts_us":\#(RecordingGenerator.start + Int64(t) * 100_000),"venue":"binance","endpoint":"/api/v3/ticker/bookTicker","params":{},"status":200,"response":[\#(items)]}"#
    }
    let path = folder.write("wide.jsonl", lines.joined(separator: "\n") + "\n")
    let counted = try Self.peak(["inspect", path, "--format", "json"], folder: folder)
    let analysed = try Self.peak(
      ["premium", "--leg", "binance:spot:S5USDT=\(path)", "--leg", "binance:spot:S7USDT=\(path)", "--format", "json"], folder: folder)
    #expect(counted.status == 0 && analysed.status == 0)
    #expect(counted.bytes < 160 << 20 && analysed.bytes < 240 << 20, "peaks \(counted.bytes >> 20) and \(analysed.bytes >> 20) MiB")
    #expect(arbkit("inspect", path, "--format", "json").object["rows_accepted"] as? Int == 3)
  }

  @Test func `convert's peak memory into a table does not grow with the rows past a row group`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Both sizes past the 262,144 rows of a row group, which the writer holds.
    var peaks: [Int] = []
    for rows in [300_000, 1_200_000] {
      var random = SplitMix64(seed: 3)
      var time: Int64 = 1_709_251_200_000_000
      var tenths = 620_000
      var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
      text.reserveCapacity(rows * 80)
      for _ in 0..<rows {
        time += 50_000 + Int64(random.next() % 1_000_000)
        tenths += Int(random.next() % 41) - 20
        text += "binance,BTCUSDT,\(time),\(time + 900),1.5,\(Self.decimal(tenths)),\(Self.decimal(tenths - 1)),2.0\n"
      }
      let csv = folder.write("binance-\(rows).csv", text)
      let table = folder.path + "/binance-\(rows).parquet"
      let run = try Self.peak(["convert", csv, "--out", table], folder: folder)
      #expect(run.status == 0, "\(rows)")
      peaks.append(run.bytes)
      #expect(arbkit("inspect", table, "--format", "json").object["rows_accepted"] as? Int == rows)
      // The temporary store it went through is gone.
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.contains(".spill") })
    }
    #expect(peaks[1] - peaks[0] <= Self.allowance, "peak \(peaks[0] >> 10) KiB at 300 K rows, \(peaks[1] >> 10) KiB at 1.2 M")
  }

  @Test func `convert's peak memory does not grow with the number of files`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Eight consecutive days of one series, a file of 100 K quotes each (a store takes a
    // series' day from one source).
    var files: [String] = []
    var random = SplitMix64(seed: 5)
    var tenths = 620_000
    for k in 0..<8 {
      var time = 1_709_251_200_000_000 + Int64(k) * 86_400_000_000
      var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
      for _ in 0..<100_000 {
        time += 50_000 + Int64(random.next() % 1_000_000)
        tenths += Int(random.next() % 41) - 20
        text += "binance,BTCUSDT,\(time),\(time + 900),1.5,\(Self.decimal(tenths)),\(Self.decimal(tenths - 1)),2.0\n"
      }
      files.append(folder.write("binance-\(k).csv", text))
    }
    let one = try Self.peak(["convert", files[0], "--out", folder.path + "/one"], folder: folder)
    let all = try Self.peak(["convert"] + files + ["--out", folder.path + "/all"], folder: folder)
    #expect(one.status == 0 && all.status == 0)
    #expect(all.bytes - one.bytes <= Self.allowance, "peak \(one.bytes >> 10) KiB for one file, \(all.bytes >> 10) KiB for eight")
    let summary = arbkit("inspect", folder.path + "/all", "--format", "json").object
    #expect(summary["rows_accepted"] as? Int == 800_000)
  }
}
