import ArbCLI
import Foundation
import TestSupport
import Testing

/// `arbkit premium … --shard I/N --out PARTIAL` over stores, joined by `arbkit merge`,
/// prints what the unsharded run prints, byte for byte: for any N (more shards than
/// days too), chunk sizes that put boundaries inside episodes, windows that cut days,
/// grids, and two or three legs; and the merge refuses what does not add up.
@Suite("arbkit premium, sharded by days")
struct ShardedPremiumTests {
  /// Runs `command` (`premium`, `basis`) unsharded and as `shards` shards merged;
  /// expects the same exit, stdout and stderr, and the same `--series` file.
  static func expectMergeEqualsWhole(
    _ arguments: [String], command: String = "premium", shards: Int, in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let whole = arbkit([command] + arguments)
    #expect(whole.code == .success, "\(whole.errors)", sourceLocation: sourceLocation)
    // A `--series` file is written by the merge to the same path: the unsharded one is moved aside.
    let series = arguments.firstIndex(of: "--series").map { arguments[$0 + 1] }
    if let series { #expect(rename(series, series + ".whole") == 0, sourceLocation: sourceLocation) }
    let partials = (1...shards).map { folder.path + "/part-\($0)-of-\(shards)" }
    for (k, partial) in partials.enumerated() {
      let run = arbkit([command] + arguments + ["--shard", "\(k + 1)/\(shards)", "--out", partial])
      #expect(run.code == .success && run.output.isEmpty, "shard \(k + 1)/\(shards): \(run.errors)", sourceLocation: sourceLocation)
    }
    // The order the partials are given in does not matter.
    let merged = arbkit(["merge"] + partials.reversed())
    #expect(merged.code == .success, "\(merged.errors)", sourceLocation: sourceLocation)
    #expect(merged.output == whole.output, "\(shards) shards of \(arguments)", sourceLocation: sourceLocation)
    #expect(merged.errors == whole.errors, "\(shards) shards of \(arguments)", sourceLocation: sourceLocation)
    if let series {
      let (a, b) = (FileManager.default.contents(atPath: series + ".whole"), FileManager.default.contents(atPath: series))
      #expect(a != nil && a == b, "--series of \(shards) shards", sourceLocation: sourceLocation)
      #expect(unlink(series) == 0 && unlink(series + ".whole") == 0, sourceLocation: sourceLocation)
    }
  }

  /// The demo pair (21 days of 1-minute candles) converted into a store.
  static func demoStore(_ folder: TemporaryFolder) -> [String] {
    let store = folder.path + "/store"
    #expect(arbkit("convert", DemoPair.binance, DemoPair.kraken, "--out", store).code == .success)
    return ["--leg", "binanceus:spot:BTCUSDC=" + store, "--leg", "kraken:spot:BTCUSDC=" + store]
  }

  @Test func `the real pair over 21 days merges to the unsharded bytes for 1 to 30 shards`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.demoStore(folder)
    let options = ["--max-stale", "2m", "--bands", "0.05,0.1,0.5", "--hysteresis", "0.02", "--chunk-rows", "300", "--format", "json"]
    for shards in [1, 2, 3, 7, 21, 30] { Self.expectMergeEqualsWhole(legs + options, shards: shards, in: folder) }
    // The table, chunks of a few points, a minimum episode.
    Self.expectMergeEqualsWhole(legs + ["--max-stale", "1m", "--chunk-rows", "7", "--min-episode", "5m"], shards: 6, in: folder)
    // The aligned series, written by the merge from the quotes the shards kept: CSV and Parquet.
    for name in ["series.csv", "series.parquet"] {
      Self.expectMergeEqualsWhole(legs + ["--max-stale", "2m", "--chunk-rows", "500", "--series", folder.path + "/" + name], shards: 4, in: folder)
    }
  }

