import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Bybit public trade files (public.bybit.com, sources.md §3.1): hand-made fixtures laid
// out as the reference lists them. Derivatives `trading` files with and without the
// trailing `RPI` column (decimal-second times, scientific-notation grossValue, rows
// sharing a timestamp), and a `spot` file (ms times, symbol from the file name).

@Suite("Bybit public trade files")
struct BybitFormatTests {
  static func read(_ path: String, format: RecordFormat? = nil, instrument: Instrument? = nil) throws -> IngestedFile {
    var options = IngestOptions()
    options.format = format
    options.instrument = instrument
    return try Ingest.read(path: path, options: options)
  }

  static let files: [(file: String, format: String, rows: Int, collapsed: Int, instrument: Instrument, times: [Int64], prices: [Double])] = [
    // 1735689600.0974 twice (the later row, 93512.30, is kept), .5, 1.0001; RPI 0/1/false.
    (
      "BTCUSDT2025-01-01.csv", "bybit.trading", 4, 1, Instrument(venue: "bybit", market: .linear, symbol: "BTCUSDT"),
      [1_735_689_600_097_400, 1_735_689_600_500_000, 1_735_689_601_000_100], [93512.30, 93512.50, 93511.00]
    ),
    // Older header without RPI; an inverse perpetual.
    (
      "BTCUSD2025-01-01.csv", "bybit.trading", 2, 0, Instrument(venue: "bybit", market: .inverse, symbol: "BTCUSD"),
      [1_735_689_600_123_400, 1_735_689_602_999_900], [93490.5, 93491.0]
    ),
    // Spot: ms times, two rows at …884 collapse to the later one.
    (
      "BTCUSDT_2025-01-01.csv", "bybit.spot", 3, 1, Instrument(venue: "bybit", market: .spot, symbol: "BTCUSDT"),
      [1_735_689_600_884_000, 1_735_689_601_017_000], [93512.42, 93512.9]
    ),
  ]

  @Test("each file is detected from its header: rows, times exact to the µs, prices, instrument", arguments: files)
  func file(c: (file: String, format: String, rows: Int, collapsed: Int, instrument: Instrument, times: [Int64], prices: [Double])) throws {
    let file = try Self.read(fixture(c.file))
    #expect(file.report.format == c.format)
    #expect(file.report.rowsRead == c.rows && file.report.rowsAccepted == c.rows && file.report.rowsRejected == 0)
    #expect(file.report.rowsCollapsed == c.collapsed)
    let s = try #require(file.series.first)
    #expect(file.series.count == 1)
    #expect(s.instrument == c.instrument)
    #expect(s.time == c.times)
    #expect(s.bid == c.prices && s.ask == c.prices)
    #expect(s.otherTime.isEmpty)
    // Named explicitly, either header is still recognised and skipped.
    let named = try Self.read(fixture(c.file), format: RecordFormat(id: c.format))
    #expect(named.series.first?.time == c.times)
  }

  @Test("both trading headers and the spot header are detected; other headers are not")
  func detection() {
    func detect(_ header: String) -> RecordFormat? {
      withBytes(header) { p, n in RecordFormat.detect(headerLine: UnsafeBufferPointer(start: p, count: n)) }
    }
    #expect(detect(BybitFiles.tradingHeader) == .bybitTrading)
    #expect(detect(BybitFiles.tradingHeader + ",RPI") == .bybitTrading)
    #expect(detect("id,timestamp,price,volume,side,rpi") == .bybitSpot)
    #expect(detect(BybitFiles.tradingHeader + ",rpi") == nil)
    #expect(detect("timestamp,symbol,side,size,price") == nil)
    #expect(RecordFormat.namedIDs.filter { $0 == "bybit.trading" }.count == 1, "listed once in help")
    #expect(RecordFormat(id: "bybit.spot") == .bybitSpot)
  }

