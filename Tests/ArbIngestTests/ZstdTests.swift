import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// zstd is read as a stream through libzstd, like gzip: the same columns as the plain
// file whatever the chunk size, several frames read as one file, and a stream that ends
// early or does not check out is an error, never fewer rows.

@Suite("zstd")
struct ZstdTests {
  /// Real files with the format that reads them (`nil`: detected from the header).
  static let realFiles: [(file: String, spec: String?)] = [
    (Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv"), "binanceus-kline-1m.json"),
    (fixture("binance-futures_book_snapshot_5_BTCUSDT.csv"), nil),
    (fixture("binance-futures_book_snapshot_25_BTCUSDT.csv"), nil),
    (fixture("huobi-dm-swap_quotes_BTC-USD.csv"), nil),
  ]

  /// A copy of `file` in `folder` and its `.zst` made by the zstd tool.
  static func plainAndZstd(_ file: String, in folder: TemporaryFolder) throws -> (plain: String, zstd: String) {
    let copy = folder.write(URL(fileURLWithPath: file).lastPathComponent, try Data(contentsOf: URL(fileURLWithPath: file)))
    return (copy, try zstd(copy))
  }

  @Test("a real file read plain and zstd-compressed gives identical columns", arguments: realFiles)
  func plainEqualsZstd(c: (file: String, spec: String?)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (plain, compressed) = try Self.plainAndZstd(c.file, in: folder)
    #expect(try Data(contentsOf: URL(fileURLWithPath: compressed)).prefix(4) == Data([0x28, 0xb5, 0x2f, 0xfd]))
    #expect(try Compression.detect(path: compressed) == .zstd)
    #expect(try Compression.detect(path: plain) == .none)
    let options = try CompressionTests.options(spec: c.spec)
    let a = try Ingest.read(path: plain, options: options)
    let b = try Ingest.read(path: compressed, options: options)
    #expect(a.report.rowsRead >= 10)
    #expect(a.report.format == b.report.format)
    #expect(a.report.rowsRead == b.report.rowsRead && a.report.rowsAccepted == b.report.rowsAccepted)
    #expect(a.report.firstTime == b.report.firstTime && a.report.lastTime == b.report.lastTime)
    #expect(a.series.count == b.series.count)
    for (x, y) in zip(a.series, b.series) { #expect(sameColumns(x, y)) }
  }

  @Test("LineReader gives the same zstd lines with a 1, 7 or 64-byte chunk as plain with 1 MiB", arguments: realFiles)
  func chunkSizes(c: (file: String, spec: String?)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (plain, compressed) = try Self.plainAndZstd(c.file, in: folder)
    let reference = try readLines(plain, chunkSize: 1 << 20)
    #expect(reference.count >= 11)
    for chunk in [1, 7, 64, 1 << 20] {
      #expect(try readLines(compressed, chunkSize: chunk) == reference, "zstd, chunk \(chunk)")
    }
  }

  /// A 3000-row Tardis quotes file, plain.
  static func quotes(in folder: TemporaryFolder) -> String {
    let rows = (1...3000).map { k in "binance,BTCUSDT,\(k),\(k * 10),1,\(20 + k % 7),10.\(k % 97),2" }
    return folder.write("quotes.csv", ([tardisQuotesHeader] + rows).joined(separator: "\n") + "\n")
  }

  @Test("concatenated zstd frames (one of an empty file) read as one file")
  func concatenatedFrames() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let rows = (1...500).map { k in "binance,BTCUSDT,\(k),\(k * 10),1,20.5,10.\(k % 97),2" }
    let first = ([tardisQuotesHeader] + rows[..<200]).joined(separator: "\n") + "\n"
    let second = rows[200...].joined(separator: "\n") + "\n"
    var joined = Data()
    for (name, text) in [("a.csv", first), ("empty.csv", ""), ("b.csv", second)] {
      joined += try Data(contentsOf: URL(fileURLWithPath: try zstd(folder.write(name, text))))
    }
    let concatenated = folder.write("joined.csv.zst", joined)
    let plain = folder.write("whole.csv", first + second)
    let a = try Ingest.read(path: concatenated)
    let b = try Ingest.read(path: plain)
    #expect(a.report.rowsRead == 500 && a.report.rowsAccepted == 500)
    #expect(sameColumns(a.series[0], b.series[0]))
    #expect(try readLines(concatenated, chunkSize: 7) == readLines(plain, chunkSize: 7))
  }

  /// Bytes kept of the compressed file: counted from its end when negative, else from
  /// its start (4: the magic number alone; 6: inside the frame header).
  @Test("a truncated zstd is truncatedCompressedStream, whatever is cut", arguments: [-1, -3, -4, -5, -100, -5000, 4, 6, 20])
  func truncated(cut: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: try zstd(Self.quotes(in: folder))))
    let kept = cut > 0 ? cut : bytes.count - min(-cut, bytes.count - 20)
    let path = folder.write("cut.csv.zst", bytes.prefix(kept))
    for badRows in BadRowPolicy.allCases {
      var options = IngestOptions()
      options.badRows = badRows  // a broken stream is never a skippable row
      options.quarantinePath = folder.path + "/q.csv"
      let error = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
      #expect(error?.reason == .truncatedCompressedStream(detail: "zstd data ends after \(kept) bytes in the middle of a frame"))
      #expect(error?.position.path == path)
      #expect((error?.position.line ?? 0) >= 1 && error?.position.column == 1)
    }
  }

  static let corruptions: [(name: String, change: String, detail: String?)] = [
    ("the content checksum", "checksum", "Restored data doesn't match checksum"),
    ("a byte in the middle of the compressed data", "middle", nil),
    ("bytes after the frame that are not a frame", "trailing", "Unknown frame descriptor"),
  ]

  @Test("a corrupt zstd is corruptCompressedStream with libzstd's error name", arguments: corruptions)
  func corrupt(c: (name: String, change: String, detail: String?)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var bytes = try Data(contentsOf: URL(fileURLWithPath: try zstd(Self.quotes(in: folder))))
    switch c.change {
    case "checksum": bytes[bytes.count - 2] ^= 0x5A
    case "middle": bytes[bytes.count / 2] ^= 0x5A
    default: bytes += Data("not a zstd frame at all\n".utf8)
    }
    let path = folder.write("corrupt.csv.zst", bytes)
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path) }
    #expect(error?.reason.kind == "corrupt_stream")
    if let detail = c.detail { #expect(error?.reason == .corruptCompressedStream(detail: detail)) }
    #expect(error?.position.path == path)
  }

  @Test("a zstd-compressed empty file is an empty file")
  func compressedEmpty() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try zstd(folder.write("empty.csv", ""))
    #expect(try Compression.detect(path: path) == .zstd)
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: path) }
    #expect(error?.reason == .emptyFile)
  }
}
