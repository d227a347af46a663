import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Wide files (one price column per venue, bitcoinity's exports) and the FTX candle
// spec, on slices of the real files. The oracle re-reads the fixture with String
// splitting and Foundation's ISO-8601 parser.

@Suite("Wide files and the FTX spec")
struct WideFormatTests {
  static func options(_ spec: String, overrides: [String] = []) throws -> IngestOptions {
    var options = IngestOptions()
    options.format = .columns(try ColumnSpec.load(path: Repository.data("formats/" + spec), overrides: overrides))
    return options
  }

  /// Per venue column, the (µs, price) pairs of the non-empty cells, read the slow way.
  static func oracle(_ path: String) throws -> [(venue: String, points: [(Int64, Double)])] {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    let names = lines[0].split(separator: ",", omittingEmptySubsequences: false).dropFirst().map(String.init)
    let parser = ISO8601DateFormatter()
    var columns = names.map { (venue: $0, points: [(Int64, Double)]()) }
    for line in lines.dropFirst() {
      let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let iso = cells[0].replacingOccurrences(of: " UTC", with: "Z").replacingOccurrences(of: " ", with: "T")
      let micros = Int64(try #require(parser.date(from: iso)).timeIntervalSince1970) * 1_000_000
      for (k, cell) in cells.dropFirst().enumerated() where !cell.isEmpty {
        columns[k].points.append((micros, try #require(Double(cell))))
      }
    }
    return columns
  }

  @Test("bitcoinity KRW: one series per venue column, empty cells add no point")
  func bitcoinitySlice() throws {
    let path = fixture("bitcoinity_data_KRW-slice.csv")
    let file = try Ingest.read(path: path, options: try Self.options("bitcoinity-btc-krw.json"))
    #expect(file.report.rowsRead == 18 && file.report.rowsAccepted == 18 && file.report.rowsRejected == 0)
    let expected = try Self.oracle(path)
    #expect(file.series.map(\.instrument.description) == ["bithumb:spot:BTC/KRW", "korbit:spot:BTC/KRW", "kraken:spot:BTC/KRW"])
    #expect(expected.map(\.venue) == ["bithumb", "korbit", "kraken"])
    for (series, column) in zip(file.series, expected) {
      #expect(series.time == column.points.map(\.0), "\(column.venue)")
      #expect(series.bid == column.points.map(\.1), "\(column.venue)")
      #expect(bits(series.ask) == bits(series.bid))
      #expect(series.priceSource == .last)
    }
    // Hand count: bithumb 12-27 … 01-02 (7 days), korbit every row but the 3 blank ones
    // (15), kraken 12-26, 12-28, 01-01, 01-02 (4).
    #expect(file.series.map(\.count) == [7, 15, 4])
    #expect(file.report.instruments.map(\.rows) == [7, 15, 4])
    // 2013-09-03 … 2014-01-02: the 2025 rows have no price at all.
    #expect(file.report.firstTime == 1_378_166_400_000_000)
    #expect(file.report.lastTime == 1_388_620_800_000_000)
  }

  @Test("venue_columns as a list reads only the named columns")
  func namedColumns() throws {
    let path = fixture("bitcoinity_data_KRW-slice.csv")
    let file = try Ingest.read(path: path, options: try Self.options("bitcoinity-btc-krw.json", overrides: ["venue_columns=kraken,bithumb"]))
    #expect(file.series.map(\.instrument.venue) == ["kraken", "bithumb"])
    #expect(file.series.map(\.count) == [4, 7])
    let unknown = #expect(throws: IngestError.self) {
      try Ingest.read(path: path, options: try Self.options("bitcoinity-btc-krw.json", overrides: ["venue_columns=bitfinex"]))
    }
    #expect(unknown?.reason == .missingColumn(name: "bitfinex"))
    #expect(unknown?.position.line == 1)
  }

  @Test("a bad cell rejects its whole row, with line and column; the other venues keep nothing of it")
  func badCells() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let text = """
      Time,a,b
      2020-01-01 00:00:00 UTC,1.5,2.5
      2020-01-02 00:00:00 UTC,,-3
      2020-01-03 00:00:00 UTC,x1,4
      2020-01-04 00:00:00 UTC,,
      2020-01-02 00:00:00 UTC,7,
      2020-01-05 00:00:00 UTC,6,inf
      2020-01-06 00:00:00 UTC,8,9

      """
    let path = folder.write("wide.csv", text)
    var options = try Self.options("bitcoinity-btc-usd.json")
    let first = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
    #expect(first?.reason == .nonPositivePrice(column: "b", text: "-3"))
    #expect(first?.position.line == 3)
    #expect(first?.position.column == 26)

    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.csv"
    let file = try Ingest.read(path: path, options: options)
    #expect(file.report.rowsRead == 7)
    #expect(file.report.rowsAccepted == 3)
    #expect(file.report.rowsRejected == 4)
    #expect(file.report.rejectedByKind.map(\.kind) == ["non_positive_price", "invalid_number", "timestamp_backwards", "non_finite"])
    #expect(file.series[0].bid == [1.5, 8])
    #expect(file.series[1].bid == [2.5, 9])
    let day: Int64 = 86_400_000_000
    #expect(file.series[0].time == [1_577_836_800_000_000, 1_577_836_800_000_000 + 5 * day])
    let quarantined = try String(contentsOfFile: folder.path + "/rejected.csv", encoding: .utf8)
    #expect(quarantined.split(separator: "\n").count == 5)
  }

  @Test("a wide spec needs a header and venue_columns of the right type")
  func specErrors() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("wide.csv", "2020-01-01 00:00:00 UTC,1\n")
    let noHeader = #expect(throws: IngestError.self) {
      try Ingest.read(path: path, options: try Self.options("bitcoinity-btc-usd.json", overrides: ["header=false", "time.column=1"]))
    }
    #expect(noHeader?.reason.kind == "missing_column")
    let badType = #expect(throws: SpecError.self) {
      try Self.options("bitcoinity-btc-usd.json", overrides: ["venue_columns=5"])
    }
    #expect(badType?.message.contains("venue_columns") == true)
  }

  @Test("FTX BTC-PERP 1m: times as given, close prices equal to the file's text")
  func ftxSlice() throws {
    let path = fixture("btc-perp-20211231-1m-slice.csv")
    let file = try Ingest.read(path: path, options: try Self.options("ftx-perp-1m.json"))
    #expect(file.report.rowsRead == 20 && file.report.rowsRejected == 0)
    let series = try #require(file.series.first)
    #expect(series.instrument == Instrument(venue: "ftx", market: .linear, symbol: "BTC-PERP"))
    // 2021-12-31 23:01:00 UTC = 1640991660 s, one row a minute.
    #expect(series.time == (0..<20).map { 1_640_991_660_000_000 + Int64($0) * 60_000_000 })
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst()
    #expect(series.bid == lines.map { Double($0.split(separator: ",")[4])! })
  }
}
