import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// The column specs in Data/formats read their real files in Data/samples with zero
// rejected rows. Expected counts are the files' data lines (`wc -l`); times were
// worked out by hand from the first and last lines of each file.

@Suite("Format specs on the real files")
struct FormatSpecTests {
  static let day: Int64 = 86_400_000_000

  static let files: [(file: String, spec: String, rows: Int, first: Int64, last: Int64, instrument: String)] = [
    // 2023-03-01 00:00 +1m shift = 1677628860 s; last open 2023-03-21 23:59 +1m = 2023-03-22T00:00Z
    (
      "binanceus_BTCUSDC_1m_2023-03-01_21.csv", "binanceus-kline-1m.json", 30240,
      1_677_628_860_000_000, 1_679_443_200_000_000, "binanceus:spot:unknown"
    ),
    // first 1677628800 + 60, last 1679443080 + 60 (unix seconds in column 1)
    (
      "kraken_BTCUSDC_1m_2023-03-01_21.csv.gz", "kraken-ohlcvt-1m.json", 15719,
      1_677_628_860_000_000, 1_679_443_140_000_000, "kraken:spot:unknown"
    ),
    // newest first: "2025- 08- 01" … "2018- 02- 20"
    (
      "investing/upbit_BTC_KRW_daily.csv", "investing-daily-ko.json", 2720,
      1_519_084_800_000_000, 1_754_006_400_000_000, "unknown:spot:unknown"
    ),
    // 2017-05-23 … 2025-08-05
    (
      "investing/bithumb_BTC_KRW_daily.csv", "investing-daily-ko.json", 2994,
      1_495_497_600_000_000, 1_754_352_000_000_000, "unknown:spot:unknown"
    ),
    // 2017-08-17 … 2025-08-05
    (
      "investing/coinone_BTC_KRW_daily.csv", "investing-daily-ko.json", 2911,
      1_502_928_000_000_000, 1_754_352_000_000_000, "unknown:spot:unknown"
    ),
    // 2017-01-01 … 2025-08-05
    (
      "investing/bitstamp_BTC_USD_daily.csv", "investing-daily-ko.json", 2232,
      1_483_228_800_000_000, 1_754_352_000_000_000, "unknown:spot:unknown"
    ),
    // 2011-01-03 … 2025-08-01, kind fx
    (
      "investing/USD_KRW_daily.csv", "investing-usdkrw-ko.json", 3806,
      1_294_012_800_000_000, 1_754_006_400_000_000, "fx:fx:USDKRW"
    ),
  ]

  @Test("each spec reads its real file with zero rejected rows", arguments: files)
  func realFile(c: (file: String, spec: String, rows: Int, first: Int64, last: Int64, instrument: String)) throws {
    var options = IngestOptions()
    options.format = .columns(try ColumnSpec.load(path: Repository.data("formats/" + c.spec)))
    let file = try Ingest.read(path: Repository.data("samples/" + c.file), options: options)
    #expect(file.report.format == "columns")
    #expect(file.report.rowsRead == c.rows)
    #expect(file.report.rowsAccepted == c.rows)
    #expect(file.report.rowsRejected == 0)
    #expect(file.report.rowsCollapsed == 0)
    let series = try #require(file.series.first)
    #expect(file.series.count == 1)
    #expect(series.instrument.description == c.instrument)
    #expect(series.priceSource == .last)
    #expect(series.count == c.rows)
    #expect(series.time.first == c.first)
    #expect(series.time.last == c.last)
    #expect(file.report.firstTime == c.first && file.report.lastTime == c.last)
    #expect(zip(series.time, series.time.dropFirst()).allSatisfy { $0 < $1 })
    #expect(series.bid.allSatisfy { $0.isFinite && $0 > 0 })
    #expect(bits(series.bid) == bits(series.ask))
    #expect(series.otherTime.isEmpty)
  }

