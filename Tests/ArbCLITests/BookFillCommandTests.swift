import Foundation
import TestSupport
import Testing

// `costs.fill book` end to end on real Tardis book snapshots (Binance futures BTCUSDT,
// 25 and 5 levels of the same book): the leg of 25 levels is sold into, the one of 5
// levels bought from, at the spread (entry −0.001 %), and closed 100 ms later. 100 000
// USDT is 8.58 BTC, more than the 5 ask levels hold, so the first trade is a partial fill,
// and the next ones find the levels it took used up. The ledger is checked against a slow
// walk written from docs/definitions.md alone.

@Suite("costs.fill book on real Tardis book snapshots")
struct BookFillCommandTests {
  static let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
  static let files = ["binance-futures_book_snapshot_25_BTCUSDT.csv", "binance-futures_book_snapshot_5_BTCUSDT.csv"]
  static let notional = 100_000.0, fee = 0.0004, slippage = 1.0

  static func scenario(_ folder: TemporaryFolder) -> String {
    let legs = files.map {
      #"{ "venue": "binance", "market": "linear", "symbol": "BTCUSDT", "files": ["\#(fixtures)/\#($0)"] }"#
    }
    return folder.write(
      "book.json",
      """
      {
        "legs": [\(legs.joined(separator: ", "))],
        "strategy": { "mode": "convergence", "entry": -0.001, "exit": -0.01, "notional": \(notional), "max_holding": "100ms" },
        "costs": { "fill": "book", "fees": { "binance": \(fee) }, "slippage_bps": \(slippage) }
      }
      """)
  }

  /// One snapshot row: its receive time and its levels, best first.
  struct Snapshot {
    /// Receive and exchange time (`local_timestamp`, `timestamp`).
    var time: Int64
    var exchangeTime: Int64
    var bids: [(price: Double, size: Double)]
    var asks: [(price: Double, size: Double)]
  }

  /// A `book_snapshot_N` file read field by field from its header.
  static func snapshots(_ name: String) throws -> [Snapshot] {
    let lines = try String(contentsOfFile: fixtures + "/" + name, encoding: .utf8).split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    let header = lines[0]
    func side(_ row: [String], _ name: String) -> [(price: Double, size: Double)] {
      var levels: [(price: Double, size: Double)] = []
      while let p = header.firstIndex(of: "\(name)[\(levels.count)].price"), let price = Double(row[p]), let size = Double(row[p + 1]) {
        levels.append((price, size))
      }
      return levels
    }
    let (time, exchange) = (header.firstIndex(of: "local_timestamp")!, header.firstIndex(of: "timestamp")!)
    return lines.dropFirst().map {
      Snapshot(time: Int64($0[time])!, exchangeTime: Int64($0[exchange])!, bids: side($0, "bids"), asks: side($0, "asks"))
    }
  }

  /// The walks of docs/definitions.md, slowly: every quantity ever taken is kept, and a
  /// take still counts at row `r` when every book from its own row to `r` shows its price
  /// with the size it was taken at.
  struct Walker {
    struct Take {
      var leg: Int, bid: Bool, row: Int, price: Double, size: Double, quantity: Double
    }
    let books: [[Snapshot]]
    var takes: [Take] = []

    func levels(_ leg: Int, _ bid: Bool, _ row: Int) -> [(price: Double, size: Double)] { bid ? books[leg][row].bids : books[leg][row].asks }

    func inEffect(_ take: Take, at row: Int) -> Bool {
      row <= take.row || (take.row...row).allSatisfy { r in levels(take.leg, take.bid, r).contains { $0.price == take.price && $0.size == take.size } }
    }

    /// (filled, notional, levels taken from), recorded unless `measure`.
    mutating func walk(_ leg: Int, bid: Bool, row: Int, quantity: Double, onward: Bool, measure: Bool = false) -> (Double, Double, Int) {
      var remaining = quantity, notional = 0.0, count = 0
      var r = row
      var made: [Take] = []
      while remaining > 0 && r < books[leg].count {
        for level in levels(leg, bid, r) where remaining > 0 {
          let used = (takes + made).filter { $0.leg == leg && $0.bid == bid && $0.price == level.price && inEffect($0, at: r) }.reduce(0) { $0 + $1.quantity }
          let available = level.size - used
          guard available > 0 else { continue }
          let t = min(available, remaining)
          remaining -= t
          notional += t * level.price
          count += 1
          made.append(Take(leg: leg, bid: bid, row: r, price: level.price, size: level.size, quantity: t))
        }
        guard onward else { break }
        r += 1
      }
      if !measure { takes += made }
      return (quantity - remaining, notional, count)
    }
  }