  @Test("market from the symbol: USDT/USDC linear, USD inverse, month-coded or dated future")
  func markets() {
    let cases: [(String, MarketKind)] = [
      ("BTCUSDT", .linear), ("ETHUSDC", .linear), ("BTCPERP", .linear), ("BTCUSD", .inverse), ("ETHUSD", .inverse),
      ("BTCUSDH25", .future), ("ETHUSDZ24", .future), ("BTC-28MAR25", .future), ("BTCUSDT", .linear),
    ]
    for (symbol, market) in cases { #expect(BybitFiles.market(symbol: symbol) == market, "\(symbol)") }
    #expect(BybitFiles.spotSymbol(path: "spot/BTCUSDT/BTCUSDT_2025-01-01.csv.gz") == "BTCUSDT")
    #expect(BybitFiles.spotSymbol(path: "BTCUSDT_2025-01.csv.gz") == "BTCUSDT")
    #expect(BybitFiles.spotSymbol(path: "trades.csv") == nil)
  }

  @Test("a month-coded inverse future row is a future; the leg's prefix overrides venue and market")
  func instruments() throws {
    let row = "1735689600.0001,BTCUSDH25,Buy,10,95000.5,PlusTick,x,10526,0.000105,10\n"
    let future = try ingest(BybitFiles.tradingHeader + "\n" + row, name: "BTCUSDH252025-01-01.csv")
    #expect(future.series.first?.instrument == Instrument(venue: "bybit", market: .future, symbol: "BTCUSDH25"))
    let leg = Instrument(venue: "bybit2", market: .inverse, symbol: "OTHER")
    let spot = try Self.read(fixture("BTCUSDT_2025-01-01.csv"), instrument: leg)
    #expect(spot.series.first?.instrument == leg, "spot: the leg's prefix wins, symbol too")
    let trading = try Self.read(fixture("BTCUSDT2025-01-01.csv"), instrument: leg)
    #expect(trading.series.first?.instrument == Instrument(venue: "bybit2", market: .inverse, symbol: "BTCUSDT"), "symbol column kept")
    let unnamed = try ingest(try String(contentsOfFile: fixture("BTCUSDT_2025-01-01.csv"), encoding: .utf8), name: "trades.csv")
    #expect(unnamed.series.first?.instrument == Instrument(venue: "bybit", market: .spot, symbol: "unknown"))
  }

  @Test("a bad row reports its line and the column where its field starts")
  func badRows() throws {
    let text = try String(contentsOfFile: fixture("BTCUSDT2025-01-01.csv"), encoding: .utf8)
    // Price starts after 16 + 8 + 4 + 6 = 34 bytes: column 35.
    let badPrice = "1735689603.0000,BTCUSDT,Buy,0.010,93x12.4,PlusTick,id,9.35e+09,0.010,935.12,0\n"
    let error = #expect(throws: IngestError.self) { try ingest(text + badPrice, name: "BTCUSDT2025-01-01.csv") }
    #expect(error?.reason == .invalidNumber(column: "price", text: "93x12.4"))
    #expect(error?.position.line == 6 && error?.position.column == 35)
    let badTime = "1735689603.x,BTCUSDT,Buy,0.010,93512.4,PlusTick,id,9.35e+09,0.010,935.12,0\n"
    let timeError = #expect(throws: IngestError.self) { try ingest(text + badTime) }
    #expect(timeError?.reason == .invalidTimestamp(column: "timestamp", text: "1735689603.x"))
    #expect(timeError?.position.line == 6 && timeError?.position.column == 1)
    // A file keeps its header's field count: a 10-field row under the RPI header.
    let short = "1735689603.0000,BTCUSDT,Buy,0.010,93512.4,PlusTick,id,9.35e+09,0.010,935.12\n"
    let countError = #expect(throws: IngestError.self) { try ingest(text + short) }
    #expect(countError?.reason == .wrongFieldCount(expected: 11, found: 10))
    #expect(countError?.position.line == 6)
    // Spot: a bad ms time.
    let spot = try String(contentsOfFile: fixture("BTCUSDT_2025-01-01.csv"), encoding: .utf8)
    let spotError = #expect(throws: IngestError.self) { try ingest(spot + "4,1735689601017.5,93512.9,0.013,buy,0\n") }
    #expect(spotError?.reason == .invalidTimestamp(column: "timestamp", text: "1735689601017.5"))
    #expect(spotError?.position.line == 5 && spotError?.position.column == 3)
  }

  @Test("unsorted rows go to the order check: rejected at their line, or sorted with sort")
  func unsorted() throws {
    let text =
      BybitFiles.tradingHeader + "\n"
      + "1735689601.0000,BTCUSD,Buy,1,93500,PlusTick,a,1069,0.0000107,1\n"
      + "1735689600.2500,BTCUSD,Sell,1,93400,MinusTick,b,1070,0.0000107,1\n"
    let error = #expect(throws: IngestError.self) { try ingest(text) }
    #expect(error?.reason == .timestampNotIncreasing(previous: 1_735_689_601_000_000, found: 1_735_689_600_250_000))
    #expect(error?.position.line == 3)
    var options = IngestOptions()
    options.sort = true
    let sorted = try ingest(text, options: options)
    #expect(sorted.series.first?.time == [1_735_689_600_250_000, 1_735_689_601_000_000])
    #expect(sorted.series.first?.bid == [93400, 93500])
  }

  @Test("a named bybit.trading file whose header is neither variant is a missing header")
  func wrongHeader() throws {
    var options = IngestOptions()
    options.format = .bybitTrading
    let error = #expect(throws: IngestError.self) { try ingest("time,symbol,side,size,price\n1,BTCUSDT,Buy,1,1\n", options: options) }
    #expect(error?.reason == .missingHeader(expected: BybitFiles.tradingHeader))
    #expect(error?.position.line == 1)
  }
}
