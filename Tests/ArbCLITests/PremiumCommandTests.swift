import ArbAnalytics
import ArbCLI
import ArbCore
import ArbIngest
import Foundation
import Testing
import TestSupport

@Suite("arbkit premium")
struct PremiumCommandTests {
  /// The figures the library computes for the demo pair, for comparison with the CLI.
  static func libraryAnalysis(maxStale: Int64?) throws -> (PremiumSeries, PremiumAnalysis) {
    let legs = try [DemoPair.binance, DemoPair.kraken].map { try LegSpec(parsing: $0).load(options: IngestOptions()).series }
    let aligned = try AlignedLegs(legs: legs, options: AlignmentOptions(maxStale: maxStale))
    let premium = PremiumSeries(aligned: aligned, legs: legs)
    return (premium, PremiumAnalysis(premium: premium))
  }

  @Test func `json follows the contract and carries the library's figures`() throws {
    let run = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--format", "json")
    #expect(run.code == .success)
    let object = run.object
    for key in ["legs", "points", "valid_points", "stale_points", "mid", "exec"] { #expect(object[key] != nil, "missing \(key)") }
    let (premium, analysis) = try Self.libraryAnalysis(maxStale: 120_000_000)
    #expect(object["points"] as? Int == premium.count)
    #expect(object["valid_points"] as? Int == premium.validPoints)
    #expect(object["stale_points"] as? Int == premium.count - premium.validPoints)
    let legs = try #require(object["legs"] as? [[String: Any]])
    #expect(legs.map { $0["venue"] as? String } == ["binanceus", "kraken"])
    #expect(legs.map { $0["price_source"] as? String } == ["last", "last"])
    for key in ["venue", "market", "symbol", "rows", "first_ts_us", "last_ts_us"] { #expect(legs[0][key] != nil) }

    for (name, summary) in [("mid", analysis.mid), ("exec", analysis.exec)] {
      let series = try #require(object[name] as? [String: Any])
      let s = summary.statistics
      #expect(series["count"] as? Int == s.count)
      // JSON numbers are printed with the shortest round-trip text; Foundation's JSON
      // reader may differ in the last bit, hence 1e-15.
      #expect(isClose(series["mean"] as? Double, s.mean, rel: 1e-15))
      #expect(isClose(series["std"] as? Double, s.std, rel: 1e-15))
      #expect(isClose(series["mean_tw"] as? Double, s.meanTW, rel: 1e-15))
      #expect(isClose(series["kurtosis"] as? Double, s.kurtosis, rel: 1e-15))
      let quantiles = try #require(series["quantiles"] as? [String: Double])
      #expect(Set(quantiles.keys) == ["1", "5", "25", "50", "75", "95", "99"])
      #expect(isClose(quantiles["50"], s.quantiles[3], rel: 1e-15))
      let bands = try #require(series["bands"] as? [[String: Any]])
      #expect(bands.map { $0["band"] as? Double } == [0.05, 0.1])
      for key in [
        "share_events", "share_time", "share_events_pos", "share_events_neg", "episodes", "duration_mean_s", "duration_median_s", "duration_max_s", "peak_mean",
        "peak_max",
      ] {
        #expect(bands[1][key] != nil, "missing band key \(key)")
      }
      #expect(bands[1]["episodes"] as? Int == summary.bands[1].episodes)
      #expect(isClose(bands[1]["share_time"] as? Double, summary.bands[1].shareTime, rel: 1e-15))
    }
    #expect((object["exec"] as? [String: Any]).flatMap { ($0["bands"] as? [[String: Any]])?.first?["share_events_neg"] as? Double } == 0)
    #expect(allNumbersFinite(object))
  }

  @Test func `the same pair read gzipped, plain or newest-first gives the same figures`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Kraken slice: decompress the shipped .gz, then write it reversed (newest first).
    let gz = Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz")
    let plain = folder.path + "/kraken.csv"
    #expect(try runProgram("/bin/sh", ["-c", "gzip -dc '\(gz)' > '\(plain)'"]) == 0)
    let reversed = folder.path + "/kraken-reversed.csv"
    #expect(try runProgram("/bin/sh", ["-c", "tac '\(plain)' > '\(reversed)'"]) == 0)
    let spec = Repository.data("formats/kraken-ohlcvt-1m.json")
    let specText = try String(contentsOfFile: spec, encoding: .utf8)
    let newestFirstSpec = folder.write(
      "kraken-newest-first.json", specText.replacingOccurrences(of: "\"header\": false,", with: "\"header\": false, \"order\": \"descending\","))
    func run(_ leg: String) -> [String: Any] {
      let result = arbkit(["premium", "--leg", DemoPair.binance, "--leg", leg, "--max-stale", "2m", "--format", "json"])
      #expect(result.code == .success, "\(result.errors)")
      var object = result.object
      object["legs"] = nil  // per-leg row counts are the same; file names differ
      return object
    }
    let fromGzip = run(DemoPair.kraken)
    let fromPlain = run("kraken:spot:BTCUSDC=\(plain)@\(spec)")
    let newestFirst = run("kraken:spot:BTCUSDC=\(reversed)@\(newestFirstSpec)")
    #expect(NSDictionary(dictionary: fromGzip) == NSDictionary(dictionary: fromPlain))
    #expect(NSDictionary(dictionary: fromGzip) == NSDictionary(dictionary: newestFirst))
  }

  @Test func `series csv has one row per point with the premiums of valid points only`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.path + "/series.csv"
    let run = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "1m", "--series", path, "--format", "json")
    #expect(run.code == .success)
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.first == "ts_us,valid,mid_pct,exec_pct,direction,bid_1,ask_1,bid_2,ask_2")
    let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    #expect(rows.count == run.object["points"] as? Int)
    let valid = rows.filter { $0[1] == "1" }
    #expect(valid.count == run.object["valid_points"] as? Int)
    #expect(valid.allSatisfy { Double($0[2]) != nil && Double($0[3]) != nil && ["1>2", "2>1"].contains($0[4]) })
    #expect(rows.filter { $0[1] == "0" }.allSatisfy { $0[2].isEmpty && $0[3].isEmpty && $0[4].isEmpty })
    // mid_pct of a valid row recomputed from its own bid/ask columns (candles: bid = ask = close).
    let row = try #require(valid.first)
    let recomputed = (Double(row[5])! / Double(row[7])! - 1) * 100
    #expect(isClose(Double(row[2]), recomputed, rel: 1e-12))
  }

  @Test func `all points stale gives nulls and a warning, never NaN or zero`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let a = folder.write("a.csv", "ts_us,pair,rate\n1000000,AAA,10\n5000000,AAA,11\n")
    let b = folder.write("b.csv", "ts_us,pair,rate\n2000000,BBB,10\n9000000,BBB,12\n")
    let run = arbkit("premium", "--leg", a, "--leg", b, "--max-stale", "100ms", "--format", "json")
    #expect(run.code == .success)
    #expect(run.object["valid_points"] as? Int == 0)
    let mid = try #require(run.object["mid"] as? [String: Any])
    #expect(mid["count"] as? Int == 0)
    #expect(mid["mean"] is NSNull)
    #expect(mid["std"] is NSNull)
    #expect((mid["bands"] as? [[String: Any]])?.first?["share_events"] is NSNull)
    #expect(run.errors.contains("no valid point"))
  }

  @Test func `legs that never overlap fail with exit 65`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let a = folder.write("a.csv", "ts_us,pair,rate\n1000000,AAA,10\n2000000,AAA,11\n")
    let b = folder.write("b.csv", "ts_us,pair,rate\n5000000,BBB,10\n9000000,BBB,12\n")
    let run = arbkit("premium", "--leg", a, "--leg", b)
    #expect(run.code == .dataError)
    #expect(run.errors.contains("legs do not overlap in time"))
  }

  @Test func `three legs report the max premium and the venue board shares`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Hand-worked: every leg has quoted by t = 3 s, the only clock point, where the mids
    // are 100, 101 and 99 → max premium (101/99 − 1)·100.
    let header = "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n"
    let a = folder.write("a.csv", header + "1000000,aa,spot,X,90,90.2,1,1,\n3000000,aa,spot,X,99.9,100.1,1,1,\n")
    let b = folder.write("b.csv", header + "2000000,bb,spot,X,90,90.2,1,1,\n3000000,bb,spot,X,100.9,101.1,1,1,\n")
    let c = folder.write("c.csv", header + "3000000,cc,spot,X,98.9,99.1,1,1,\n")
    let run = arbkit("premium", "--leg", a, "--leg", b, "--leg", c, "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.object["points"] as? Int == 1)
    let mid = try #require(run.object["mid"] as? [String: Any])
    #expect(isClose(mid["mean"] as? Double, (101.0 / 99.0 - 1) * 100, rel: 1e-14))
    // Best executable: sell bb's bid 100.9, buy cc's ask 99.1.
    let exec = try #require(run.object["exec"] as? [String: Any])
    #expect(isClose(exec["max"] as? Double, (100.9 / 99.1 - 1) * 100, rel: 1e-14))
    let venues = try #require(run.object["venues"] as? [String: [String: Double]])
    #expect(venues["bb:spot:X"]?["top"] == 1)
    #expect(venues["cc:spot:X"]?["bottom"] == 1)
    #expect(venues["aa:spot:X"]?["top"] == 0)
  }

  @Test func `csv output has one figure per row`() {
    let run = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--format", "csv")
    let lines = run.output.split(separator: "\n")
    #expect(lines.first == "series,metric,value")
    #expect(lines.contains { $0.hasPrefix("mid,count,") })
    #expect(lines.contains { $0.hasPrefix("exec,band_0.1_share_time,") })
    #expect(lines.contains { $0.hasPrefix("mid,q50,") })
  }

  @Test func `table shows statistics and both band tables`() {
    let run = arbkit("premium", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m")
    #expect(run.code == .success)
    for text in ["Statistics, %", "Bands, mid", "Bands, exec", "half-life", "binanceus", "kraken"] { #expect(run.output.contains(text)) }
  }

  @Test func `a mark leg is a price leg; a funding-rate file read without #FIELD is refused as a rate`() {
    let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
    let mark = arbkit("premium", "--leg", "\(fixtures)/XRP_USDT_USDT-1h-futures.json", "--leg", "\(fixtures)/XRP_USDT_USDT-1h-mark.json", "--format", "json")
    #expect(mark.code == .success && mark.object["points"] as? Int == 100)
    #expect((mark.object["legs"] as? [[String: Any]])?.map { $0["field"] as? String } == ["price", "mark"])
    let funding = "\(fixtures)/XRP_USDT_USDT-8h-funding_rate.json"
    let rate = arbkit("premium", "--leg", "\(fixtures)/XRP_USDT_USDT-1h-futures.json", "--leg", funding)
    #expect(rate.code == .usage)
    #expect(rate.errors.contains("arbkit: error: leg \(funding) is a funding_rate series, a rate: a premium needs price, mark or index legs"))
  }
}
