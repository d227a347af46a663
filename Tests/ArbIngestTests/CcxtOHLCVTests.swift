import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// ccxt OHLCV CSVs (the vsun410 kimchi collector, SOURCES.md §1) read with the shipped
// spec Data/formats/ccxt-ohlcv.json: two real 15m files copied byte for byte into
// Fixtures. Counts are the data lines (`zcat | wc -l` minus the header); times were
// worked out by hand from the first and last lines (naive UTC candle opens).

@Suite("ccxt OHLCV CSVs")
struct CcxtOHLCVTests {
  static func options(overrides: [String] = []) throws -> IngestOptions {
    var options = IngestOptions()
    options.format = .columns(try ColumnSpec.load(path: Repository.data("formats/ccxt-ohlcv.json"), overrides: overrides))
    return options
  }

  static let files: [(file: String, rows: Int, first: Int64, last: Int64, firstClose: Double, lastClose: Double)] = [
    // 2025-08-16 23:15:00,117420.38,117420.38,117287.31,117287.32,49.72102
    // 2025-08-23 23:00:00,115317.86,115321.78,115254.9,115254.9,48.87835
    ("binance_BTC_USDT_20250824_081437.csv.gz", 672, 1_755_386_100_000_000, 1_755_990_000_000_000, 117287.32, 115254.9),
    // 2025-08-21 21:15:00,157944000.0,157944000.0,157625000.0,157895000.0,10.64631745
    // 2025-08-23 23:00:00,159616000.0,159670000.0,159500000.0,159647000.0,8.14103208
    ("upbit_BTC_KRW_20250824_081438.csv.gz", 200, 1_755_810_900_000_000, 1_755_990_000_000_000, 157_895_000, 159_647_000),
  ]

  @Test("the spec reads each real file: rows, candle-open times in UTC, closes checked against the text", arguments: files)
  func realFile(c: (file: String, rows: Int, first: Int64, last: Int64, firstClose: Double, lastClose: Double)) throws {
    let file = try Ingest.read(path: fixture(c.file), options: Self.options())
    #expect(file.report.format == "columns")
    #expect(file.report.rowsRead == c.rows && file.report.rowsAccepted == c.rows)
    #expect(file.report.rowsRejected == 0 && file.report.rowsCollapsed == 0)
    let series = try #require(file.series.first)
    #expect(file.series.count == 1)
    #expect(series.count == c.rows)
    #expect(series.instrument == Instrument(venue: "unknown", market: .spot, symbol: "unknown"))
    #expect(series.time.first == c.first && series.time.last == c.last)
    #expect(zip(series.time, series.time.dropFirst()).allSatisfy { ($1 - $0) % 900_000_000 == 0 && $1 > $0 }, "15-minute grid")
    #expect(series.bid.first == c.firstClose && series.ask.first == c.firstClose)
    #expect(series.bid.last == c.lastClose && series.ask.last == c.lastClose)
  }

  @Test("time.shift=15m stamps every close at its candle end; the leg prefix names the instrument")
  func shiftAndLeg() throws {
    let path = fixture("upbit_BTC_KRW_20250824_081438.csv.gz")
    let plain = try #require(try Ingest.read(path: path, options: Self.options()).series.first)
    let shifted = try #require(try Ingest.read(path: path, options: Self.options(overrides: ["time.shift=15m"])).series.first)
    #expect(shifted.time == plain.time.map { $0 + 900_000_000 })
    #expect(bits(shifted.bid) == bits(plain.bid))
    var options = try Self.options()
    options.instrument = Instrument(venue: "upbit", market: .spot, symbol: "KRW-BTC")
    let named = try #require(try Ingest.read(path: path, options: options).series.first)
    #expect(named.instrument == Instrument(venue: "upbit", market: .spot, symbol: "KRW-BTC"))
  }

  @Test("the spec keeps no shift (the interval differs per file) and says how to add one")
  func specShape() throws {
    let spec = try ColumnSpec.load(path: Repository.data("formats/ccxt-ohlcv.json"))
    #expect(spec.time == ColumnSpec.TimeColumn(column: .name("timestamp"), form: .iso8601, zone: "UTC", shift: nil))
    #expect(spec.price == .name("close"))
    #expect(spec.description?.contains("time.shift=") == true)
  }
}
