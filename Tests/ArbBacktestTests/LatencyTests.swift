import ArbAnalytics
import ArbCore
import TestSupport
import Testing

@testable import ArbBacktest

// Latency distributions (docs/definitions.md, "Latency distributions"): the forms, draws
// that depend on the seed and the fill alone, and `recorded` read from a leg's two clocks.

@Suite("Latency distributions")
struct LatencyTests {
  @Test("the forms of costs.latency, and what is refused")
  func parsing() {
    #expect(Latency(parsing: "20ms") == .fixed(20_000) && Latency(parsing: "fixed:20ms") == .fixed(20_000))
    #expect(Latency(parsing: "uniform:10ms:40ms") == .uniform(low: 10_000, high: 40_000))
    #expect(Latency(parsing: "lognormal:20ms:0.5") == .lognormal(median: 20_000, sigma: 0.5))
    #expect(Latency(parsing: "recorded") == .recorded)
    for bad in ["uniform:40ms:10ms", "uniform:10ms", "lognormal:20ms:-1", "lognormal:20ms:4", "fixed:-5ms", "normal:1ms:2ms", "recorded:1ms", "-1s"] {
      #expect(Latency(parsing: bad) == nil, "\(bad)")
    }
    #expect(Latency(parsing: "uniform:10ms:40ms")?.description == "uniform:10ms:40ms" && Latency.fixed(50_000).description == "50ms")
  }

  @Test("draws: the same for the same seed, signal and leg; uniform within [low, high); lognormal around its median")
  func draws() {
    let uniform = Latency.uniform(low: 10_000, high: 40_000), lognormal = Latency.lognormal(median: 20_000, sigma: 0.5)
    func draw(_ latency: Latency, _ seed: UInt64, _ time: Int64, _ leg: Int) -> Int64 { latency.delay(seed: seed, time: time, leg: leg, recorded: 0) }
    #expect(draw(uniform, 7, 1_000, 0) == draw(uniform, 7, 1_000, 0))
    let times = (0..<4_000).map { Int64($0) * 1_000_003 }
    #expect(times.map { draw(uniform, 7, $0, 0) } != times.map { draw(uniform, 8, $0, 0) })
    #expect(times.map { draw(uniform, 7, $0, 0) } != times.map { draw(uniform, 7, $0, 1) })
    let u = times.map { draw(uniform, 7, $0, 0) }
    #expect(u.allSatisfy { (10_000..<40_000).contains($0) })
    // The share below the median of 20 ms is 1/2 within 4 standard errors (σ = √(1/4 / n)).
    let below = Double(times.filter { draw(lognormal, 7, $0, 1) < 20_000 }.count) / Double(times.count)
    #expect(abs(below - 0.5) < 4 * (0.25 / Double(times.count)).squareRoot())
    #expect(Latency.fixed(5).delay(seed: 1, time: 2, leg: 0, recorded: 9) == 5 && Latency.recorded.delay(seed: 1, time: 2, leg: 0, recorded: 9) == 9)
  }

  /// ConvergenceTests' legs with exchange times `delays` (s) before their receive times.
  static func recordedLegs(_ delays: [[Int64]]) -> [QuoteSeries] {
    zip([ConvergenceTests.a, ConvergenceTests.b], delays).map { leg, delay in
      var leg = leg
      leg.otherTime = zip(leg.time, delay).map { $0 - $1 * second }
      return leg
    }
  }

  static func parameters(_ latency: Latency) -> ConvergenceParameters {
    var parameters = ConvergenceTests.parameters()
    parameters.latencyModels = [latency, latency]
    return parameters
  }

  @Test("recorded: delays of 12 s on A and 0 on B fill as a fixed latency of 12 s on A does")
  func recordedAsFixed() throws {
    var fixed = ConvergenceTests.parameters()
    fixed.legLatency = [12 * second, 0]
    let legs = Self.recordedLegs([[12, 12, 12, 12, 12], [0, 0, 0, 0, 0]])
    let expected = try run(legs, fixed).trades, recorded = try run(legs, Self.parameters(.recorded)).trades
    #expect(!expected.isEmpty && recorded == expected)
  }

  @Test("recorded: each fill reads the delay of its leg's quote in force at the signal")
  func recordedPerQuote() throws {
    // A's quote at 10 s arrived 12 s after its exchange time: A's entry fills at 22 s, on
    // its 20 s quote (bid 100.2); every other delay is 0.
    let trade = try #require(try run(Self.recordedLegs([[0, 12, 0, 0, 0], [0, 0, 0, 0, 0]]), Self.parameters(.recorded)).trades.first)
    #expect((trade.richSell, trade.cheapBuy, trade.richBuy, trade.cheapSell) == (100.2, 100.1, 100.1, 100))
    // A receive time before the exchange time (clocks apart) is no delay.
    let early = try #require(try run(Self.recordedLegs([[0, -3, 0, 0, 0], [0, 0, 0, 0, 0]]), Self.parameters(.recorded)).trades.first)
    #expect(early.richSell == 100.5)
  }

  @Test("the first-passage engine draws the latencies the pass draws")
  func indexedEqualsPass() throws {
    let legs = Self.recordedLegs([[0, 12, 0, 0, 0], [0, 0, 3, 0, 0]])
    for latency in [Latency.uniform(low: 0, high: 15 * second), .lognormal(median: 5 * second, sigma: 1), .recorded] {
      for seed in [UInt64(1), 2, 3] {
        var parameters = Self.parameters(latency)
        parameters.seed = seed
        let engine = ConvergenceBacktest(parameters: parameters)
        let index = try ConvergenceIndex(legs: legs, options: AlignmentOptions())
        #expect(engine.price(engine.decide(legs: legs, index: index), legs: legs).trades == (try run(legs, parameters)).trades, "\(latency) \(seed)")
      }
    }
  }
}
