import ArbCLI
import Foundation
import TestSupport
import Testing

/// `arbkit basis … --shard I/N --out PARTIAL` over stores, joined by `arbkit merge`,
/// prints and writes what the unsharded run prints and writes, byte for byte: every
/// pass (the basis, the reference premiums, the funding carry's mids), for any N (more
/// shards than days too) and chunks of a few points; and the merge refuses what does not
/// add up, as premium's does.
@Suite("arbkit basis, sharded by days")
struct ShardedBasisTests {
  /// Runs `basis` unsharded and as each of `shards` shards merged.
  static func expectMergeEqualsWhole(_ arguments: [String], shards: [Int], in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation) {
    for count in shards {
      ShardedPremiumTests.expectMergeEqualsWhole(arguments, command: "basis", shards: count, in: folder, sourceLocation: sourceLocation)
    }
  }

  /// The XRP perpetual, its mark price (as the spot) and its funding rates (about four
  /// days of hourly prices, a month of funding) converted into a store.
  static func xrpStore(_ folder: TemporaryFolder) -> [String] {
    let store = folder.path + "/xrp"
    let convert = arbkit("convert", BasisCommandTests.xrpMark, BasisCommandTests.xrpPerp, BasisCommandTests.xrpFunding, "--out", store)
    #expect(convert.code == .success, "\(convert.errors)")
    return ["--spot", store + "#mark", "--perp", store + "#price", "--funding", store + "#funding_rate"]
  }

