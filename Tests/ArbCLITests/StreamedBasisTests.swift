import ArbCLI
import Foundation
import Testing
import TestSupport

/// `arbkit basis` streams the derivative and the reference a `--chunk-rows` at a time:
/// the series file is the same bytes whatever the chunks and whether the legs come from
/// the recorded file or a store, and the summaries are the same figures (counts,
/// extremes, quantiles and bands exactly; moments and half-lives to 1e-12).
@Suite("arbkit basis, streamed")
struct StreamedBasisTests {
  static let bybit = Repository.data("samples/bybit_BTCUSDT_spot-linear_tickers_2026-08-09.jsonl.zst")
  static let delivery = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures/json/binance-delivery-slice.jsonl.zst").path

  /// Runs `arguments` with every chunk size against a reference run in one chunk.
  static func expectChunkless(_ variants: [[String]], options: [String], folder: TemporaryFolder) throws {
    let reference = arbkit(["basis"] + variants[0] + options + ["--chunk-rows", "1000000", "--series", folder.path + "/reference.csv"])
    #expect(reference.code == .success, "\(reference.errors)")
    let expectedRows = try String(contentsOfFile: folder.path + "/reference.csv", encoding: .utf8)
    // One row per point of the basis, and more with reference columns on their own clocks.
    #expect(expectedRows.split(separator: "\n").count >= (reference.object["points"] as? Int ?? 0) + 1)
    #expect(reference.object["valid_points"] as? Int ?? 0 > 10)
    var expected = reference.object
    expected["legs"] = nil  // a store counts the rows of its own partitions
    for legs in variants {
      for chunk in ["1", "7", "300"] {
        let series = folder.path + "/series-\(chunk).csv"
        let run = arbkit(["basis"] + legs + options + ["--chunk-rows", chunk, "--series", series])
        #expect(run.code == .success, "\(run.errors)")
        var got = run.object
        #expect((got["legs"] as? [[String: Any]])?.map { $0["rows"] as? Int } == (reference.object["legs"] as? [[String: Any]])?.map { $0["rows"] as? Int })
        got["legs"] = nil
        StreamedPremiumTests.expectClose(got, expected, rel: 1e-12)
        for side in ["basis", "open", "close", "annualised"] {
          let a = got[side] as? [String: Any] ?? [:], b = expected[side] as? [String: Any] ?? [:]
          for key in ["count", "min", "max", "quantiles", "bands"] { #expect((a[key] as? NSObject) == (b[key] as? NSObject), "\(side).\(key), chunk \(chunk)") }
        }
        #expect(try String(contentsOfFile: series, encoding: .utf8) == expectedRows, "chunk \(chunk) \(legs)")
      }
    }
  }

  @Test func `spot and perpetual from the recorded tickers and from a store`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    #expect(arbkit("convert", "bybit:spot:BTCUSDT=" + Self.bybit, "bybit:linear:BTCUSDT=" + Self.bybit, "--out", store).code == .success)
    try Self.expectChunkless(
      [
        ["--spot", "bybit:spot:BTCUSDT=" + Self.bybit, "--perp", "bybit:linear:BTCUSDT=" + Self.bybit],
        ["--spot", "bybit:spot:BTCUSDT=" + store, "--perp", "bybit:linear:BTCUSDT=" + store],
      ],
      options: ["--max-stale", "2s", "--bands", "0.005,0.01,0.02", "--hysteresis", "0.002", "--format", "json"], folder: folder)
  }

  @Test func `a calendar spread annualised to its expiry, the funding carry, and reference prices`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    try Self.expectChunkless(
      [["--perp", "binance:inverse:BCHUSD_PERP=" + Self.delivery, "--future", "binance:future:BCHUSD_210924=" + Self.delivery]],
      options: ["--format", "json"], folder: folder)
    let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
    for grid in [[], ["--grid", "20m"]] {
      try Self.expectChunkless(
        [
          [
            "--spot", fixtures + "/XRP_USDT_USDT-1h-mark.json", "--perp", fixtures + "/XRP_USDT_USDT-1h-futures.json", "--funding",
            fixtures + "/XRP_USDT_USDT-8h-funding_rate.json",
          ]
        ],
        options: ["--window", "8h", "--max-stale", "1h", "--format", "json"] + grid, folder: folder)
    }
    let linear = "bybit:linear:BTCUSDT=" + Self.bybit
    try Self.expectChunkless(
      [["--spot", "bybit:spot:BTCUSDT=" + Self.bybit, "--perp", linear, "--mark", linear, "--index", linear, "--funding", linear]],
      options: ["--format", "json"], folder: folder)
  }
}
