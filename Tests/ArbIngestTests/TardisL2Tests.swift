import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Tardis `incremental_book_L2` read as top of book: the real deribit fixture (its first
// 15 rows, one snapshot message of asks only, 2020-04-01) and hand-made files for each
// rule of sources.md §1.7 (rows before the first snapshot, deletions, a new snapshot,
// several symbols, one quote per instant, crossed instants, bad rows).

@Suite("Tardis incremental_book_L2")
struct TardisL2Tests {
  static let header = "exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount"
  static let btc = Instrument(venue: "deribit", market: .inverse, symbol: "BTC-PERPETUAL")

  /// A file of `rows` (each `timestamp,local_timestamp,is_snapshot,side,price,amount`
  /// for deribit BTC-PERPETUAL unless it already names its exchange).
  static func text(_ rows: [String]) -> String {
    ([header] + rows.map { $0.hasPrefix("deribit,") ? $0 : "deribit,BTC-PERPETUAL," + $0 }).joined(separator: "\n") + "\n"
  }

  static func read(_ rows: [String], clock: Clock = .local, badRows: BadRowPolicy = .fail) throws -> IngestedFile {
    var options = IngestOptions()
    options.clock = clock
    options.badRows = badRows
    return try ingest(text(rows), options: options)
  }

  /// The quotes of a series as `(time, bid, bidSize, ask, askSize)`, `nan` compared by bits.
  typealias Quote = (time: Int64, bid: Double, bidSize: Double, ask: Double, askSize: Double)
  static func expectQuotes(_ series: QuoteSeries, _ expected: [Quote], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(series.time == expected.map(\.time), sourceLocation: sourceLocation)
    #expect(bits(series.bid) == bits(expected.map(\.bid)), sourceLocation: sourceLocation)
    #expect(bits(series.bidSize) == bits(expected.map(\.bidSize)), sourceLocation: sourceLocation)
    #expect(bits(series.ask) == bits(expected.map(\.ask)), sourceLocation: sourceLocation)
    #expect(bits(series.askSize) == bits(expected.map(\.askSize)), sourceLocation: sourceLocation)
  }

  @Test("format: detected from its exact header, named by id, listed")
  func format() throws {
    #expect(RecordFormat(id: "tardis.incremental_book_L2") == .tardisIncrementalL2)
    #expect(RecordFormat.namedIDs.contains("tardis.incremental_book_L2"))
    #expect(RecordFormat.header(of: .tardisIncrementalL2) == Self.header)
    let real = fixture("deribit_incremental_book_L2_BTC-PERPETUAL.csv")
    #expect(try textLines(real).first == Self.header)
    // A header that differs by one name is not detected.
    let misspelled = Self.header.replacingOccurrences(of: "is_snapshot", with: "snapshot") + "\n"
    #expect(throws: IngestError.self) { try ingest(misspelled) }
  }

  @Test("real deribit file: one snapshot message, one quote of the best ask, both clocks", arguments: [Clock.local, .exchange])
  func realFile(clock: Clock) throws {
    var options = IngestOptions()
    options.clock = clock
    let file = try Ingest.read(path: fixture("deribit_incremental_book_L2_BTC-PERPETUAL.csv"), options: options)
    #expect(file.report.format == "tardis.incremental_book_L2")
    #expect(file.report.rowsRead == 15 && file.report.rowsAccepted == 15 && file.report.rowsRejected == 0)
    #expect(file.report.rowsCollapsed == 0 && file.report.rowsBeforeSnapshot == 0 && file.report.crossedStates == 0)
    let series = try #require(file.series.first)
    #expect(file.series.count == 1)
    #expect(series.instrument == Self.btc, "deribit is deribit, inverse")
    #expect(series.priceSource == .book)
    #expect(series.clock == clock)
    // By hand: all 15 rows are `true` asks of one message (timestamp 1585699200245000,
    // local_timestamp 1585699200355684), 6421.5 … 6428.5 in steps of 0.5; the lowest,
    // 6421.5 with 18640 contracts, is the best ask. No bid rows: the bid side is empty.
    let (time, other): (Int64, Int64) = clock == .local ? (1_585_699_200_355_684, 1_585_699_200_245_000) : (1_585_699_200_245_000, 1_585_699_200_355_684)
    Self.expectQuotes(series, [(time, .nan, .nan, 6421.5, 18640)])
    #expect(series.otherTime == [other])
    #expect(file.report.firstTime == time && file.report.lastTime == time)
  }

  @Test("rows before the first snapshot are accepted, counted and not applied")
  func beforeSnapshot() throws {
    let file = try Self.read([
      "1,100,false,bid,10,5",  // skipped: no snapshot yet
      "2,110,false,ask,11,5",  // skipped
      "3,120,true,bid,10,1",
      "3,120,true,ask,10.5,2",
      "4,130,false,bid,10.2,3",
    ])
    #expect(file.report.rowsRead == 5 && file.report.rowsAccepted == 5 && file.report.rowsRejected == 0)
    #expect(file.report.rowsBeforeSnapshot == 2)
    // The skipped bid 10 × 5 never reached the book: the snapshot's 10 × 1 is the size.
    Self.expectQuotes(try #require(file.series.first), [(120, 10, 1, 10.5, 2), (130, 10.2, 3, 10.5, 2)])
  }

  @Test("amount is the new absolute size; 0 deletes the level and the next one becomes best")
  func deletions() throws {
    let file = try Self.read([
      "1,100,true,bid,10,1", "1,100,true,bid,9,2", "1,100,true,ask,11,3", "1,100,true,ask,12,4",
      "2,110,false,bid,10,0",  // best bid deleted: 9 × 2
      "3,120,false,ask,11,0",  // best ask deleted: 12 × 4
      "4,130,false,ask,13,0",  // a level not in the book: nothing changes
      "5,140,false,bid,9,0",  // last bid deleted: the bid side is empty
      "6,150,false,ask,12,7",  // absolute, not a delta: 7, not 11
    ])
    Self.expectQuotes(
      try #require(file.series.first),
      [
        (100, 10, 1, 11, 3), (110, 9, 2, 11, 3), (120, 9, 2, 12, 4), (130, 9, 2, 12, 4),
        (140, .nan, .nan, 12, 4), (150, .nan, .nan, 12, 7),
      ])
    #expect(file.report.rowsAccepted == 9 && file.report.crossedStates == 0)
  }

  @Test("a snapshot after updates discards the whole book, both sides")
  func secondSnapshot() throws {
    let file = try Self.read([
      "1,100,true,bid,10,1", "1,100,true,ask,11,1",
      "2,110,false,bid,10.5,2",
      // New snapshot, far lower: without the reset the old bid 10.5 would stay best
      // (crossed against 9.5) and the old ask 11 would sit behind 9.5.
      "3,120,true,bid,9,5", "3,120,true,ask,9.5,6",
      "4,130,false,ask,9.6,1",
      "5,140,false,ask,9.5,0",  // the old ask 11 is gone too: 9.6 is next
    ])
    Self.expectQuotes(
      try #require(file.series.first),
      [
        (100, 10, 1, 11, 1), (110, 10.5, 2, 11, 1), (120, 9, 5, 9.5, 6), (130, 9, 5, 9.5, 6), (140, 9, 5, 9.6, 1),
      ])
    #expect(file.report.crossedStates == 0)
  }

  @Test("several symbols interleaved: one book and one series each")
  func severalSymbols() throws {
    let file = try Self.read([
      "deribit,ETH-PERPETUAL,0,90,false,bid,50,1",  // before ETH's snapshot: skipped
      "deribit,BTC-PERPETUAL,1,100,true,bid,100,1",
      "deribit,ETH-PERPETUAL,1,100,true,bid,10,1",
      "deribit,BTC-PERPETUAL,1,100,true,ask,101,1",
      "deribit,ETH-PERPETUAL,1,100,true,ask,11,1",
      "deribit,ETH-PERPETUAL,2,110,false,bid,10.5,2",
      "deribit,BTC-PERPETUAL,3,120,false,ask,100.5,3",
      "deribit,ETH-PERPETUAL,3,120,false,bid,10.5,0",
    ])
    #expect(file.report.rowsAccepted == 8 && file.report.rowsBeforeSnapshot == 1)
    #expect(file.series.map(\.instrument.symbol) == ["ETH-PERPETUAL", "BTC-PERPETUAL"])
    let eth = file.series[0], btc = file.series[1]
    #expect(btc.instrument == Self.btc && eth.instrument.market == .inverse)
    Self.expectQuotes(btc, [(100, 100, 1, 101, 1), (120, 100, 1, 100.5, 3)])
    Self.expectQuotes(eth, [(100, 10, 1, 11, 1), (110, 10.5, 2, 11, 1), (120, 10, 1, 11, 1)])
  }

  @Test("many rows of one instant give one quote, the book after the last of them", arguments: [Clock.local, .exchange])
  func oneQuotePerInstant(clock: Clock) throws {
    let file = try Self.read(
      [
        "1,100,true,bid,10,1", "1,100,true,ask,11,1",
        "2,110,false,bid,10.1,1", "2,110,false,bid,10.2,1", "2,110,false,bid,10.2,0",
        "2,110,false,bid,11.5,1", "2,110,false,bid,11.5,0",  // crossed only inside the message
        "2,110,false,ask,10.9,4", "2,110,false,bid,10.05,7",
      ], clock: clock)
    let series = try #require(file.series.first)
    // After all rows of 110: bids 10.1 × 1, 10.05 × 7, 10 × 1; asks 10.9 × 4, 11 × 1.
    let times: [Int64] = clock == .local ? [100, 110] : [1, 2]
    Self.expectQuotes(series, [(times[0], 10, 1, 11, 1), (times[1], 10.1, 1, 10.9, 4)])
    #expect(series.otherTime == (clock == .local ? [1, 2] : [100, 110]))
    #expect(file.report.rowsAccepted == 9 && file.report.rowsCollapsed == 0 && file.report.crossedStates == 0)
  }

  @Test("an instant whose book is empty on both sides writes no quote")
  func emptyBook() throws {
    let file = try Self.read([
      "1,100,true,bid,10,1", "1,100,true,ask,11,1",
      "2,110,false,ask,11,0", "2,110,false,bid,10,0",  // every level deleted: no quote
      "3,120,false,ask,12,2",
    ])
    #expect(file.report.rowsAccepted == 5 && file.report.crossedStates == 0)
    Self.expectQuotes(try #require(file.series.first), [(100, 10, 1, 11, 1), (120, .nan, .nan, 12, 2)])
  }

  @Test("a crossed instant writes no quote, is counted, and does not fail the default policy")
  func crossedInstant() throws {
    let file = try Self.read([
      "1,100,true,bid,10,1", "1,100,true,ask,11,1",
      "2,110,false,bid,11.5,2",  // best bid 11.5 > best ask 11: crossed, no quote
      "3,120,false,ask,11,0",  // ask side empty: not crossed any more
      "4,130,false,ask,12,1",
    ])
    #expect(file.report.rowsRejected == 0 && file.report.rowsAccepted == 5)
    #expect(file.report.crossedStates == 1)
    Self.expectQuotes(try #require(file.series.first), [(100, 10, 1, 11, 1), (120, 11.5, 2, .nan, .nan), (130, 11.5, 2, 12, 1)])
  }

  /// 1-based column where field `k` (0-based) of `row` starts.
  static func column(_ row: String, field k: Int) -> Int {
    let bytes = Array(row.utf8)
    var commas = 0
    for (i, byte) in bytes.enumerated() where byte == UInt8(ascii: ",") {
      commas += 1
      if commas == k { return i + 2 }
    }
    return 1
  }

  static let good = ["1,100,true,bid,10,1", "1,100,true,ask,11,1"]
  static let badRows: [(row: String, field: Int?, reason: IngestError.Reason)] = [
    ("2,110,maybe,bid,10,2", 4, .invalidValue(column: "is_snapshot", text: "maybe", expected: "true or false")),
    ("2,110,false,buy,10,2", 5, .invalidValue(column: "side", text: "buy", expected: "bid or ask")),
    ("2,110,false,bid,abc,2", 6, .invalidNumber(column: "price", text: "abc")),
    ("2,110,false,bid,0,2", 6, .nonPositivePrice(column: "price", text: "0")),
    ("2,110,false,bid,10,-1", 7, .negativeSize(column: "amount", text: "-1")),
    ("2,110,false,bid,10,", 7, .invalidNumber(column: "amount", text: "")),
    ("2,110,false,bid,10", nil, .wrongFieldCount(expected: 8, found: 7)),
    ("2,x,false,bid,10,2", 3, .invalidTimestamp(column: "local_timestamp", text: "x")),
    ("2,90,false,bid,10,2", 3, .timestampNotIncreasing(previous: 100, found: 90)),
  ]

  @Test("bad rows fail with their position", arguments: badRows)
  func badRowFails(c: (row: String, field: Int?, reason: IngestError.Reason)) throws {
    let error = #expect(throws: IngestError.self) { try Self.read(Self.good + [c.row]) }
    let full = "deribit,BTC-PERPETUAL," + c.row
    #expect(error?.reason == c.reason)
    #expect(error?.position.line == 4)
    #expect(error?.position.column == (c.field.map { Self.column(full, field: $0) } ?? full.utf8.count + 1))
  }

  @Test("bad rows under skip: rejected with positions, quarantined, never applied to the book")
  func badRowsSkipped() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var options = IngestOptions()
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.csv"
    let rows = Self.good + Self.badRows.map(\.row) + ["2,110,false,ask,10.5,3"]
    let file = try Ingest.read(path: folder.write("l2.csv", Self.text(rows)), options: options)
    let n = Self.badRows.count
    #expect(file.report.rowsRead == n + 3 && file.report.rowsAccepted == 3 && file.report.rowsRejected == n)
    #expect(file.report.errors.map(\.reason) == Self.badRows.map(\.reason))
    #expect(file.report.errors.map(\.position.line) == Array(4..<(4 + n)))
    #expect(file.report.rejectedByKind.first { $0.kind == "invalid_value" }?.count == 2)
    let quarantined = try textLines(folder.path + "/rejected.csv")
    #expect(quarantined.first == Self.header)
    #expect(quarantined.dropFirst().filter { !$0.isEmpty } == Self.badRows.map { "deribit,BTC-PERPETUAL," + $0.row })
    // None of the bad bid rows changed the bid 10 × 1; the good ask row did.
    Self.expectQuotes(try #require(file.series.first), [(100, 10, 1, 11, 1), (110, 10, 1, 10.5, 3)])
  }

  @Test("a book keeps its levels sorted whatever the insertion order")
  func bookSide() {
    var side = BookSide()
    for (key, size) in [(3.0, 1.0), (1, 2), (2, 3), (5, 4), (4, 5), (2, 0), (6, 0)] { side.set(key, size) }
    #expect(side.keys == [1, 3, 4, 5])
    #expect(side.sizes == [2, 1, 5, 4])
    side.set(5, 9)
    #expect(side.sizes.last == 9)
    side.clear()
    #expect(side.keys.isEmpty && side.sizes.isEmpty)
  }
}
