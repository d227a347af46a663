import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Lines as `arbkit record` writes them: failed requests, HTTP errors and bodies that
// are not JSON are error records; a last line cut short by a killed recorder is
// dropped and counted, never read, and never stops the read.

@Suite("Recorded REST lines")
struct RecordedLineTests {
  static let good =
    #"{"recv_ts_us":1000000,"send_ts_us":990000,"venue":"upbit","endpoint":"/v1/ticker","params":{"markets":"KRW-BTC"},"status":200,"#
    + #""response":[{"market":"KRW-BTC","trade_price":43251000.0,"timestamp":1622591001520}]}"#

  static func line(at micros: Int, price: String = "43251000.0") -> String {
    good.replacingOccurrences(of: "1000000,\"send", with: "\(micros),\"send").replacingOccurrences(of: "43251000.0", with: price)
  }

  static func read(_ text: String) throws -> IngestedFile {
    var options = IngestOptions()
    options.format = .restSnapshots
    return try ingest(text, name: "recorded.jsonl", options: options)
  }

  @Test("failed requests, HTTP errors and bodies that are not JSON are error records; 2xx answers are read")
  func errorRecords() throws {
    let failures = [
      #"{"recv_ts_us":2000000,"send_ts_us":1000000,"venue":"upbit","endpoint":"/v1/ticker","params":{},"error":"timed out"}"#,
      #"{"recv_ts_us":3000000,"send_ts_us":2990000,"venue":"upbit","endpoint":"/v1/ticker","params":{},"status":500,"#
        + #""error":"body is not JSON","body":"<html>"}"#,
      #"{"recv_ts_us":4000000,"send_ts_us":3990000,"venue":"upbit","endpoint":"/v1/ticker","params":{},"status":429,"#
        + #""response":[{"market":"KRW-BTC","trade_price":1.0,"timestamp":1}]}"#,
      #"{"recv_ts_us":5000000,"send_ts_us":4990000,"venue":"bybit","endpoint":"/v5/market/tickers","params":{"category":"linear"},"#
        + #""status":200,"error":"answer not readable: x","response":{"retCode":0}}"#,
    ]
    let file = try Self.read(([Self.good] + failures + [Self.line(at: 6_000_000, price: "43252000.0")]).joined(separator: "\n") + "\n")
    #expect(file.report.rowsRead == 6 && file.report.rowsAccepted == 6 && file.report.errorRecords == 4)
    #expect(file.report.errorRecordSamples.map(\.position.line) == [2, 3, 4, 5])
    let prices = try #require(series(file, "upbit", .spot, "KRW-BTC"))
    #expect(prices.time == [1_000_000, 6_000_000] && prices.bid == [43_251_000, 43_252_000], "no price of an error record is read")
  }

  @Test("a last line cut short is dropped and counted as 'torn last line', under --bad-rows fail too", arguments: [20, 100, 150])
  func tornLastLine(cut: Int) throws {
    let torn = String(Self.line(at: 3_000_000, price: "99.0").prefix(cut))
    let file = try Self.read([Self.good, Self.line(at: 2_000_000), torn].joined(separator: "\n"))
    #expect(file.report.rowsRead == 3 && file.report.rowsAccepted == 3 && file.report.rowsRejected == 0)
    #expect(file.report.skippedByKind.map(\.kind) == ["torn last line"] && file.report.skippedByKind.first?.count == 1)
    #expect(series(file, "upbit", .spot, "KRW-BTC")?.time == [1_000_000, 2_000_000])
  }

  @Test("a line cut short with lines after it is a bad row at its own line")
  func cutLineInTheMiddle() throws {
    let cut = String(Self.good.prefix(100))
    #expect { try Self.read([Self.good, cut, Self.line(at: 2_000_000)].joined(separator: "\n") + "\n") } throws: {
      guard let error = $0 as? IngestError else { return false }
      return error.position.line == 2 && error.position.column == 101 && error.reason.kind == "malformed_json"
    }
  }

  @Test("a line whose JSON is whole but ends in another way is a bad row even last")
  func badLastLine() throws {
    #expect(throws: IngestError.self) { try Self.read([Self.good, Self.good + "x"].joined(separator: "\n")) }
  }

  @Test("Coinone tickers: the first best bid and ask as a book quote, last without them; an error code is an error record")
  func coinone() throws {
    let head = #"{"recv_ts_us":1000000,"venue":"coinone","endpoint":"/public/v2/ticker_new/KRW","params":{},"status":200,"response":"#
    let tickers =
      #"{"result":"success","error_code":"0","server_time":1622591001602,"tickers":["#
      + #"{"quote_currency":"KRW","target_currency":"BTC","timestamp":1622591001000,"last":"43240000","#
      + #""best_asks":[{"price":"43245000","qty":"0.0321"}],"best_bids":[{"price":"43235000","qty":"0.5"}]},"#
      + #"{"quote_currency":"KRW","target_currency":"ETH","timestamp":1622591000900,"last":"3101000","best_asks":[],"best_bids":[]}]}}"#
    let error =
      #"{"recv_ts_us":2000000,"venue":"coinone","endpoint":"/public/v2/ticker_new/KRW","params":{},"status":200,"#
      + #""response":{"result":"error","error_code":"107","error_msg":"Parameter value is wrong"}}"#
    let file = try Self.read(head + tickers + "\n" + error + "\n")
    #expect(file.report.rowsAccepted == 2 && file.report.errorRecords == 1)
    #expect(file.report.errorRecordSamples.first?.description.contains("coinone error_code 107: Parameter value is wrong") == true)
    let btc = try #require(series(file, "coinone", .spot, "BTC"))
    #expect(btc.bid == [43_235_000] && btc.ask == [43_245_000] && btc.bidSize == [0.5] && btc.askSize == [0.0321])
    #expect(btc.otherTime == [1_622_591_001_000_000], "the exchange clock is the ticker's timestamp")
    let eth = try #require(series(file, "coinone", .spot, "ETH"))
    #expect(eth.bid == [3_101_000] && eth.ask == [3_101_000] && eth.priceSource == .last)
  }
}
