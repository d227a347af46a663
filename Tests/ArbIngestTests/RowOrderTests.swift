import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// definitions.md "Time and quotes": rows with the same ts collapse to the LAST of them
// in file order; rows going backwards are rejected, or stably sorted with --sort.
// Every row below carries a distinct bid so that the kept row is identifiable.

@Suite("Row order and duplicates")
struct RowOrderTests {
  /// A Tardis quotes file whose rows have these local times and bids 10.01, 10.02, … (up to 9 rows)
  static func tardis(localTimes: [Int64]) -> String {
    let rows = localTimes.enumerated().map { k, t in
      "binance,BTCUSDT,\(k + 1),\(t),1,20,10.0\(k + 1),2"
    }
    return ([tardisQuotesHeader] + rows).joined(separator: "\n") + "\n"
  }

  @Test("duplicate timestamps collapse to the last row in file order")
  func duplicatesAscending() throws {
    let file = try ingest(Self.tardis(localTimes: [100, 100, 200, 200, 200, 300]))
    #expect(file.report.rowsAccepted == 6)
    #expect(file.report.rowsCollapsed == 3)
    let series = try #require(file.series.first)
    #expect(series.time == [100, 200, 300])
    #expect(series.bid == [10.02, 10.05, 10.06])
    #expect(series.otherTime == [2, 5, 6])  // the other clock follows its row
    #expect(file.report.instruments.map(\.rows) == [3])
  }

  @Test("a row going backwards is rejected without --sort")
  func backwardsRejected() throws {
    let error = #expect(throws: IngestError.self) { try ingest(Self.tardis(localTimes: [300, 100])) }
    #expect(error?.reason == .timestampNotIncreasing(previous: 300, found: 100))
    #expect(error?.position.line == 3)
    #expect(error?.position.column == 19)
  }

  @Test("with sort, rows going backwards are accepted and stably sorted, ties to the last")
  func sortStable() throws {
    var options = IngestOptions()
    options.sort = true
    // bids:                              10.01 10.02 10.03 10.04 10.05 10.06
    let file = try ingest(Self.tardis(localTimes: [300, 100, 300, 200, 100, 50]), options: options)
    #expect(file.report.rowsRejected == 0)
    #expect(file.report.rowsAccepted == 6)
    #expect(file.report.rowsCollapsed == 2)
    let series = try #require(file.series.first)
    #expect(series.time == [50, 100, 200, 300])
    #expect(series.bid == [10.06, 10.05, 10.04, 10.03])
    #expect(series.otherTime == [6, 5, 4, 3])
    #expect(file.report.firstTime == 50 && file.report.lastTime == 300)
  }

  @Test("with sort and no disorder, nothing changes")
  func sortNoOp() throws {
    var options = IngestOptions()
    options.sort = true
    let sorted = try ingest(Self.tardis(localTimes: [100, 200, 300]), options: options)
    let plain = try ingest(Self.tardis(localTimes: [100, 200, 300]))
    #expect(sameColumns(sorted.series[0], plain.series[0]))
  }

  // MARK: Newest-first (descending) column-spec files

  static let descendingSpec = #"{"order": "descending", "time": {"column": "date", "form": "date"}, "price": "close"}"#

  /// Newest first; 2025-08-02 appears twice (first 2.1, then 2.2).
  static let newestFirst = "date,close\n2025-08-03,3\n2025-08-02,2.1\n2025-08-02,2.2\n2025-08-01,1\n"
  static let day: Int64 = 86_400_000_000
  static let august1: Int64 = 1_754_006_400_000_000

  @Test("a newest-first file is reversed; its duplicates collapse to the last in file order")
  func descendingDuplicates() throws {
    let file = try ingest(Self.newestFirst, options: try columnOptions(Self.descendingSpec))
    #expect(file.report.rowsAccepted == 4)
    #expect(file.report.rowsCollapsed == 1)
    let series = try #require(file.series.first)
    #expect(series.time == [Self.august1, Self.august1 + Self.day, Self.august1 + 2 * Self.day])
    #expect(series.bid == [1, 2.2, 3])
    #expect(series.priceSource == .last)
    #expect(series.bid == series.ask)
  }

  @Test("a newest-first file with sort gives the same series")
  func descendingSorted() throws {
    let sorted = try ingest(Self.newestFirst, options: try columnOptions(Self.descendingSpec, sort: true))
    let reversed = try ingest(Self.newestFirst, options: try columnOptions(Self.descendingSpec))
    #expect(sorted.report.rowsCollapsed == 1)
    #expect(sameColumns(sorted.series[0], reversed.series[0]))
  }

  @Test("a newest-first file rejects a row newer than the one before it")
  func descendingBackwards() throws {
    let text = "date,close\n2025-08-02,2\n2025-08-03,3\n"
    let error = #expect(throws: IngestError.self) { try ingest(text, options: try columnOptions(Self.descendingSpec)) }
    #expect(error?.reason == .timestampNotDecreasing(previous: Self.august1 + Self.day, found: Self.august1 + 2 * Self.day))
    #expect(error?.position.line == 3)
    #expect(error?.position.column == 1)
  }

  // MARK: Several instruments in one file

  @Test("order is checked per instrument in a multi-instrument file")
  func perInstrumentOrder() throws {
    let text = """
      ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last
      2000,binance,spot,BTCUSDT,10,11,1,1,
      1000,bybit,linear,BTCUSDT,20,21,1,1,
      3000,binance,spot,BTCUSDT,12,13,1,1,
      1000,bybit,linear,BTCUSDT,22,23,1,1,
      1500,bybit,linear,BTCUSDT,24,25,1,1,

      """
    let file = try ingest(text)
    #expect(file.report.format == "arbkit.quotes")
    #expect(file.series.map(\.instrument.description) == ["binance:spot:BTCUSDT", "bybit:linear:BTCUSDT"])
    #expect(file.series[0].time == [2000, 3000])
    #expect(file.series[1].time == [1000, 1500])
    #expect(file.series[1].bid == [22, 24])
    #expect(file.report.rowsCollapsed == 1)
    #expect(file.report.firstTime == 1000 && file.report.lastTime == 3000)

    let backwards = text + "2500,binance,spot,BTCUSDT,12,13,1,1,\n"
    let error = #expect(throws: IngestError.self) { try ingest(backwards) }
    #expect(error?.reason == .timestampNotIncreasing(previous: 3000, found: 2500))
    #expect(error?.position.line == 7)
  }
}
