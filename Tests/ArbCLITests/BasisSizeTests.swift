import ArbCLI
import Foundation
import Testing
import TestSupport

/// `basis --size` (open and close at a trade size from book depth) and `--offset` on
/// `basis` and `kimchi`, against hand-worked books and quotes and a slow walk of the real
/// snapshot files' text.
@Suite("arbkit basis --size, --offset on basis and kimchi")
struct BasisSizeTests {
  static let t0: Int64 = 1_700_000_000_000_000

  /// A Tardis `book_snapshot_5` file of `exchange` with one book per `(ms after t0, bids, asks)`.
  static func books(_ folder: TemporaryFolder, _ exchange: String, _ rows: [(Int64, [(Double, Double)], [(Double, Double)])]) -> String {
    var text = "exchange,symbol,timestamp,local_timestamp"
    for i in 0..<5 { text += ",asks[\(i)].price,asks[\(i)].amount,bids[\(i)].price,bids[\(i)].amount" }
    for (ms, bids, asks) in rows {
      let ts = t0 + ms * 1000
      text += "\n\(exchange),BTCUSDT,\(ts),\(ts)"
      for i in 0..<5 {
        for side in [asks, bids] { text += i < side.count ? ",\(side[i].0),\(side[i].1)" : ",," }
      }
    }
    return folder.write("\(exchange).csv", text + "\n")
  }

  @Test func `open and close at a size, a partial fill and the capacity of open, worked by hand`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // The perpetual on Bybit and spot on Binance, books at 1 s and 2 s.
    let perp = Self.books(
      folder, "bybit",
      [
        (1000, [(100.5, 1), (100.3, 2)], [(100.6, 0.5), (100.8, 1)]),
        (2000, [(100.9, 3)], [(101.0, 2)]),
      ])
    let spot = Self.books(
      folder, "binance",
      [
        (1000, [(99.9, 2), (99.7, 1)], [(100.0, 0.4), (100.2, 1)]),
        (2000, [(100.0, 0.6)], [(100.1, 0.5)]),
      ])
    let run = arbkit("basis", "--spot", spot, "--perp", perp, "--size", "1", "--bands", "0.3", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let size = try #require(run.object["size"] as? [String: Any])
    #expect(size["quantity"] as? Double == 1 && size["unit"] as? String == "base")
    #expect(size["depth"] as? [String] == ["book, up to 2 levels", "book, up to 2 levels"])
    // At 1 s: sell 1 perp at 100.5; buy 1 spot: 0.4 at 100.0 and 0.6 at 100.2 = 100.12.
    // Buy 1 perp back: 0.5 at 100.6 and 0.5 at 100.8 = 100.7; sell 1 spot at 99.9.
    // At 2 s the spot asks hold 0.5 and its bids 0.6: neither fills 1 (short of depth).
    let open = (100.5 / 100.12 - 1) * 100, close = (100.7 / 99.9 - 1) * 100
    #expect(size["open_short_points"] as? Int == 1 && size["close_short_points"] as? Int == 1)
    let openSummary = try #require(size["open"] as? [String: Any]), closeSummary = try #require(size["close"] as? [String: Any])
    #expect(openSummary["count"] as? Int == 1 && closeSummary["count"] as? Int == 1)
    #expect(isClose(openSummary["mean"] as? Double, open, rel: 1e-12))
    #expect(isClose(closeSummary["mean"] as? Double, close, rel: 1e-12))
    // Capacity of open at 0.3 % (k = 1.003) at 1 s: slope 100.5 − 100.3 over 0.4 (g = 0.08),
    // 100.5 − 100.5006 over 0.6 (g = 0.07964), then 100.3 − 100.5006 = −0.2006: g returns to
    // 0 after 0.07964 / 0.2006 more. At 2 s: 100.9 − 100.4003 > 0 until the spot asks run out at 0.5.
    let first = 1 + (0.08 - 0.0006 * 0.6) / 0.2006
    let capacity = try #require((size["capacity"] as? [[String: Any]])?.first)
    #expect(capacity["band"] as? Double == 0.3)
    #expect(isClose(capacity["max"] as? Double, first, rel: 1e-9))
    #expect(isClose(capacity["mean"] as? Double, (first + 0.5) / 2, rel: 1e-9))
    // Half a unit fills at both points.
    let half = arbkit("basis", "--spot", spot, "--perp", perp, "--size", "0.5", "--format", "json")
    let halfSize = try #require(half.object["size"] as? [String: Any])
    let halfOpen = [(100.5 / (0.4 * 100.0 + 0.1 * 100.2) * 0.5 - 1) * 100, (100.9 / 100.1 - 1) * 100]
    let halfClose = [(100.6 / 99.9 - 1) * 100, (101.0 / 100.0 - 1) * 100]
    #expect(halfSize["open_short_points"] as? Int == 0 && halfSize["close_short_points"] as? Int == 0)
    #expect(isClose((halfSize["open"] as? [String: Any])?["min"] as? Double, halfOpen.min(), rel: 1e-12))
    #expect(isClose((halfSize["open"] as? [String: Any])?["max"] as? Double, halfOpen.max(), rel: 1e-12))
    #expect(isClose((halfSize["close"] as? [String: Any])?["mean"] as? Double, halfClose.reduce(0, +) / 2, rel: 1e-12))
    #expect(allNumbersFinite(run.object) && allNumbersFinite(half.object))
    // The table says the same.
    let table = arbkit("basis", "--spot", spot, "--perp", perp, "--size", "1")
    for text in [
      "At size 1 (base units): open valid 1, short of depth 1; close valid 1, short of depth 1",
      "depth bybit:linear:BTCUSDT: book, up to 2 levels", "Bands, open at 1", "capacity of open, base units",
    ] {
      #expect(table.output.contains(text), "missing \(text)")
    }
    // Without --size the member is null.
    #expect(arbkit("basis", "--spot", spot, "--perp", perp, "--format", "json").object["size"] is NSNull)
  }

