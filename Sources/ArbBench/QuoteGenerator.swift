#if canImport(Glibc)
@preconcurrency import Glibc
#endif
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
    var random = Random(seed: seed &+ UInt64(index + 1) &* 0x9E37_79B9)
    var walk = Random(seed: seed)  // common price path: the same draws for every venue
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw BenchError("cannot write \(path)") }
    defer { close(fd) }
    var out: [UInt8] = []
    out.reserveCapacity(1 << 22)
    out += Array("exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n".utf8)
    let prefix = Array("\(venue.exchange),\(venue.symbol),".utf8)
    var time: Int64 = 1_735_689_600_000_000
    var walkTime: Int64 = time
    var logPrice = log(93_500.0)
    var premium = venue.premiumMean
    let theta = 0.002  // OU pull per quote
    let sigma = 0.006  // OU noise per quote, percent
    for _ in 0..<rows {
      let gap = Int64(max(1, -log(max(random.uniform(), 1e-12)) * venue.meanGapMicros))
      time += gap
      // Advance the common walk in 10 ms steps up to this time (same path for all venues).
      while walkTime + 10_000 <= time {
        walkTime += 10_000
        logPrice += walk.normal() * 2.5e-5
      }
      premium += theta * (venue.premiumMean - premium) + sigma * random.normal()
      let mid = exp(logPrice) * (1 + premium / 100)
      let halfSpread = mid * (0.00004 + 0.00002 * random.uniform())
      let bidTenths = Int64(((mid - halfSpread) * 10).rounded(.down))
      let askTenths = max(bidTenths + 1, Int64(((mid + halfSpread) * 10).rounded(.up)))
      let exchangeTime = time - 1_000 - Int64(random.uniform() * 2_000)
      out += prefix
      append(&out, exchangeTime); out.append(44)
      append(&out, time); out.append(44)
      appendFixed(&out, Int64(random.uniform() * 5_000) + 1, decimals: 3); out.append(44)
      appendFixed(&out, askTenths, decimals: 1); out.append(44)
      appendFixed(&out, bidTenths, decimals: 1); out.append(44)
      appendFixed(&out, Int64(random.uniform() * 5_000) + 1, decimals: 3); out.append(10)
      if out.count > (1 << 22) - 256 { try flush(fd, &out) }
    }
    try flush(fd, &out)
  }

  private func flush(_ fd: Int32, _ out: inout [UInt8]) throws {
    try out.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
        guard n > 0 else { throw BenchError("write failed") }
        offset += n
      }
    }
    out.removeAll(keepingCapacity: true)
  }

  private func append(_ out: inout [UInt8], _ value: Int64) {
    var digits = 1
    var limit: Int64 = 10
    while value >= limit && digits < 19 {
      digits += 1
      limit &*= 10
    }
    let end = out.count + digits
    out.append(contentsOf: repeatElement(48, count: digits))
    var v = value
    for k in stride(from: end - 1, through: end - digits, by: -1) {
      out[k] = UInt8(48 + v % 10)
      v /= 10
    }
  }

  private func appendFixed(_ out: inout [UInt8], _ scaled: Int64, decimals: Int) {
    var unit: Int64 = 1
    for _ in 0..<decimals { unit *= 10 }
    append(&out, scaled / unit)
    out.append(46)
    var fraction = scaled % unit
    let end = out.count + decimals
    out.append(contentsOf: repeatElement(48, count: decimals))
    for k in stride(from: end - 1, through: end - decimals, by: -1) {
      out[k] = UInt8(48 + fraction % 10)
      fraction /= 10
    }
  }
}

/// SplitMix64 with uniform and normal draws.
struct Random {
  private var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

  mutating func normal() -> Double {
    let u = max(uniform(), 1e-300), v = uniform()
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
