import ArbCLI
import Foundation
import Testing
import TestSupport

/// `arbkit kimchi` streams each KRW market's legs a `--chunk-rows` at a time: the series
/// file is the same bytes whatever the chunks, and the summaries the same figures
/// (counts, extremes, quantiles and bands exactly; moments and half-lives to 1e-12).
@Suite("arbkit kimchi, streamed")
struct StreamedKimchiTests {
  typealias Kimchi = KimchiCommandTests

  static func expectChunkless(_ legs: [String], folder: TemporaryFolder) throws {
    let options = ["--format", "json"]
    let reference = arbkit(["kimchi"] + legs + options + ["--chunk-rows", "1000000", "--series", folder.path + "/reference.csv"])
    #expect(reference.code == .success, "\(reference.errors)")
    let expectedRows = try String(contentsOfFile: folder.path + "/reference.csv", encoding: .utf8)
    let venues = reference.object["kimchi"] as? [[String: Any]] ?? []
    #expect(!venues.isEmpty && venues.allSatisfy { $0["valid_points"] as? Int ?? 0 > 5 })
    for chunk in ["1", "2", "7", "300"] {
      let series = folder.path + "/series-\(chunk).csv"
      let run = arbkit(["kimchi"] + legs + options + ["--chunk-rows", chunk, "--series", series])
      #expect(run.code == .success, "\(run.errors)")
      StreamedPremiumTests.expectClose(run.object, reference.object, rel: 1e-12)
      let got = run.object["kimchi"] as? [[String: Any]] ?? []
      for (a, b) in zip(got, venues) {
        for key in ["points", "valid_points", "fx_stale_points"] { #expect(a[key] as? Int == b[key] as? Int, "\(key), chunk \(chunk)") }
        for side in ["premium", "usdt_term", "premium_usd"] {
          let x = a[side] as? [String: Any] ?? [:], y = b[side] as? [String: Any] ?? [:]
          for key in ["count", "min", "max", "quantiles", "bands"] { #expect((x[key] as? NSObject) == (y[key] as? NSObject), "\(side).\(key), chunk \(chunk)") }
        }
      }
      #expect(
        (run.object["krw_premium"] as? NSDictionary)?["valid_points"] as? Int == (reference.object["krw_premium"] as? NSDictionary)?["valid_points"] as? Int)
      #expect(try String(contentsOfFile: series, encoding: .utf8) == expectedRows, "chunk \(chunk)")
    }
  }

  @Test func `three KRW venues on daily closes, their premium among them and a union-clock series`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    try Self.expectChunkless(
      ["--krw", Kimchi.upbit, "--krw", Kimchi.bithumb, "--krw", Kimchi.coinone, "--usd", Kimchi.bitstamp, "--fx", Kimchi.usdkrw], folder: folder)
  }

  @Test func `one KRW venue on five-minute candles with the USDT term, its series written as it streams`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let usdt = Kimchi.usdtUSD(folder)
    try Self.expectChunkless(
      ["--krw", Kimchi.upbit5m, "--usd", Kimchi.binance5m, "--fx", Kimchi.usdkrw, "--usdt-usd", usdt, "--max-stale", "1d", "--fx-max-stale", "1d"],
      folder: folder)
  }
}
