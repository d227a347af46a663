import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Tardis book files read as top of book: the two real `book_snapshot_5` / `_25`
// fixtures (first 10 rows of binance-futures BTCUSDT, 2020-09-01), and `book_ticker`,
// which has the quotes header and is read as its own format only when named.

@Suite("Tardis book snapshots and book ticker")
struct TardisBookTests {
  static let snapshot5 = fixture("binance-futures_book_snapshot_5_BTCUSDT.csv")
  static let snapshot25 = fixture("binance-futures_book_snapshot_25_BTCUSDT.csv")
  static let btcusdtLinear = Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT")

  /// Expected values read by hand off the file text: rows, first/last `timestamp` and
  /// `local_timestamp`, and `asks[0].price,asks[0].amount,bids[0].price,bids[0].amount`
  /// of the first and the last row.
  typealias Top = (ask: Double, askSize: Double, bid: Double, bidSize: Double)
  static let realSnapshots: [(file: String, id: String, columns: Int, rows: Int, exchange: (Int64, Int64), local: (Int64, Int64), first: Top, last: Top)] = [
    (
      snapshot5, "tardis.book_snapshot_5", 24, 10,
      (1_598_918_403_696_000, 1_598_918_404_284_000), (1_598_918_403_810_979, 1_598_918_404_289_427),
      (11657.08, 1.714, 11657.07, 10.896), (11657.08, 1.393, 11657.07, 10.881)
    ),
    (
      snapshot25, "tardis.book_snapshot_25", 104, 10,
      (1_598_918_403_696_000, 1_598_918_404_005_000), (1_598_918_403_810_979, 1_598_918_404_009_468),
      (11657.08, 1.714, 11657.07, 10.896), (11657.08, 1.475, 11657.07, 10.881)
    ),
  ]

  static func read(_ path: String, format: RecordFormat? = nil, clock: Clock = .local) throws -> IngestedFile {
    var options = IngestOptions()
    options.format = format
    options.clock = clock
    return try Ingest.read(path: path, options: options)
  }

  @Test("the generated snapshot headers are the real files' first lines, 4 + 4N columns")
  func generatedHeaders() throws {
    for (levels, file) in [(5, Self.snapshot5), (25, Self.snapshot25)] {
      let header = TardisBooks.snapshotHeader(levels: levels)
      #expect(try textLines(file).first == header)
      #expect(header.split(separator: ",").count == 4 + 4 * levels)
      #expect(RecordFormat.header(of: .tardisBookSnapshot(levels: levels)) == header)
      #expect(RecordFormat(id: "tardis.book_snapshot_\(levels)") == .tardisBookSnapshot(levels: levels))
    }
    for id in ["tardis.book_ticker", "tardis.book_snapshot_5", "tardis.book_snapshot_25"] {
      #expect(RecordFormat.namedIDs.contains(id))
    }
  }

  @Test("real book snapshots: detected, rows, both clocks, top of book of the first and last rows", arguments: realSnapshots)
  func realSnapshot(c: (file: String, id: String, columns: Int, rows: Int, exchange: (Int64, Int64), local: (Int64, Int64), first: Top, last: Top)) throws {
    #expect(try textLines(c.file).dropLast().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == c.columns })
    for clock in [Clock.local, .exchange] {
      let file = try Self.read(c.file, clock: clock)
      #expect(file.report.format == c.id)
      #expect(file.report.rowsRead == c.rows && file.report.rowsAccepted == c.rows && file.report.rowsRejected == 0)
      #expect(file.report.rowsCollapsed == 0)
      #expect(file.series.count == 1)
      let series = try #require(file.series.first)
      #expect(series.instrument == Self.btcusdtLinear, "binance-futures is binance, linear")
      #expect(series.priceSource == .book)
      #expect(series.clock == clock)
      #expect(series.count == c.rows)
      let (time, other) = clock == .local ? (c.local, c.exchange) : (c.exchange, c.local)
      #expect(series.time.first == time.0 && series.time.last == time.1)
      #expect(series.otherTime.first == other.0 && series.otherTime.last == other.1)
      #expect(file.report.firstTime == time.0 && file.report.lastTime == time.1)
      #expect(series.ask.first == c.first.ask && series.askSize.first == c.first.askSize)
      #expect(series.bid.first == c.first.bid && series.bidSize.first == c.first.bidSize)
      #expect(series.ask.last == c.last.ask && series.askSize.last == c.last.askSize)
      #expect(series.bid.last == c.last.bid && series.bidSize.last == c.last.bidSize)
    }
  }

  @Test("the 5- and 25-level files give the same top of book at the instants they share")
  func sameTopAtSharedInstants() throws {
    let five = try #require(try Self.read(Self.snapshot5).series.first)
    let deep = try #require(try Self.read(Self.snapshot25).series.first)
    // By hand from the file text: the two files share four rows (same timestamp and
    // local_timestamp), 1598918403696000, …888000, …930000 and …965000.
    let shared = Set(five.time).intersection(deep.time).sorted()
    #expect(shared == [1_598_918_403_810_979, 1_598_918_403_894_256, 1_598_918_403_935_479, 1_598_918_403_969_976])
    for t in shared {
      let i = try #require(five.time.firstIndex(of: t)), j = try #require(deep.time.firstIndex(of: t))
      #expect(five.otherTime[i] == deep.otherTime[j])
      #expect(five.bid[i] == deep.bid[j] && five.ask[i] == deep.ask[j])
      #expect(five.bidSize[i] == deep.bidSize[j] && five.askSize[i] == deep.askSize[j])
    }
  }

