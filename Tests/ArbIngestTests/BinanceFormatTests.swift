import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Binance public data (data.binance.vision): real spot klines without a header, the
// same rows in µs and with a futures header, hand-made bookTicker/aggTrades/trades
// files laid out as sources.md §2.3 lists them, and the same files inside zips.

/// Zips `file` into `folder` with the system `zip` (or Python's `zipfile` when there is
/// none). `stored` keeps the bytes as they are; `streamed` writes the entry from a pipe,
/// so that its sizes and CRC follow the data in a descriptor (flag bit 3).
func zipped(_ file: String, in folder: TemporaryFolder, stored: Bool = false, streamed: Bool = false) throws -> String {
  let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
  let target = folder.path + "/" + name + (stored ? "-stored" : "") + (streamed ? "-streamed" : "") + ".zip"
  let status: Int32
  if FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") {
    let level = stored ? "-0" : "-9"
    status =
      streamed
      ? try runProgram("/bin/sh", ["-c", "cat '\(file)' | /usr/bin/zip -q \(level) - - | cat > '\(target)'"])
      : try runProgram("/usr/bin/zip", ["-q", "-j", "-X", level, target, file])
  } else {
    let method = stored ? "ZIP_STORED" : "ZIP_DEFLATED"
    let script =
      streamed
      ? "import zipfile,sys\nclass W:\n def __init__(s,f): s.f=f\n def write(s,b): return s.f.write(b)\n def flush(s): s.f.flush()\nwith open(sys.argv[2],'wb') as f, zipfile.ZipFile(W(f),'w',zipfile.\(method)) as z, z.open('x.csv','w') as e: e.write(open(sys.argv[1],'rb').read())"
      : "import zipfile,sys\nwith zipfile.ZipFile(sys.argv[2],'w',zipfile.\(method)) as z: z.write(sys.argv[1],'x.csv')"
    status = try runProgram("/usr/bin/env", ["python3", "-c", script, file, target])
  }
  guard status == 0 else { throw ToolFailed(description: "zipping \(file) exited with \(status)") }
  return target
}

@Suite("Binance public data")
struct BinanceFormatTests {
  static let day27 = fixture("ADABTC-1m-2021-11-27.csv")
  static let day28 = fixture("ADABTC-1m-2021-11-28.csv")

  static func read(_ path: String, format: RecordFormat? = nil, instrument: Instrument? = nil) throws -> IngestedFile {
    var options = IngestOptions()
    options.format = format
    options.instrument = instrument
    return try Ingest.read(path: path, options: options)
  }

  // MARK: Klines

  /// Counts, first/last stamps (close_time + 1 ms) and closes read off the file text.
  static let realKlines: [(file: String, rows: Int, first: Int64, last: Int64, firstClose: Double, lastClose: Double)] = [
    (day27, 10, 1_637_971_260_000_000, 1_637_971_800_000_000, 0.00002854, 0.00002865),
    (day28, 11, 1_638_057_660_000_000, 1_638_058_260_000_000, 0.00002818, 0.00002814),
  ]

  @Test("real spot klines without a header: detected, rows, candle-end times and closes", arguments: realKlines)
  func realKlineFiles(c: (file: String, rows: Int, first: Int64, last: Int64, firstClose: Double, lastClose: Double)) throws {
    let file = try Self.read(c.file)
    #expect(file.report.format == "binance.klines")
    #expect(file.report.rowsRead == c.rows && file.report.rowsAccepted == c.rows && file.report.rowsRejected == 0)
    let series = try #require(file.series.first)
    #expect(file.series.count == 1)
    #expect(series.instrument == Instrument(venue: "binance", market: .spot, symbol: "ADABTC"))
    #expect(series.count == c.rows)
    #expect(series.time.first == c.first && series.time.last == c.last)
    #expect(zip(series.time, series.time.dropFirst()).allSatisfy { $1 - $0 == 60_000_000 }, "one-minute candles")
    #expect(series.bid.first == c.firstClose && series.ask.first == c.firstClose)
    #expect(series.bid.last == c.lastClose)
    #expect(series.otherTime.isEmpty)
  }

