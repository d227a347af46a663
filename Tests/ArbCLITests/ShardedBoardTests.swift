import ArbCLI
import Foundation
import TestSupport
import Testing

/// `arbkit board … --shard I/N --out PARTIAL`, joined by `arbkit merge`, prints what the
/// unsharded board prints, byte for byte, in every format: for any N (more shards than
/// instruments too), over real recordings, files read whole, a store and generated
/// quotes; and the merge refuses partials that do not belong together.
@Suite("arbkit board, sharded by instrument")
struct ShardedBoardTests {
  /// Runs `board` unsharded and as each of `shards` shards merged (the partials, written
  /// in `folder`, given in reverse): the same stdout and stderr.
  static func expectMergeEqualsWhole(_ arguments: [String], shards: [Int], in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation) {
    let whole = arbkit(["board"] + arguments)
    #expect(whole.code == .success, "\(whole.errors)", sourceLocation: sourceLocation)
    for count in shards {
      let partials = (1...count).map { folder.path + "/board-\($0)-of-\(count)" }
      for (k, partial) in partials.enumerated() {
        let run = arbkit(["board"] + arguments + ["--shard", "\(k + 1)/\(count)", "--out", partial])
        #expect(run.code == .success && run.output.isEmpty, "shard \(k + 1)/\(count): \(run.errors)", sourceLocation: sourceLocation)
      }
      let merged = arbkit(["merge"] + partials.reversed())
      #expect(merged.code == .success, "\(merged.errors)", sourceLocation: sourceLocation)
      #expect(merged.output == whole.output, "\(count) shards of \(arguments)", sourceLocation: sourceLocation)
      #expect(merged.errors == whole.errors, "\(count) shards of \(arguments)", sourceLocation: sourceLocation)
    }
  }

  /// Tardis quotes of `coins` on three venues (a random walk each, the venues a few
  /// basis points apart, at random times), in `folder`: also coins on one venue only
  /// and a leg of a venue outside the registry.
  static func generated(_ folder: TemporaryFolder, coins: [String], quotes: Int, seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let venues: [(name: String, symbol: (String) -> String)] = [
      ("binance", { "\($0)USDT" }), ("bybit-spot", { "\($0)USDT" }), ("okex", { "\($0)-USDT" }),
    ]
    var rows: [[(time: Int64, line: String)]] = venues.map { _ in [] }
    for coin in coins {
      var price = 10 + 1000 * random.uniform()
      var time = BoardCommandTests.t0
      for _ in 0..<quotes {
        time += 1 + Int64(random.next() % 5_000_000)
        price *= 1 + 0.001 * random.normal()
        let v = Int(random.next() % 3)
        let mid = price * (1 + 0.0005 * Double(v) + 0.0002 * random.normal())
        let (bid, ask) = (mid * 0.9999, mid * 1.0001)
        rows[v].append((time, "\(venues[v].name),\(venues[v].symbol(coin)),\(time),\(time),1,\(ask),\(bid),1"))
      }
    }
    let t1 = BoardCommandTests.t0 + 10_000_000_000
    rows[0].append((t1, "binance,MATICUSDT,\(t1),\(t1),1,0.51,0.5,1"))
    rows[1].append((t1 + 1, "bybit-spot,LINKUSDT,\(t1 + 1),\(t1 + 1),1,7.01,7,1"))
    rows[2].append((t1 + 2, "okex,LINK-USDT,\(t1 + 2),\(t1 + 2),1,7.02,7.01,1"))
    rows[2].append((t1 + 3, "okex,MATIC-USDT,\(t1 + 3),\(t1 + 3),1,0.52,0.51,1"))
    rows[1].append((t1 + 4, "bybit-spot,DOTUSDT,\(t1 + 4),\(t1 + 4),1,4.01,4,1"))
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    for (v, venue) in venues.enumerated() {
      folder.write(venue.name + ".csv", header + rows[v].sorted { $0.time < $1.time }.map { $0.line + "\n" }.joined())
    }
    folder.write("mystery.csv", header + "mystery,BTCUSDT,\(t1),\(t1),1,101,100,1\n")
  }