  @Test func `windows that cut days and grids merge to the unsharded bytes`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.demoStore(folder)
    Self.expectMergeEqualsWhole(legs + ["--from", "2023-03-03T05:00:00Z", "--to", "2023-03-17T13:30:00Z", "--max-stale", "90s"], shards: 4, in: folder)
    Self.expectMergeEqualsWhole(legs + ["--to", "2023-03-02T12:00:00Z"], shards: 1, in: folder)
    Self.expectMergeEqualsWhole(legs + ["--from", "2023-03-20T06:00:00Z"], shards: 3, in: folder)
    Self.expectMergeEqualsWhole(legs + ["--grid", "5m", "--format", "csv", "--chunk-rows", "100"], shards: 5, in: folder)
    Self.expectMergeEqualsWhole(legs + ["--grid", "7m", "--max-stale", "3m", "--from", "2023-03-10T23:59:00Z", "--format", "json"], shards: 3, in: folder)
  }

  /// Their last year and a half: a day's partition per market and day, each opened by the unsharded run.
  @Test func `three KRW markets of daily closes with gaps merge to the unsharded bytes`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/krw"
    let coinone = "coinone:spot:BTC=" + Repository.data("samples/investing/coinone_BTC_KRW_daily.csv") + "@" + KimchiCommandTests.daily
    let convert = arbkit("convert", KimchiCommandTests.upbit, KimchiCommandTests.bithumb, coinone, "--out", store)
    #expect(convert.code == .success, "\(convert.errors)")
    let legs = ["--leg", "upbit:spot:KRW-BTC=" + store, "--leg", "bithumb:spot:BTC_KRW=" + store, "--leg", "coinone:spot:BTC=" + store]
    for shards in [2, 9, 40] {
      Self.expectMergeEqualsWhole(
        legs + ["--from", "2024-03-01", "--max-stale", "3d", "--bands", "0.5,1,2", "--chunk-rows", "50", "--format", "json"], shards: shards, in: folder)
    }
  }

  @Test func `generated quotes of three venues over five days merge to the unsharded bytes, warnings included`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // 24,000 quotes a venue, 18 s apart on average: about five days, the walks apart by a few tenths of a percent.
    let files = BoundedMemoryTests.quotes(folder, rows: 24_000, spread: 18_000_000)
    // A crossed quote at the end of one venue's file: rejected, and warned of by the merge as by the unsharded run.
    let handle = try #require(FileHandle(forWritingAtPath: files[1]))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("bybit,BTCUSDT,2000000000000000,2000000000000900,1.5,61000.0,61010.0,2.0\n".utf8))
    try handle.close()
    let store = folder.path + "/store"
    #expect(arbkit(["convert"] + files + ["--out", store, "--bad-rows", "skip"]).code == .success)
    let warned = arbkit(["premium"] + BoundedMemoryTests.venues.flatMap { ["--leg", "\($0.2)=\(store)"] })
    #expect(warned.errors.contains("1 of 72001 rows rejected (crossed_book 1)"), "\(warned.errors)")
    let legs = BoundedMemoryTests.venues.flatMap { ["--leg", "\($0.2)=\(store)"] }
    for shards in [2, 5] {
      Self.expectMergeEqualsWhole(
        legs + ["--max-stale", "30s", "--bands", "0.05,0.2,0.5", "--hysteresis", "0.01", "--chunk-rows", "333", "--format", "json"], shards: shards,
        in: folder)
    }
  }

  @Test func `a merge refuses missing, repeated and foreign partials, changed stores and damaged files`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.demoStore(folder)
    let part = { (name: String) in folder.path + "/" + name }
    for k in 1...3 { #expect(arbkit(["premium"] + legs + ["--shard", "\(k)/3", "--out", part("p\(k)")]).code == .success) }
    #expect(arbkit(["premium"] + legs + ["--max-stale", "1m", "--shard", "2/3", "--out", part("other")]).code == .success)
    #expect(arbkit(["premium"] + legs + ["--shard", "2/4", "--out", part("of4")]).code == .success)
    expectUsageError(["merge", part("p1"), part("p3")], "missing shard(s) 2/3")
    expectUsageError(["merge", part("p1"), part("p2"), part("p2"), part("p3")], "shard 2/3 is given twice")
    expectUsageError(["merge", part("p1"), part("other"), part("p3")], "is a shard of another run")
    expectUsageError(["merge", part("p1"), part("of4"), part("p3")], "is given with shards of 3")
    expectUsageError(["merge", part("p1"), part("p2"), part("p3"), "--out", part("x")], "merge to stdout")
    // A sweep shard among partials.
    let csv = folder.write("shard.csv", "cell\n")
    expectUsageError(["merge", part("p1"), csv], "is not a partial")
    // A damaged partial: cut short, or its points altered.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: part("p2")))
    try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: part("cut")))
    var run = arbkit("merge", part("p1"), part("cut"), part("p3"))
    #expect(run.code == .dataError && run.errors.contains("cut: error: truncated"), "\(run.errors)")
    var altered = bytes
    altered[8] ^= 0xFF
    try altered.write(to: URL(fileURLWithPath: part("altered")))
    run = arbkit("merge", part("p1"), part("altered"), part("p3"))
    #expect(run.code == .dataError && run.errors.contains("altered: error:"), "\(run.errors)")
    // Altered points, whether a shard could have made them or not (a leg index out of
    // range, a duration one µs off, a premium's last bit): each record's checksum.
    let firstRecord = Int(bytes[8..<16].withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
    var badLeg = bytes
    badLeg[8 + 16 + 35 * firstRecord] = 2  // the first point's `top`, of 2 legs
    try badLeg.write(to: URL(fileURLWithPath: part("badleg")))
    run = arbkit("merge", part("p1"), part("badleg"), part("p3"))
    #expect(run.code == .dataError && run.errors.contains("badleg: error: the record at byte 8 is damaged (checksum)"), "\(run.errors)")
    var badDuration = bytes
    badDuration[8 + 16 + 8 * firstRecord] ^= 0x01  // the first point's duration, one µs off
    try badDuration.write(to: URL(fileURLWithPath: part("badduration")))
    run = arbkit("merge", part("p1"), part("badduration"), part("p3"))
    #expect(run.code == .dataError && run.errors.contains("badduration: error: the record at byte 8 is damaged (checksum)"), "\(run.errors)")
    #expect(firstRecord > 1)
    var badMid = bytes
    badMid[8 + 16 + 16 * firstRecord + 1 * 8] ^= 0x01  // the second point's mid premium, its lowest bit
    try badMid.write(to: URL(fileURLWithPath: part("badmid")))
    run = arbkit("merge", part("p1"), part("badmid"), part("p3"))
    #expect(run.code == .dataError && run.errors.contains("badmid: error: the record at byte 8 is damaged (checksum)"), "\(run.errors)")
    // A partial of the first layout, of one section and no section numbers: made again.
    var older = bytes
    older[7] = UInt8(ascii: "1")
    try older.write(to: URL(fileURLWithPath: part("older")))
    run = arbkit("merge", part("p1"), part("older"), part("p3"))
    #expect(run.code == .dataError && run.errors.contains("a partial of layout ARBKPPT1, this arbkit reads ARBKPPT2: make the shards again"), "\(run.errors)")
    // A leg's quotes in the metadata altered: the metadata's checksum.
    var rows = bytes
    let key = Array("\"rows\":".utf8)
    let at = try #require((0..<(rows.count - key.count)).last { rows[$0..<($0 + key.count)].elementsEqual(key) })
    rows[at + key.count] = rows[at + key.count] == UInt8(ascii: "9") ? UInt8(ascii: "1") : rows[at + key.count] + 1
    try rows.write(to: URL(fileURLWithPath: part("badrows")))
    run = arbkit("merge", part("p1"), part("badrows"), part("p3"))
    #expect(run.code == .dataError && run.errors.contains("badrows: error: its metadata is damaged (checksum)"), "\(run.errors)")
    // A missing partial is a missing input.
    #expect(arbkit("merge", part("p1"), part("p2"), part("gone")).code == .noInput)
    // A folder or a device is no file (exit 66, as for any input), an empty file no partial.
    try FileManager.default.createDirectory(atPath: part("folder"), withIntermediateDirectories: false)
    run = arbkit("merge", part("p1"), part("p2"), part("folder"))
    #expect(run.code == .noInput && run.errors.contains("folder: error: is a folder, not a file"), "\(run.errors)")
    run = arbkit("merge", part("p1"), part("p2"), "/dev/null")
    #expect(run.code == .noInput && run.errors.contains("/dev/null: error: is a character device, not a file"), "\(run.errors)")
    run = arbkit("merge", part("p1"), part("p2"), folder.write("empty", ""))
    #expect(run.code == .dataError && run.errors.contains("empty: error: not a partial"), "\(run.errors)")
    #expect(arbkit("merge", part("gone"), part("gone-too")).code == .noInput)
    // No output inside a store the run reads.
    let inside = folder.path + "/store/store.json"
    let before = try Data(contentsOf: URL(fileURLWithPath: inside))
    expectUsageError(["premium"] + legs + ["--shard", "1/3", "--out", inside], "would overwrite \(folder.path)/store, an input of this run")
    expectUsageError(["premium"] + legs + ["--series", folder.path + "/store/series.csv"], "an input of this run")
    #expect(try Data(contentsOf: URL(fileURLWithPath: inside)) == before)
    // A store that changed after the shards were made.
    let another =
      "binanceus:spot:BTCUSDT=" + Repository.data("samples/binanceus_BTCUSDT_1m_2023-03-01_02.csv") + "@" + Repository.data("formats/binanceus-kline-1m.json")
    #expect(arbkit("convert", another, "--out", folder.path + "/store").code == .success)
    expectUsageError(["merge", part("p1"), part("p2"), part("p3")], "changed since the shards were made")
  }

  @Test func `--shard takes stores, an --out, and neither --size nor --offset`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.demoStore(folder)
    let out = folder.path + "/part"
    expectUsageError(["premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--shard", "1/2", "--out", out], "is not one: convert it")
    expectUsageError(["premium"] + legs + ["--shard", "1/2"], "--shard needs --out")
    expectUsageError(["premium"] + legs + ["--out", out], "--out is the partial result of --shard")
    expectUsageError(["premium"] + legs + ["--shard", "3/2", "--out", out], "I/N with 1 ≤ I ≤ N")
    // As many shards as an Int holds: all but the last own no day (no overflow on the way).
    let many = "\(Int.max)"
    #expect(arbkit(["premium"] + legs + ["--shard", "\(many)/\(many)", "--out", out]).code == .success)
    #expect(arbkit(["premium"] + legs + ["--shard", "1/\(many)", "--out", out]).code == .success)
    try? FileManager.default.removeItem(atPath: out)
    expectUsageError(["premium"] + legs + ["--shard", "1/2", "--out", out, "--offset", "kraken=+1s"], "--offset cannot be used with --shard")
    expectUsageError(["premium"] + legs + ["--shard", "1/2", "--out", out, "--size", "0.5"], "--size cannot be used with --shard")
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}
