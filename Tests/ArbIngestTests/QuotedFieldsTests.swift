import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// A named CSV format read from a file whose writer quoted its fields (pandas'
// `quoting=csv.QUOTE_ALL`, spreadsheet exports): the same series as from the plain file.

@Suite("Quoted fields in named formats")
struct QuotedFieldsTests {
  /// `text` with every field of every line quoted, a quote inside doubled.
  static func quotingAll(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      line.isEmpty
        ? ""
        : line.split(separator: ",", omittingEmptySubsequences: false).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(
          separator: ",")
    }.joined(separator: "\n")
  }

  @Test(
    "every field quoted reads as the plain file",
    arguments: [
      "BTCUSDT-bookTicker-2024-03-01.csv", "BTCUSDT-aggTrades-2024-03-01-futures-header.csv", "BTCUSDT-trades-2025-01-01-spot.csv",
      "BTCUSD2025-01-01.csv", "huobi-dm-swap_quotes_BTC-USD.csv", "bitmex_trades_XBTUSD.csv", "binance-futures_book_snapshot_5_BTCUSDT.csv",
    ])
  func everyFieldQuoted(name: String) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let plain = try Ingest.read(path: fixture(name))
    let path = folder.write(name, Self.quotingAll(try String(contentsOfFile: fixture(name), encoding: .utf8)))
    let quoted = try Ingest.read(path: path)
    #expect(quoted.report.rowsRejected == 0 && quoted.report.rowsAccepted == plain.report.rowsAccepted)
    #expect(quoted.series.count == plain.series.count && !plain.series.isEmpty)
    for (q, p) in zip(quoted.series, plain.series) {
      #expect(q.instrument == p.instrument && q.field == p.field && q.priceSource == p.priceSource)
      #expect(sameColumns(q, p), "\(name): \(q.instrument)")
    }
  }

  @Test func `a quoted field among plain ones, and a quote left open, are told apart`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "update_id,best_bid_price,best_bid_qty,best_ask_price,best_ask_qty,transaction_time,event_time\n"
    let path = folder.write(
      "BTCUSDT-bookTicker-2024-03-01.csv",
      header + "4012345678901,\"61505.30\",2.104,61505.40,0.731,1709251200009,1709251200015\n"
        + "4012345678905,\"61505.20,1.500,61505.40,0.731,1709251200009,1709251200016\n")
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path) }
    #expect(error?.reason == .unterminatedQuote && error?.position.line == 3, "\(String(describing: error))")
    var skip = IngestOptions()
    skip.badRows = .skip
    skip.quarantinePath = folder.path + "/rejected.csv"
    let file = try Ingest.read(path: path, options: skip)
    #expect(file.report.rowsAccepted == 1 && file.report.rowsRejected == 1)
    #expect(file.series.first?.bid == [61505.30])
  }
}
