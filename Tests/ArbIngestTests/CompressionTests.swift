import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Gzip is read as a stream: the same columns as the plain file, whatever the chunk
// size; a stream that ends early or does not check out is an error, never fewer rows.

@Suite("Compression and the line reader")
struct CompressionTests {
  /// The shipped real files (plain or gzip) with the format that reads them.
  static let realFiles: [(file: String, spec: String?)] = [
    (Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv"), "binanceus-kline-1m.json"),
    (Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz"), "kraken-ohlcvt-1m.json"),
    (Repository.data("samples/investing/upbit_BTC_KRW_daily.csv"), "investing-daily-ko.json"),
    (Repository.data("samples/investing/bithumb_BTC_KRW_daily.csv"), "investing-daily-ko.json"),
    (Repository.data("samples/investing/coinone_BTC_KRW_daily.csv"), "investing-daily-ko.json"),
    (Repository.data("samples/investing/bitstamp_BTC_USD_daily.csv"), "investing-daily-ko.json"),
    (Repository.data("samples/investing/USD_KRW_daily.csv"), "investing-usdkrw-ko.json"),
    (fixture("huobi-dm-swap_quotes_BTC-USD.csv"), nil),
    (fixture("bitmex_trades_XBTUSD.csv"), nil),
  ]

  static func options(spec: String?) throws -> IngestOptions {
    var options = IngestOptions()
    if let spec { options.format = .columns(try ColumnSpec.load(path: Repository.data("formats/" + spec))) }
    return options
  }

  /// A plain and a gzip copy of `file` in `folder`, whichever of the two it is.
  static func plainAndGzip(_ file: String, in folder: TemporaryFolder) throws -> (plain: String, gzip: String) {
    if file.hasSuffix(".gz") {
      let plain = try gunzip(file, into: folder)
      return (plain, file)
    }
    let copy = folder.write(URL(fileURLWithPath: file).lastPathComponent, try Data(contentsOf: URL(fileURLWithPath: file)))
    return (copy, try gzip(copy))
  }

  @Test("a real file read plain and gzipped gives identical columns", arguments: realFiles)
  func plainEqualsGzip(c: (file: String, spec: String?)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (plain, gzipped) = try Self.plainAndGzip(c.file, in: folder)
    #expect(try Data(contentsOf: URL(fileURLWithPath: gzipped)).prefix(2) == Data([0x1f, 0x8b]))
    let options = try Self.options(spec: c.spec)
    let a = try Ingest.read(path: plain, options: options)
    let b = try Ingest.read(path: gzipped, options: options)
    #expect(a.report.rowsRead > 0)
    #expect(a.report.rowsRead == b.report.rowsRead)
    #expect(a.report.rowsAccepted == b.report.rowsAccepted)
    #expect(a.series.count == b.series.count)
    for (x, y) in zip(a.series, b.series) { #expect(sameColumns(x, y)) }
  }

  @Test("LineReader gives the same lines with a 1, 7 or 64-byte chunk as with 1 MiB", arguments: realFiles)
  func chunkSizes(c: (file: String, spec: String?)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (plain, gzipped) = try Self.plainAndGzip(c.file, in: folder)
    let reference = try readLines(plain, chunkSize: 1 << 20)
    #expect(reference.count >= 10)
    #expect(try readLines(gzipped, chunkSize: 1 << 20) == reference)
    for chunk in [1, 7, 64] {
      #expect(try readLines(plain, chunkSize: chunk) == reference, "plain, chunk \(chunk)")
      #expect(try readLines(gzipped, chunkSize: chunk) == reference, "gzip, chunk \(chunk)")
    }
  }

  @Test("LineReader with a 7-byte chunk: BOM, CRLF, empty lines, a 3 MiB line, no final newline")
  func chunkSizesSynthetic() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let long = String(repeating: "abcdefg,", count: 3 << 17)
    let text = "\u{FEFF}h1,h2\r\n\n1,2\r\n\r\n" + long + "\n3,4"
    let path = folder.write("lines.csv", text)
    let expected = ["h1,h2", "", "1,2", "", long, "3,4"].map { Array($0.utf8) }
    #expect(try readLines(path, chunkSize: 1 << 20) == expected)
    #expect(try readLines(path, chunkSize: 7) == expected)
    #expect(try readLines(try gzip(path), chunkSize: 7) == expected)
  }

  // MARK: Broken streams

  /// A gzip file of a 3000-row Tardis quotes file, and its bytes.
  static func gzipQuotes(in folder: TemporaryFolder) throws -> (path: String, bytes: Data) {
    let rows = (1...3000).map { k in "binance,BTCUSDT,\(k),\(k * 10),1,\(20 + k % 7),10.\(k % 97),2" }
    let plain = folder.write("quotes.csv", ([tardisQuotesHeader] + rows).joined(separator: "\n") + "\n")
    let path = try gzip(plain)
    return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test("a truncated gzip is truncatedCompressedStream, whatever is cut", arguments: [1, 4, 8, 9, 100, 5000])
  func truncated(cut: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, bytes) = try Self.gzipQuotes(in: folder)
    let kept = bytes.count - min(cut, bytes.count - 20)
    let path = folder.write("cut.csv.gz", bytes.prefix(kept))
    for badRows in BadRowPolicy.allCases {
      var options = IngestOptions()
      options.badRows = badRows  // a broken stream is never a skippable row
      options.quarantinePath = folder.path + "/q.csv"
      let error = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
      #expect(error?.reason == .truncatedCompressedStream(detail: "gzip data ends after \(kept) bytes in the middle of a member"))
      // A stream error is placed at the line it broke in, after the last complete one.
      #expect(error?.position.path == path)
      #expect((error?.position.line ?? 0) >= 1 && error?.position.column == 1)
    }
  }

  static let corruptions: [(name: String, offsetFromEnd: Int, detail: String?)] = [
    ("CRC-32 in the trailer", 8, "incorrect data check"),
    ("length in the trailer", 4, "incorrect length check"),
    ("a byte in the middle of the deflate data", -1, nil),
  ]

  @Test("a corrupt gzip is corruptCompressedStream", arguments: corruptions)
  func corrupt(c: (name: String, offsetFromEnd: Int, detail: String?)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var (_, bytes) = try Self.gzipQuotes(in: folder)
    let index = c.offsetFromEnd > 0 ? bytes.count - c.offsetFromEnd : bytes.count / 2
    bytes[index] ^= 0x5A
    let path = folder.write("corrupt.csv.gz", bytes)
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path) }
    #expect(error?.reason.kind == "corrupt_stream")
    if let detail = c.detail { #expect(error?.reason == .corruptCompressedStream(detail: detail)) }
    #expect(error?.position.path == path)
  }

  @Test("concatenated gzip members read as one file")
  func concatenatedMembers() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let rows = (1...500).map { k in "binance,BTCUSDT,\(k),\(k * 10),1,20.5,10.\(k % 97),2" }
    let whole = ([tardisQuotesHeader] + rows).joined(separator: "\n") + "\n"
    let first = ([tardisQuotesHeader] + rows[..<200]).joined(separator: "\n") + "\n"
    let second = rows[200...].joined(separator: "\n") + "\n"
    var joined = Data()
    for (name, text) in [("a.csv", first), ("empty.csv", ""), ("b.csv", second)] {
      joined += try Data(contentsOf: URL(fileURLWithPath: try gzip(folder.write(name, text))))
    }
    let concatenated = folder.write("joined.csv.gz", joined)
    let plain = folder.write("whole.csv", whole)
    let a = try Ingest.read(path: concatenated)
    let b = try Ingest.read(path: plain)
    #expect(a.report.rowsRead == 500)
    #expect(sameColumns(a.series[0], b.series[0]))
    #expect(try readLines(concatenated, chunkSize: 7) == readLines(plain, chunkSize: 7))
  }

  @Test("a gzipped empty file is an empty file")
  func gzippedEmpty() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try gzip(folder.write("empty.csv", ""))
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path) }
    #expect(error?.reason == .emptyFile)
  }
}