  @Test func `the real legs from files and from a store merge to the unsharded bytes in every format for 1 to 5 shards`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Two instruments on the board and one on a venue alone: 5 shards are more than its 3 parts.
    let legs = StreamedBoardTests.legs
    let options = ["--bands", "0.05,0.1,0.5", "--hysteresis", "0.02"]
    Self.expectMergeEqualsWhole(legs + options + ["--format", "json"], shards: [1, 2, 5], in: folder)
    for format in ["table", "csv"] { Self.expectMergeEqualsWhole(legs + options + ["--format", format], shards: [3], in: folder) }
    let store = folder.path + "/store"
    #expect(arbkit(["convert"] + legs + ["--out", store]).code == .success)
    Self.expectMergeEqualsWhole([store, "--sort", "instrument", "--chunk-rows", "7", "--format", "json"], shards: [2], in: folder)
  }

  @Test func `files read whole, legs that never overlap and legs set aside merge to the unsharded bytes`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let inputs = [BoardCommandTests.fixtures + "/json", "--sort-rows"]
    for format in ["table", "csv", "json"] {
      Self.expectMergeEqualsWhole(inputs + ["--format", format], shards: [1, 2, 3, 9], in: folder)
    }
  }

  /// Seeds of generated boards, and the shard counts tried (13 is more than the parts).
  static let generatedCases: [(seed: UInt64, shards: [Int])] = [(1, [1, 2, 3, 4]), (7, [5, 13])]

  @Test(arguments: generatedCases)
  func `generated quotes of many coins merge to the unsharded bytes`(c: (seed: UInt64, shards: [Int])) {
    let (folder, data) = (TemporaryFolder(), TemporaryFolder())
    defer { folder.cleanup() }
    defer { data.cleanup() }
    Self.generated(data, coins: ["BTC", "ETH", "SOL", "XRP", "ADA", "DOGE", "LTC"], quotes: 400, seed: c.seed)
    let options = ["--bands", "0.02,0.05", "--max-stale", "20s", "--sort", "max", "--chunk-rows", "16"]
    for format in ["table", "csv", "json"] {
      Self.expectMergeEqualsWhole([data.path] + options + ["--format", format], shards: c.shards, in: folder)
    }
  }

  @Test func `a board without rows merges to the same output and warning`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let one = folder.write("one.csv", BoardCommandTests.quotes([("binance", "BTCUSDT", 0, 100, 100.2), ("bybit-spot", "SOLUSDT", 10, 20, 20.01)]))
    Self.expectMergeEqualsWhole([one], shards: [1, 3], in: folder)
  }

  @Test func `merge --format prints the board of the partials in another format`() {
    let (folder, data) = (TemporaryFolder(), TemporaryFolder())
    defer { folder.cleanup() }
    defer { data.cleanup() }
    Self.generated(data, coins: ["BTC", "ETH", "SOL"], quotes: 100, seed: 3)
    let part = { (k: Int) in folder.path + "/p\(k)" }
    for k in 1...2 { #expect(arbkit("board", data.path, "--format", "json", "--shard", "\(k)/2", "--out", part(k)).code == .success) }
    for format in ["table", "csv"] {
      let merged = arbkit("merge", part(1), part(2), "--format", format)
      #expect(merged.code == .success && merged.output == arbkit("board", data.path, "--format", format).output, "\(format)")
    }
  }

  @Test func `a merge of board partials refuses partials of other runs, inputs or shards, and --shard takes no --size`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let data = TemporaryFolder()
    defer { data.cleanup() }
    Self.generated(data, coins: ["BTC", "ETH"], quotes: 50, seed: 5)
    let part = { (name: String) in folder.path + "/" + name }
    for k in 1...2 { #expect(arbkit("board", data.path, "--shard", "\(k)/2", "--out", part("b\(k)")).code == .success) }
    #expect(arbkit("board", data.path, "--max-stale", "1s", "--shard", "2/2", "--out", part("other")).code == .success)
    let legs = ShardedPremiumTests.demoStore(folder)
    #expect(arbkit(["premium"] + legs + ["--shard", "2/2", "--out", part("premium")]).code == .success)
    expectUsageError(["merge", part("b1")], "missing shard(s) 2/2")
    expectUsageError(["merge", part("b1"), part("b1"), part("b2")], "shard 1/2 is given twice")
    expectUsageError(["merge", part("b1"), part("other")], "is a shard of another run")
    expectUsageError(["merge", part("b1"), part("premium")], "is a shard of another run")
    expectUsageError(["merge", part("premium"), part("b2")], "is a shard of another run")
    expectUsageError(["merge", part("b1"), part("b2"), "--out", part("merged")], "merge to stdout")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: part("b2")))
    try bytes.prefix(bytes.count - 1).write(to: URL(fileURLWithPath: part("cut")))
    let cut = arbkit("merge", part("b1"), part("cut"))
    #expect(cut.code == .dataError && cut.errors.contains("cut: error: truncated"), "\(cut.errors)")
    var damaged = bytes
    damaged[20] ^= 1
    try damaged.write(to: URL(fileURLWithPath: part("damaged")))
    let run = arbkit("merge", part("b1"), part("damaged"))
    #expect(run.code == .dataError && run.errors.contains("damaged: error: its metadata is damaged (checksum)"), "\(run.errors)")
    #expect(arbkit("merge", part("b1"), part("gone")).code == .noInput)
    let notFile = arbkit("merge", part("b1"), part("b2"), data.path)
    #expect(notFile.code == .noInput && notFile.errors.contains("\(data.path): error: is a folder, not a file"), "\(notFile.errors)")
    // A usage error shows both forms of merge.
    let missing = arbkit("merge", part("b1"))
    #expect(missing.errors.contains("Usage: arbkit merge SHARD.csv… --out PATH") && missing.errors.contains("arbkit merge PARTIAL… [--format"))
    // An input that changed between the shards.
    data.write("okex.csv", "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n")
    #expect(arbkit("board", data.path, "--shard", "2/2", "--out", part("later")).code == .success)
    expectUsageError(["merge", part("b1"), part("later")], "was made from other inputs")
    let out = part("refused")
    expectUsageError(["board", data.path, "--size", "1", "--shard", "1/2", "--out", out], "--size cannot be used with --shard")
    expectUsageError(["board", data.path, "--shard", "1/2"], "--shard needs --out")
    expectUsageError(["board", data.path, "--out", out], "--out is the partial result of --shard")
    expectUsageError(["board", data.path, "--shard", "3/2", "--out", out], "--shard")
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}
