import Foundation
import TestSupport
import Testing

/// `kimchi --series` and `basis --series`: one row per point of the union of the
/// columns' clocks, each column the premium of one KRW leg (the basis of one pair) in
/// force at that time, empty where it is invalid or not defined yet; checked against
/// premiums computed here from the input rows.
@Suite("Series output of kimchi and basis")
struct SeriesOutputTests {
  static let t0: Int64 = 1_735_689_600_000_000, minute: Int64 = 60_000_000, second: Int64 = 1_000_000

  /// The rows of a written series CSV, split into fields.
  static func rows(_ path: String) throws -> [[String]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  /// `cell` is `expected` (empty when `nil`) within a tight tolerance.
  static func matches(_ cell: String, _ expected: Double?) -> Bool {
    guard let expected else { return cell.isEmpty }
    guard let value = Double(cell) else { return false }
    return abs(value - expected) <= 1e-12 * max(1, abs(expected))
  }

  /// ccxt 1-minute candles: `(minutes after t0, close)`.
  static func candles(_ folder: TemporaryFolder, _ name: String, _ rows: [(Int64, Double)]) -> String {
    let text = rows.map { m, close in "2025-01-01 00:0\(m):00,\(close),\(close),\(close),\(close),1\n" }.joined()
    return folder.write(name, "timestamp,open,high,low,close,volume\n" + text) + "@" + Repository.data("formats/ccxt-ohlcv.json")
  }

  @Test("kimchi, hand-worked: two KRW venues on their own clocks, the first carried to the second's point")
  func kimchiHandWorked() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let upbit = Self.candles(folder, "upbit.csv", [(0, 140_000_000), (2, 141_000_000)])
    let bithumb = Self.candles(folder, "bithumb.csv", [(1, 140_500_000)])
    let binance = Self.candles(folder, "binance.csv", [(0, 100_000), (2, 100_500)])
    let usdtKRW = Self.candles(folder, "usdtkrw.csv", [(0, 1400), (1, 1400), (2, 1400)])
    let path = folder.path + "/kimchi.csv"
    let run = arbkit(
      "kimchi", "--krw", "upbit:spot:KRW-BTC=" + upbit, "--krw", "bithumb:spot:BTC_KRW=" + bithumb, "--usd", "binance:spot:BTCUSDT=" + binance,
      "--fx-market", "upbit:spot:KRW-USDT=" + usdtKRW, "--series", path)
    #expect(run.code == .success, "\(run.errors)")
    let rows = try Self.rows(path)
    #expect(rows.first == ["ts_us", "kimchi_pct_1", "kimchi_pct_2"])
    func kimchi(_ krw: Double, _ usd: Double) -> Double { (krw / (usd * 1400) - 1) * 100 }
    // 00:00: upbit over binance; bithumb has not quoted. 00:01: bithumb's first point,
    // upbit's premium of 00:00 still in force. 00:02: binance moves both.
    let expected: [(Int64, Double?, Double?)] = [
      (0, kimchi(140_000_000, 100_000), nil),
      (1, kimchi(140_000_000, 100_000), kimchi(140_500_000, 100_000)),
      (2, kimchi(141_000_000, 100_500), kimchi(140_500_000, 100_500)),
    ]
    #expect(rows.count == expected.count + 1)
    for (row, (m, first, second)) in zip(rows.dropFirst(), expected) {
      #expect(row[0] == String(Self.t0 + m * Self.minute) && Self.matches(row[1], first) && Self.matches(row[2], second), "\(row)")
    }
  }

  @Test("kimchi, the shipped Investing.com files: every cell is the as-of premium of the daily closes")
  func kimchiInvesting() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.path + "/kimchi.csv"
    let run = arbkit(
      "kimchi", "--krw", KimchiCommandTests.upbit, "--krw", KimchiCommandTests.bithumb, "--usd", KimchiCommandTests.bitstamp,
      "--fx", KimchiCommandTests.usdkrw, "--series", path, "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let krw = [try KimchiCommandTests.closes("upbit_BTC_KRW_daily.csv"), try KimchiCommandTests.closes("bithumb_BTC_KRW_daily.csv")]
    let usd = try KimchiCommandTests.closes("bitstamp_BTC_USD_daily.csv"), fx = try KimchiCommandTests.closes("USD_KRW_daily.csv")
    func asOf(_ closes: [Int: Double], _ day: Int, within: Int = .max) -> Double? {
      closes.keys.filter { $0 <= day && day - $0 <= within }.max().map { closes[$0]! }
    }
    let rows = try Self.rows(path)
    #expect(rows.first == ["ts_us", "kimchi_pct_1", "kimchi_pct_2"])
    let days = Set(krw.flatMap(\.keys) + usd.keys + fx.keys)
    let firstRow = try #require(rows.dropFirst().first.flatMap { Int64($0[0]) })
    // One row per day any leg has a close from the first venue's start on.
    #expect(rows.count - 1 == days.filter { Int64($0) * 86_400_000_000 >= firstRow }.count)
    var defined = [0, 0]
    for row in rows.dropFirst() {
      let day = Int(Int64(row[0])! / 86_400_000_000)
      for k in 0..<2 {
        var expected: Double? = nil
        if let price = asOf(krw[k], day), let dollar = asOf(usd, day), let rate = asOf(fx, day, within: 4) {
          expected = (price / (dollar * rate) - 1) * 100
          defined[k] += 1
        }
        #expect(Self.matches(row[k + 1], expected), "\(row) venue \(k + 1)")
      }
    }
    // The valid points of each venue's summary are its defined cells at its own points.
    #expect(defined.allSatisfy { $0 > 0 })
    let counts = (run.object["kimchi"] as? [[String: Any]])?.map { ($0["premium"] as? [String: Any])?["count"] as? Int }
    #expect(counts?.allSatisfy { $0 != nil && $0! > 0 } == true)
  }

