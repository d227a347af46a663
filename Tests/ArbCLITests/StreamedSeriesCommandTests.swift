import ArbAnalytics
import ArbCore
import ArbIngest
import Foundation
import Testing
import TestSupport

/// `arbkit candles` streams its legs `--chunk-rows` at a time: the candles are those of
/// the whole series (`Candles.make` over the whole premium or mid), byte for byte at any
/// chunk size, from the source files or from a store.
@Suite("arbkit candles, streamed")
struct StreamedCandlesTests {
  /// The candles of the whole loaded legs, as `candles` computed them before streaming.
  static func wholeCandles(_ legTexts: [String], of source: String, every: Int64, offset: Int64) throws -> [Candle] {
    var options = IngestOptions()
    options.storeColumns = .skippingSizesAndOtherClock
    let legs = try legTexts.map { try LegSpec(parsing: $0).load(options: options).series }
    if source == "mid" {
      let values = legs[0].time.indices.map { k in (legs[0].bid[k] + legs[0].ask[k]) / 2 }
      return Candles.make(time: legs[0].time, values: values, every: every, offset: offset)
    }
    var alignment = AlignmentOptions()
    alignment.maxStale = 120_000_000
    let premium = try PremiumSeries(legs: legs, options: alignment)
    return Candles.make(time: premium.time, values: source == "exec" ? premium.exec : premium.mid, every: every, offset: offset)
  }

  @Test(arguments: ["premium", "exec", "mid"])
  func `every chunk size gives the candles of the whole series`(source: String) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = source == "mid" ? [DemoPair.kraken] : [DemoPair.binance, DemoPair.kraken]
    let stale = source == "mid" ? [] : ["--max-stale", "2m"]
    let store = folder.path + "/store"
    #expect(arbkit(["convert"] + legs + ["--out", store]).code == .success)
    let stored = legs.map { String($0.split(separator: "=")[0]) + "=" + store }
    let arguments = ["--of", source, "--every", "1h", "--tz", "Asia/Seoul", "--format", "json"] + stale
    let reference = arbkit(["candles"] + legs.flatMap { ["--leg", $0] } + arguments)
    #expect(reference.code == .success, "\(reference.errors)")
    let expected = try Self.wholeCandles(legs, of: source, every: 3_600_000_000, offset: 9 * 3_600_000_000)
    let rows = try #require(reference.json as? [[String: Any]])
    #expect(rows.count == expected.count && expected.count > 400)
    // JSON prints 15 significant digits: the figures agree to that.
    for (row, candle) in zip(rows, expected) {
      #expect(row["start_us"] as? Int64 == candle.start && row["count"] as? Int == candle.count)
      let pairs = zip(["open", "high", "low", "close", "mean", "mean_tw"], [candle.open, candle.high, candle.low, candle.close, candle.mean, candle.meanTW])
      for (key, value) in pairs {
        guard let value else {
          #expect(row[key] is NSNull, "\(key) at \(candle.start)")
          continue
        }
        #expect(isClose(row[key] as? Double ?? .nan, value, rel: 1e-14, abs: 1e-15), "\(key) at \(candle.start)")
      }
    }
    for rows in ["1", "7", "300"] {
      for inputs in [legs, stored] {
        let run = arbkit(["candles"] + inputs.flatMap { ["--leg", $0] } + arguments + ["--chunk-rows", rows])
        #expect(run.code == .success, "\(run.errors)")
        #expect(run.output == reference.output, "chunks of \(rows)")
      }
    }
  }
}

/// `arbkit profile` streams its legs `--chunk-rows` at a time: the profile is that of
/// the whole premium series, byte for byte at any chunk size, from files or a store.
@Suite("arbkit profile, streamed")
struct StreamedProfileTests {
  @Test(arguments: ["mid", "exec"])
  func `every chunk size gives the profile of the whole series`(premium: String) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let legs = [DemoPair.binance, DemoPair.kraken]
    let store = folder.path + "/store"
    #expect(arbkit(["convert"] + legs + ["--out", store]).code == .success)
    let stored = legs.map { String($0.split(separator: "=")[0]) + "=" + store }
    let arguments = ["--premium", premium, "--tz", "Asia/Seoul", "--max-stale", "2m", "--bands", "0.05,0.3", "--format", "json"]
    let reference = arbkit(["profile"] + legs.flatMap { ["--leg", $0] } + arguments)
    #expect(reference.code == .success, "\(reference.errors)")
    var options = IngestOptions()
    options.storeColumns = .skippingSizesAndOtherClock
    var alignment = AlignmentOptions()
    alignment.maxStale = 120_000_000
    let whole = try PremiumSeries(legs: try legs.map { try LegSpec(parsing: $0).load(options: options).series }, options: alignment)
    let expected = TimeOfDayProfile(
      values: premium == "exec" ? whole.exec : whole.mid, valid: whole.valid, time: whole.time, duration: whole.duration, bands: [0.05, 0.3],
      oneSided: premium == "exec", zone: "Asia/Seoul", offset: 9 * 3_600_000_000)
    let cells = try #require(reference.object["cells"] as? [[String: Any]])
    #expect(cells.count == 168 && expected.cells.contains { $0.points > 0 })
    // JSON prints 15 significant digits: the figures agree to that.
    for (row, cell) in zip(cells, expected.cells) {
      #expect(row["points"] as? Int == cell.points)
      #expect(isClose(row["seconds"] as? Double, cell.seconds, rel: 1e-14, abs: 0))
      #expect(cell.mean == nil ? row["mean"] is NSNull : isClose(row["mean"] as? Double, cell.mean, rel: 1e-14, abs: 1e-15))
    }
    for rows in ["1", "7", "300"] {
      for inputs in [legs, stored] {
        let run = arbkit(["profile"] + inputs.flatMap { ["--leg", $0] } + arguments + ["--chunk-rows", rows])
        #expect(run.code == .success, "\(run.errors)")
        #expect(run.output == reference.output, "chunks of \(rows)")
      }
    }
  }
}