  @Test(
    "every trade's walks, VWAPs, partial share, used-up levels, fees and PnL against a slow walk; latency 0 and recorded",
    arguments: [false, true])
  func realSnapshots(recorded: Bool) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let ledgerPath = folder.path + "/trades.csv"
    let run = arbkit(["backtest", Self.scenario(folder), "--trades", ledgerPath] + (recorded ? ["--set", "costs.latency=recorded"] : []))
    #expect(run.code == .success, "\(run.errors)")
    let lines = try String(contentsOfFile: ledgerPath, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
    let header = lines[0]
    let rows = lines.dropFirst().map { row in Dictionary(uniqueKeysWithValues: zip(header, row)) }
    #expect(rows.count == 3)
    var walker = Walker(books: try Self.files.map(Self.snapshots))
    let s = Self.slippage / 10_000
    var partial = 0, deep = 0
    for row in rows {
      #expect(row["direction"] == "1>2")
      // A fill reads the book in force at the signal plus the latency: with `recorded`,
      // the receive minus the exchange time of the leg's book in force at the signal.
      func asOf(_ leg: Int, _ signal: String) -> Int {
        let inForce = { (t: Int64) in walker.books[leg].lastIndex { $0.time <= t }! }
        let book = walker.books[leg][inForce(Int64(signal)!)]
        return inForce(Int64(signal)! + (recorded ? max(0, book.time - book.exchangeTime) : 0))
      }
      let (rE, cE, rX, cX) = (asOf(0, row["entry_ts_us"]!), asOf(1, row["entry_ts_us"]!), asOf(0, row["exit_ts_us"]!), asOf(1, row["exit_ts_us"]!))
      let qR = Self.notional / (walker.books[0][rE].bids[0].price * (1 - s)), qC = Self.notional / (walker.books[1][cE].asks[0].price * (1 + s))
      // partial fill: both legs take the smaller share the books can fill.
      let share = min(
        walker.walk(0, bid: true, row: rE, quantity: qR, onward: false, measure: true).0 / qR,
        walker.walk(1, bid: false, row: cE, quantity: qC, onward: false, measure: true).0 / qC)
      let sell = walker.walk(0, bid: true, row: rE, quantity: qR * share, onward: false)
      let buy = walker.walk(1, bid: false, row: cE, quantity: qC * share, onward: false)
      let buyBack = walker.walk(0, bid: false, row: rX, quantity: sell.0, onward: true)
      let sellBack = walker.walk(1, bid: true, row: cX, quantity: buy.0, onward: true)
      #expect(buyBack.0 == sell.0 && sellBack.0 == buy.0, "the exits close in full")
      let figures: [(String, Double)] = [
        ("rich_entry_requested", qR), ("rich_entry_filled", sell.0), ("rich_entry_vwap", sell.1 / sell.0), ("rich_entry_levels", Double(sell.2)),
        ("cheap_entry_requested", qC), ("cheap_entry_filled", buy.0), ("cheap_entry_vwap", buy.1 / buy.0), ("cheap_entry_levels", Double(buy.2)),
        ("rich_exit_vwap", buyBack.1 / buyBack.0), ("rich_exit_levels", Double(buyBack.2)),
        ("cheap_exit_vwap", sellBack.1 / sellBack.0), ("cheap_exit_levels", Double(sellBack.2)),
        (
          "rich_entry_slippage_bps", (walker.books[0][rE].bids[0].price - sell.1 / sell.0) / walker.books[0][rE].bids[0].price * 10_000
        ),
      ]
      for (key, value) in figures { #expect(isClose(Double(row[key]!), value, rel: 1e-9, abs: 1e-9), "\(key) of trade at \(row["entry_ts_us"]!)") }
      let richSell = sell.1 / sell.0 * (1 - s), cheapBuy = buy.1 / buy.0 * (1 + s)
      let richBuy = buyBack.1 / buyBack.0 * (1 + s), cheapSell = sellBack.1 / sellBack.0 * (1 - s)
      let fees = Self.fee * (sell.0 * (richSell + richBuy) + buy.0 * (cheapBuy + cheapSell))
      let pnl = sell.0 * (richSell - richBuy) + buy.0 * (cheapSell - cheapBuy) - fees
      #expect(isClose(Double(row["fees"]!), fees, rel: 1e-9))
      #expect(isClose(Double(row["pnl"]!), pnl, rel: 1e-9))
      if share < 1 { partial += 1 }
      if sell.2 + buy.2 > 2 { deep += 1 }
    }
    // The data exercise what the test is about: a partial fill and walks past the top.
    #expect(partial > 0 && deep > 0)
  }

  @Test("sweep rows equal the backtest per cell, with fill rules and fees on the axes")
  func sweepRows() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = Self.scenario(folder)
    let grid = ["costs.fill=top,book", "costs.partial=fill,hedge,unwind", "costs.fees.binance=0.0004,0.001"]
    let run = arbkit(["sweep", scenario, "--quiet"] + grid.flatMap { ["--grid", $0] })
    #expect(run.code == .success, "\(run.errors)")
    let lines = run.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let header = lines[0]
    #expect(lines.count == 1 + 2 * 3 * 2)
    var pnls = Set<String>()
    for row in lines.dropFirst() {
      let cell = (0..<3).flatMap { ["--set", "\(header[$0])=\(row[$0])"] }
      let plain = arbkit(["backtest", scenario, "--format", "json"] + cell).object
      for (k, key) in header.enumerated().dropFirst(3) {
        switch plain[key] {
        case let x as Double: #expect(isClose(x, Double(row[k]), rel: 1e-14), "\(row[0..<3]) \(key)")
        case is NSNull: #expect(row[k].isEmpty, "\(row[0..<3]) \(key)")
        case nil where key == "funding": #expect(row[k].isEmpty)
        default: Issue.record("\(key) missing from the backtest output")
        }
      }
      if row[0] == "book" { pnls.insert(row[header.firstIndex(of: "pnl")!]) }
    }
    // Each partial rule and fee prices the real books differently.
    #expect(pnls.count == 6)
  }