  /// Tardis quotes of `exchange`: `(seconds after t0, bid, ask)`.
  static func quotes(_ folder: TemporaryFolder, _ exchange: String, _ rows: [(Int64, Double, Double)]) -> String {
    let text = rows.map { s, bid, ask in
      let t = t0 + s * second
      return "\(exchange),BTCUSDT,\(t),\(t),1,\(ask),\(bid),1\n"
    }.joined()
    return folder.write(exchange + ".csv", "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n" + text) + "@tardis.quotes"
  }

  @Test("basis, hand-worked: mid, open and close of spot–perp; a stale point is empty")
  func basisHandWorked() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let spot = "binance:spot:BTCUSDT=" + Self.quotes(folder, "binance", [(0, 100, 100.2), (2, 101, 101.2)])
    let perp = "binance:linear:BTCUSDT=" + Self.quotes(folder, "binance-futures", [(1, 100.5, 100.7)])
    let path = folder.path + "/basis.csv"
    #expect(arbkit("basis", "--spot", spot, "--perp", perp, "--series", path).code == .success)
    var rows = try Self.rows(path)
    #expect(rows.first == ["ts_us", "basis_pct", "open_pct", "close_pct"])
    // From 1 s, when both have quoted: D = perp, R = spot.
    let expected: [(Int64, Double, Double, Double)] = [
      (1, (201.2 / 200.2 - 1) * 100, (100.5 / 100.2 - 1) * 100, (100.7 / 100 - 1) * 100),
      (2, (201.2 / 202.2 - 1) * 100, (100.5 / 101.2 - 1) * 100, (100.7 / 101 - 1) * 100),
    ]
    #expect(rows.count == 3)
    for (row, (s, basis, open, close)) in zip(rows.dropFirst(), expected) {
      #expect(row[0] == String(Self.t0 + s * Self.second) && Self.matches(row[1], basis) && Self.matches(row[2], open) && Self.matches(row[3], close), "\(row)")
    }
    // At 2 s the perp's quote is 1 s old: past --max-stale 500ms, the point is invalid.
    #expect(arbkit("basis", "--spot", spot, "--perp", perp, "--max-stale", "500ms", "--series", path).code == .success)
    rows = try Self.rows(path)
    #expect(rows.count == 3 && rows[2] == [String(Self.t0 + 2 * Self.second), "", "", ""])
  }

  @Test("basis, freqtrade XRP with a mark leg: the basis of every hour from the files, and the pair column")
  func basisFreqtrade() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.path + "/basis.csv"
    let run = arbkit("basis", "--spot", BasisCommandTests.xrpMark, "--perp", BasisCommandTests.xrpPerp, "--mark", BasisCommandTests.xrpMark, "--series", path)
    #expect(run.code == .success, "\(run.errors)")
    let rows = try Self.rows(path)
    #expect(rows.first == ["ts_us", "basis_pct", "open_pct", "close_pct", "perp_over_mark_pct"])
    let perp = try BasisCommandTests.freqtradeRows(BasisCommandTests.xrpPerp), mark = try BasisCommandTests.freqtradeRows(BasisCommandTests.xrpMark)
    let markClose = Dictionary(uniqueKeysWithValues: mark.map { (Int64($0[0]) * 1000, $0[4]) })
    // One row per perp or mark time from the first at which both have quoted.
    let start = max(Int64(perp[0][0]), Int64(mark[0][0])) * 1000
    let times = Set((perp + mark).map { Int64($0[0]) * 1000 }).filter { $0 >= start }.sorted()
    #expect(rows.dropFirst().map { Int64($0[0])! } == times)
    for row in rows.dropFirst() {
      let t = Int64(row[0])!
      // Closes are one price (bid = ask): open and close equal the basis. No limit: the
      // last mark close carries past the mark's end.
      let p = try #require(perp.last { Int64($0[0]) * 1000 <= t }), m = try #require(markClose.filter { $0.key <= t }.max { $0.key < $1.key })
      let basis = (p[4] / m.value - 1) * 100
      #expect(Self.matches(row[1], basis) && Self.matches(row[2], basis) && Self.matches(row[3], basis) && Self.matches(row[4], basis), "\(row)")
    }
  }
}
