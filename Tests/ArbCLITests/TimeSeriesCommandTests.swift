import ArbAnalytics
import ArbCLI
import ArbCore
import ArbIngest
import Foundation
import Testing
import TestSupport

/// `arbkit rolling`, `candles` and `correlate` on the shipped Binance.US / Kraken minute
/// data, checked against direct computations on what the CLI itself writes.
@Suite("arbkit rolling, candles, correlate")
struct TimeSeriesCommandTests {
  static let format = "@" + Repository.data("formats/binanceus-kline-1m.json")
  static let usdt = "binanceus:spot:BTCUSDT=" + Repository.data("samples/binanceus_BTCUSDT_1m_2023-03-01_02.csv") + format
  static let usd = "binanceus:spot:BTCUSD=" + Repository.data("samples/binanceus_BTCUSD_1m_2023-03-01_02.csv") + format

  /// Rows of a CSV text (header dropped), split at commas.
  static func rows(_ text: String) -> [[Substring]] {
    text.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
  }

  /// The premium series `arbkit premium --series` writes: (ts, mid) at valid points.
  static func premiumSeries(_ folder: TemporaryFolder, legs: [String]) throws -> [(Int64, Double)] {
    let path = folder.path + "/series.csv"
    let run = arbkit(["premium", "--max-stale", "2m", "--series", path, "--format", "json"] + legs.flatMap { ["--leg", $0] })
    #expect(run.code == .success)
    return Self.rows(try String(contentsOfFile: path, encoding: .utf8)).filter { $0[1] == "1" }.map { (Int64($0[0])!, Double($0[2])!) }
  }