  @Test("the same klines with µs open/close times give identical series")
  func microsecondKlines() throws {
    let ms = try Self.read(Self.day27)
    let us = try Self.read(fixture("ADABTC-1m-2021-11-27-microseconds.csv"))
    #expect(us.report.format == "binance.klines")
    #expect(us.series.count == 1 && ms.series.count == 1)
    #expect(sameColumns(ms.series[0], us.series[0]))
    #expect(us.series[0].time.first == 1_637_971_260_000_000)
  }

  @Test("futures klines with their header are detected; futures/um in the path makes them linear")
  func headerKlines() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    try FileManager.default.createDirectory(atPath: folder.path + "/futures/um/daily/klines", withIntermediateDirectories: true)
    let text = try String(contentsOfFile: fixture("BTCUSDT-1m-2025-01-01-futures-header.csv"), encoding: .utf8)
    let path = folder.write("futures/um/daily/klines/BTCUSDT-1m-2025-01-01.csv", text)
    let file = try Self.read(path)
    #expect(file.report.format == "binance.klines")
    #expect(file.report.rowsRead == 3)
    let series = try #require(file.series.first)
    #expect(series.instrument == Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT"))
    #expect(series.time == [1_735_689_660_000_000, 1_735_689_720_000_000, 1_735_689_780_000_000])
    #expect(series.bid == [93505.4, 93488.8, 93431.0])
    // Named explicitly, the header is still recognised and skipped.
    #expect(try Self.read(path, format: .binanceKlines).series.first?.time == series.time)
  }

  @Test("a header that is not Binance's is a missing header naming the expected one")
  func wrongHeader() throws {
    var options = IngestOptions()
    options.format = .binanceKlines
    let bad = "open_time,open,high,low,close,volume,close_time,quote_asset_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore\n"
    let error = #expect(throws: IngestError.self) { try ingest(bad + "1735689600000,1,1,1,1,1,1735689659999,1,1,1,1,0\n", options: options) }
    #expect(error?.reason == .missingHeader(expected: BinanceFiles.klinesHeader))
    #expect(error?.position.line == 1)
  }

  // MARK: bookTicker, aggTrades, trades

  @Test("bookTicker: bid/ask and sizes, transaction time, event time kept; rows of one millisecond collapse to the last")
  func bookTicker() throws {
    let file = try Self.read(fixture("BTCUSDT-bookTicker-2024-03-01.csv"))
    #expect(file.report.format == "binance.bookTicker")
    #expect(file.report.rowsRead == 4 && file.report.rowsAccepted == 4 && file.report.rowsCollapsed == 1)
    let s = try #require(file.series.first)
    #expect(s.instrument == Instrument(venue: "binance", market: .spot, symbol: "BTCUSDT"))
    #expect(s.time == [1_709_251_200_009_000, 1_709_251_200_012_000, 1_709_251_200_110_000])
    #expect(s.otherTime == [1_709_251_200_016_000, 1_709_251_200_018_000, 1_709_251_200_113_000])
    #expect(s.bid == [61505.20, 61505.60, 61504.90])
    #expect(s.bidSize == [1.5, 0.25, 4.0])
    #expect(s.ask == [61505.40, 61505.70, 61505.00])
    #expect(s.askSize == [0.731, 3.002, 1.25])
  }

  static let tradeFiles: [(file: String, format: String, times: [Int64], prices: [Double], collapsed: Int)] = [
    (
      "BTCUSDT-aggTrades-2025-01-01-spot.csv", "binance.aggTrades",
      [1_735_689_600_012_345, 1_735_689_600_012_999, 1_735_689_600_250_000], [93512.5, 93512.1, 93513.0], 1
    ),
    (
      "BTCUSDT-aggTrades-2024-03-01-futures-header.csv", "binance.aggTrades",
      [1_709_251_200_069_000, 1_709_251_200_140_000], [61505.3, 61505.6], 1
    ),
    (
      "BTCUSDT-trades-2025-01-01-spot.csv", "binance.trades",
      [1_735_689_600_012_345, 1_735_689_600_013_001], [93512.4, 93512.5], 1
    ),
    (
      "BTCUSDT-trades-2024-03-01-futures-header.csv", "binance.trades",
      [1_709_251_200_069_000, 1_709_251_200_070_000], [61505.4, 61505.3], 1
    ),
  ]

  @Test("aggTrades and trades, spot (µs, no header) and futures (ms, header): price and time", arguments: tradeFiles)
  func trades(c: (file: String, format: String, times: [Int64], prices: [Double], collapsed: Int)) throws {
    let file = try Self.read(fixture(c.file))
    #expect(file.report.format == c.format)
    #expect(file.report.rowsRejected == 0 && file.report.rowsCollapsed == c.collapsed)
    let s = try #require(file.series.first)
    #expect(s.instrument.symbol == "BTCUSDT" && s.instrument.venue == "binance")
    #expect(s.time == c.times)
    #expect(s.bid == c.prices && s.ask == c.prices)
  }

  @Test("a row with the wrong field count for its file is rejected at its line")
  func fieldCount() throws {
    var options = IngestOptions()
    options.badRows = .skip
    let text = try String(contentsOfFile: fixture("BTCUSDT-trades-2025-01-01-spot.csv"), encoding: .utf8)
    let file = try ingest(text + "4501234563,93512.50000000,0.2,18702.5,1735689600014001,True\n", name: "BTCUSDT-trades-2025-01-01.csv", options: options)
    #expect(file.report.rowsRejected == 1)
    #expect(file.report.errors.first?.reason == .wrongFieldCount(expected: 7, found: 6))
    #expect(file.report.errors.first?.position.line == 4)
  }

  @Test("a headerless row of no known shape is an unknown format (the CLI adds the flag that names one)")
  func unknownShape() throws {
    let row = "1735689600000,93490.1,93540.0,93470.2,93505.4,210.532"
    let error = #expect(throws: IngestError.self) { try ingest(row + "\n") }
    #expect(error?.reason == .unknownFormat(firstLine: row))
    #expect(error?.description.contains("--input-format") == false)
    // Named as trades, the row is read as one (and rejected: its fifth field is no time).
    var options = IngestOptions()
    options.format = .binanceTrades
    options.badRows = .skip
    let named = try ingest(row + "\n", options: options)
    #expect(named.report.rowsRejected == 1)
    #expect(named.report.errors.first?.reason == .invalidTimestamp(column: "time", text: "93505.4"))
  }

  @Test("detection from the first row")
  func detection() {
    func detect(_ row: String) -> RecordFormat? {
      withBytes(row) { p, n in BinanceFiles.dataRowFields(UnsafeBufferPointer(start: p, count: n)).flatMap(BinanceFiles.detect(row:)) }
    }
    #expect(detect("1735689600000,1,1,1,1,1,1735689659999,1,1,1,1,0") == .binanceKlines)
    #expect(detect("1,2,3,4,5,6,False,True") == .binanceAggTrades)
    #expect(detect("1,2,3,4,5,False,True") == .binanceTrades)
    #expect(detect("1,2,3,4,5,6,False") == nil, "futures aggTrades without a header need --input-format")
    #expect(detect("1735689600000,1,1,1,1,1,1735689659999,1,1,1,1,x") == nil)
    #expect(detect("id,price,qty,quote_qty,time,is_buyer_maker") == nil, "a header is not a data row")
  }

  // MARK: Instrument

  @Test("the instrument comes from the leg's prefix first, then from the file name and path")
  func instrument() throws {
    let leg = try LegSpec(parsing: "binance:linear:ADABTC_PERP=" + Self.day27)
    let loaded = try leg.load(options: IngestOptions())
    #expect(loaded.series.instrument == Instrument(venue: "binance", market: .linear, symbol: "ADABTC_PERP"))
    #expect(BinanceFiles.instrument(path: "data/futures/cm/daily/klines/ETHUSD_PERP/1m/ETHUSD_PERP-1m-2024-03-01.zip") == (.inverse, "ETHUSD_PERP"))
    #expect(BinanceFiles.instrument(path: "BTCUSDT-bookTicker-2024-03-01.zip") == (.spot, "BTCUSDT"))
    #expect(BinanceFiles.instrument(path: "/tmp/klines.csv").symbol == nil)
    let unnamed = try ingest(try String(contentsOfFile: Self.day27, encoding: .utf8), name: "klines.csv")
    #expect(unnamed.series.first?.instrument == Instrument(venue: "binance", market: .spot, symbol: "unknown"))
  }

  // MARK: Zip

  @Test(
    "a zip (deflated, stored, or streamed with a data descriptor) reads as the plain file",
    arguments: [(false, false), (true, false), (false, true)])
  func zipEqualsPlain(mode: (stored: Bool, streamed: Bool)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    for plain in [Self.day27, Self.day28, fixture("BTCUSDT-bookTicker-2024-03-01.csv")] {
      let zipPath = try zipped(plain, in: folder, stored: mode.stored, streamed: mode.streamed)
      let bytes = try Data(contentsOf: URL(fileURLWithPath: zipPath))
      #expect(bytes.prefix(4) == Data([0x50, 0x4b, 0x03, 0x04]))
      #expect(Int(bytes[8]) == (mode.stored ? 0 : 8), "compression method")
      #expect(bytes[6] & 8 == (mode.streamed ? 8 : 0), "data descriptor flag")
      #expect(try Compression.detect(path: zipPath) == .zip)
      // The symbol comes from the zip's file name, as for the plain file.
      let a = try Self.read(plain)
      let b = try Self.read(zipPath)
      #expect(a.report.rowsRead > 0 && a.report.rowsRead == b.report.rowsRead && a.report.format == b.report.format)
      #expect(a.series.count == 1 && b.series.count == 1)
      for (x, y) in zip(a.series, b.series) { #expect(sameColumns(x, y)) }
      #expect(try readLines(zipPath, chunkSize: 7) == readLines(plain, chunkSize: 1 << 20))
    }
  }

  /// The zipped real klines file and its bytes.
  static func zippedKlines(in folder: TemporaryFolder) throws -> (path: String, bytes: Data) {
    let path = try zipped(Self.day28, in: folder)
    return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// Offset of the entry's data and its compressed size, from the local file header.
  static func entryData(_ bytes: Data) -> (start: Int, size: Int) {
    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    return (30 + u16(26) + u16(28), u16(18) | u16(20) << 16)
  }

  @Test("a truncated zip is truncatedCompressedStream, in the header or in the data", arguments: [10, 40, 200, -1, -30])
  func truncatedZip(keep: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, bytes) = try Self.zippedKlines(in: folder)
    // Negative: that many bytes short of the end of the deflate data (no central directory).
    let (start, size) = Self.entryData(bytes)
    #expect(size > 200 && start + size < bytes.count)
    let kept = keep >= 0 ? keep : start + size + keep
    let path = folder.write("ADABTC-1m-2021-11-28.zip", bytes.prefix(kept))
    let error = #expect(throws: IngestError.self) { try Self.read(path) }
    #expect(error?.reason.kind == "truncated_stream")
    #expect(error?.position.path == path)
  }

  @Test("a corrupt zip is corruptCompressedStream: bad deflate data, wrong CRC, unknown method")
  func corruptZip() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, bytes) = try Self.zippedKlines(in: folder)
    let dataStart = Self.entryData(bytes).start
    var garbage = bytes
    for k in dataStart..<(dataStart + 8) { garbage[k] = 0xFF }
    var wrongCRC = bytes
    wrongCRC[14] ^= 0x01
    var method = bytes
    method[8] = 12  // bzip2
    let cases: [(String, Data, String?)] = [
      ("garbage", garbage, nil), ("crc", wrongCRC, "zip entry CRC-32 does not match its header"),
      ("method", method, "zip compression method 12 is not supported (only deflate and stored)"),
    ]
    for (name, broken, detail) in cases {
      let path = folder.write(name + ".zip", broken)
      let error = #expect(throws: IngestError.self) { try Self.read(path, format: .binanceKlines) }
      #expect(error?.reason.kind == "corrupt_stream", "\(name)")
      if let detail { #expect(error?.reason == .corruptCompressedStream(detail: detail)) }
    }
  }
}
