import ArbCLI
import Foundation
import Testing
import TestSupport

/// `arbkit rolling` streams its legs a `--chunk-rows` at a time: the rows it writes are
/// the same bytes whatever the chunks, and the summary the same figures (the variance
/// ratios' and the whole series' half-life sums merged per chunk, to 1e-12).
@Suite("arbkit rolling, streamed")
struct StreamedRollingTests {
  @Test(
    "the real pair from CSV and from a store, in chunks of 1 to 65536 rows",
    arguments: [["--window", "60", "--ewma", "30m"], ["--window", "45m", "--ewma", "20", "--series", "exec"]])
  func chunks(options: [String]) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    #expect(arbkit("convert", DemoPair.binance, DemoPair.kraken, "--out", store).code == .success)
    let fromStore = ["--leg", "binanceus:spot:BTCUSDC=" + store, "--leg", "kraken:spot:BTCUSDC=" + store]
    let fromFiles = ["--leg", DemoPair.binance, "--leg", DemoPair.kraken]
    let common = options + ["--max-stale", "2m", "--format", "json"]
    let reference = arbkit(["rolling"] + fromFiles + common + ["--chunk-rows", "1000000", "--out", folder.path + "/reference.csv"])
    #expect(reference.code == .success, "\(reference.errors)")
    let expectedRows = try String(contentsOfFile: folder.path + "/reference.csv", encoding: .utf8)
    #expect(expectedRows.split(separator: "\n").count == (reference.object["valid_points"] as? Int ?? 0) + 1)
    #expect((reference.object["rolling_half_life"] as? [String: Any])?["mean_reverting"] as? Int ?? 0 > 0)
    for (legs, chunk) in [(fromStore, "1"), (fromStore, "7"), (fromFiles, "300"), (fromStore, "65536")] {
      let out = folder.path + "/rows-\(chunk).csv"
      let run = arbkit(["rolling"] + legs + common + ["--chunk-rows", chunk, "--out", out])
      #expect(run.code == .success, "\(run.errors)")
      #expect(try String(contentsOfFile: out, encoding: .utf8) == expectedRows, "chunk \(chunk)")
      StreamedPremiumTests.expectClose(run.object, reference.object, rel: 1e-12)
      // Counts, the last point and the quantiles of the rolling half-life are exact.
      for key in ["points", "valid_points", "z_defined", "z_share_abs_ge_2", "z_share_abs_ge_3", "last", "rolling_half_life"] {
        #expect((run.object[key] as? NSObject) == (reference.object[key] as? NSObject), "\(key), chunk \(chunk)")
      }
    }
  }

  @Test func `a non-finite premium in a later chunk writes no row file`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    var a = header, b = header
    for k in 0..<50 {
      let time = 1_709_251_200_000_000 + k * 1_000_000
      a += "binance,BTCUSDT,\(time),\(time),1,\(k == 40 ? "1e300" : "100.5"),\(k == 40 ? "1e300" : "100.4"),1\n"
      b += "bybit,BTCUSDT,\(time + 10),\(time + 10),1,\(k == 40 ? "1e-300" : "100.6"),\(k == 40 ? "1e-300" : "100.5"),1\n"
    }
    let legs = ["--leg", "binance:spot:BTCUSDT=" + folder.write("a.csv", a), "--leg", "bybit:linear:BTCUSDT=" + folder.write("b.csv", b)]
    let out = folder.path + "/rows.csv"
    let run = arbkit(["rolling"] + legs + ["--window", "5", "--chunk-rows", "8", "--out", out])
    #expect(run.code == .dataError && run.errors.contains("the premium at ts_us 1709251240000010 is not a finite number"), "\(run.code) \(run.errors)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  /// Two Tardis quote files of `rows` quotes a second apart, the second's prices at
  /// `extreme` for rows 10 and 11 (a premium of about 1e303 %: finite, its squares not).
  static func extremeLegs(_ folder: TemporaryFolder, rows: Int = 40, extreme: String = "1e-301") -> [String] {
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    var a = header, b = header
    for k in 0..<rows {
      let time = 1_709_251_200_000_000 + k * 1_000_000
      a += "binance,BTCUSDT,\(time),\(time),1,100.1,100,1\n"
      let price = k == 10 || k == 11 ? (extreme, extreme) : ("100.3", "100.2")
      b += "bybit,BTCUSDT,\(time + 5),\(time + 5),1,\(price.0),\(price.1),1\n"
    }
    return ["--leg", "binance:spot:BTCUSDT=" + folder.write("a.csv", a), "--leg", "bybit:linear:BTCUSDT=" + folder.write("b.csv", b)]
  }

  @Test func `sums of squares that overflow are refused at every chunk size, never printed as undefined`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = Self.extremeLegs(folder)
    for chunk in ["1", "3", "7", "64", "65536"] {
      let out = folder.path + "/rows-\(chunk).csv"
      let run = arbkit(["rolling"] + legs + ["--window", "3", "--format", "json", "--out", out, "--chunk-rows", chunk])
      #expect(run.code == .dataError && run.errors.contains("variance_ratios.0.vr is not a finite number"), "chunk \(chunk): \(run.code) \(run.errors)")
      #expect(!FileManager.default.fileExists(atPath: out))
    }
  }

  @Test func `rejected rows are reported when the run then fails`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    func row(_ venue: String, _ time: Int, _ prices: String) -> String { "\(venue),BTCUSDT,\(time),\(time),1,\(prices),1\n" }
    let a = header + (0..<5).map { row("binance", 1_709_251_200_000_000 + $0 * 1_000_000, "100.1,100") }.joined()
    // The second leg starts after the first ends, and its last row goes back in time.
    let b = header + [0, 1, 2, 3, 4, 0].map { row("bybit", 1_709_251_300_000_000 + $0 * 1_000_000, "100.3,100.2") }.joined()
    let legs = ["--leg", "binance:spot:BTCUSDT=" + folder.write("a.csv", a), "--leg", "bybit:linear:BTCUSDT=" + folder.write("b.csv", b)]
    for command in [["rolling", "--window", "3"], ["premium"], ["correlate", "--leg", legs[3]]] {
      let run = arbkit(command + legs + ["--bad-rows", "skip", "--quarantine", folder.path + "/q.csv"])
      #expect(run.code == .dataError && run.errors.contains("legs do not overlap"), "\(command[0]): \(run.errors)")
      #expect(run.errors.contains("b.csv: warning: 1 of 6 rows rejected (timestamp_backwards 1)"), "\(command[0]): \(run.errors)")
    }
  }
}
