import ArbIngest
@testable import ArbResearch
import Foundation
import TestSupport
import Testing

// A scenario whose `fx` converts a venue's legs streams: the converted legs, the FX
// summary and every result equal those of the run on whole legs, for chunks down to two
// points, with the FX series' chunks and staleness gaps falling anywhere.

@Suite("A streamed run converts its legs by the FX series as a whole-leg run does")
struct StreamedFXTests {
  /// KRW quotes on Upbit and USDT quotes on Binance (Tardis quotes, 1,500 each at
  /// irregular times, the premium wandering around 0.5 %), and a USD/KRW series of 300
  /// rates whose first comes after the legs begin, with gaps longer than `max_stale`.
  static func generated(_ folder: TemporaryFolder) -> String {
    var random = SplitMix64(seed: 41)
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    let start: Int64 = 1_722_000_000_000_000
    var rates: [(time: Int64, rate: Double)] = []
    var t = start + 40_000_000, rate = 1_380.0
    for _ in 0..<300 {
      t += Int64(random.next() % 20) * 1_000_000 + (random.next() % 9 == 0 ? 400_000_000 : 500_000)
      rate += random.normal() * 0.4
      rates.append((t, (rate * 100).rounded() / 100))
    }
    var binance = header, upbit = header
    var price = 60_000.0, premium = 0.5
    for (venue, text) in [("binance", 0), ("upbit", 1)] {
      var time = start + Int64(text) * 137
      var r = 0
      for _ in 0..<1_500 {
        time += Int64(random.next() % 4_000_000) + 1
        price += random.normal() * 5
        premium += random.normal() * 0.08
        while r + 1 < rates.count && rates[r + 1].time <= time { r += 1 }
        let mid = venue == "binance" ? price : price * rates[r].rate * (1 + premium / 100)
        let tick = venue == "binance" ? 0.1 : 1_000.0
        let bid = (mid / tick).rounded(.down) * tick
        let line = "\(venue),\(venue == "binance" ? "BTCUSDT" : "KRW-BTC"),\(time),\(time + 900),1.5,\(bid + tick),\(bid),2.0\n"
        if venue == "binance" { binance += line } else { upbit += line }
      }
    }
    let fx = "time,rate\n" + rates.map { "\($0.time),\($0.rate)\n" }.joined()
    _ = folder.write("binance.csv", binance)
    _ = folder.write("upbit.csv", upbit)
    _ = folder.write("usdkrw.csv", fx)
    _ = folder.write("rate.json", #"{ "kind": "fx", "header": true, "time": { "column": "time", "form": "us" }, "price": "rate", "symbol": "USDKRW" }"#)
    return folder.write(
      "kimchi.json",
      """
      {
        "legs": [
          { "venue": "upbit", "market": "spot", "symbol": "KRW-BTC", "files": ["upbit.csv"], "format": "tardis.quotes" },
          { "venue": "binance", "market": "spot", "symbol": "BTCUSDT", "files": ["binance.csv"], "format": "tardis.quotes" }
        ],
        "fx": { "files": ["usdkrw.csv"], "format": "rate.json", "max_stale": "3m", "converts": "upbit" },
        "alignment": { "max_stale": "20s" },
        "strategy": { "mode": "convergence", "entry": 0.6, "exit": 0.3, "notional": 10000 },
        "costs": { "fees": { "upbit": 0.0005, "binance": 0.001 } }
      }
      """)
  }

  @Test("generated ticks, the hand-made case and the shipped kimchi scenario: JSON, ledgers and FX summary", arguments: [2, 3, 61, 1 << 16])
  func backtests(chunkPoints: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let generated = Self.generated(folder)
    let hand = TemporaryFolder()
    defer { hand.cleanup() }
    let cases: [(path: String, sets: [[String]])] = [
      (generated, [[], ["fx.max_stale=none"], ["fx.max_stale=10s", "costs.latency=2s"], ["alignment.offsets.upbit=-5s", "strategy.entry=0.4"]]),
      (ScenarioFXTests.scenario(hand), [[], ["fx.max_stale=none"]]),
      (ScenarioFXTests.kimchi, [[], ["fx.max_stale=1d"], ["strategy.entry=1.45", "costs.latency=7m"]]),
    ]
    var traded = 0
    for (path, sets) in cases {
      for set in sets {
        let scenario = try Scenario.load(path: path, overrides: set)
        try StreamedSweepTests.compareBacktest(scenario, chunkPoints: chunkPoints)
        let streamed = try Self.streamed(scenario, chunkPoints: chunkPoints)
        let fx = try #require(streamed.fx)
        #expect(fx.quotes == streamed.legs[0].count && fx.unusable > 0 || set.contains("fx.max_stale=none") || path == ScenarioFXTests.kimchi)
        traded += streamed.journal.bookings.filter(\.isTrade).count
      }
    }
    #expect(traded > 10, "the cases trade")
  }

  static func streamed(_ scenario: Scenario, chunkPoints: Int) throws -> ScenarioRun {
    var options = IngestOptions()
    options.clock = scenario.clock
    let fees = try scenario.takerFees(registry: options.registry)
    return try ScenarioRun(streaming: scenario, fees: fees, options: options, chunkPoints: chunkPoints)
  }

  @Test("a sweep over fx.max_stale and the entry streams to the whole-leg rows", arguments: [2, 97])
  func sweep(chunkPoints: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.generated(folder)
    var sets: [[String]] = []
    for stale in ["30s", "3m", "none"] {
      for entry in ["0.4", "0.6"] { sets.append(["fx.max_stale=\(stale)", "strategy.entry=\(entry)"]) }
    }
    let cells = try sets.enumerated().map { (cell: $0.offset, scenario: try Scenario.load(path: path, overrides: $0.element)) }
    let whole = try StreamedSweepTests.rows(cells, stream: false)
    let streamed = try StreamedSweepTests.rows(cells, stream: true, chunkPoints: chunkPoints)
    #expect(streamed.streamed.allSatisfy { $0 } && whole.streamed.allSatisfy { !$0 })
    #expect(streamed.rows == whole.rows && streamed.columns == whole.columns)
  }

  @Test("a rate read as a price series is refused by a streamed run as by a whole one")
  func rateSeries() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.generated(folder)
    _ = folder.write(
      "rate.json",
      #"{ "kind": "fx", "header": true, "time": { "column": "time", "form": "us" }, "price": "rate", "symbol": "USDKRW", "field": "funding_rate" }"#
    )
    let scenario = try Scenario.load(path: path)
    let error = #expect(throws: ScenarioLegError.self) { try Self.streamed(scenario, chunkPoints: 64) }
    #expect(error?.reason == .rateSeries(field: .fundingRate, path: folder.path + "/usdkrw.csv"))
  }
}
