import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("arbkit kimchi")
struct KimchiCommandTests {
  static let daily = Repository.data("formats/investing-daily-ko.json")
  static let usdkrwFormat = Repository.data("formats/investing-usdkrw-ko.json")
  static func investing(_ name: String) -> String { Repository.data("samples/investing/\(name)") }
  static let upbit = "upbit:spot:KRW-BTC=" + investing("upbit_BTC_KRW_daily.csv") + "@" + daily
  static let bithumb = "bithumb:spot:BTC_KRW=" + investing("bithumb_BTC_KRW_daily.csv") + "@" + daily
  static let coinone = "coinone:spot:BTC=" + investing("coinone_BTC_KRW_daily.csv") + "@" + daily
  static let bitstamp = "bitstamp:spot:BTCUSD=" + investing("bitstamp_BTC_USD_daily.csv") + "@" + daily
  static let usdkrw = investing("USD_KRW_daily.csv") + "@" + usdkrwFormat

  static let ccxt = Repository.data("formats/ccxt-ohlcv.json")
  static let upbit5m = "upbit:spot:KRW-BTC=" + Repository.data("samples/kimchi-5m/upbit_BTC_KRW_5m_2025-07-26.csv") + "@" + ccxt
  static let binance5m = "binance:spot:BTCUSDT=" + Repository.data("samples/kimchi-5m/binance_BTC_USDT_5m_2025-07-26.csv") + "@" + ccxt
  /// A USDT-USD market quoted at 0.9995 USD per USDT at 2025-07-26 18:00 and 2025-07-27 11:55 UTC.
  static func usdtUSD(_ folder: TemporaryFolder) -> String {
    folder.write(
      "usdt.csv",
      "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n"
        + "1753552800000000,test,spot,USDTUSD,0.9994,0.9996,,,\n1753617300000000,test,spot,USDTUSD,0.9994,0.9996,,,\n")
  }

  /// Day number → close of an Investing.com export, read without the ingest.
  static func closes(_ name: String) throws -> [Int: Double] {
    let text = try String(contentsOfFile: investing(name), encoding: .utf8)
    var out: [Int: Double] = [:]
    for line in text.split(whereSeparator: \.isNewline).dropFirst() {
      let fields = line.split(separator: "\",\"").map { $0.replacingOccurrences(of: "\"", with: "") }
      let date = fields[0].replacingOccurrences(of: " ", with: "").split(separator: "-").map { Int($0)! }
      var components = DateComponents()
      (components.year, components.month, components.day) = (date[0], date[1], date[2])
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = TimeZone(identifier: "UTC")!
      let day = Int(calendar.date(from: components)!.timeIntervalSince1970 / 86_400)
      out[day] = Double(fields[1].replacingOccurrences(of: ",", with: ""))!
    }
    return out
  }

