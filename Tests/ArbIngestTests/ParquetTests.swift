import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Parquet files written by pyarrow (`scripts/make-parquet-fixtures`), each beside the CSV
// of the values pyarrow reads from it: arbkit reads the Parquet file to the same series
// as that CSV, bit for bit. The real pandas-written files of nautilus_trader's tests are
// compared with pyarrow's values the same way.

@Suite("Parquet input")
struct ParquetTests {
  static func parquet(_ name: String) -> String { fixture("parquet/" + name) }

  /// Both files read with `options`: same report counts, same series, column for column.
  static func expectSame(_ parquet: String, _ csv: String, options: IngestOptions = IngestOptions()) throws {
    let fromParquet = try Ingest.read(path: Self.parquet(parquet), options: options)
    let fromCSV = try Ingest.read(path: Self.parquet(csv), options: options)
    #expect(fromParquet.report.rowsRead == fromCSV.report.rowsRead, "\(parquet)")
    #expect(fromParquet.report.rowsAccepted == fromCSV.report.rowsAccepted, "\(parquet)")
    #expect(fromParquet.report.rowsCollapsed == fromCSV.report.rowsCollapsed, "\(parquet)")
    #expect(fromParquet.series.count == fromCSV.series.count, "\(parquet)")
    for (a, b) in zip(fromParquet.series, fromCSV.series) {
      #expect(a.count > 0)
      #expect(sameColumns(a, b), "\(parquet): \(a.instrument) differs from the CSV's")
      #expect(a.field == b.field)
    }
  }

  static let codecs = ["none", "snappy", "gzip", "zstd", "brotli", "lz4"]

  @Test("every codec and data page version reads as the CSV of the same table", arguments: codecs, ["v1", "v2"])
  func codecMatrix(codec: String, version: String) throws {
    for clock in [Clock.local, .exchange] {
      var options = IngestOptions()
      options.clock = clock
      try Self.expectSame("quotes-\(codec)-\(version).parquet", "quotes.csv", options: options)
    }
    let file = try Ingest.read(path: Self.parquet("quotes-\(codec)-\(version).parquet"))
    #expect(file.report.format == "tardis.quotes")
    #expect(file.series.map(\.instrument.symbol).sorted() == ["BTCUSDT", "ETHUSDT"])
    // Nulls are empty sizes: unknown, never zero.
    #expect(file.series.contains { $0.bidSize.contains { $0.isNaN } })
  }

  @Test("PLAIN, DELTA_BINARY_PACKED and a dictionary that falls back to PLAIN", arguments: ["plain", "delta", "fallback"], ["v1", "v2"])
  func encodings(encoding: String, version: String) throws {
    try Self.expectSame("quotes-snappy-\(version)-\(encoding).parquet", "quotes.csv")
  }

  /// Column specs over the table of every type: each reads the Parquet file as it reads
  /// the CSV of the same table.
  static let typeSpecs = [
    #"{"time": {"column": "ts_ms", "form": "ms"}, "price": "dflba"}"#,
    #"{"time": {"column": "ts_ns", "form": "ns"}, "bid": "f32", "ask": "d32", "bid_size": "dwide"}"#,
    #"{"time": {"column": "raw_ms", "form": "ms"}, "bid": "i32", "ask": "u32", "ask_size": "d64"}"#,
    #"{"time": {"column": "raw_ms", "form": "auto"}, "price": "d64"}"#,
  ]

  @Test("INT32, UINT32, INT64, FLOAT, DECIMAL (INT32, INT64, FIXED_LEN_BYTE_ARRAY), TIMESTAMP ms and ns", arguments: typeSpecs)
  func types(spec: String) throws {
    for file in ["types-v1.parquet", "types-v2.parquet"] {
      try Self.expectSame(file, "types.csv", options: try columnOptions(spec))
    }
  }

