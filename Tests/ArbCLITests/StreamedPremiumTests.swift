import ArbCLI
import Foundation
import Testing
import TestSupport

/// `arbkit premium` streams its legs a `--chunk-rows` at a time: the output does not
/// depend on the chunk size nor on whether the legs come from a store (streamed from
/// its mapped partitions) or from the source files (read whole, then streamed).
@Suite("arbkit premium, streamed")
struct StreamedPremiumTests {
  /// `a` and `b`, parsed JSON, are the same: strings, counts and structure exactly,
  /// numbers to `rel` (the moments are summed per chunk, then merged), skew and kurtosis
  /// to 1e-12 absolute.
  static func expectClose(_ a: Any, _ b: Any, rel: Double, path: String = "") {
    switch (a, b) {
    case (let x as [String: Any], let y as [String: Any]):
      #expect(Set(x.keys) == Set(y.keys), "\(path)")
      for (key, value) in x { if let other = y[key] { expectClose(value, other, rel: rel, path: path + "." + key) } }
    case (let x as [Any], let y as [Any]):
      #expect(x.count == y.count, "\(path)")
      for (k, (u, v)) in zip(x, y).enumerated() { expectClose(u, v, rel: rel, path: path + ".\(k)") }
    case (let x as NSNumber, let y as NSNumber):
      // Skew and kurtosis are ratios of central moments, of order 1: a skew near 0 keeps
      // the absolute error of its moments (1e-14), not a relative one.
      let shape = path.hasSuffix(".skew") || path.hasSuffix(".kurtosis")
      #expect(isClose(x.doubleValue, y.doubleValue, rel: rel, abs: shape ? 1e-12 : 1e-15), "\(path): \(x) vs \(y)")
    case (let x as String, let y as String): #expect(x == y, "\(path)")
    default: #expect(a is NSNull && b is NSNull, "\(path): \(a) vs \(b)")
    }
  }

  @Test func `the real pair from CSV and from a store, in chunks of 1 to 65536 rows, gives the same figures and series`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    #expect(arbkit("convert", DemoPair.binance, DemoPair.kraken, "--out", store).code == .success)
    let fromStore = ["--leg", "binanceus:spot:BTCUSDC=" + store, "--leg", "kraken:spot:BTCUSDC=" + store]
    let options = ["--max-stale", "2m", "--bands", "0.05,0.1,0.5", "--hysteresis", "0.02", "--format", "json"]
    let reference = arbkit(["premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--series", folder.path + "/reference.csv"] + options)
    #expect(reference.code == .success, "\(reference.errors)")
    let expectedSeries = try String(contentsOfFile: folder.path + "/reference.csv", encoding: .utf8)
    #expect(expectedSeries.split(separator: "\n").count == (reference.object["points"] as? Int ?? 0) + 1)
    var expected = reference.object
    expected["legs"] = nil  // rows_read counts the whole store from a store, the file from CSV
    for (legs, chunk) in [
      (fromStore, "1"), (fromStore, "7"), (fromStore, "300"), (fromStore, "65536"), (["--leg", DemoPair.binance, "--leg", DemoPair.kraken], "300"),
    ] {
      let series = folder.path + "/series-\(chunk).csv"
      let run = arbkit(["premium"] + legs + options + ["--chunk-rows", chunk, "--series", series])
      #expect(run.code == .success, "\(run.errors)")
      var got = run.object
      let gotLegs = got["legs"] as? [[String: Any]] ?? []
      #expect(gotLegs.map { $0["rows"] as? Int } == (reference.object["legs"] as? [[String: Any]] ?? []).map { $0["rows"] as? Int })
      got["legs"] = nil
      Self.expectClose(got, expected, rel: 1e-12)
      // Counts, extremes, quantiles and bands are exact whatever the chunking.
      for side in ["mid", "exec"] {
        let a = got[side] as? [String: Any] ?? [:], b = expected[side] as? [String: Any] ?? [:]
        for key in ["count", "min", "max"] { #expect((a[key] as? NSNumber) == (b[key] as? NSNumber), "\(side).\(key), chunk \(chunk)") }
        #expect((a["quantiles"] as? NSDictionary) == (b["quantiles"] as? NSDictionary), "\(side) quantiles, chunk \(chunk)")
        #expect((a["bands"] as? NSArray) == (b["bands"] as? NSArray), "\(side) bands, chunk \(chunk)")
      }
      #expect(try String(contentsOfFile: series, encoding: .utf8) == expectedSeries, "chunk \(chunk)")
    }
  }

  @Test func `--chunk-rows takes a positive number of rows a chunk's buffers can hold, on every command`() {
    for bad in ["0", "-3", "many", "16777217", "100000000000", "9223372036854775807"] {
      let run = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--chunk-rows", bad)
      #expect(run.code == .usage && run.errors.contains("--chunk-rows', expected a number of rows from 1 to 16777216"), "\(bad): \(run.errors)")
    }
    for command in [["rolling", "--window", "5"], ["candles", "--every", "1h"], ["profile"]] {
      let run = arbkit(command + ["--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--chunk-rows", "100000000000"])
      #expect(run.code == .usage && run.errors.contains("from 1 to 16777216"), "\(command): \(run.errors)")
    }
    let board = arbkit("board", DemoPair.binance, DemoPair.kraken, "--chunk-rows", "9223372036854775807")
    #expect(board.code == .usage && board.errors.contains("from 1 to 16777216"), "\(board.errors)")
  }

  @Test func `a grid over a store too fine for the limit exits 64 before it is walked`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    #expect(arbkit("convert", DemoPair.binance, DemoPair.kraken, "--out", store).code == .success)
    let run = arbkit("premium", "--leg", "binanceus:spot:BTCUSDC=" + store, "--leg", "kraken:spot:BTCUSDC=" + store, "--grid", "1us")
    #expect(run.code == .usage && run.errors.contains("more than the limit of 20000000"), "\(run.errors)")
  }

  @Test func `a file whose column spec makes it a rate series is refused when it streams, as when it is read whole`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let rates = folder.write("rates.csv", "time,rate\n1722000000000000,0.0001\n1722000060000000,-0.0002\n")
    let spec = folder.write(
      "rate.json",
      #"{ "kind": "quotes", "header": true, "time": { "column": "time", "form": "us" }, "price": "rate", "venue": "bybit", "symbol": "BTCUSDT", "#
        + #""field": "funding_rate" }"#)
    // The field is known once the header is read: the stream once took the default, price.
    let run = arbkit("premium", "--leg", rates + "@" + spec, "--leg", DemoPair.binance)
    #expect(run.code == .usage && run.errors.contains("is a funding_rate series, a rate: a premium needs price, mark or index legs"), "\(run.errors)")
  }
}
