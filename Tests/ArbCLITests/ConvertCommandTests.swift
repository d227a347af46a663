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
    let source = folder.write(
      "quotes.csv", "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\nbinance,BTCUSDT,1,100,1,10.5,10.4,2\n")
    #expect(arbkit("convert", source, "--out", folder.path + "/cache").code == .success)
    folder.write(
      "quotes.csv",
      "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\nbinance,BTCUSDT,1,100,1,10.5,10.3,2\nbinance,BTCUSDT,2,200,1,10.5,10.4,2\n"
    )
    let stale = arbkit("inspect", folder.path + "/cache")
    #expect(stale.code == .dataError)
    #expect(stale.errors.contains("stale store, source ") && stale.errors.contains("/quotes.csv changed since it was converted (size "))
    #expect(arbkit("convert", source).errors.contains("missing --out DIR"))
  }

  /// A native CSV leg of `venue` with one quote an hour for `hours` hours from 2024-03-01T00:00Z.
  static func hourly(_ folder: TemporaryFolder, _ venue: String, hours: Int, name: String? = nil, shift: Double = 0) -> String {
    let start: Int64 = 1_709_251_200_000_000
    let rows = (0..<hours).map { k in
      "\(start + Int64(k) * 3_600_000_000),\(venue),spot,BTCUSDC,\(100 + shift + Double(k % 7)),\(101 + shift + Double(k % 7) + Double(k % 5) / 10),1,1,100\n"
    }
    return folder.write(name ?? "\(venue).csv", "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n" + rows.joined())
  }

  @Test func `a source with other quotes of a stored day exits 65 and adds nothing; the same source again is skipped`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    let first = Self.hourly(folder, "aa", hours: 30)
    #expect(arbkit("convert", first, "--out", store).code == .success)
    let again = arbkit("convert", first, "--out", store)
    #expect(again.code == .success && again.output.contains("added 0 series, 0 rows from 0 files; 1 already in the store"))
    let other = Self.hourly(folder, "aa", hours: 30, name: "other.csv", shift: 0.5)
    let refused = arbkit("convert", other, "--out", store)
    #expect(refused.code == .dataError, "\(refused.errors)")
    #expect(refused.errors.contains("\(store)/aa/spot/BTCUSDC/price/2024-03-01: error: ") && refused.errors.contains("/other.csv holds 24 quotes"))
    #expect(arbkit("inspect", store, "--format", "json").object["rows_read"] as? Int == 30)
  }

  @Test func `--from and --to read the same quotes from a store and from the files`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = [Self.hourly(folder, "aa", hours: 72), Self.hourly(folder, "bb", hours: 72, shift: 0.25)]
    // One store per leg, so that each leg's report names its own source's accounting.
    let stores = [folder.path + "/aa", folder.path + "/bb"]
    for (leg, store) in zip(legs, stores) { #expect(arbkit("convert", leg, "--out", store).code == .success) }
    let window = ["--from", "2024-03-02", "--to", "2024-03-03T06:00:00Z", "--format", "json"]
    let direct = arbkit(["premium", "--leg", legs[0], "--leg", legs[1]] + window)
    let stored = arbkit(["premium", "--leg", stores[0], "--leg", stores[1]] + window)
    #expect(direct.code == .success && stored.code == .success, "\(direct.errors) \(stored.errors)")
    #expect(
      direct.output
        == stored.output.replacingOccurrences(of: "\"" + stores[0] + "\"", with: "\"" + legs[0] + "\"")
        .replacingOccurrences(of: "\"" + stores[1] + "\"", with: "\"" + legs[1] + "\"").replacingOccurrences(of: "\"store\"", with: "\"arbkit.quotes\""))
    #expect(direct.object["points"] as? Int == 30, "24 hours of the second day and 6 of the third")
    let whole = arbkit("premium", "--leg", legs[0], "--leg", legs[1], "--format", "json")
    #expect(whole.object["points"] as? Int == 72)
    let inspected = arbkit("inspect", legs[0], "--from", "2024-03-02", "--to", "2024-03-03T06:00:00Z", "--format", "json").object
    #expect(inspected["rows_read"] as? Int == 72 && inspected["rows_accepted"] as? Int == 72 && inspected["rows_outside_window"] as? Int == 42)
  }

  @Test func `with --from and --to a store's days outside are not opened: a damaged one does not matter`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = [Self.hourly(folder, "aa", hours: 72), Self.hourly(folder, "bb", hours: 72, shift: 0.25)]
    let store = folder.path + "/store"
    #expect(arbkit("convert", legs[0], legs[1], "--out", store).code == .success)
    try FileManager.default.removeItem(atPath: store + "/aa/spot/BTCUSDC/price/2024-03-01")
    #expect(truncate(store + "/bb/spot/BTCUSDC/price/2024-03-03/bid.f64", 5) == 0)
    let legsInStore = ["--leg", "aa:spot:BTCUSDC=" + store, "--leg", "bb:spot:BTCUSDC=" + store]
    let run = arbkit(["premium"] + legsInStore + ["--from", "2024-03-02", "--to", "2024-03-03", "--format", "json"])
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.object["points"] as? Int == 24)
    let damaged = arbkit("premium", "--leg", "aa:spot:BTCUSDC=" + store, "--leg", "bb:spot:BTCUSDC=" + store)
    #expect(damaged.code != .success)
  }

  @Test func `bad --from/--to are usage errors; convert takes none`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let leg = Self.hourly(folder, "aa", hours: 3)
    let empty = arbkit("inspect", leg, "--from", "2024-03-02", "--to", "2024-03-01")
    #expect(empty.code == .usage && empty.errors.contains("--from 2024-03-02T00:00:00Z is not before --to 2024-03-01T00:00:00Z"), "\(empty.errors)")
    #expect(arbkit("inspect", leg, "--from", "yesterday").code == .usage)
    let convert = arbkit("convert", leg, "--out", folder.path + "/store", "--from", "2024-03-01")
    #expect(convert.code == .usage && convert.errors.contains("convert keeps every quote"))
  }
}