  @Test("leg failures and drawn latencies: one seed gives the same bytes for any --jobs; every row is the backtest of its cell")
  func seededLegFailures() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = Self.scenario(folder)
    let sets = ["--set", "costs.leg_fail_rate=0.5", "--set", "costs.latency=uniform:0ms:300ms", "--set", "costs.venue_latency.binance=lognormal:50ms:1"]
    let arguments = ["sweep", scenario, "--quiet"] + sets + ["--grid", "costs.seed=1:8:1", "--grid", "costs.partial=hedge,unwind"]
    let one = arbkit(arguments + ["--jobs", "1"]), two = arbkit(arguments + ["--jobs", "2"])
    #expect(one.code == .success && two.code == .success, "\(one.errors)")
    #expect(one.output == two.output)
    let lines = one.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let pnl = lines[0].firstIndex(of: "pnl")!
    var legged = 0, pnls = Set<String>()
    for row in lines.dropFirst() {
      let plain = arbkit(["backtest", scenario, "--format", "json"] + sets + ["--set", "costs.seed=\(row[0])", "--set", "costs.partial=\(row[1])"]).object
      #expect(isClose(plain["pnl"] as? Double, Double(row[pnl]), rel: 1e-14), "\(row[0..<2])")
      legged += plain["legged_trades"] as? Int ?? 0
      pnls.insert(row[pnl])
    }
    // Some legs fail, and which ones depends on the seed.
    #expect(legged > 0 && pnls.count > 2)
  }

  @Test("a source with its top level only is refused for costs.fill book (exit 64), as are rules it cannot combine with")
  func refusals() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = Self.scenario(folder)
    expectUsageError(
      ["backtest", scenario, "--set", "legs.1.files=\(Self.fixtures)/BTCUSDT-bookTicker-2024-03-01.csv", "--set", "legs.1.market=spot"],
      "legs.1 (binance:spot:BTCUSDT): costs.fill book walks the order book, but the leg's source has its top level only")
    expectUsageError(["backtest", scenario, "--set", "costs.cap_at_book=true"], "costs.cap_at_book caps at the top level, costs.fill book walks the book")
    expectUsageError(["backtest", scenario, "--set", "costs.fill=deep"], "costs.fill expects top or book, was 'deep'")
    expectUsageError(["backtest", scenario, "--set", "costs.partial=cancel"], "costs.partial expects fill, hedge or unwind, was 'cancel'")
  }
}