  @Test func `the XRP perpetual over its mark with funding merges to the unsharded bytes for 1 to 40 shards`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.xrpStore(folder)
    let options = ["--window", "8h", "--max-stale", "1h", "--bands", "0.05,0.1,0.2", "--chunk-rows", "7"]
    Self.expectMergeEqualsWhole(legs + options + ["--format", "json"], shards: [1, 2, 3, 5, 8, 40], in: folder)
    // The table, chunks of one point and of a few, a grid, a window that cuts days, the series as CSV and Parquet.
    Self.expectMergeEqualsWhole(legs + options + ["--chunk-rows", "1", "--series", folder.path + "/series.csv"], shards: [3], in: folder)
    Self.expectMergeEqualsWhole(legs + options + ["--grid", "20m", "--series", folder.path + "/series.parquet", "--format", "json"], shards: [4], in: folder)
    Self.expectMergeEqualsWhole(
      legs + ["--from", "2021-11-17T05:00:00Z", "--to", "2021-11-20T13:30:00Z", "--window", "1d", "--chunk-rows", "4"], shards: [2, 6], in: folder)
    // Without funding.
    Self.expectMergeEqualsWhole(Array(legs.prefix(4)) + ["--chunk-rows", "3", "--format", "json"], shards: [3], in: folder)
  }

  @Test func `recorded tickers with mark, index and funding, and a calendar spread to its expiry, merge to the unsharded bytes`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (bybit, delivery) = (folder.path + "/bybit", folder.path + "/delivery")
    let file = StreamedBasisTests.bybit
    #expect(arbkit("convert", "bybit:spot:BTCUSDT=" + file, "bybit:linear:BTCUSDT=" + file, "--out", bybit).code == .success)
    let perp = "bybit:linear:BTCUSDT=" + bybit
    // One day of tickers: most shards own no day.
    Self.expectMergeEqualsWhole(
      ["--spot", "bybit:spot:BTCUSDT=" + bybit, "--perp", perp, "--mark", perp, "--index", perp, "--funding", perp, "--chunk-rows", "5", "--format", "json"],
      shards: [1, 3], in: folder)
    Self.expectMergeEqualsWhole(
      ["--spot", "bybit:spot:BTCUSDT=" + bybit, "--perp", perp, "--index", perp, "--max-stale", "2s", "--series", folder.path + "/series.csv"],
      shards: [2], in: folder)
    let slice = StreamedBasisTests.delivery
    #expect(arbkit("convert", "binance:inverse:BCHUSD_PERP=" + slice, "binance:future:BCHUSD_210924=" + slice, "--out", delivery).code == .success)
    Self.expectMergeEqualsWhole(
      ["--perp", "binance:inverse:BCHUSD_PERP=" + delivery, "--future", "binance:future:BCHUSD_210924=" + delivery, "--chunk-rows", "3", "--format", "json"],
      shards: [1, 4], in: folder)
  }

  @Test func `generated quotes over five days with mark and index merge to the unsharded bytes`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // 24,000 quotes a venue, 18 s apart on average: about five days.
    let files = BoundedMemoryTests.quotes(folder, rows: 24_000, spread: 18_000_000)
    let store = folder.path + "/store"
    #expect(arbkit(["convert"] + files + ["--out", store]).code == .success)
    let legs = [
      "--spot", "binance:spot:BTCUSDT=" + store, "--perp", "bybit:linear:BTCUSDT=" + store, "--mark", "okx:spot:BTC-USDT=\(store)#price",
      "--index", "binance:spot:BTCUSDT=\(store)#price",
    ]
    Self.expectMergeEqualsWhole(
      legs + ["--max-stale", "30s", "--bands", "0.05,0.2,0.5", "--hysteresis", "0.01", "--chunk-rows", "333", "--format", "json"], shards: [2, 5, 9],
      in: folder)
    Self.expectMergeEqualsWhole(legs + ["--max-stale", "30s", "--chunk-rows", "13", "--series", folder.path + "/series.csv"], shards: [4], in: folder)
  }

  @Test func `a merge of basis partials refuses missing, repeated and foreign partials, changed stores and damaged files`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.xrpStore(folder)
    let part = { (name: String) in folder.path + "/" + name }
    for k in 1...3 { #expect(arbkit(["basis"] + legs + ["--window", "8h", "--shard", "\(k)/3", "--out", part("b\(k)")]).code == .success) }
    #expect(arbkit(["basis"] + legs + ["--window", "1d", "--shard", "2/3", "--out", part("other")]).code == .success)
    #expect(arbkit(["basis"] + legs + ["--window", "8h", "--shard", "2/4", "--out", part("of4")]).code == .success)
    let premium = ["--leg", legs[1], "--leg", legs[3]]
    #expect(arbkit(["premium"] + premium + ["--shard", "2/3", "--out", part("premium")]).code == .success)
    expectUsageError(["merge", part("b1"), part("b3")], "missing shard(s) 2/3")
    expectUsageError(["merge", part("b1"), part("b2"), part("b2"), part("b3")], "shard 2/3 is given twice")
    expectUsageError(["merge", part("b1"), part("other"), part("b3")], "is a shard of another run")
    expectUsageError(["merge", part("b1"), part("premium"), part("b3")], "is a shard of another run")
    expectUsageError(["merge", part("b1"), part("of4"), part("b3")], "is given with shards of 3")
    expectUsageError(["merge", part("b1"), part("b2"), part("b3"), "--format", "csv"], "expected table or json, was 'csv'")
    // Damaged: cut short, a count altered, the funding mids of a shard gone.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: part("b2")))
    try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: part("cut")))
    var run = arbkit("merge", part("b1"), part("cut"), part("b3"))
    #expect(run.code == .dataError && run.errors.contains("cut: error: truncated"), "\(run.errors)")
    var altered = bytes
    altered[8] ^= 0xFF
    try altered.write(to: URL(fileURLWithPath: part("altered")))
    run = arbkit("merge", part("b1"), part("altered"), part("b3"))
    #expect(run.code == .dataError && run.errors.contains("altered: error:"), "\(run.errors)")
    var section = bytes
    section[16] = 9  // the first record's section, of 1
    try section.write(to: URL(fileURLWithPath: part("section")))
    run = arbkit("merge", part("b1"), part("section"), part("b3"))
    #expect(run.code == .dataError && run.errors.contains("names section 9 of 1"), "\(run.errors)")
    // The funding mids the shard keeps, blanked (`"marks":[{…},…]` becomes `"marks":[ … ]` of
    // spaces): the metadata's checksum.
    let key = Array("\"marks\":[".utf8)
    let open = try #require((0..<(bytes.count - key.count)).last { bytes[$0..<($0 + key.count)].elementsEqual(key) }) + key.count
    let close = try #require(bytes[open...].firstIndex(of: UInt8(ascii: "]")))
    #expect(close - open > 10, "shard 2/3 owns funding events")
    var emptied = bytes
    emptied.replaceSubrange(open..<close, with: repeatElement(UInt8(ascii: " "), count: close - open))
    try emptied.write(to: URL(fileURLWithPath: part("nomarks")))
    run = arbkit("merge", part("b1"), part("nomarks"), part("b3"))
    #expect(run.code == .dataError && run.errors.contains("nomarks: error: its metadata is damaged (checksum)"), "\(run.errors)")
    // A missing partial is a missing input.
    #expect(arbkit("merge", part("b1"), part("b2"), part("gone")).code == .noInput)
    // A store that changed after the shards were made.
    #expect(arbkit("convert", DemoPair.binance, "--out", folder.path + "/xrp").code == .success)
    expectUsageError(["merge", part("b1"), part("b2"), part("b3")], "changed since the shards were made")
  }

  @Test func `basis --shard takes stores, an --out, and neither --size nor --offset`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.xrpStore(folder)
    let out = folder.path + "/part"
    expectUsageError(
      ["basis", "--spot", BasisCommandTests.xrpMark, "--perp", BasisCommandTests.xrpPerp, "--shard", "1/2", "--out", out], "is not one: convert it")
    // The funding rates too.
    expectUsageError(Array(["basis"] + legs.prefix(4)) + ["--funding", BasisCommandTests.xrpFunding, "--shard", "1/2", "--out", out], "is not one")
    expectUsageError(["basis"] + legs + ["--shard", "1/2"], "--shard needs --out")
    expectUsageError(["basis"] + legs + ["--out", out], "--out is the partial result of --shard")
    expectUsageError(["basis"] + legs + ["--shard", "0/2", "--out", out], "I/N with 1 ≤ I ≤ N")
    expectUsageError(["basis"] + legs + ["--shard", "1/2", "--out", out, "--offset", "unknown=+1s"], "--offset cannot be used with --shard")
    expectUsageError(["basis"] + legs + ["--shard", "1/2", "--out", out, "--size", "0.5"], "--size cannot be used with --shard")
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}
