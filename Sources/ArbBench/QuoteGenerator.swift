#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbAnalytics
import ArbCore

/// Writes synthetic Tardis `quotes` files for benchmarks: one file per venue, seeded.
///
/// Each venue quotes at its own irregular (exponential) arrival times around a common
/// random-walk price, plus its own mean-reverting (Ornstein–Uhlenbeck) premium whose
/// stationary spread is wide enough to cross both 0.05 % and 0.1 % bands, with a
/// half-spread of about 0.5 bp and random sizes.
struct QuoteGenerator {
  struct Venue {
    var exchange: String
    var symbol: String
    /// Mean gap between quotes in µs (equal for all venues so that their files span the
    /// same hours; arrivals are still independent and irregular).
    var meanGapMicros: Double
    /// Long-run premium in percent.
    var premiumMean: Double
  }

  static let venues: [Venue] = [
    Venue(exchange: "binance-futures", symbol: "BTCUSDT", meanGapMicros: 50_000, premiumMean: 0),
    Venue(exchange: "bybit", symbol: "BTCUSDT", meanGapMicros: 50_000, premiumMean: 0.03),
    Venue(exchange: "okex-swap", symbol: "BTC-USDT-SWAP", meanGapMicros: 50_000, premiumMean: -0.04),
  ]

  let rows: Int
  let seed: UInt64

  /// Writes `rows` quotes for `venue` to `path`.
  func write(venue index: Int, to path: String) throws {
    let venue = Self.venues[index]
    var process = PriceProcess(venue: index, seed: seed)
    var out = try CSVWriter(path: path)
    out.text(Array("exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n".utf8))
    let prefix = Array("\(venue.exchange),\(venue.symbol),".utf8)
    for _ in 0..<rows {
      let quote = process.next()
      let exchangeTime = quote.time - 1_000 - Int64(process.random.uniform() * 2_000)
      out.text(prefix)
      out.int(exchangeTime); out.byte(44)
      out.int(quote.time); out.byte(44)
      out.fixed(Int64(process.random.uniform() * 5_000) + 1, decimals: 3); out.byte(44)
      out.fixed(quote.ask, decimals: 1); out.byte(44)
      out.fixed(quote.bid, decimals: 1); out.byte(44)
      out.fixed(Int64(process.random.uniform() * 5_000) + 1, decimals: 3)
      try out.endRow()
    }
    try out.close()
  }
}

/// The prices every generated venue follows (`QuoteGenerator`, `BookGenerator`):
/// irregular (exponential) arrivals, a common random walk in 10 ms steps, the venue's
/// mean-reverting premium and a half-spread of about 0.5 bp.
struct PriceProcess {
  /// The venue's own draws: the generators draw the rest of a row from it too.
  var random: Random
  /// The common price path: the same draws for every venue.
  private var walk: Random
  private let venue: QuoteGenerator.Venue
  private var time: Int64 = 1_735_689_600_000_000
  private var walkTime: Int64 = 1_735_689_600_000_000
  private var logPrice = log(93_500.0)
  private var premium: Double
  private let theta = 0.002  // OU pull per quote
  private let sigma = 0.006  // OU noise per quote, percent

  init(venue index: Int, seed: UInt64) {
    venue = QuoteGenerator.venues[index]
    random = Random(seed: seed &+ UInt64(index + 1) &* 0x9E37_79B9)
    walk = Random(seed: seed)
    premium = venue.premiumMean
  }

  /// The next quote: its time (µs) and best bid and ask in tenths.
  mutating func next() -> (time: Int64, bid: Int64, ask: Int64) {
    time += Int64(max(1, -log(max(random.uniform(), 1e-12)) * venue.meanGapMicros))
    while walkTime + 10_000 <= time {
      walkTime += 10_000
      logPrice += walk.normal() * 2.5e-5
    }
    premium += theta * (venue.premiumMean - premium) + sigma * random.normal()
    let mid = exp(logPrice) * (1 + premium / 100)
    let halfSpread = mid * (0.00004 + 0.00002 * random.uniform())
    let bid = Int64(((mid - halfSpread) * 10).rounded(.down))
    return (time, bid, max(bid + 1, Int64(((mid + halfSpread) * 10).rounded(.up))))
  }
}

/// SplitMix64 with uniform and normal draws.
struct Random {
  private var generator: SplitMixGenerator
  init(seed: UInt64) { generator = SplitMixGenerator(seed: seed) }

  mutating func next() -> UInt64 { generator.next() }

  mutating func uniform() -> Double { generator.uniform() }

  mutating func normal() -> Double {
    let u = max(uniform(), 1e-300), v = uniform()
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
