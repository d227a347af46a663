import ArbCLI
import Foundation
import Testing
import TestSupport

/// `arbkit correlate` streams its legs a `--chunk-rows` at a time: the counts and points
/// are the same whatever the chunks, and the matrices the same figures (the chunks'
/// centred sums merged, to 1e-12).
@Suite("arbkit correlate, streamed")
struct StreamedCorrelateTests {
  @Test("three premiums of the real legs from CSV and from a store, in chunks of 1 to 65536 rows", arguments: [[], ["--pairwise"]])
  func chunks(options: [String]) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    #expect(arbkit("convert", DemoPair.binance, DemoPair.kraken, TimeSeriesCommandTests.usdt, "--out", store).code == .success)
    let fromStore = ["binanceus:spot:BTCUSDC", "kraken:spot:BTCUSDC", "binanceus:spot:BTCUSDT"].flatMap { ["--leg", $0 + "=" + store] }
    let fromFiles = [DemoPair.binance, DemoPair.kraken, TimeSeriesCommandTests.usdt].flatMap { ["--leg", $0] }
    let common = options + ["--max-stale", "2m", "--format", "json"]
    let reference = arbkit(["correlate"] + fromFiles + common + ["--chunk-rows", "1000000"])
    #expect(reference.code == .success, "\(reference.errors)")
    let counts = try #require(reference.object["counts"] as? [[Int]])
    #expect(counts[0][1] > 1_000 && (reference.object["points"] as? Int ?? 0) > counts[0][1])
    for (legs, chunk) in [(fromStore, "1"), (fromStore, "7"), (fromFiles, "300"), (fromStore, "65536")] {
      let run = arbkit(["correlate"] + legs + common + ["--chunk-rows", chunk])
      #expect(run.code == .success, "\(run.errors)")
      StreamedPremiumTests.expectClose(run.object, reference.object, rel: 1e-12)
      for key in ["points", "counts", "series", "base", "missing"] {
        #expect((run.object[key] as? NSObject) == (reference.object[key] as? NSObject), "\(key), chunk \(chunk)")
      }
    }
  }

  @Test func `--chunk-rows takes a positive number of rows`() {
    for bad in ["0", "-3", "many"] {
      let run = arbkit("correlate", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--leg", TimeSeriesCommandTests.usdt, "--chunk-rows", bad)
      #expect(run.code == .usage && run.errors.contains("--chunk-rows"), "\(bad): \(run.errors)")
    }
  }
}
