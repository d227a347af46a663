#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Writes synthetic Tardis `book_snapshot_5` files for the book-fill benchmark: one file
/// per venue of `QuoteGenerator.venues`, seeded.
///
/// The prices follow `QuoteGenerator`'s process (irregular arrivals, a common random
/// walk, a mean-reverting premium per venue); the book moves to them on 3 rows in 10,
/// the other rows change sizes only. Each side has five levels, 1 to 3 ticks of 0.1
/// apart; a level keeps its size from the row before while it stays at the same price,
/// except that one in four is redrawn (0.001 to 0.060 BTC), so the liquidity a walk takes
/// is often still missing from the next books, and a 10 000 USDT order (about 0.1 BTC)
/// takes several levels and now and then more than the book holds.
struct BookGenerator {
  static let levels = 5
  /// The share of rows on which the book's prices move to the generated quote.
  static let repriceShare = 0.3

  let rows: Int
  let seed: UInt64

  /// Writes `rows` books for venue `index` to `path`.
  func write(venue index: Int, to path: String) throws {
    let venue = QuoteGenerator.venues[index]
    var random = Random(seed: seed &+ UInt64(index + 1) &* 0x9E37_79B9)
    var walk = Random(seed: seed)  // common price path: the same draws for every venue
    var out = try CSVWriter(path: path)
    var header = "exchange,symbol,timestamp,local_timestamp"
    for k in 0..<Self.levels { header += ",asks[\(k)].price,asks[\(k)].amount,bids[\(k)].price,bids[\(k)].amount" }
    out.text(Array((header + "\n").utf8))
    let prefix = Array("\(venue.exchange),\(venue.symbol),".utf8)
    var time: Int64 = 1_735_689_600_000_000
    var walkTime: Int64 = time
    var logPrice = log(93_500.0)
    var premium = venue.premiumMean
    let theta = 0.002  // OU pull per row
    let sigma = 0.006  // OU noise per row, percent
    // Per side (bids, asks) and level: the price in tenths and the size in thousandths.
    var prices = [[Int64]](repeating: [Int64](repeating: 0, count: Self.levels), count: 2)
    var sizes = prices
    for _ in 0..<rows {
      time += Int64(max(1, -log(max(random.uniform(), 1e-12)) * venue.meanGapMicros))
      while walkTime + 10_000 <= time {
        walkTime += 10_000
        logPrice += walk.normal() * 2.5e-5
      }
      premium += theta * (venue.premiumMean - premium) + sigma * random.normal()
      let mid = exp(logPrice) * (1 + premium / 100)
      let halfSpread = mid * (0.00004 + 0.00002 * random.uniform())
      let bestBid = Int64(((mid - halfSpread) * 10).rounded(.down))
      let bestAsk = max(bestBid + 1, Int64(((mid + halfSpread) * 10).rounded(.up)))
      let moves = prices[0][0] == 0 || random.uniform() < Self.repriceShare
      for side in 0..<2 {
        var price = side == 0 ? bestBid : bestAsk
        for k in 0..<Self.levels {
          if k > 0 { price += (side == 0 ? -1 : 1) * (1 + Int64(random.uniform() * 3)) }
          let level = moves ? price : prices[side][k]
          if level != prices[side][k] || random.uniform() < 0.25 { sizes[side][k] = 1 + Int64(random.uniform() * 60) }
          prices[side][k] = level
        }
      }
      out.text(prefix)
      out.int(time - 1_000 - Int64(random.uniform() * 2_000))
      out.byte(44)
      out.int(time)
      for k in 0..<Self.levels {
        for side in (0..<2).reversed() {  // asks, then bids
          out.byte(44)
          out.fixed(prices[side][k], decimals: 1)
          out.byte(44)
          out.fixed(sizes[side][k], decimals: 3)
        }
      }
      try out.endRow()
    }
    try out.close()
  }
}