  @Test func `daily Upbit over Bitstamp with Investing.com USD/KRW carried over weekends`() throws {
    let run = arbkit("kimchi", "--krw", Self.upbit, "--usd", Self.bitstamp, "--fx", Self.usdkrw, "--max-stale", "1h", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let venue = try #require((run.object["kimchi"] as? [[String: Any]])?.first)
    let premium = try #require(venue["premium"] as? [String: Any])
    // Independently: every day both markets closed, with the last FX close at most 4 days old.
    let krw = try Self.closes("upbit_BTC_KRW_daily.csv"), usd = try Self.closes("bitstamp_BTC_USD_daily.csv")
    let fx = try Self.closes("USD_KRW_daily.csv")
    var values: [Double] = []
    for day in krw.keys.sorted() {
      guard let k = krw[day], let u = usd[day], let rateDay = (day - 4...day).reversed().first(where: { fx[$0] != nil }) else { continue }
      values.append((k / (u * fx[rateDay]!) - 1) * 100)
    }
    #expect(premium["count"] as? Int == values.count)
    #expect(isClose(premium["mean"] as? Double, values.reduce(0, +) / Double(values.count), rel: 1e-9))
    #expect(isClose(premium["max"] as? Double, values.max(), rel: 1e-12))
    #expect(venue["fx_stale_points"] as? Int == 0)
    #expect(run.object["usdt"] is NSNull)  // Bitstamp quotes USD
    #expect(allNumbersFinite(run.object))
  }

  @Test func `Upbit, Bithumb and Coinone: the premium among KRW venues is arbkit premium's`() throws {
    let run = arbkit(
      "kimchi", "--krw", Self.upbit, "--krw", Self.bithumb, "--krw", Self.coinone, "--usd", Self.bitstamp, "--fx", Self.usdkrw,
      "--max-stale", "1h", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    #expect((run.object["kimchi"] as? [[String: Any]])?.map { $0["krw"] as? String } == ["upbit:spot:KRW-BTC", "bithumb:spot:BTC_KRW", "coinone:spot:BTC"])
    let board = try #require(run.object["krw_premium"] as? [String: Any])
    let premium = arbkit("premium", "--leg", Self.upbit, "--leg", Self.bithumb, "--leg", Self.coinone, "--max-stale", "1h", "--format", "json")
    let mid = try #require(premium.object["mid"] as? [String: Any]), boardMid = try #require(board["mid"] as? [String: Any])
    for key in ["count", "mean", "std", "max"] { #expect("\(mid[key]!)" == "\(boardMid[key]!)", "\(key)") }
    let shares = try #require(board["venues"] as? [String: [String: Double]])
    #expect(isClose(shares.values.reduce(0) { $0 + $1["top"]! }, 1, rel: 1e-12))
    let table = arbkit("kimchi", "--krw", Self.upbit, "--krw", Self.bithumb, "--krw", Self.coinone, "--usd", Self.bitstamp, "--fx", Self.usdkrw)
    #expect(table.output.contains("KRW venues, % — highest / lowest mid − 1"))
  }

  @Test func `5m Upbit over Binance USDT over a weekend: USDT assumed 1 USD, FX staleness`() throws {
    let run = arbkit("kimchi", "--krw", Self.upbit5m, "--usd", Self.binance5m, "--fx", Self.usdkrw, "--max-stale", "0s", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let venue = try #require((run.object["kimchi"] as? [[String: Any]])?.first)
    // Every Upbit candle has a Binance candle at the same time; Saturday uses Friday's
    // rate 1383.64 (2025-07-25), Sunday the rate of 2025-07-27, 1383.78.
    #expect(venue["valid_points"] as? Int == 200 && venue["fx_stale_points"] as? Int == 0)
    let usdt = try #require(run.object["usdt"] as? [String: Any])
    #expect(usdt["basis"] as? String == "assumed_1")
    func rows(_ name: String) throws -> [String: Double] {
      let text = try String(contentsOfFile: Repository.data("samples/kimchi-5m/\(name)"), encoding: .utf8)
      return Dictionary(
        uniqueKeysWithValues: text.split(whereSeparator: \.isNewline).dropFirst().map { line in
          let f = line.split(separator: ",")
          return (String(f[0]), Double(f[4])!)
        })
    }
    let krw = try rows("upbit_BTC_KRW_5m_2025-07-26.csv"), usd = try rows("binance_BTC_USDT_5m_2025-07-26.csv")
    let values = krw.keys.sorted().map { t in (krw[t]! / (usd[t]! * (t < "2025-07-27" ? 1383.64 : 1383.78)) - 1) * 100 }
    let premium = try #require(venue["premium"] as? [String: Any])
    #expect(isClose(premium["mean"] as? Double, values.reduce(0, +) / Double(values.count), rel: 1e-9))
    #expect(isClose(premium["min"] as? Double, values.min(), rel: 1e-12))

    // With a one-day FX limit, Saturday 18:50 … 23:55 has no rate (Friday's is older).
    let strict = arbkit(
      "kimchi", "--krw", Self.upbit5m, "--usd", Self.binance5m, "--fx", Self.usdkrw, "--max-stale", "0s", "--fx-max-stale", "1d", "--format", "json")
    let strictVenue = try #require((strict.object["kimchi"] as? [[String: Any]])?.first)
    let saturday = krw.keys.filter { $0 < "2025-07-27" }.count
    #expect(saturday == 62 && strictVenue["fx_stale_points"] as? Int == saturday)
    #expect(strictVenue["valid_points"] as? Int == 200 - saturday)
    let table = arbkit("kimchi", "--krw", Self.upbit5m, "--usd", Self.binance5m, "--fx", Self.usdkrw)
    #expect(table.output.contains("Note: USDT is taken as 1 USD"))
  }

  @Test func `a USDT-USD market gives the USDT term and the premium in USD`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let usdt = Self.usdtUSD(folder)
    let run = arbkit(
      "kimchi", "--krw", Self.upbit5m, "--usd", Self.binance5m, "--fx", Self.usdkrw, "--usdt-usd", usdt, "--max-stale", "1d",
      "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let venue = try #require((run.object["kimchi"] as? [[String: Any]])?.first)
    #expect((run.object["usdt"] as? [String: Any])?["basis"] as? String == "measured")
    let term = try #require(venue["usdt_term"] as? [String: Any])
    #expect(isClose(term["mean"] as? Double, -0.05, rel: 1e-9))
    let premium = try #require(venue["premium"] as? [String: Any]), inUSD = try #require(venue["premium_usd"] as? [String: Any])
    #expect(isClose(inUSD["max"] as? Double, ((1 + (premium["max"] as? Double ?? 0) / 100) / 0.9995 - 1) * 100, rel: 1e-9))
  }

  @Test func `a daily kimchi history: the author's premium within its rounding, and a USDT-KRW rate`() throws {
    let history = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures/json/history-slice.json").path
    let rows = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: history))) as? [[String: Any]])
    let reference = rows.compactMap { $0["btc_premium_pct"] as? Double }
    let run = arbkit(
      "kimchi", "--krw", "upbit:spot:KRW-BTC=\(history)", "--usd", "bitstamp:spot:btcusd=\(history)", "--fx", "fx:fx:USDKRW=\(history)",
      "--max-stale", "0s", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let premium = try #require(((run.object["kimchi"] as? [[String: Any]])?.first)?["premium"] as? [String: Any])
    // The history rounds its premium to 0.01 %.
    #expect(premium["count"] as? Int == reference.count)
    #expect(abs((premium["min"] as? Double ?? 0) - reference.min()!) <= 0.005)
    #expect(abs((premium["max"] as? Double ?? 0) - reference.max()!) <= 0.005)
    #expect(abs((premium["mean"] as? Double ?? 0) - reference.reduce(0, +) / Double(reference.count)) <= 0.005)

    // The Upbit USDT price as the rate (from 2024-06-07): BTC in KRW over BTC in USD × KRW per USDT.
    let market = arbkit(
      "kimchi", "--krw", "upbit:spot:KRW-BTC=\(history)", "--usd", "bitstamp:spot:btcusd=\(history)",
      "--fx-market", "upbit:spot:KRW-USDT=\(history)", "--max-stale", "0s", "--format", "json")
    #expect(market.code == .success, "\(market.errors)")
    let venue = try #require((market.object["kimchi"] as? [[String: Any]])?.first)
    #expect(venue["valid_points"] as? Int == 2)
    let first: Double = 97_919_000 / (69_326 * 1412.0), second: Double = 98_125_000 / (69_306 * 1416.0)
    let values = [(first - 1) * 100, (second - 1) * 100]
    #expect(isClose((venue["premium"] as? [String: Any])?["max"] as? Double, values.max(), rel: 1e-12))
    #expect(isClose((venue["premium"] as? [String: Any])?["min"] as? Double, values.min(), rel: 1e-12))
    #expect((market.object["usdt"] as? [String: Any])?["basis"] as? String == "assumed_1")  // a USD market over a USDT rate
  }

  static let usageErrors: [(arguments: [String], message: String)] = [
    (["kimchi", "--usd", "u", "--fx", "f"], "need at least one --krw"),
    (["kimchi", "--krw", "k", "--fx", "f"], "need --usd"),
    (["kimchi", "--krw", "k", "--usd", "u"], "give one of --fx (an FX file) and --fx-market"),
    (["kimchi", "--krw", "k", "--usd", "u", "--fx", "f", "--fx-market", "m"], "give one of --fx (an FX file) and --fx-market"),
    (["kimchi", "--krw", "k", "--usd", "u", "--fx-market", "m", "--usdt-usd", "q"], "--usdt-usd applies with --fx"),
    (["kimchi", "--krw", "k", "--usd", "u", "--fx", "f", "--fx-max-stale", "long"], "invalid value for '--fx-max-stale'"),
    (["kimchi", "--krw", "k#funding_rate", "--usd", "u", "--fx", "f"], "is a funding_rate series"),
  ]

  @Test("usage errors exit 64", arguments: usageErrors)
  func usageError(c: (arguments: [String], message: String)) {
    expectUsageError(c.arguments, c.message)
  }

  @Test func `the FX leg must be an FX file, a market must be named with --fx-market`() {
    let run = arbkit("kimchi", "--krw", Self.upbit5m, "--usd", Self.binance5m, "--fx", Self.binance5m)
    #expect(run.code == .usage)
    #expect(run.errors.contains("is a market (spot), not an FX file: name a USDT-KRW market with --fx-market"))
    let usd = arbkit("kimchi", "--krw", Self.upbit, "--usd", Self.bitstamp, "--fx", Self.usdkrw, "--usdt-usd", Self.binance5m)
    #expect(usd.code == .usage)
    #expect(usd.errors.contains("--usdt-usd applies to a USDT market --usd"))
  }
}