  @Test("a TIMESTAMP column under a spec that reads ISO text is read by its own unit")
  func timestampUnderTextForm() throws {
    let parquet = try Ingest.read(
      path: Self.parquet("types-v1.parquet"), options: try columnOptions(#"{"time": {"column": "ts_ms", "form": "iso8601"}, "price": "d64"}"#))
    let csv = try Ingest.read(path: Self.parquet("types.csv"), options: try columnOptions(#"{"time": {"column": "ts_ms", "form": "ms"}, "price": "d64"}"#))
    #expect(sameColumns(parquet.series[0], csv.series[0]))
  }

  @Test("nautilus_trader's quote and trade ticks: fixed-point values, ts_init / ts_event, instrument_id")
  func nautilus() throws {
    for clock in [Clock.local, .exchange] {
      var options = IngestOptions()
      options.clock = clock
      let quotes = try Ingest.read(path: Self.parquet("nautilus-quotes.parquet"), options: options)
      let expected = try Ingest.read(path: Self.parquet(clock == .local ? "nautilus-quotes-expected.csv" : "nautilus-quotes-exchange-expected.csv"))
      let other = try Ingest.read(path: Self.parquet(clock == .local ? "nautilus-quotes-exchange-expected.csv" : "nautilus-quotes-expected.csv"))
      #expect(quotes.report.format == "nautilus.quotes")
      #expect(quotes.series.count == 1 && quotes.report.rowsAccepted == 120)
      var series = quotes.series[0]
      #expect(series.instrument == Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT-PERP"))
      #expect(series.otherTime == other.series[0].time)
      series.otherTime = []
      #expect(sameColumns(series, expected.series[0]))
    }
    let trades = try Ingest.read(path: Self.parquet("nautilus-trades.parquet"))
    let expected = try Ingest.read(path: Self.parquet("nautilus-trades-expected.csv"))
    #expect(trades.report.format == "nautilus.trades")
    var series = trades.series[0]
    series.otherTime = []
    #expect(sameColumns(series, expected.series[0]))
  }

  @Test("the real pandas-written BROTLI files of nautilus_trader's tests read as pyarrow reads them")
  func realFiles() throws {
    for name in ["btcusdt-quotes", "btcusdt-trades"] {
      let parquet = try Ingest.read(path: Self.parquet(name + ".parquet"))
      let expected = try Ingest.read(path: Self.parquet(name + "-expected.csv"))
      #expect(parquet.report.rowsRead == (name == "btcusdt-quotes" ? 451 : 2001))
      #expect(parquet.report.rowsAccepted == parquet.report.rowsRead)
      #expect(parquet.report.rowsCollapsed == expected.report.rowsCollapsed)
      #expect(parquet.series.count == 1 && expected.series.count == 1)
      let (a, b) = (parquet.series[0], expected.series[0])
      #expect(a.time == b.time && bits(a.bid) == bits(b.bid) && bits(a.ask) == bits(b.ask))
      #expect(bits(a.bidSize) == bits(b.bidSize) && bits(a.askSize) == bits(b.askSize) && a.priceSource == b.priceSource)
    }
    let quotes = try Ingest.read(path: Self.parquet("btcusdt-quotes.parquet"))
    #expect(quotes.report.format == "parquet.quotes")
    #expect(quotes.report.firstTime == 1_610_064_001_076_000 && quotes.report.lastTime == 1_610_064_046_674_000)
  }

  @Test("a leg's prefix names the instrument of a table that does not; --input-format parquet names the format")
  func legPrefix() throws {
    var options = IngestOptions()
    options.instrument = Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT")
    options.format = .parquet
    let file = try Ingest.read(path: Self.parquet("btcusdt-quotes.parquet"), options: options)
    #expect(file.series[0].instrument == Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT"))
    #expect(RecordFormat(id: "parquet") == .parquet)
    #expect(RecordFormat.namedIDs.contains("parquet"))
  }

  @Test("a table whose columns name no format is refused with its column names")
  func unknownTable() throws {
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: Self.parquet("types-v1.parquet")) }
    guard case .unknownFormat(let line)? = error?.reason else { return }
    #expect(line == "ts_ms,ts_ns,raw_ms,f32,i32,u32,d32,d64,dflba,dwide")
  }
}

@Suite("Parquet output")
struct ParquetOutputTests {
  @Test("a file ParquetFileWriter writes reads back through the reader: timestamps, doubles with nulls, strings, two row groups")
  func roundTrip() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.path + "/out.parquet"
    let writer = try ParquetFileWriter(
      path: path, fields: [ArrowField("ts_us", .timestampMicros, nullable: false), ArrowField("price", .float64), ArrowField("name", .dictionaryUTF8)],
      metadata: [("arbkit.note", "round trip")])
    let times: [Int64] = [1_700_000_000_000_000, 1_700_000_000_000_001, 1_700_000_001_000_000, 1_700_000_002_500_000, 1_700_000_003_000_000]
    let prices = [101.25, .nan, 0.1 + 0.2, 99.5, 1e-7]
    let valid = [true, false, true, true, true]
    try writer.write([.integers(Array(times[..<3])), .doubles(Array(prices[..<3]), valid: Array(valid[..<3])), .strings(["a,b", nil, "c"])])
    try writer.write([.integers(Array(times[3...])), .doubles(Array(prices[3...]), valid: Array(valid[3...])), .strings(["d", "\"e\""])])
    try writer.commit()

    var options = try columnOptions(#"{"time": {"column": "ts_us", "form": "iso8601"}, "price": "price"}"#)
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.csv"
    let file = try Ingest.read(path: path, options: options)
    // The null price is a missing price, as an empty CSV field is.
    #expect(file.report.rowsRead == 5 && file.report.rowsRejected == 1)
    #expect(file.report.rejectedByKind.map(\.kind) == ["missing_price"])
    #expect(file.series[0].time == [times[0], times[2], times[3], times[4]])
    #expect(bits(file.series[0].bid) == bits([prices[0], prices[2], prices[3], prices[4]]))
    let quarantine = try String(contentsOfFile: folder.path + "/rejected.csv", encoding: .utf8)
    #expect(quarantine == "ts_us,price,name\n1700000000000001,,\n")
  }

  @Test("the writer's pages: strings dictionary-encoded, pages of 65,536 rows, nulls across page ends, read back value for value")
  func pagesAndDictionary() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.path + "/pages.parquet"
    let fields = [ArrowField("n", .int64), ArrowField("x", .float64), ArrowField("name", .utf8), ArrowField("flag", .bool)]
    let writer = try ParquetFileWriter(path: path, fields: fields)
    // 150,001 rows: three pages; names in runs of 1 to 5, with nulls, 300 of them (a 9-bit index).
    let count = ParquetFileWriter.pageRows * 2 + 18_929
    let n = (0..<count).map { Int64($0) * 3 - 7 }
    let valid = (0..<count).map { $0 % 65_535 != 1 }
    let x = (0..<count).map { Double($0) / 8 }
    let names: [String?] = (0..<count).map { $0 % 9_973 == 5 ? nil : "s\(($0 / (1 + $0 % 5)) % 300)" }
    let flags = (0..<count).map { $0 % 3 == 0 }
    try writer.write([.integers(n, valid: valid), .doubles(x), .strings(names), .bools(flags)])
    try writer.commit()
    var expected = "n,x,name,flag\n"
    for k in 0..<count {
      expected += "\(valid[k] ? String(n[k]) : ""),\(Self.text(x[k])),\(names[k] ?? ""),\(flags[k])\n"
    }
    #expect(String(decoding: try ParquetReader.csv(path: path), as: UTF8.self) == expected)
    // The footer: the string column's chunk starts at its dictionary page and lists RLE_DICTIONARY.
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    try bytes.withUnsafeBytes { raw in
      let footer = try ParquetReader.Footer(raw, path: path)
      let chunks = footer.metadata.rowGroups[0].columns
      #expect(chunks[2].dictionaryPageOffset.map { $0 < chunks[2].dataPageOffset } == true)
      #expect(chunks[0].dictionaryPageOffset == nil && chunks[0].start == chunks[0].dataPageOffset)
    }
  }

  /// `value` as `ParquetText` writes a DOUBLE (the shortest text; a whole number below 1e15 without a fraction).
  static func text(_ value: Double) -> String {
    var out = ParquetColumnText()
    ParquetText.double(value, into: &out)
    return String(decoding: out.bytes, as: UTF8.self)
  }

  @Test("a file of several row groups is read in two parts on two threads as in one: series, counts, bad rows and their lines")
  func twoParts() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.path + "/quotes.parquet"
    let names = ["exchange", "symbol", "timestamp", "local_timestamp", "ask_amount", "ask_price", "bid_price", "bid_amount"]
    let types: [ArrowType] = [.utf8, .utf8, .int64, .int64, .float64, .float64, .float64, .float64]
    let writer = try ParquetFileWriter(path: path, fields: zip(names, types).map { ArrowField($0, $1) })
    // 3 row groups of 30,000 rows, two symbols; a crossed book every 7,919 rows, in both parts.
    let groupRows = 30_000
    for g in 0..<3 {
      let rows = (g * groupRows)..<((g + 1) * groupRows)
      let time = rows.map { Int64(1_700_000_000_000_000 + $0 * 1000) }
      let bid = rows.map { 60_000 + Double($0 % 977) / 10 }
      let ask = rows.map { $0 % 7_919 == 5 ? 59_000 : 60_000 + Double($0 % 977) / 10 + 0.1 }
      try writer.write([
        .strings(rows.map { _ in "binance" }), .strings(rows.map { $0 % 3 == 0 ? "ETHUSDT" : "BTCUSDT" }), .integers(time.map { $0 - 500 }),
        .integers(time), .doubles(rows.map { Double($0 % 50) / 8 }), .doubles(ask), .doubles(bid), .doubles(rows.map { _ in 1.5 }),
      ])
    }
    try writer.commit()
    var skip = IngestOptions()
    skip.badRows = .skip
    skip.keptErrors = 100
    var oneThread = skip
    oneThread.splitLargeFiles = false
    let parts = try Ingest.read(path: path, options: skip), whole = try Ingest.read(path: path, options: oneThread)
    #expect(parts.report.rowsRead == 90_000 && parts.report.rowsRejected == 12)
    #expect(parts.report.rowsAccepted == whole.report.rowsAccepted && parts.report.rowsRejected == whole.report.rowsRejected)
    #expect(parts.report.errors.map(\.position.line) == whole.report.errors.map(\.position.line))
    #expect(parts.report.errors.last?.position.line == 87_114 + 2)
    #expect(parts.series.count == whole.series.count)
    for (a, b) in zip(parts.series, whole.series) { #expect(sameColumns(a, b), "\(a.instrument)") }
    // Stopping at the first bad row: the same error at its line.
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path) }
    #expect(error?.position.line == 7 && error?.position.path == path)
  }
}
