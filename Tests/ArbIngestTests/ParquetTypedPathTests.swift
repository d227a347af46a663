import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// The typed path (`ParquetTypedPlan`) against the text path it replaces
// (`IngestOptions.parquetAsText`): the same table read both ways gives the same columns,
// counts, errors with their positions, and quarantined lines.

@Suite("Parquet typed path")
struct ParquetTypedPathTests {
  /// Whether the typed path serves the file at `path` (its header detected).
  static func isTyped(_ path: String, options: IngestOptions = IngestOptions()) throws -> Bool {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    return try bytes.withUnsafeBytes { raw in
      let table = try ParquetTableSource(raw, path: path, options: options)
      var reader = FileReader(path: path, options: table.options, expectedRows: 1024)
      try table.readHeader(into: &reader)
      return table.rows(0..<0, firstLine: 2, reader: reader).isTyped
    }
  }

  /// The file at `path` read typed and as text with `options` (bad rows skipped, each
  /// path's quarantine in `folder`): the same report, series and quarantined lines.
  static func expectSame(_ path: String, options: IngestOptions = IngestOptions(), in folder: TemporaryFolder) throws {
    var typedOptions = options, textOptions = options
    typedOptions.quarantinePath = folder.path + "/typed.rejected.csv"
    textOptions.quarantinePath = folder.path + "/text.rejected.csv"
    textOptions.parquetAsText = true
    let typed = try Ingest.read(path: path, options: typedOptions)
    let text = try Ingest.read(path: path, options: textOptions)
    let (a, b) = (typed.report, text.report)
    #expect(a.format == b.format, "\(path)")
    #expect(a.rowsRead == b.rowsRead && a.rowsAccepted == b.rowsAccepted && a.rowsRejected == b.rowsRejected, "\(path)")
    #expect(a.rowsRead == a.rowsAccepted + a.rowsRejected)
    #expect(a.rowsCollapsed == b.rowsCollapsed && a.firstTime == b.firstTime && a.lastTime == b.lastTime, "\(path)")
    #expect(a.rejectedByKind.map { "\($0.kind) \($0.count)" } == b.rejectedByKind.map { "\($0.kind) \($0.count)" }, "\(path)")
    #expect(a.errors.map(\.description) == b.errors.map(\.description), "\(path)")
    #expect(a.instruments.map { "\($0.instrument) \($0.field) \($0.rows)" } == b.instruments.map { "\($0.instrument) \($0.field) \($0.rows)" })
    #expect(typed.series.count == text.series.count, "\(path)")
    for (x, y) in zip(typed.series, text.series) {
      #expect(sameColumns(x, y) && x.field == y.field, "\(path): \(x.instrument)")
    }
    let quarantined = [typedOptions, textOptions].map { FileManager.default.contents(atPath: $0.quarantinePath!) }
    #expect(quarantined[0] == quarantined[1], "\(path)")
  }

