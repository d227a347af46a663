import ArbCore
import Testing

@Suite("Error texts")
struct ErrorTextTests {
  @Test func `an ingest error prints the compiler frame with the parameter and the value`() {
    let error = IngestError(.invalidNumber(column: "spot", text: "37,006.4"), at: SourcePosition(path: "q.csv", line: 1042, column: 17))
    #expect(error.description == "q.csv:1042:17: error: invalid number in column 'spot', was '37,006.4'")
  }

  @Test func `every reason has a distinct kind and a lowercase message`() {
    let reasons: [IngestError.Reason] = [
      .emptyFile, .noQuotes(rowsRead: 0), .missingHeader(expected: "a,b"), .missingColumn(name: "x"), .unknownFormat(firstLine: "?"),
      .wrongFieldCount(expected: 8, found: 7), .invalidNumber(column: "c", text: "t"), .invalidTimestamp(column: "c", text: "t"),
      .nonFinite(column: "c", text: "nan"), .nonPositivePrice(column: "c", text: "0"), .negativeSize(column: "c", text: "-1"),
      .missingPrice(column: "c"), .crossedBook(bid: 2, ask: 1), .timestampNotIncreasing(previous: 2, found: 1),
      .timestampNotDecreasing(previous: 1, found: 2), .unterminatedQuote, .truncatedCompressedStream(detail: "d"),
      .corruptCompressedStream(detail: "d"), .symbolNotInFile(symbol: "s", found: ["a"]), .errorRecord(detail: "d"),
      .readFailed(detail: "read failed"), .invalidMarket(column: "c", text: "perp"),
      .malformedJSON(expected: "']'", found: "x"), .offFundingGrid(column: "calc_time", text: "1", toleranceMillis: 60_000),
      .invalidValue(column: "side", text: "buy", expected: "bid or ask"),
    ]
    #expect(Set(reasons.map(\.kind)).count == reasons.count)
    for reason in reasons {
      #expect(reason.message.first.map { $0.isLowercase } == true, "\(reason.message)")
    }
  }
}
