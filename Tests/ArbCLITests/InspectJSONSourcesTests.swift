import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("arbkit inspect: JSON sources")
struct InspectJSONSourcesTests {
  static let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures/json").path

  @Test func `error records, skipped messages and each series' field are in the json`() throws {
    let run = arbkit("inspect", "\(Self.fixtures)/rest-snapshots.jsonl", "--format", "json")
    #expect(run.code == .success)
    let object = run.object
    #expect(object["format"] as? String == "rest.snapshots")
    #expect(object["rows_read"] as? Int == 17)
    #expect(object["rows_accepted"] as? Int == 17)
    #expect(object["error_records"] as? Int == 4)
    let samples: [String] = object["error_record_samples"] as? [String] ?? []
    #expect(samples.first?.hasSuffix(":3:1: error: error record, bybit retCode 10001: params error: symbol invalid") == true)
    let skipped: [String: Int] = object["skipped_messages"] as? [String: Int] ?? [:]
    #expect(skipped.isEmpty, "the Bybit order book is read")
    let instruments: [[String: Any]] = object["instruments"] as? [[String: Any]] ?? []
    var fields: [String] = []
    for entry in instruments where entry["venue"] as? String == "bybit" && entry["market"] as? String == "linear" {
      fields.append(entry["field"] as? String ?? "")
    }
    #expect(fields == ["price", "mark", "index", "funding_rate"], "the order book's tops and the tickers' are one price series")
  }

  @Test func `the table shows skipped messages and fields; the csv has a field column`() throws {
    let table = arbkit("inspect", "\(Self.fixtures)/bybit-slice.jsonl.zst")
    #expect(table.code == .success)
    let text: String = table.output
    #expect(text.contains("rows read 367 = accepted 367 + rejected 0"))
    #expect(
      text.contains(
        "skipped messages 276 (accepted, no series read): header 1, connect 2, send 24, bybit subscribe 20, bybit orderbook 207, bybit kline 13, bybit publicTrade 9"
      ))
    #expect(text.contains("bybit  linear  BTCUSDT   price           31  book"))
    #expect(text.contains("bybit  linear  BTCUSDT   mark             5  last"))
    let csv = arbkit("inspect", "\(Self.fixtures)/history-slice.json", "--format", "csv")
    let lines: [String] = csv.output.split(separator: "\n").map(String.init)
    var rows: [String] = []
    for line in lines.dropFirst() { rows.append(line.split(separator: ",").suffix(5).joined(separator: ",")) }
    #expect(rows == ["upbit,spot,KRW-BTC,price,6", "bitstamp,spot,btcusd,price,6", "fx,fx,USDKRW,price,6", "upbit,spot,KRW-USDT,price,2"])
  }
}
