#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Writes synthetic Tardis `book_snapshot_5` files for the book-fill benchmark: one file
/// per venue of `QuoteGenerator.venues`, seeded.
///
/// The prices follow `PriceProcess`, as `QuoteGenerator`'s quotes do; the book moves to
/// them on 3 rows in 10, the other rows change sizes only. Each side has five levels, 1 to 3 ticks of 0.1
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
    var process = PriceProcess(venue: index, seed: seed)
    var out = try CSVWriter(path: path)
    var header = "exchange,symbol,timestamp,local_timestamp"
    for k in 0..<Self.levels { header += ",asks[\(k)].price,asks[\(k)].amount,bids[\(k)].price,bids[\(k)].amount" }
    out.text(Array((header + "\n").utf8))
    let prefix = Array("\(venue.exchange),\(venue.symbol),".utf8)
    // Per side (bids, asks) and level: the price in tenths and the size in thousandths.
    var prices = [[Int64]](repeating: [Int64](repeating: 0, count: Self.levels), count: 2)
    var sizes = prices
    for _ in 0..<rows {
      let quote = process.next()
      let moves = prices[0][0] == 0 || process.random.uniform() < Self.repriceShare
      for side in 0..<2 {
        var price = side == 0 ? quote.bid : quote.ask
        for k in 0..<Self.levels {
          if k > 0 { price += (side == 0 ? -1 : 1) * (1 + Int64(process.random.uniform() * 3)) }
          let level = moves ? price : prices[side][k]
          if level != prices[side][k] || process.random.uniform() < 0.25 { sizes[side][k] = 1 + Int64(process.random.uniform() * 60) }
          prices[side][k] = level
        }
      }
      out.text(prefix)
      out.int(quote.time - 1_000 - Int64(process.random.uniform() * 2_000))
      out.byte(44)
      out.int(quote.time)
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