  static let values: [(file: String, spec: String, time: Int64, close: Double)] = [
    // "2025- 08- 01","160,210,000",… (the first data line, newest)
    ("investing/upbit_BTC_KRW_daily.csv", "investing-daily-ko.json", 1_754_006_400_000_000, 160_210_000),
    // "2018- 02- 20","13,542,000",… (the last line, oldest)
    ("investing/upbit_BTC_KRW_daily.csv", "investing-daily-ko.json", 1_519_084_800_000_000, 13_542_000),
    // "2025- 08- 05","113,937.0",…
    ("investing/bitstamp_BTC_USD_daily.csv", "investing-daily-ko.json", 1_754_352_000_000_000, 113_937),
    // "2017- 01- 01","998.8",…
    ("investing/bitstamp_BTC_USD_daily.csv", "investing-daily-ko.json", 1_483_228_800_000_000, 998.8),
    // "2025- 08- 01","1,389.03",…
    ("investing/USD_KRW_daily.csv", "investing-usdkrw-ko.json", 1_754_006_400_000_000, 1389.03),
    // "2011- 01- 03","1,124.30",…
    ("investing/USD_KRW_daily.csv", "investing-usdkrw-ko.json", 1_294_012_800_000_000, 1124.30),
    // 2023-03-01 00:00:00+00:00,…,close 23152.65 → stamped 00:01
    ("binanceus_BTCUSDC_1m_2023-03-01_21.csv", "binanceus-kline-1m.json", 1_677_628_860_000_000, 23152.65),
    // 2023-03-21 23:59:00+00:00,…,close 28181.27 → stamped 2023-03-22 00:00
    ("binanceus_BTCUSDC_1m_2023-03-01_21.csv", "binanceus-kline-1m.json", 1_679_443_200_000_000, 28181.27),
    // 1677628800,23151.53,23151.53,23150.0,23150.0,… → close 23150.0 at +1m
    ("kraken_BTCUSDC_1m_2023-03-01_21.csv.gz", "kraken-ohlcvt-1m.json", 1_677_628_860_000_000, 23150.0),
    // 1679443080,…,28225.8,1.09511569,21 → close 28225.8 at +1m
    ("kraken_BTCUSDC_1m_2023-03-01_21.csv.gz", "kraken-ohlcvt-1m.json", 1_679_443_140_000_000, 28225.8),
  ]

  @Test("values checked by hand against the file text", arguments: values)
  func value(c: (file: String, spec: String, time: Int64, close: Double)) throws {
    var options = IngestOptions()
    options.format = .columns(try ColumnSpec.load(path: Repository.data("formats/" + c.spec)))
    let series = try #require(try Ingest.read(path: Repository.data("samples/" + c.file), options: options).series.first)
    let index = try #require(series.time.firstIndex(of: c.time))
    #expect(series.bid[index] == c.close)
    #expect(series.ask[index] == c.close)
  }

  static let investing: [(file: String, spec: String)] = [
    ("upbit_BTC_KRW_daily.csv", "investing-daily-ko.json"),
    ("bitstamp_BTC_USD_daily.csv", "investing-daily-ko.json"),
    ("USD_KRW_daily.csv", "investing-usdkrw-ko.json"),
  ]