  @Test("a snapshot row with an empty top side is accepted like an empty quotes side")
  func emptyTopSide() throws {
    let header = TardisBooks.snapshotHeader(levels: 5)
    let levels = (a: "10.5,1,10.4,2", askEmpty: ",,10.4,2", bidEmpty: "10.5,1,,", none: ",,,")
    func row(_ local: Int, _ top: String, deeper: String = ",,,") -> String {
      "binance,BTCUSDT,1,\(local),\(top)," + Array(repeating: deeper, count: 4).joined(separator: ",")
    }
    let text =
      [header, row(100, levels.a, deeper: "10.6,3,10.3,4"), row(110, levels.askEmpty), row(120, levels.bidEmpty), row(130, levels.none)]
      .joined(separator: "\n") + "\n"
    let file = try ingest(text)
    #expect(file.report.format == "tardis.book_snapshot_5")
    #expect(file.report.rowsAccepted == 4 && file.report.rowsRejected == 0)
    let series = try #require(file.series.first)
    #expect(series.instrument == Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT"))
    #expect(series.time == [100, 110, 120, 130])
    #expect(bits(series.ask) == bits([10.5, .nan, 10.5, .nan]))
    #expect(bits(series.bid) == bits([10.4, 10.4, .nan, .nan]))
    #expect(bits(series.askSize) == bits([1, .nan, 1, .nan]))
    #expect(bits(series.bidSize) == bits([2, 2, .nan, .nan]))
  }

  @Test("a snapshot row must have every level's columns; a crossed top is rejected")
  func snapshotBadRows() throws {
    let header = TardisBooks.snapshotHeader(levels: 5)
    let deeper = Array(repeating: ",,,", count: 4).joined(separator: ",")
    let short = "binance,BTCUSDT,1,100,10.5,1,10.4,2," + Array(repeating: ",,,", count: 3).joined(separator: ",")
    let error = #expect(throws: IngestError.self) { try ingest(header + "\n" + short + "\n") }
    #expect(error?.reason == .wrongFieldCount(expected: 24, found: 20))
    #expect(error?.position.line == 2)
    let crossed = "binance,BTCUSDT,1,100,10.4,1,10.5,2," + deeper
    let crossedError = #expect(throws: IngestError.self) { try ingest(header + "\n" + crossed + "\n") }
    #expect(crossedError?.reason == .crossedBook(bid: 10.5, ask: 10.4))
  }

  @Test("a snapshot of another depth is read when named")
  func otherDepthNamed() throws {
    let header = TardisBooks.snapshotHeader(levels: 2)
    #expect(
      header
        == "exchange,symbol,timestamp,local_timestamp,asks[0].price,asks[0].amount,bids[0].price,bids[0].amount,asks[1].price,asks[1].amount,bids[1].price,bids[1].amount"
    )
    let text = header + "\nbinance-futures,BTCUSDT,1,100,10.5,1,10.4,2,10.6,3,10.3,4\n"
    #expect(throws: IngestError.self) { try ingest(text) }  // not detected: unknown header
    var options = IngestOptions()
    options.format = .tardisBookSnapshot(levels: 2)
    let file = try ingest(text, options: options)
    #expect(file.report.format == "tardis.book_snapshot_2")
    #expect(file.series.first?.instrument == Self.btcusdtLinear)
    #expect(file.series.first?.ask == [10.5] && file.series.first?.bidSize == [2])
  }

  @Test("naming the wrong snapshot depth is a header error")
  func wrongDepthNamed() throws {
    let error = #expect(throws: IngestError.self) { try Self.read(Self.snapshot25, format: .tardisBookSnapshot(levels: 5)) }
    #expect(error?.reason == .missingHeader(expected: TardisBooks.snapshotHeader(levels: 5)))
  }

  @Test("book_ticker: the quotes header is detected as quotes; named, it reads the same columns", arguments: [Clock.local, .exchange])
  func bookTicker(clock: Clock) throws {
    let path = fixture("huobi-dm-swap_quotes_BTC-USD.csv")
    #expect(RecordFormat(id: "tardis.book_ticker") == .tardisBookTicker)
    #expect(RecordFormat.header(of: .tardisBookTicker) == tardisQuotesHeader)
    let detected = try Self.read(path, clock: clock)
    #expect(detected.report.format == "tardis.quotes")
    let named = try Self.read(path, format: .tardisBookTicker, clock: clock)
    #expect(named.report.format == "tardis.book_ticker")
    #expect(named.report.rowsAccepted == 10)
    #expect(named.series.count == 1 && detected.series.count == 1)
    #expect(sameColumns(named.series[0], detected.series[0]))
    #expect(named.series[0].clock == clock)
    #expect(named.series[0].instrument == Instrument(venue: "huobi", market: .inverse, symbol: "BTC-USD"))
  }
}
