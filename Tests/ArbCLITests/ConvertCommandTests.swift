import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("arbkit convert")
struct ConvertCommandTests {
  /// Converts each demo leg to its own cache in `folder`; returns the two cache paths.
  static func convertDemo(in folder: TemporaryFolder) -> [String] {
    [DemoPair.binance, DemoPair.kraken].enumerated().map { k, leg in
      let cache = folder.path + "/leg\(k)"
      let run = arbkit("convert", leg, "--out", cache)
      #expect(run.code == .success, "\(run.errors)")
      return cache
    }
  }

  @Test func `premium on the caches prints exactly what it prints on the CSV files`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let caches = Self.convertDemo(in: folder)
    for format in ["json", "table", "csv"] {
      let direct = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--format", format)
      let cached = arbkit("premium", "--leg", caches[0], "--leg", "kraken:spot:BTCUSDC=" + caches[1], "--max-stale", "2m", "--format", format)
      #expect(direct.code == .success && cached.code == .success)
      #expect(cached.output == direct.output, "\(format)")
      #expect(cached.errors.isEmpty)
    }
  }

  @Test func `inspect on a cache reports the source's accounting and instruments`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let caches = Self.convertDemo(in: folder)
    let direct = arbkit("inspect", DemoPair.kraken, "--format", "json").object
    let cached = arbkit("inspect", caches[1], "--format", "json").object
    #expect(cached["file"] as? String == caches[1] && cached["format"] as? String == "store")
    for key in ["rows_read", "rows_accepted", "rows_rejected", "rows_collapsed", "first_ts_us", "last_ts_us"] {
      #expect(cached[key] as? Int == direct[key] as? Int, "\(key)")
    }
    #expect((cached["instruments"] as? [[String: AnyHashable]]) == (direct["instruments"] as? [[String: AnyHashable]]))
  }

  @Test func `convert prints the series it wrote`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let run = arbkit("convert", DemoPair.binance, DemoPair.kraken, "--out", folder.path + "/both")
    #expect(run.code == .success)
    #expect(run.output.hasPrefix("\(folder.path)/both: added 2 series, 45959 rows from 2 files; 0 already in the store\n"))
    #expect(run.output.contains("binanceus  spot    BTCUSDC  price  30240  last"))
    #expect(arbkit("inspect", folder.path + "/both", "--format", "json").object["rows_read"] as? Int == 30240 + 15719)
  }

  @Test func `a stale cache exits 65 naming the source; usage errors exit 64`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    #expect(arbkit("convert", DemoPair.kraken, "--out", folder.path + "/cache").code == .success)
    let again = arbkit("convert", folder.path + "/cache", "--out", folder.path + "/again")
    #expect(again.code == .usage && again.errors.contains("/cache is a store, not a source file"))
    let source = folder.write("quotes.csv", "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\nbinance,BTCUSDT,1,100,1,10.5,10.4,2\n")
    #expect(arbkit("convert", source, "--out", folder.path + "/cache").code == .success)
    folder.write("quotes.csv", "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\nbinance,BTCUSDT,1,100,1,10.5,10.3,2\nbinance,BTCUSDT,2,200,1,10.5,10.4,2\n")
    let stale = arbkit("inspect", folder.path + "/cache")
    #expect(stale.code == .dataError)
    #expect(stale.errors.contains("stale store, source ") && stale.errors.contains("/quotes.csv changed since it was converted (size "))
    #expect(arbkit("convert", source).errors.contains("missing --out DIR"))
  }
}