  @Test("a newest-first file equals its rows reversed to oldest-first with order ascending", arguments: investing)
  func newestFirstEqualsReversed(c: (file: String, spec: String)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let original = Repository.data("samples/investing/" + c.file)
    let lines = try textLines(original).filter { !$0.isEmpty }
    let reversed = folder.write(c.file, ([lines[0]] + lines.dropFirst().reversed()).joined(separator: "\n") + "\n")
    let specPath = Repository.data("formats/" + c.spec)

    var newestFirst = IngestOptions()
    newestFirst.format = .columns(try ColumnSpec.load(path: specPath))
    var oldestFirst = IngestOptions()
    oldestFirst.format = .columns(try ColumnSpec.load(path: specPath, overrides: ["order=ascending"]))
    let a = try Ingest.read(path: original, options: newestFirst)
    let b = try Ingest.read(path: reversed, options: oldestFirst)
    #expect(a.series[0].count == lines.count - 1)
    #expect(sameColumns(a.series[0], b.series[0]))

    // The reversed file read as newest-first breaks the order on its second row.
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: reversed, options: newestFirst) }
    #expect(error?.reason.kind == "timestamp_forwards")
    #expect(error?.position.line == 3)
  }

  @Test("every spec in Data/formats decodes")
  func allSpecsDecode() throws {
    let folder = Repository.data("formats")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
    #expect(
      names == [
        "binanceus-kline-1m.json", "bitcoinity-btc-krw.json", "bitcoinity-btc-usd.json", "ccxt-ohlcv.json", "ftx-perp-1m.json",
        "investing-daily-ko.json", "investing-usdkrw-ko.json", "kraken-ohlcvt-1m.json",
      ])
    for name in names {
      let spec = try ColumnSpec.load(path: folder + "/" + name)
      #expect((spec.price != nil) != (spec.venueColumns != nil), "\(name)")
    }
    let kraken = try ColumnSpec.load(path: folder + "/kraken-ohlcvt-1m.json")
    #expect(kraken.header == false)
    #expect(kraken.time == ColumnSpec.TimeColumn(column: .position(1), form: .epochSeconds, zone: nil, shift: "1m"))
    #expect(kraken.price == .position(5))
    let investing = try ColumnSpec.load(path: folder + "/investing-daily-ko.json")
    #expect(investing.order == .descending)
    #expect(investing.thousands == ",")
    #expect(investing.time.form == .date)
  }

  @Test("a spec override replaces a dotted key; a bad spec names its path")
  func overridesAndErrors() throws {
    let spec = try ColumnSpec.load(path: Repository.data("formats/kraken-ohlcvt-1m.json"), overrides: ["time.form=ms", "header=true", "price=close"])
    #expect(spec.time.form == .epochMillis)
    #expect(spec.time.shift == "1m")
    #expect(spec.header == true)
    #expect(spec.price == .name("close"))
    #expect(throws: SpecError.self) { try ColumnSpec.decode(Data(#"{"price": 2}"#.utf8), path: "x.json") }
    #expect(throws: SpecError.self) { try ColumnSpec.decode(Data(#"{"time": {"column": 1, "form": "fortnights"}}"#.utf8), path: "x.json") }
    #expect(throws: FileError.self) { try ColumnSpec.load(path: "/nonexistent-arbkit/spec.json") }
  }
}

@Suite("Format spec values")
struct FormatSpecValueTests {
  static let invalid: [(override: String, message: String)] = [
    ("time.zone=Asia/Seoul", "invalid time.zone"),
    ("time.zone=+9", "invalid time.zone"),
    ("time.zone=+25:00", "invalid time.zone"),
    ("time.shift=a minute", "invalid time.shift"),
  ]

  @Test("an invalid zone or shift is an error, never a silent UTC or zero", arguments: invalid)
  func invalidValues(c: (override: String, message: String)) throws {
    let spec = Repository.data("formats/binanceus-kline-1m.json")
    let error = #expect(throws: SpecError.self) { try ColumnSpec.load(path: spec, overrides: [c.override]) }
    #expect(error?.message.contains(c.message) == true)
  }

  static let valid: [(zone: String, micros: Int64)] = [("UTC", 0), ("+09:00", 32_400_000_000), ("-0130", -5_400_000_000), ("+05", 18_000_000_000)]

  @Test("zones", arguments: valid)
  func zones(c: (zone: String, micros: Int64)) {
    #expect(RecordLayout.zoneOffset(c.zone) == c.micros)
  }

  @Test("a spec's field: a rate column may be zero or negative, a price column may not")
  func specField() throws {
    let text = "ts,r\n1735689600,0.0001\n1735718400,-0.0002\n1735747200,0\n"
    let spec = #"{"time": {"column": "ts", "form": "s"}, "price": "r", "field": "funding_rate"}"#
    let file = try ingest(text, options: try columnOptions(spec))
    #expect(file.series.first?.field == .fundingRate && file.series.first?.bid == [0.0001, -0.0002, 0])
    let asPrice = #expect(throws: IngestError.self) {
      try ingest(text, options: try columnOptions(#"{"time": {"column": "ts", "form": "s"}, "price": "r"}"#))
    }
    #expect(asPrice?.reason == .nonPositivePrice(column: "r", text: "-0.0002"))
    #expect(try ColumnSpec.fromOverrides(["time.column=1", "time.form=s", "price=2", "field=mark"]).field == .mark)
    let bad = #expect(throws: SpecError.self) { try ColumnSpec.fromOverrides(["time.column=1", "time.form=s", "price=2", "field=last"]) }
    #expect(bad?.message.contains("field") == true)
  }
}
