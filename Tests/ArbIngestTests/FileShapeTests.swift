import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// The shapes a file's bytes come in: byte order mark, CRLF, no final newline, blank
// lines, lines longer than the reader's buffer, empty book sides.

@Suite("File shapes")
struct FileShapeTests {
  static let rows = [tardisGoodRow, "binance,BTCUSDT,2,200,3,10.7,10.6,4"]

  static let shapes: [(name: String, text: String)] = [
    ("plain", tardisQuotesHeader + "\n" + rows.joined(separator: "\n") + "\n"),
    ("UTF-8 BOM", "\u{FEFF}" + tardisQuotesHeader + "\n" + rows.joined(separator: "\n") + "\n"),
    ("CRLF", ([tardisQuotesHeader] + rows).joined(separator: "\r\n") + "\r\n"),
    ("no final newline", tardisQuotesHeader + "\n" + rows.joined(separator: "\n")),
    ("CRLF without final newline", ([tardisQuotesHeader] + rows).joined(separator: "\r\n")),
    ("BOM, CRLF, no final newline", "\u{FEFF}" + ([tardisQuotesHeader] + rows).joined(separator: "\r\n")),
    ("blank lines", tardisQuotesHeader + "\n\n" + rows.joined(separator: "\n\r\n") + "\n\n"),
  ]

  @Test("every shape reads the same two quotes", arguments: shapes)
  func shape(c: (name: String, text: String)) throws {
    let file = try ingest(c.text)
    #expect(file.report.format == "tardis.quotes")
    #expect(file.report.rowsRead == 2)
    #expect(file.report.rowsAccepted == 2)
    let series = try #require(file.series.first)
    #expect(series.time == [100, 200])
    #expect(series.otherTime == [1, 2])
    #expect(series.bid == [10.4, 10.6])
    #expect(series.ask == [10.5, 10.7])
    #expect(series.bidSize == [2, 4])  // the last field, where a CR would stick
    #expect(series.askSize == [1, 3])
  }

  @Test("an error on a CRLF line reports the line without its CR")
  func crlfErrorText() throws {
    let text = [tardisQuotesHeader, tardisGoodRow, "binance,BTCUSDT,2,200,1,10.5,10.4,2x"].joined(separator: "\r\n") + "\r\n"
    let error = #expect(throws: IngestError.self) { try ingest(text) }
    #expect(error?.reason == .invalidNumber(column: "bid_amount", text: "2x"))
    #expect(error?.position.line == 3)
    #expect(error?.position.column == 35)
  }

  @Test("a BOM before a column-spec header is not part of the first column's name")
  func bomColumnSpec() throws {
    let options = try columnOptions(#"{"time": {"column": "ts", "form": "s"}, "price": "close"}"#)
    let file = try ingest("\u{FEFF}\"ts\",\"close\"\r\n\"60\",\"1.5\"", options: options)
    #expect(file.series.first?.time == [60_000_000])
    #expect(file.series.first?.bid == [1.5])
  }

  @Test("Tardis quotes accept an empty side: it is nan, the other side is kept")
  func emptySide() throws {
    let text =
      [
        tardisQuotesHeader,
        "binance,BTCUSDT,1,100,,,10.4,2",  // no asks
        "binance,BTCUSDT,2,200,3,10.7,,",  // no bids
        "binance,BTCUSDT,3,300,3,10.7,10.6,4",
      ].joined(separator: "\n") + "\n"
    let file = try ingest(text)
    #expect(file.report.rowsRejected == 0)
    let series = try #require(file.series.first)
    #expect(series.priceSource == .book)
    #expect(series.time == [100, 200, 300])
    #expect(series.bid[0] == 10.4 && series.ask[0].isNaN && series.askSize[0].isNaN && series.bidSize[0] == 2)
    #expect(series.bid[1].isNaN && series.bidSize[1].isNaN && series.ask[1] == 10.7 && series.askSize[1] == 3)
    #expect(series.bid[2] == 10.6 && series.ask[2] == 10.7)
  }

  // MARK: Lines longer than the 1 MiB buffer

  static let threeMiB = 3 << 20

  @Test("a 3 MiB field in a column-spec row is read, and the rows around it too")
  func longField() throws {
    let options = try columnOptions(#"{"time": {"column": "ts", "form": "s"}, "price": "close"}"#)
    let note = String(repeating: "x", count: Self.threeMiB)
    let leadingZeros = String(repeating: "0", count: Self.threeMiB) + "2.5"  // a 3 MiB number
    let text = "ts,close,note\n60,1.5,a\n120,1.25,\(note)\n180,\(leadingZeros),b\n240,3.5,c"
    let file = try ingest(text, options: options)
    #expect(file.report.rowsRead == 4)
    #expect(file.report.rowsRejected == 0)
    #expect(file.series.first?.bid == [1.5, 1.25, 2.5, 3.5])
    #expect(file.series.first?.time == [60_000_000, 120_000_000, 180_000_000, 240_000_000])
  }

  @Test("a 3 MiB row of a million fields is read in a column-spec file")
  func manyFieldsRow() throws {
    let options = try columnOptions(#"{"time": {"column": "ts", "form": "s"}, "price": "close"}"#)
    let extra = String(repeating: ",7", count: Self.threeMiB / 2)
    let file = try ingest("ts,close,a\n60,1.5,1\n120,2.5\(extra)\n180,3.5,1\n", options: options)
    #expect(file.report.rowsAccepted == 3)
    #expect(file.series.first?.bid == [1.5, 2.5, 3.5])
  }

  @Test("a 3 MiB row of a million fields in a Tardis file is a wrong field count, not a crash")
  func manyFieldsTardis() throws {
    let extra = String(repeating: ",7", count: Self.threeMiB / 2)
    let row = "binance,BTCUSDT,2,200,1,10.5,10.4,2" + extra
    let error = #expect(throws: IngestError.self) { try ingest(BadRowTests.tardis(row)) }
    #expect(error?.reason.kind == "wrong_field_count")
    #expect(error?.position.line == 3)
    #expect(error?.position.column == row.utf8.count + 1)
  }

  @Test("a 3 MiB header of a million names in a column-spec file is read, not a crash")
  func manyFieldsHeader() throws {
    let options = try columnOptions(#"{"time": {"column": "ts", "form": "s"}, "price": "close"}"#)
    let names = (0..<(Self.threeMiB / 8)).map { String(format: ",c%06d", $0) }.joined()
    let file = try ingest("ts,close" + names + "\n60,1.5\n", options: options)
    #expect(file.series.first?.bid == [1.5])
  }

  static let farColumns: [(spec: String, header: Bool)] = [
    (#"{"time": {"column": "ts", "form": "s"}, "price": "c4999"}"#, true),
    (#"{"header": false, "time": {"column": 1, "form": "s"}, "price": 5001}"#, false),
  ]

  @Test("a column past the 4096th is read right or refused, never misread", arguments: farColumns)
  func farColumn(c: (spec: String, header: Bool)) throws {
    let options = try columnOptions(c.spec)
    let names = "ts" + (0..<5000).map { ",c\($0)" }.joined() + "\n"
    let row = "60" + (0..<5000).map { ",\($0 + 1)" }.joined() + "\n"
    do {
      let file = try ingest((c.header ? names : "") + row, options: options)
      #expect(file.series.first?.bid == [5000])
    } catch let error as IngestError {
      #expect(["missing_column", "wrong_field_count"].contains(error.reason.kind))
    }
  }
}
