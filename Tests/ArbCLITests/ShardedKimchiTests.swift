import ArbCLI
import Foundation
import TestSupport
import Testing

/// `arbkit kimchi … --shard I/N --out PARTIAL` over stores, joined by `arbkit merge`,
/// prints and writes what the unsharded run prints and writes, byte for byte: each KRW
/// market's premium (its FX staleness too) and the premium among them, for any N (more
/// shards than days too) and chunks of a few points; and the merge refuses what does not
/// add up.
@Suite("arbkit kimchi, sharded by days")
struct ShardedKimchiTests {
  /// Runs `kimchi` unsharded and as each of `shards` shards merged.
  static func expectMergeEqualsWhole(_ arguments: [String], shards: [Int], in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation) {
    for count in shards {
      ShardedPremiumTests.expectMergeEqualsWhole(arguments, command: "kimchi", shards: count, in: folder, sourceLocation: sourceLocation)
    }
  }

  /// Daily closes of Upbit, Bithumb and Bitstamp and the USD/KRW rate in a store, and the
  /// legs of the premium of the two KRW markets over Bitstamp.
  static func dailyStore(_ folder: TemporaryFolder) -> [String] {
    let store = folder.path + "/daily"
    let convert = arbkit(
      "convert", KimchiCommandTests.upbit, KimchiCommandTests.bithumb, KimchiCommandTests.bitstamp, KimchiCommandTests.usdkrw, "--out", store)
    #expect(convert.code == .success, "\(convert.errors)")
    return [
      "--krw", "upbit:spot:KRW-BTC=" + store, "--krw", "bithumb:spot:BTC_KRW=" + store, "--usd", "bitstamp:spot:BTCUSD=" + store, "--fx",
      "fx:fx:USDKRW=" + store,
    ]
  }

  @Test func `two KRW markets of daily closes with an FX rate merge to the unsharded bytes for 1 to 40 shards`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.dailyStore(folder)
    let options = ["--from", "2024-06-01", "--max-stale", "3d", "--fx-max-stale", "2d", "--bands", "0.5,1,2", "--chunk-rows", "50"]
    Self.expectMergeEqualsWhole(legs + options + ["--format", "json"], shards: [1, 2, 9, 40], in: folder)
    // The table, chunks of a few points, the series of both markets on their union clock.
    Self.expectMergeEqualsWhole(legs + options + ["--chunk-rows", "7", "--series", folder.path + "/series.csv"], shards: [3], in: folder)
    // One KRW market: its series written as its points come; a window that ends mid-history.
    Self.expectMergeEqualsWhole(
      Array(legs[0..<2] + legs[4...]) + ["--from", "2024-09-01", "--to", "2025-01-15T12:00:00Z", "--chunk-rows", "3", "--series", folder.path + "/one.csv"],
      shards: [4], in: folder)
  }

  @Test func `a day of 5-minute candles over the daily FX rate merges to the unsharded bytes`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    let convert = arbkit("convert", KimchiCommandTests.upbit5m, KimchiCommandTests.binance5m, KimchiCommandTests.usdkrw, "--out", store)
    #expect(convert.code == .success, "\(convert.errors)")
    let legs = ["--krw", "upbit:spot:KRW-BTC=" + store, "--usd", "binance:spot:BTCUSDT=" + store, "--fx", "fx:fx:USDKRW=" + store]
    Self.expectMergeEqualsWhole(
      legs + ["--from", "2025-07-01", "--max-stale", "10m", "--chunk-rows", "11", "--format", "json"], shards: [1, 2, 5], in: folder)
  }

  @Test func `a merge of kimchi partials refuses what premium's refuses, and --shard takes stores and no --offset`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.dailyStore(folder) + ["--from", "2025-01-01"]
    let part = { (name: String) in folder.path + "/" + name }
    for k in 1...2 { #expect(arbkit(["kimchi"] + legs + ["--shard", "\(k)/2", "--out", part("k\(k)")]).code == .success) }
    #expect(arbkit(["kimchi"] + legs + ["--max-stale", "1d", "--shard", "2/2", "--out", part("other")]).code == .success)
    #expect(arbkit(["premium", "--leg", legs[1], "--leg", legs[3], "--from", "2025-01-01", "--shard", "2/2", "--out", part("premium")]).code == .success)
    expectUsageError(["merge", part("k1")], "missing shard(s) 2/2")
    expectUsageError(["merge", part("k1"), part("k1"), part("k2")], "shard 1/2 is given twice")
    expectUsageError(["merge", part("k1"), part("other")], "is a shard of another run")
    expectUsageError(["merge", part("k1"), part("premium")], "is a shard of another run")
    expectUsageError(["merge", part("k1"), part("k2"), "--format", "csv"], "expected table or json, was 'csv'")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: part("k2")))
    try bytes.prefix(bytes.count - 1).write(to: URL(fileURLWithPath: part("cut")))
    let run = arbkit("merge", part("k1"), part("cut"))
    #expect(run.code == .dataError && run.errors.contains("cut: error: truncated"), "\(run.errors)")
    #expect(arbkit("merge", part("k1"), part("gone")).code == .noInput)
    let out = part("part")
    expectUsageError(
      ["kimchi", "--krw", KimchiCommandTests.upbit, "--usd", KimchiCommandTests.bitstamp, "--fx", KimchiCommandTests.usdkrw, "--shard", "1/2", "--out", out],
      "is not one: convert it")
    expectUsageError(["kimchi"] + legs + ["--shard", "1/2", "--out", out, "--offset", "upbit=+1s"], "--offset cannot be used with --shard")
    expectUsageError(["kimchi"] + legs + ["--shard", "1/2"], "--shard needs --out")
    #expect(!FileManager.default.fileExists(atPath: out))
    // A store that changed after the shards were made.
    #expect(arbkit("convert", KimchiCommandTests.coinone, "--out", folder.path + "/daily").code == .success)
    expectUsageError(["merge", part("k1"), part("k2")], "changed since the shards were made")
  }
}