  /// The first error of the file at `path` read typed and as text under `BadRowPolicy.fail`.
  static func expectSameFailure(_ path: String, options: IngestOptions) {
    var textOptions = options
    textOptions.parquetAsText = true
    let typed = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
    let text = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: textOptions) }
    #expect(typed?.description == text?.description && typed != nil)
  }

  static let fixtures = [
    "quotes-none-v1", "quotes-none-v2", "quotes-snappy-v1", "quotes-snappy-v2", "quotes-zstd-v1", "quotes-zstd-v2", "quotes-gzip-v1",
    "quotes-brotli-v2", "quotes-lz4-v1", "quotes-snappy-v1-plain", "quotes-snappy-v2-plain", "quotes-snappy-v1-delta",
    "quotes-snappy-v2-delta", "quotes-snappy-v1-fallback", "quotes-snappy-v2-fallback", "btcusdt-quotes", "btcusdt-trades",
    "nautilus-quotes", "nautilus-trades",
  ]

  @Test("the fixture tables read the same typed and as text, under both clocks and with trade sizes", arguments: fixtures)
  func fixtureFiles(name: String) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = fixture("parquet/\(name).parquet")
    for clock in [Clock.local, .exchange] {
      for sizes in [false, true] {
        var options = IngestOptions()
        options.clock = clock
        options.readsTradeSizes = sizes
        try Self.expectSame(path, options: options, in: folder)
      }
    }
  }

  @Test("the typed path serves Tardis and pyarrow quotes of every encoding, not nautilus_trader's fixed-point columns")
  func plan() throws {
    for name in Self.fixtures {
      #expect(try Self.isTyped(fixture("parquet/\(name).parquet")) == !name.hasPrefix("nautilus"), "\(name)")
    }
  }

  /// Column specs over the table of every type (`ParquetTests.typeSpecs`): DECIMAL and
  /// FIXED_LEN_BYTE_ARRAY columns go to the text path, the others are read typed.
  @Test("column specs read the same typed and as text", arguments: ParquetTests.typeSpecs)
  func typeSpecs(spec: String) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    for file in ["types-v1.parquet", "types-v2.parquet"] {
      try Self.expectSame(fixture("parquet/" + file), options: try columnOptions(spec), in: folder)
    }
  }

  @Test("a spec of INT32, UINT32 and FLOAT columns with a TIMESTAMP ns time is read typed; one of a DECIMAL is not")
  func typedSpec() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let options = try columnOptions(#"{"time": {"column": "ts_ns", "form": "ns"}, "bid": "i32", "ask": "u32", "bid_size": "f32"}"#)
    for file in ["types-v1.parquet", "types-v2.parquet"] {
      #expect(try Self.isTyped(fixture("parquet/" + file), options: options))
      try Self.expectSame(fixture("parquet/" + file), options: options, in: folder)
    }
    #expect(try !Self.isTyped(fixture("parquet/types-v1.parquet"), options: try columnOptions(ParquetTests.typeSpecs[2])))
  }

  /// The columns of a Tardis quotes table, named as the CSV's.
  static let tardisQuoteFields = [
    ArrowField("exchange", .utf8), ArrowField("symbol", .utf8), ArrowField("timestamp", .timestampMicros), ArrowField("local_timestamp", .int64),
    ArrowField("ask_amount", .float64), ArrowField("ask_price", .float64), ArrowField("bid_price", .float64), ArrowField("bid_amount", .float64),
  ]

  /// A Tardis quotes table of `groups` row groups of `rows` rows, two symbols, with bad
  /// values spread over every row group: negative, zero, NaN and infinite prices, a
  /// crossed book, times going back, nulls (one side, both, a time, a symbol), a
  /// negative or NaN size; and a symbol the CSV quotes, which is another instrument.
  static func badTable(at path: String, groups: Int, rows: Int) throws {
    let writer = try ParquetFileWriter(path: path, fields: tardisQuoteFields)
    for g in 0..<groups {
      var exchange: [String?] = [], symbol: [String?] = [], time: [Int64] = [], local: [Int64] = [], localValid: [Bool] = []
      var askSize: [Double] = [], ask: [Double] = [], bid: [Double] = [], bidSize: [Double] = []
      var bidValid: [Bool] = [], askValid: [Bool] = []
      for r in 0..<rows {
        let i = g * rows + r
        var t = 1_735_689_600_000_000 + Int64(i) * 1000
        var b = 100 + Double(i % 50) / 8, a = b + 0.5, bs = Double(i % 7) / 4, as_ = 1.25
        var (s, e): (String?, String?) = (i % 5 < 3 ? "BTCUSDT" : "ETHUSDT", "binance-futures")
        var (bv, av, lv) = (true, true, true)
        if i % 997 == 13 {
          switch (i / 997) % 14 {
          case 0: b = -1.5
          case 1: a = .nan
          case 2: b = a + 1
          case 3: t -= 5_000_000
          case 4: bv = false
          case 5: (bv, av) = (false, false)
          case 6: lv = false
          case 7: as_ = -2
          case 8: a = .infinity
          case 9: s = "A,\"B\""
          case 10: b = 0
          case 11: bs = .nan
          case 12: s = nil
          default: e = nil
          }
        }
        exchange.append(e)
        symbol.append(s)
        time.append(t - 700)
        local.append(t)
        localValid.append(lv)
        (askSize, ask, bid, bidSize) = (askSize + [as_], ask + [a], bid + [b], bidSize + [bs])
        bidValid.append(bv)
        askValid.append(av)
      }
      try writer.write([
        .strings(exchange), .strings(symbol), .integers(time), .integers(local, valid: localValid), .doubles(askSize), .doubles(ask, valid: askValid),
        .doubles(bid, valid: bidValid), .doubles(bidSize),
      ])
    }
    try writer.commit()
  }

  @Test("bad values in several row groups and both parts: the same accepted rows, errors, lines and quarantine")
  func badValues() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.path + "/bad.parquet"
    // 80,000 rows in 4 row groups: read as two parts (`ParquetReader.parallelRows`).
    try Self.badTable(at: path, groups: 4, rows: 20_000)
    #expect(try Self.isTyped(path))
    for clock in [Clock.local, .exchange] {
      for split in [true, false] {
        for sort in [false, true] {
          var options = IngestOptions()
          options.badRows = .skip
          options.keptErrors = 1000
          options.clock = clock
          options.splitLargeFiles = split
          options.sort = sort
          try Self.expectSame(path, options: options, in: folder)
          options.badRows = .fail
          Self.expectSameFailure(path, options: options)
        }
      }
    }
    var options = IngestOptions()
    options.badRows = .skip
    let file = try Ingest.read(path: path, options: options)
    #expect(file.report.rowsRejected > 50 && file.report.rowsRead == 80_000)
    #expect(file.report.rejectedByKind.count >= 6)
  }

  @Test("a column the plan does not read is nil to the rows, whatever its memory held, as generic code (Optional.map) makes it")
  func unreadColumnIsNil() {
    typealias Column = ParquetTypedColumn?
    let slot = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<Column>.size, alignment: MemoryLayout<Column>.alignment)
    defer { slot.deallocate() }
    // Memory a freed value held, then `nil` stored through the type's value witnesses, as
    // `Optional.map` stores it for each column not read; the rows' code must see `nil`.
    slot.initializeMemory(as: UInt8.self, repeating: 0xA5, count: MemoryLayout<Column>.size)
    Self.storeNil(slot, as: ParquetTypedColumn.self)
    #expect(slot.load(as: Column.self) == nil)
    // The other way: `nil` stored by the rows' code, read by generic code.
    slot.initializeMemory(as: UInt8.self, repeating: 0xA5, count: MemoryLayout<Column>.size)
    slot.storeBytes(of: nil, as: Column.self)
    #expect(Self.isNil(slot, as: ParquetTypedColumn.self))
  }

  /// Stores `nil` of type `T?` at `slot` as generic code does (never specialized).
  @_semantics("optimize.sil.specialize.generic.never") @inline(never)
  static func storeNil<T>(_ slot: UnsafeMutableRawPointer, as type: T.Type) {
    slot.bindMemory(to: T?.self, capacity: 1).initialize(to: nil)
  }

  /// Whether the `T?` at `slot` is `nil`, as generic code reads it (never specialized).
  @_semantics("optimize.sil.specialize.generic.never") @inline(never)
  static func isNil<T>(_ slot: UnsafeMutableRawPointer, as type: T.Type) -> Bool {
    slot.assumingMemoryBound(to: T?.self).pointee == nil
  }
}
