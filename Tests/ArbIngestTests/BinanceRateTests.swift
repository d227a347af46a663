import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Binance public data rate and reference-price files: `fundingRate` (monthly, header
// `calc_time,funding_interval_hours,last_funding_rate`) and the kline-shaped
// `premiumIndexKlines`, `markPriceKlines` and `indexPriceKlines`. The rows are
// hand-made from the layout in sources.md §2.3 (no real files of these kinds are at
// hand); the expected values are worked out by hand in the comments.

@Suite("Binance funding rates and premium/mark/index klines")
struct BinanceRateTests {
  static let fundingFolder = "data/futures/um/monthly/fundingRate/BTCUSDT"
  static let premiumFolder = "data/futures/um/daily/premiumIndexKlines/BTCUSDT/1m"

  /// Writes `text` at `relative` (folders created) inside `folder`.
  static func write(_ text: String, at relative: String, in folder: TemporaryFolder) throws -> String {
    let path = folder.path + "/" + relative
    try FileManager.default.createDirectory(
      atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
  }

  static func read(_ path: String, format: RecordFormat? = nil, skip: Bool = false, folder: TemporaryFolder) throws -> IngestedFile {
    var options = IngestOptions()
    options.format = format
    if skip {
      options.badRows = .skip
      options.quarantinePath = folder.path + "/rejected.csv"
    }
    return try Ingest.read(path: path, options: options)
  }

  static let hour: Int64 = 3_600_000_000
  /// 2025-01-01 00:00 UTC in µs.
  static let newYear: Int64 = 1_735_689_600_000_000

  // 00:00:00.005 → 00:00; 07:59:59.997 → 08:00; 16:00:00.000 stays; 20:00:59.999 → 20:00.
  static let fundingRows = """
    1735689600005,8,0.00010000
    1735718399997,8,-0.00002500
    1735747200000,4,0
    1735761659999,4,-0.00300000

    """

  @Test("fundingRate with header: detected, times snapped to the hour, signed and zero rates, interval per row")
  func fundingRate() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try Self.write(BinanceFiles.fundingRateHeader + "\n" + Self.fundingRows, at: "\(Self.fundingFolder)/BTCUSDT-fundingRate-2025-01.csv", in: folder)
    let file = try Self.read(path, folder: folder)
    #expect(file.report.format == "binance.fundingRate")
    #expect(file.report.rowsRead == 4 && file.report.rowsAccepted == 4)
    let s = try #require(file.series.first)
    #expect(s.instrument == Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT"))
    #expect(s.field == .fundingRate && s.priceSource == .last)
    #expect(s.time == [0, 8, 16, 20].map { Self.newYear + $0 * Self.hour })
    #expect(s.bid == [0.0001, -0.000025, 0, -0.003] && s.ask == s.bid)
    #expect(s.fundingInterval == [8, 8, 4, 4].map { $0 * Self.hour })
    #expect(file.report.instruments.first?.field == .fundingRate)

    // The same rows in µs, and without a header when named: the same series.
    let micros =
      Self.fundingRows.split(separator: "\n").map { line -> String in
        let parts = line.split(separator: ",", maxSplits: 1)
        return "\(parts[0])000,\(parts[1])"
      }.joined(separator: "\n") + "\n"
    let microsPath = try Self.write(BinanceFiles.fundingRateHeader + "\n" + micros, at: "f/BTCUSDT-fundingRate-2025-01.csv", in: folder)
    let m = try #require(try Self.read(microsPath, folder: folder).series.first)
    #expect(m.time == s.time && m.bid == s.bid && m.fundingInterval == s.fundingInterval)
    let bare = try Self.write(Self.fundingRows, at: "g/BTCUSDT-fundingRate-2025-01.csv", in: folder)
    let b = try #require(try Self.read(bare, format: .binanceFundingRate, folder: folder).series.first)
    #expect(b.time == s.time && b.bid == s.bid && b.fundingInterval == s.fundingInterval)
  }

  /// Bad funding rows: the line is 3 (after the header and one good row); the column
  /// is where the field starts.
  static let badFundingRows: [(row: String, reason: IngestError.Reason, column: Int)] = [
    ("1735690000000,8,0.0001", .offFundingGrid(column: "calc_time", text: "1735690000000", toleranceMillis: 60_000), 1),
    ("1735718400000,0,0.0001", .invalidValue(column: "funding_interval_hours", text: "0", expected: "a whole number of hours from 1 to 8784"), 15),
    ("1735718400000,8h,0.0001", .invalidValue(column: "funding_interval_hours", text: "8h", expected: "a whole number of hours from 1 to 8784"), 15),
    ("1735718400000,8,abc", .invalidNumber(column: "last_funding_rate", text: "abc"), 17),
    ("1735718400000,8,inf", .nonFinite(column: "last_funding_rate", text: "inf"), 17),
    ("1735718400000,8,", .missingPrice(column: "last_funding_rate"), 17),
    ("1735718400000,8", .wrongFieldCount(expected: 3, found: 2), 16),
    ("x1735718400000,8,0.0001", .invalidTimestamp(column: "calc_time", text: "x1735718400000"), 1),
  ]

  @Test("a bad fundingRate row: fail throws it at file:line:column, skip counts it", arguments: badFundingRows)
  func badFundingRow(c: (row: String, reason: IngestError.Reason, column: Int)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let text = BinanceFiles.fundingRateHeader + "\n1735689600000,8,0.0001\n" + c.row + "\n1735747200000,8,0.0002\n"
    let path = try Self.write(text, at: "\(Self.fundingFolder)/BTCUSDT-fundingRate-2025-01.csv", in: folder)
    let error = #expect(throws: IngestError.self) { try Self.read(path, folder: folder) }
    #expect(error?.reason == c.reason)
    #expect(error?.position == SourcePosition(path: path, line: 3, column: c.column))
    let skipped = try Self.read(path, skip: true, folder: folder)
    #expect(skipped.report.rowsRead == 3 && skipped.report.rowsAccepted == 2 && skipped.report.rowsRejected == 1)
    #expect(skipped.series.first?.bid == [0.0001, 0.0002])
  }

  // Premium index: candle closes 0.00022, -0.00005 and 0 (signed), stamped at
  // close_time + 1 ms = 00:01, 00:02, 00:03.
  static let premiumRows = """
    1735689600000,0.00021,0.00025,0.00018,0.00022,0,1735689659999,0,12,0,0,0
    1735689660000,0.00022,0.00025,-0.0001,-0.00005,0,1735689719999,0,12,0,0,0
    1735689720000,-0.00005,0.00001,-0.00007,0,0,1735689779999,0,12,0,0,0

    """

  @Test("premiumIndexKlines by folder, with and without header, in ms and µs: signed closes at the candle end")
  func premiumIndexKlines() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let name = "BTCUSDT-1m-2025-01-01.csv"
    let expectedTimes = [1, 2, 3].map { Self.newYear + $0 * 60_000_000 }
    let micros = Self.premiumRows.replacingOccurrences(of: "000,", with: "000000,").replacingOccurrences(of: "999,", with: "999999,")
    for (k, text) in [Self.premiumRows, BinanceFiles.klinesHeader + "\n" + Self.premiumRows, micros].enumerated() {
      let path = try Self.write(text, at: "\(k)/\(Self.premiumFolder)/\(name)", in: folder)
      let file = try Self.read(path, folder: folder)
      #expect(file.report.format == "binance.premiumIndexKlines", "variant \(k)")
      let s = try #require(file.series.first)
      #expect(s.field == .premiumIndex && s.instrument == Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT"))
      #expect(s.time == expectedTimes && s.bid == [0.00022, -0.00005, 0], "variant \(k)")
    }
    // Outside that folder the same file is plain klines, where a price must be positive.
    let elsewhere = try Self.write(Self.premiumRows, at: "klines/\(name)", in: folder)
    let error = #expect(throws: IngestError.self) { try Self.read(elsewhere, folder: folder) }
    #expect(error?.reason == .nonPositivePrice(column: "close", text: "-0.00005"))
    // Named, it is premium index wherever it lies.
    #expect(try Self.read(elsewhere, format: .binancePremiumIndexKlines, folder: folder).series.first?.field == .premiumIndex)
  }

  @Test(
    "mark and index price klines by folder: positive prices of their field",
    arguments: [
      ("markPriceKlines", RecordFormat.binanceMarkPriceKlines, SeriesField.mark),
      ("indexPriceKlines", RecordFormat.binanceIndexPriceKlines, SeriesField.index),
    ])
  func markAndIndexKlines(c: (folder: String, format: RecordFormat, field: SeriesField)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let rows = "1735689600000,93490.1,93540.0,93470.2,93505.4,0,1735689659999,0,0,0,0,0\n"
    let path = try Self.write(BinanceFiles.klinesHeader + "\n" + rows, at: "futures/cm/daily/\(c.folder)/BTCUSD/1m/BTCUSD-1m-2025-01-01.csv", in: folder)
    let file = try Self.read(path, folder: folder)
    #expect(file.report.format == c.format.id && RecordFormat(id: c.format.id) == c.format)
    let s = try #require(file.series.first)
    #expect(s.field == c.field && s.instrument.market == .inverse && s.bid == [93505.4] && s.time == [Self.newYear + 60_000_000])
    let zero = try Self.write(rows.replacingOccurrences(of: "93505.4", with: "0"), at: "z/\(c.folder)/BTCUSD/BTCUSD-1m-2025-01-01.csv", in: folder)
    let error = #expect(throws: IngestError.self) { try Self.read(zero, folder: folder) }
    #expect(error?.reason == .nonPositivePrice(column: "close", text: "0"))
    #expect(error?.position.column == 39)
  }

  @Test("inside a Binance zip: fundingRate and premium klines read as their plain files")
  func zipped() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let cases = [
      (BinanceFiles.fundingRateHeader + "\n" + Self.fundingRows, "\(Self.fundingFolder)/BTCUSDT-fundingRate-2025-01.csv"),
      (Self.premiumRows, "\(Self.premiumFolder)/BTCUSDT-1m-2025-01-01.csv"),
    ]
    for (text, relative) in cases {
      let plain = try Self.write(text, at: relative, in: folder)
      let made = try ArbIngestTests.zipped(plain, in: folder)
      // The zip lies next to the plain file, under the same Binance folder.
      let target = String(plain.dropLast(4)) + ".zip"
      try FileManager.default.moveItem(atPath: made, toPath: target)
      #expect(try Compression.detect(path: target) == .zip)
      let a = try Self.read(plain, folder: folder), b = try Self.read(target, folder: folder)
      #expect(a.report.format == b.report.format && a.report.rowsRead == b.report.rowsRead)
      let x = try #require(a.series.first), y = try #require(b.series.first)
      #expect(sameColumns(x, y) && x.field == y.field && x.fundingInterval == y.fundingInterval)
    }
  }

  @Test("the funding grid: within 60 s of a whole hour snaps to it, anything else is nil")
  func fundingGrid() {
    let h = FundingGrid.hour
    #expect(FundingGrid.snap(Self.newYear) == Self.newYear)
    #expect(FundingGrid.snap(Self.newYear + 60_000_000) == Self.newYear)
    #expect(FundingGrid.snap(Self.newYear - 60_000_000) == Self.newYear)
    #expect(FundingGrid.snap(Self.newYear + 60_000_001) == nil)
    #expect(FundingGrid.snap(Self.newYear - 60_000_001) == nil)
    #expect(FundingGrid.snap(Self.newYear + h / 2) == nil)
    #expect(FundingGrid.snap(-5) == 0 && FundingGrid.snap(-h - 7) == -h)
    #expect(FundingGrid.snap(.max) == .max - .max % h, "54.8 s past its hour")
    #expect(FundingGrid.snap(.min) == nil, "its hour is below Int64.min")
  }
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    components(separatedBy: target).joined(separator: replacement)
  }
}