  /// The sized pass (and the carry's) read the perpetual anew: a pipe was empty by then
  /// (exit 65), a FIFO blocked.
  @Test(
    "a perpetual on the standard input, with --size and with the funding carry's pass, gives what the file gives",
    arguments: [["--size", "1"], ["--size", "1", "--funding", "FUNDING"]])
  func pipedLeg(extra: [String]) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let spot = Self.books(folder, "binance", [(1000, [(99.9, 2), (99.7, 1)], [(100.0, 0.4), (100.2, 1)]), (2000, [(100.0, 0.6)], [(100.1, 0.5)])])
    let perp = Self.books(folder, "bybit", [(1000, [(100.5, 1), (100.3, 2)], [(100.6, 0.5), (100.8, 1)]), (2000, [(100.9, 3)], [(101.0, 2)])])
    let funding = folder.write(
      "funding.csv",
      "exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price\n"
        + "bybit,BTCUSDT,\(Self.t0 + 500_000),\(Self.t0 + 500_000),\(Self.t0 + 1_500_000),0.0001,,1,100.5,100,100.5\n")
    let arguments = extra.map { $0 == "FUNDING" ? funding : $0 } + ["--format", "json"]
    let expected = arbkit(["basis", "--spot", spot, "--perp", perp] + arguments)
    #expect(expected.code == .success, "\(expected.errors)")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit")
    process.arguments = ["basis", "--spot", spot, "--perp", "bybit:linear:BTCUSDT=/dev/stdin"] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
    let (input, output) = (Pipe(), Pipe())
    (process.standardInput, process.standardOutput, process.standardError) = (input, output, FileHandle.nullDevice)
    try process.run()
    input.fileHandleForWriting.write(try Data(contentsOf: URL(fileURLWithPath: perp)))
    try input.fileHandleForWriting.close()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let (got, want) = (try JSONSerialization.jsonObject(with: printed) as? [String: Any], expected.object)
    #expect((got?["size"] as? NSDictionary) == (want["size"] as? NSDictionary) && want["size"] is [String: Any])
    #expect((got?["basis"] as? NSDictionary) == (want["basis"] as? NSDictionary) && want["basis"] is [String: Any])
    #expect((got?["funding"] as? NSDictionary) == (want["funding"] as? NSDictionary))
  }

  @Test("the real book_snapshot_25 and _5 slices (one perpetual used as its own reference) against a slow walk", arguments: [0.5, 5.0, 20.0])
  func realSnapshots(size: Double) throws {
    let run = arbkit(
      "basis", "--spot", SizeFlagTests.snapshot5, "--perp", SizeFlagTests.snapshot25, "--size", String(size), "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let sized = try #require(run.object["size"] as? [String: Any])
    #expect(sized["depth"] as? [String] == ["book, up to 25 levels", "book, up to 5 levels"])
    let d = try SizeFlagTests.books(SizeFlagTests.snapshot25), r = try SizeFlagTests.books(SizeFlagTests.snapshot5)
    let start = max(d[0].time, r[0].time)
    var open: [Double] = [], close: [Double] = []
    var points = 0
    for t in Set(d.map(\.time) + r.map(\.time)).filter({ $0 >= start }).sorted() {
      let x = d.last { $0.time <= t }!, y = r.last { $0.time <= t }!
      points += 1
      if let bid = SizeFlagTests.walk(x.bids, size), let ask = SizeFlagTests.walk(y.asks, size) { open.append((bid / ask - 1) * 100) }
      if let ask = SizeFlagTests.walk(x.asks, size), let bid = SizeFlagTests.walk(y.bids, size) { close.append((ask / bid - 1) * 100) }
    }
    #expect(run.object["valid_points"] as? Int == points)
    #expect(sized["open_short_points"] as? Int == points - open.count && sized["close_short_points"] as? Int == points - close.count)
    for (name, values) in [("open", open), ("close", close)] {
      let summary = try #require(sized[name] as? [String: Any])
      #expect(summary["count"] as? Int == values.count)
      if values.isEmpty {
        #expect(summary["mean"] is NSNull && summary["max"] is NSNull)
      } else {
        #expect(isClose(summary["mean"] as? Double, values.reduce(0, +) / Double(values.count), rel: 1e-9, abs: 1e-12))
        #expect(isClose(summary["min"] as? Double, values.min(), rel: 1e-12, abs: 1e-12))
      }
    }
    if size == 0.5 { #expect(open.count == points && close.count == points) }
    if size == 20 { #expect(open.isEmpty && close.isEmpty) }  // five levels never hold 20 BTC
    #expect(allNumbersFinite(run.object))
  }

  @Test func `a level-1 source and a last-price source say so; an inverse leg refuses --size`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    let perp = folder.write("perp.csv", header + "bybit,BTCUSDT,\(Self.t0),\(Self.t0),2,100.2,100.1,2\n")
    let spot = folder.write("spot.csv", header + "binance,BTCUSDT,\(Self.t0),\(Self.t0),0.5,100.0,99.9,3\n")
    let run = arbkit("basis", "--spot", spot, "--perp", perp, "--size", "1")
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.output.contains("depth bybit:linear:BTCUSDT: level 1 only") && run.output.contains("depth binance:spot:BTCUSDT: level 1 only"))
    // The spot's best ask holds 0.5: open is short; close sells 1 spot at 99.9 of 3.
    let json = arbkit("basis", "--spot", spot, "--perp", perp, "--size", "1", "--format", "json").object["size"] as? [String: Any]
    #expect(json?["open_short_points"] as? Int == 1 && json?["close_short_points"] as? Int == 0)
    #expect(isClose((json?["close"] as? [String: Any])?["mean"] as? Double, (100.2 / 99.9 - 1) * 100, rel: 1e-12))
    // Candles: one price per row, no sizes: every point is short, never 0.
    let last = arbkit("basis", "--spot", BasisCommandTests.xrpMark, "--perp", BasisCommandTests.xrpPerp, "--size", "1", "--format", "json")
    let lastSize = try #require(last.object["size"] as? [String: Any])
    #expect(lastSize["depth"] as? [String] == ["none: no sizes", "none: no sizes"])
    #expect(lastSize["open_short_points"] as? Int == last.object["valid_points"] as? Int)
    #expect((lastSize["open"] as? [String: Any])?["count"] as? Int == 0 && (lastSize["open"] as? [String: Any])?["mean"] is NSNull)
    let file = BasisCommandTests.fixture("json/binance-delivery-slice.jsonl.zst")
    let inverse = arbkit("basis", "--perp", "binance:inverse:BCHUSD_PERP=\(file)", "--future", "binance:future:BCHUSD_210924=\(file)", "--size", "1")
    #expect(inverse.code == .usage)
    #expect(inverse.errors.contains("is an inverse contract whose book counts contracts: --size is refused for an inverse leg"), "\(inverse.errors)")
  }

  @Test func `--offset moves a leg before alignment and the basis with it`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    // The perpetual (Bybit) at 0, 100, 200 ms, mids 100.5, 101.5, 102.5; spot (Binance) at 50, 150 ms, mids 99.5, 100.5.
    var perpText = header, spotText = header
    for (k, ms) in [0, 100, 200].enumerated() {
      perpText += "bybit,BTCUSDT,\(Self.t0 + Int64(ms) * 1000),\(Self.t0 + Int64(ms) * 1000),1,\(101 + k),\(100 + k),1\n"
    }
    for (k, ms) in [50, 150].enumerated() {
      spotText += "binance,BTCUSDT,\(Self.t0 + Int64(ms) * 1000),\(Self.t0 + Int64(ms) * 1000),1,\(100 + k),\(99 + k),1\n"
    }
    let perp = folder.write("perp.csv", perpText), spot = folder.write("spot.csv", spotText)
    let plain = arbkit("basis", "--spot", spot, "--perp", perp, "--format", "json")
    let moved = arbkit("basis", "--spot", spot, "--perp", perp, "--offset", "binance=+60ms", "--format", "json")
    #expect(moved.code == .success, "\(moved.errors)")
    // Plain: points 50, 100, 150, 200 ms. Spot moved to 110, 210 ms: points 110 (perp 101.5,
    // spot 99.5), 200 (102.5, 99.5), 210 (102.5, 100.5).
    let expectedPlain = [100.5 / 99.5, 101.5 / 99.5, 101.5 / 100.5, 102.5 / 100.5].map { ($0 - 1) * 100 }
    let expectedMoved = [101.5 / 99.5, 102.5 / 99.5, 102.5 / 100.5].map { ($0 - 1) * 100 }
    for (run, expected) in [(plain, expectedPlain), (moved, expectedMoved)] {
      let basis = try #require(run.object["basis"] as? [String: Any])
      #expect(basis["count"] as? Int == expected.count)
      #expect(isClose(basis["mean"] as? Double, expected.reduce(0, +) / Double(expected.count), rel: 1e-12))
      #expect(isClose(basis["min"] as? Double, expected.min(), rel: 1e-12))
    }
    #expect((plain.object["offsets_us"] as? [String: Any])?.isEmpty == true)
    #expect((moved.object["offsets_us"] as? [String: Any])?["binance"] as? Int == 60_000)
    let table = arbkit("basis", "--spot", spot, "--perp", perp, "--offset", "binance=+60ms")
    #expect(table.output.contains("Clock offsets (added before alignment): binance +60ms"))
    let unknown = arbkit("basis", "--spot", spot, "--perp", perp, "--offset", "okx=1s")
    #expect(unknown.code == .usage && unknown.errors.contains("--offset names venue 'okx', which has no leg (legs are on binance, bybit)"))
  }

  @Test func `--offset leaves a funding series at its settlement times`() throws {
    let arguments = [
      "basis", "--spot", BasisCommandTests.xrpMark, "--perp", BasisCommandTests.xrpPerp, "--funding", BasisCommandTests.xrpFunding,
      "--window", "8h", "--max-stale", "1h", "--format", "json",
    ]
    let plain = arbkit(arguments), moved = arbkit(arguments + ["--offset", "unknown=-10m"])
    #expect(moved.code == .success, "\(moved.errors)")
    // The hourly candles move to 10 minutes before the hour; the funding events stay on it,
    // so the same four settlements fall in the same windows.
    let a = try #require(plain.object["funding"] as? [String: Any]), b = try #require(moved.object["funding"] as? [String: Any])
    #expect(b["events_sampled"] as? Bool == false && b["events"] as? Int == 4)
    #expect(b["from_us"] as? Int == a["from_us"] as? Int && b["until_us"] as? Int == a["until_us"] as? Int)
    #expect(b["carry_pct"] as? Double == a["carry_pct"] as? Double)
    let legs = try #require(moved.object["legs"] as? [[String: Any]])
    #expect(legs.map { $0["first_ts_us"] as? Int } == (plain.object["legs"] as? [[String: Any]])?.map { $0["first_ts_us"] as? Int })
  }

  @Test func `kimchi --offset: Upbit's 5m candles moved onto the next Binance candle`() throws {
    let run = arbkit(
      "kimchi", "--krw", KimchiCommandTests.upbit5m, "--usd", KimchiCommandTests.binance5m, "--fx", KimchiCommandTests.usdkrw,
      "--max-stale", "0s", "--offset", "upbit=+5m", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    #expect((run.object["offsets_us"] as? [String: Any])?["upbit"] as? Int == 300_000_000)
    func rows(_ name: String) throws -> [Date: Double] {
      let text = try String(contentsOfFile: Repository.data("samples/kimchi-5m/\(name)"), encoding: .utf8)
      let format = DateFormatter()
      format.dateFormat = "yyyy-MM-dd HH:mm:ss"
      format.timeZone = TimeZone(identifier: "UTC")
      return Dictionary(
        uniqueKeysWithValues: text.split(whereSeparator: \.isNewline).dropFirst().map { line in
          let f = line.split(separator: ",")
          return (format.date(from: String(f[0]))!, Double(f[4])!)
        })
    }
    let krw = try rows("upbit_BTC_KRW_5m_2025-07-26.csv"), usd = try rows("binance_BTC_USDT_5m_2025-07-26.csv")
    // Upbit's candle of t meets Binance's of t + 5m; the FX rate is Friday's before 2025-07-27, then Sunday's.
    let sunday = Date(timeIntervalSince1970: 1_753_574_400)
    let values = krw.keys.sorted().compactMap { t -> Double? in
      let moved = t.addingTimeInterval(300)
      guard let u = usd[moved] else { return nil }
      return (krw[t]! / (u * (moved < sunday ? 1383.64 : 1383.78)) - 1) * 100
    }
    let venue = try #require((run.object["kimchi"] as? [[String: Any]])?.first)
    #expect(venue["valid_points"] as? Int == values.count)
    let premium = try #require(venue["premium"] as? [String: Any])
    #expect(isClose(premium["mean"] as? Double, values.reduce(0, +) / Double(values.count), rel: 1e-9))
    #expect(isClose(premium["max"] as? Double, values.max(), rel: 1e-12))
    let table = arbkit(
      "kimchi", "--krw", KimchiCommandTests.upbit5m, "--usd", KimchiCommandTests.binance5m, "--fx", KimchiCommandTests.usdkrw, "--offset", "upbit=+5m")
    #expect(table.output.contains("Clock offsets (added before alignment): upbit +5m"))
  }

  static let usageErrors: [(arguments: [String], message: String)] = [
    (["basis", "--spot", "a", "--perp", "b", "--size", "0"], "invalid value for '--size', expected a positive size such as 0.5, was '0'"),
    (["basis", "--spot", "a", "--perp", "b", "--size", "lots"], "invalid value for '--size'"),
    (["basis", "--spot", "a", "--perp", "b", "--offset", "bybit"], "invalid value for '--offset'"),
    (["basis", "--spot", "a", "--perp", "b", "--offset", "bybit=1s", "--offset", "bybit=2s"], "--offset names venue 'bybit' twice"),
    (["kimchi", "--krw", "a", "--usd", "b", "--fx", "c", "--offset", "upbit=soon"], "invalid value for '--offset'"),
    (["kimchi", "--krw", "a", "--usd", "b", "--fx", "c", "--size", "1"], "--size"),
  ]

  @Test("usage errors exit 64", arguments: usageErrors)
  func usageError(c: (arguments: [String], message: String)) {
    expectUsageError(c.arguments, c.message)
  }
}
