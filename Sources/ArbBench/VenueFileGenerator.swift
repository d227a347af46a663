#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Writes synthetic venue files in the real column layouts (docs/sources.md): Binance
/// USDⓈ-M `bookTicker` and `aggTrades` with their headers, and Bybit `trading` files
/// with decimal-second timestamps. Seeded: the same rows on every run.
///
/// Prices follow a random walk around 93 500 on a 0.1 tick; events arrive about every
/// 5 ms (several share a millisecond, as in real files, and collapse on ingest).
struct VenueFileGenerator {
  enum Kind: String, CaseIterable {
    case bookTicker = "binance-bookTicker"
    case aggTrades = "binance-aggTrades"
    case bybitTrading = "bybit-trading"

    var header: String {
      switch self {
      case .bookTicker: "update_id,best_bid_price,best_bid_qty,best_ask_price,best_ask_qty,transaction_time,event_time"
      case .aggTrades: "agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker"
      case .bybitTrading: "timestamp,symbol,side,size,price,tickDirection,trdMatchID,grossValue,homeNotional,foreignNotional,RPI"
      }
    }
  }

  let rows: Int
  let seed: UInt64

  func write(_ kind: Kind, to path: String) throws {
    var random = Random(seed: seed)
    var out = try CSVWriter(path: path)
    out.text(Array((kind.header + "\n").utf8))
    var timeMicros: Int64 = 1_735_689_600_000_000
    var tenths = Int64(935_000)
    var id = Int64(4_012_345_678_901)
    let hex = Array("0123456789abcdef".utf8)
    for _ in 0..<rows {
      timeMicros += Int64(max(1, -log(max(random.uniform(), 1e-12)) * 5_000))
      if random.uniform() < 0.3 { tenths += random.uniform() < 0.5 ? -1 : 1 }
      id += 1 + Int64(random.uniform() * 4)
      let millis = timeMicros / 1_000
      let size = Int64(random.uniform() * 2_000) + 1  // thousandths
      switch kind {
      case .bookTicker:
        out.int(id); out.byte(44)
        out.fixed(tenths * 10, decimals: 2); out.byte(44)
        out.fixed(size, decimals: 3); out.byte(44)
        out.fixed((tenths + 1) * 10, decimals: 2); out.byte(44)
        out.fixed(Int64(random.uniform() * 2_000) + 1, decimals: 3); out.byte(44)
        out.int(millis); out.byte(44)
        out.int(millis + Int64(random.uniform() * 8))
      case .aggTrades:
        let trades = Int64(random.uniform() * 3)
        out.int(id); out.byte(44)
        out.fixed(tenths, decimals: 1); out.byte(44)
        out.fixed(size, decimals: 3); out.byte(44)
        out.int(id * 2); out.byte(44)
        out.int(id * 2 + trades); out.byte(44)
        out.int(millis); out.byte(44)
        out.text(random.uniform() < 0.5 ? Array("true".utf8) : Array("false".utf8))
      case .bybitTrading:
        let buy = random.uniform() < 0.5
        out.int(timeMicros / 1_000_000); out.byte(46)
        let tenThousandths = (timeMicros / 100) % 10_000
        out.text([
          48 + UInt8(tenThousandths / 1000), 48 + UInt8(tenThousandths / 100 % 10), 48 + UInt8(tenThousandths / 10 % 10), 48 + UInt8(tenThousandths % 10),
        ])
        out.text(Array((buy ? ",BTCUSDT,Buy," : ",BTCUSDT,Sell,").utf8))
        out.fixed(size, decimals: 3); out.byte(44)
        out.fixed(tenths, decimals: 1); out.byte(44)
        out.text(Array((buy ? "PlusTick," : "MinusTick,").utf8))
        for k in 0..<36 { out.byte([8, 13, 18, 23].contains(k) ? 45 : hex[Int(random.next() & 15)]) }
        out.byte(44)
        scientific(&out, Double(tenths) / 10 * Double(size) / 1_000 * 1e8); out.byte(44)
        out.fixed(size, decimals: 3); out.byte(44)
        out.fixed(tenths * size / 100, decimals: 4); out.byte(44)
        out.byte(48)
      }
      try out.endRow()
    }
    try out.close()
  }

  /// `value > 0` as Bybit writes `grossValue`: six significant digits, `e+NN`.
  private func scientific(_ out: inout CSVWriter, _ value: Double) {
    var exponent = Int64(log10(value).rounded(.down))
    var mantissa = Int64((value / pow(10, Double(exponent)) * 100_000).rounded())
    if mantissa >= 1_000_000 {
      mantissa /= 10
      exponent += 1
    }
    out.fixed(mantissa, decimals: 5)
    out.text(Array("e+".utf8))
    if exponent < 10 { out.byte(48) }
    out.int(exponent)
  }
}