@Suite("arbkit convert to a quotes table")
struct ConvertTableTests {
  static let book = Repository.root.path + "/Tests/ArbIngestTests/Fixtures/huobi-dm-swap_quotes_BTC-USD.csv"

  @Test(arguments: ["csv", "arrow", "parquet"])
  func `the table holds every accepted quote of every input, each series in time order`(format: String) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let table = folder.path + "/quotes.\(format)"
    let run = arbkit("convert", Self.book, DemoPair.binance, "--out", table)
    #expect(run.code == .success, "\(run.errors)")
    let direct = [Self.book, DemoPair.binance].map { arbkit("inspect", $0, "--format", "json").object }
    let accepted = direct.reduce(0) { $0 + ($1["rows_accepted"] as? Int ?? 0) }
    #expect(accepted > 100)
    #expect(run.output.contains("wrote 2 series, \(accepted) rows from 2 files as \(format)"), "\(run.output)")
    guard format != "arrow" else {
      #expect(FileManager.default.contents(atPath: table)?.prefix(6) == Data("ARROW1".utf8))
      return
    }
    // Read back: the same instruments, price sources and rows as the inputs.
    let back = arbkit("inspect", table, "--format", "json").object
    #expect(back["format"] as? String == "arbkit.quotes" && back["rows_accepted"] as? Int == accepted && back["rows_rejected"] as? Int == 0)
    let instruments = { (object: [String: Any]) in
      (object["instruments"] as? [[String: Any]] ?? []).map { "\($0["venue"]!) \($0["symbol"]!) \($0["rows"]!) \($0["price_source"]!)" }
    }
    #expect(instruments(back).sorted() == direct.flatMap(instruments).sorted())
  }

  @Test func `premium on converted tables prints what it prints on the sources`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    for (k, leg) in [DemoPair.binance, DemoPair.kraken].enumerated() {
      #expect(arbkit("convert", leg, "--output-format", "parquet", "--out", folder.path + "/leg\(k).dat").code == .success)
    }
    let direct = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--format", "json")
    let converted = arbkit("premium", "--leg", folder.path + "/leg0.dat", "--leg", folder.path + "/leg1.dat", "--max-stale", "2m", "--format", "json")
    #expect(direct.code == .success && converted.code == .success, "\(converted.errors)")
    #expect(converted.output == direct.output)
  }

  @Test func `a series that is not prices is refused, and nothing is written`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let funding = Repository.root.path + "/Tests/ArbIngestTests/Fixtures/XRP_USDT_USDT-8h-funding_rate.json"
    let run = arbkit("convert", funding, "--out", folder.path + "/t.parquet")
    #expect(run.code == .usage)
    #expect(run.errors.contains("funding_rate series has no column in a quotes table; convert it to a store"), "\(run.errors)")
    #expect(folderNames(folder.path).isEmpty)
  }
}