  @Test func `rolling: every written row equals a two-pass window of the written values`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let out = folder.path + "/rolling.csv"
    let run = arbkit(
      "rolling", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--window", "60",
      "--ewma", "30m", "--out", out, "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let text = try String(contentsOfFile: out, encoding: .utf8)
    #expect(text.hasPrefix("ts_us,value,mean,std,z,ewma_mean,ewma_std,half_life_s\n"))
    #expect(!text.contains("nan") && !text.contains("inf"))
    let rows = Self.rows(text)
    let series = try Self.premiumSeries(folder, legs: [DemoPair.binance, DemoPair.kraken])
    #expect(rows.count == series.count && run.object["valid_points"] as? Int == rows.count)
    let values = rows.map { Double($0[1])! }
    #expect(zip(values, series).allSatisfy { $0 == $1.1 } && zip(rows, series).allSatisfy { Int64($0[0])! == $1.0 })
    #expect(rows[0][3].isEmpty && rows[0][4].isEmpty && rows[0][6].isEmpty)  // one point: no std, no z
    for i in stride(from: 1, to: rows.count, by: 101) {
      let window = values[max(0, i - 59)...i]
      let mean = window.reduce(0, +) / Double(window.count)
      let std = (window.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(window.count - 1)).squareRoot()
      #expect(isClose(Double(rows[i][2]), mean, rel: 1e-9, abs: 1e-15))
      #expect(isClose(Double(rows[i][3]), std, rel: 1e-9, abs: 1e-15))
      if std > 0 { #expect(isClose(Double(rows[i][4]), (values[i] - mean) / std, rel: 1e-7, abs: 1e-9)) } else { #expect(rows[i][4].isEmpty) }
    }
    let ratios = try #require(run.object["variance_ratios"] as? [[String: Any]])
    #expect(ratios.map { $0["q"] as? Int } == [2, 5, 10, 20])
    let slow = try #require(VarianceRatio(values: values, q: 10))
    #expect(isClose(ratios[2]["vr"] as? Double, slow.ratio, rel: 1e-12) && slow.ratio < 1)
    #expect(allNumbersFinite(run.object))
    let rolling = try #require(run.object["rolling_half_life"] as? [String: Any])
    #expect((rolling["mean_reverting"] as? Int ?? 0) > 0)
  }

  @Test func `rolling over a time window and on the executable premium`() throws {
    let run = arbkit("rolling", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--window", "30m", "--series", "exec", "--format", "json")
    #expect(run.code == .success)
    #expect(run.object["series"] as? String == "exec" && run.object["window"] as? String == "30m")
    #expect(run.object["ewma_half_life"] is NSNull)
  }

  @Test func `candles of the premium on Seoul days equal a grouping of the premium series`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let run = arbkit("candles", "--leg", DemoPair.binance, "--leg", DemoPair.kraken, "--max-stale", "2m", "--every", "1d", "--tz", "Asia/Seoul")
    #expect(run.code == .success)
    let candles = Self.rows(run.output)
    let day: Int64 = 86_400_000_000, seoul: Int64 = 32_400_000_000
    var groups: [Int64: [Double]] = [:]
    for (t, v) in try Self.premiumSeries(folder, legs: [DemoPair.binance, DemoPair.kraken]) {
      groups[(t + seoul).floorDiv(day) * day - seoul, default: []].append(v)
    }
    #expect(candles.count == groups.count)
    for row in candles {
      let values = try #require(groups[Int64(row[0])!])
      #expect(row[1].hasSuffix("T15:00:00Z"))
      #expect(Double(row[2]) == values.first && Double(row[5]) == values.last)
      #expect(Double(row[3]) == values.max() && Double(row[4]) == values.min() && Int(row[8]) == values.count)
      #expect(isClose(Double(row[6]), values.reduce(0, +) / Double(values.count), rel: 1e-9))
    }
  }

  @Test func `candles of one leg's mid, hourly, as JSON`() throws {
    let run = arbkit("candles", "--leg", DemoPair.kraken, "--every", "1h", "--format", "json")
    #expect(run.code == .success)
    let candles = try #require(run.json as? [[String: Any]])
    let leg = try LegSpec(parsing: DemoPair.kraken).load(options: IngestOptions()).series
    let hour: Int64 = 3_600_000_000
    let first = leg.time[0].floorDiv(hour) * hour
    let members = leg.time.indices.filter { leg.time[$0] >= first && leg.time[$0] < first + hour }
    #expect(candles[0]["start_us"] as? Int == Int(first) && candles[0]["count"] as? Int == members.count)
    #expect(candles[0]["open"] as? Double == leg.bid[members.first!] && candles[0]["close"] as? Double == leg.bid[members.last!])
    #expect(candles.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == leg.count)
    #expect(allNumbersFinite(candles))
  }

  @Test func `correlate: the library's matrices of the premiums over the base leg`() throws {
    let legs = [DemoPair.binance, Self.usdt, Self.usd, DemoPair.kraken]
    for pairwise in [false, true] {
      let run = arbkit(["correlate", "--max-stale", "2m", "--format", "json"] + legs.flatMap { ["--leg", $0] } + (pairwise ? ["--pairwise"] : []))
      #expect(run.code == .success, "\(run.errors)")
      let object = run.object
      #expect(object["base"] as? String == "binanceus:spot:BTCUSDC")
      #expect(object["series"] as? [String] == ["binanceus:spot:BTCUSDT", "binanceus:spot:BTCUSD", "kraken:spot:BTCUSDC"])
      let series = try legs.map { try LegSpec(parsing: $0).load(options: IngestOptions()).series }
      let panel = try PremiumPanel(legs: series, base: 0, options: AlignmentOptions(maxStale: 120_000_000))
      let expected = CovarianceMatrix(series: panel.premiums, missing: pairwise ? .pairwise : .completeCase)
      let correlation = try #require(object["correlation"] as? [[Double]])
      let covariance = try #require(object["covariance"] as? [[Double]])
      for i in 0..<3 {
        #expect(correlation[i][i] == 1)
        for j in 0..<3 {
          #expect(isClose(correlation[i][j], expected.correlation[i * 3 + j], rel: 1e-14))
          #expect(isClose(covariance[i][j], expected.covariance[i * 3 + j], rel: 1e-14))
          #expect(correlation[i][j] == correlation[j][i])
        }
      }
      // The two Binance.US premiums move together (the same book against the same base).
      #expect(correlation[0][1] > 0.8)
      let counts = try #require(object["counts"] as? [[Int]])
      #expect(pairwise ? counts[2][2] > counts[0][2] : Set(counts.flatMap { $0 }).count == 1)
    }
    let table = arbkit(["correlate", "--max-stale", "2m", "--base", "4"] + legs.flatMap { ["--leg", $0] })
    #expect(table.code == .success && table.output.hasPrefix("Premiums over kraken:spot:BTCUSDC"))
  }

  static let usageErrors: [(arguments: [String], message: String)] = [
    (["rolling", "--leg", "a", "--leg", "b"], "missing --window"),
    (["rolling", "--leg", "a", "--leg", "b", "--window", "0"], "invalid value for '--window'"),
    (["rolling", "--leg", "a", "--leg", "b", "--window", "5m", "--series", "mid"], "invalid value for '--series'"),
    (["candles", "--leg", "a", "--leg", "b", "--every", "1h", "--of", "mid"], "--of mid takes one --leg, was 2"),
    (["candles", "--leg", "a", "--every", "1h", "--tz", "Europe/Paris"], "invalid value for '--tz'"),
    (["candles", "--leg", "a"], "missing --every"),
    (["candles", "--leg", "a", "--every", "1h", "--max-stale", "5s"], "--max-stale and --grid align premiums"),
    (["correlate", "--leg", "a", "--leg", "b"], "need at least 3 --leg, was 2"),
    (["correlate", "--leg", "a", "--leg", "b", "--leg", "c", "--base", "4"], "invalid value for '--base'"),
  ]

  @Test("usage errors exit 64", arguments: usageErrors)
  func usageError(c: (arguments: [String], message: String)) {
    expectUsageError(c.arguments, c.message)
  }
}
