import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("arbkit basis")
struct BasisCommandTests {
  static func fixture(_ name: String) -> String { Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures/\(name)").path }

  static let xrpMark = fixture("XRP_USDT_USDT-1h-mark.json")
  static let xrpPerp = fixture("XRP_USDT_USDT-1h-futures.json")
  static let xrpFunding = fixture("XRP_USDT_USDT-8h-funding_rate.json")

  /// `[[ms, open, …], …]` rows of a freqtrade file, read independently of the ingest.
  static func freqtradeRows(_ path: String) throws -> [[Double]] {
    let rows = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [[Any]])
    return rows.map { row in row.map { ($0 as? NSNumber)?.doubleValue ?? .nan } }
  }

  @Test func `freqtrade XRP: last over mark with the 8h funding carry summed per window`() throws {
    let run = arbkit(
      "basis", "--spot", Self.xrpMark, "--perp", Self.xrpPerp, "--funding", Self.xrpFunding, "--window", "8h", "--max-stale", "1h", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let object = run.object
    #expect(object["kind"] as? String == "spot-perp")
    #expect((object["legs"] as? [[String: Any]])?.map { $0["role"] as? String } == ["derivative", "reference", "funding"])
    // The mark ends at 2021-11-19 09:00; the perpetual goes on: points after it are stale.
    let funding = try #require(object["funding"] as? [String: Any])
    let from = try #require(funding["from_us"] as? Int), until = try #require(funding["until_us"] as? Int)
    #expect(from == 1_637_193_600_000_000 && until == 1_637_308_800_000_000)  // 2021-11-18 00:00 .. 11-19 08:00
    #expect(funding["windows"] as? Int == 4 && funding["events"] as? Int == 4)
    #expect(funding["events_sampled"] as? Bool == false)
    // Independently: the file's rates at times (ms, a few ms late) in [from, until).
    let rates = try Self.freqtradeRows(Self.xrpFunding).filter { row in
      let hour = (row[0] / 3_600_000).rounded() * 3_600_000 * 1000
      return hour >= Double(from) && hour < Double(until)
    }.map { $0[1] }
    #expect(rates.count == 4)
    #expect(isClose(funding["carry_pct"] as? Double, rates.reduce(0, +) * 100, rel: 1e-12))
    // Basis at the window edges: perp close over mark close at the candle open.
    let perp = try Self.freqtradeRows(Self.xrpPerp), mark = try Self.freqtradeRows(Self.xrpMark)
    func basis(atMillis t: Double) throws -> Double {
      let p = try #require(perp.first { $0[0] == t }), m = try #require(mark.first { $0[0] == t })
      return (p[4] / m[4] - 1) * 100
    }
    let expectedNet = rates.reduce(0, +) * 100 - (try basis(atMillis: Double(until / 1000)) - basis(atMillis: Double(from / 1000)))
    #expect(isClose(funding["net_pct"] as? Double, expectedNet, rel: 1e-9))
    let windows = try #require(funding["by_window"] as? [[String: Any]])
    #expect(windows.map { $0["events"] as? Int } == [1, 1, 1, 1])
    #expect(funding["carry_unit"] as? String == "quote per unit of base")
    #expect(allNumbersFinite(object))
  }

  @Test func `Binance COIN-M calendar spread: annualised to the expiry in the symbol`() throws {
    let file = Self.fixture("json/binance-delivery-slice.jsonl.zst")
    let run = arbkit(
      "basis", "--perp", "binance:inverse:BCHUSD_PERP=\(file)", "--future", "binance:future:BCHUSD_210924=\(file)", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let object = run.object
    #expect(object["kind"] as? String == "perp-future")
    #expect(object["expiry_us"] as? Int == 1_632_470_400_000_000)  // 2021-09-24 08:00 UTC
    #expect(object["points_after_expiry"] as? Int == 0)
    let basis = try #require(object["basis"] as? [String: Any]), annualised = try #require(object["annualised"] as? [String: Any])
    #expect(basis["count"] as? Int == 51 && annualised["count"] as? Int == 51)
    // The slice spans 6 s, 64 days before expiry: the factor is constant to 1e-6.
    let first = try #require((object["legs"] as? [[String: Any]])?.compactMap { $0["first_ts_us"] as? Int }.max())
    let factor = 365 * 86_400e6 / Double(1_632_470_400_000_000 - first)
    #expect(isClose(annualised["mean"] as? Double, (basis["mean"] as? Double ?? 0) * factor, rel: 1e-6))
    #expect(isClose(basis["mean"] as? Double, 0.365, rel: 0.01))
    // Book quotes: open ≤ basis ≤ close on average (the spread is paid both ways).
    let open = try #require((object["open"] as? [String: Any])?["mean"] as? Double)
    let close = try #require((object["close"] as? [String: Any])?["mean"] as? Double)
    #expect(open < (basis["mean"] as? Double ?? 0) && (basis["mean"] as? Double ?? 0) < close)
    #expect(object["funding"] is NSNull)
  }

  @Test func `Bybit tickers: spot-perp basis, mark over index, funding sampled from the rate in force`() throws {
    let file = Self.fixture("json/bybit-btc-tickers.jsonl.zst")
    let linear = "bybit:linear:BTCUSDT=\(file)"
    let run = arbkit(
      "basis", "--spot", "bybit:spot:BTCUSDT=\(file)", "--perp", linear, "--mark", linear, "--index", linear, "--funding", linear,
      "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let object = run.object
    #expect(object["valid_points"] as? Int == 174)
    let references = try #require(object["references"] as? [[String: Any]])
    #expect(references.map { $0["name"] as? String } == ["mark over index", "perp over mark", "perp over index"])
    let markOverIndex = try #require(references[0]["premium"] as? [String: Any])
    #expect(isClose(markOverIndex["mean"] as? Double, -0.032, rel: 0.05))
    let funding = try #require(object["funding"] as? [String: Any])
    // 43 seconds of tickers hold no funding instant: no window, and no invented zero.
    #expect(funding["events_sampled"] as? Bool == true)
    #expect(funding["windows"] as? Int == 0 && funding["carry_pct"] is NSNull && funding["net_pct"] is NSNull)
    let table = arbkit("basis", "--spot", "bybit:spot:BTCUSDT=\(file)", "--perp", linear, "--funding", linear)
    #expect(table.output.contains("no complete 1d window"))
    #expect(table.output.contains("sampled every 8h"))
  }

  @Test func `Tardis derivative ticker: last over index worked by hand`() throws {
    let file = Self.fixture("tardis_derivative_ticker_hand-made.csv")
    let leg = "binance:linear:BTCUSDT=\(file)"
    let run = arbkit("basis", "--spot", "\(leg)#index", "--perp", leg, "--mark", leg, "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    // Union clock of the last and index prices: local times …601.0032, …602.0041 (index),
    // …602.5019 (last), …605.0027 (both).
    let expected = [93510.1 / 93498.76, 93510.1 / 93499.01, 93512.3 / 93499.01, 93509.0 / 93497.5].map { ($0 - 1) * 100 }
    let basis = try #require(run.object["basis"] as? [String: Any])
    #expect(basis["count"] as? Int == 4)
    #expect(isClose(basis["mean"] as? Double, expected.reduce(0, +) / 4, rel: 1e-12))
    #expect(isClose(basis["max"] as? Double, expected.max(), rel: 1e-12))
    let references = try #require(run.object["references"] as? [[String: Any]])
    #expect(references.map { $0["name"] as? String } == ["perp over mark"])
  }

  @Test func `the table names the legs, the expiry and the bands`() {
    let file = Self.fixture("json/binance-delivery-slice.jsonl.zst")
    let run = arbkit("basis", "--perp", "binance:inverse:BCHUSD_PERP=\(file)", "--future", "binance:future:BCHUSD_210924=\(file)")
    #expect(run.code == .success)
    for text in ["BCH/USD inverse future 2021-09-24", "Expiry 2021-09-24T08:00:00Z", "future over perpetual", "annualised", "Bands, open"] {
      #expect(run.output.contains(text), "missing \(text)")
    }
  }

  static let usageErrors: [(arguments: [String], message: String)] = [
    (["basis", "--spot", "a.csv"], "give two of --spot, --perp, --future"),
    (["basis", "--spot", "a", "--perp", "b", "--future", "c"], "give two of --spot, --perp, --future"),
    (["basis", "--perp", "a", "--future", "b", "--funding", "c"], "--funding needs --spot and --perp"),
    (["basis", "--spot", "a", "--perp", "b", "--expiry", "2025-03-28"], "--expiry needs --future"),
    (["basis", "--spot", "a", "--future", "b", "--expiry", "soon"], "invalid value for '--expiry'"),
    (["basis", "--spot", "a", "--perp", "b", "--funding", "c#mark"], "--funding c is a mark series, expected a funding_rate series"),
    (["basis", "--spot", "a#funding_rate", "--perp", "b"], "--spot a is a funding_rate series"),
    (["basis", "--spot", "a", "--perp", "b", "--window", "0s"], "invalid value for '--window'"),
    (["basis", "--spot", "a", "--perp", "b", "--format", "csv"], "expected table or json"),
  ]

  @Test("usage errors exit 64", arguments: usageErrors)
  func usageError(c: (arguments: [String], message: String)) {
    expectUsageError(c.arguments, c.message)
  }

  @Test func `a future without a known expiry needs --expiry`() {
    let run = arbkit("basis", "--spot", Self.xrpMark, "--future", Self.xrpPerp)
    #expect(run.code == .usage)
    #expect(run.errors.contains("no expiry known for unknown:linear:XRPUSDT: name it with --expiry"))
    let named = arbkit("basis", "--spot", Self.xrpMark, "--future", Self.xrpPerp, "--expiry", "2021-11-19T00:00:00Z", "--format", "json")
    #expect(named.code == .success)
    #expect(named.object["expiry_us"] as? Int == 1_637_280_000_000_000)
    #expect((named.object["points_after_expiry"] as? Int ?? 0) > 0)
  }
}
