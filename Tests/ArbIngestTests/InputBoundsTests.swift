import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

/// Bounds on what one input may cost: decompressed bytes (gzip, zip and zstd bombs)
/// and line length; and the in-memory entry point the fuzz targets use.
@Suite struct InputBoundsTests {
  /// A spec whose file has no header, so that a stream of empty lines (a bomb that
  /// is not one long line) is read until the decompression limit stops it.
  static func headerless() throws -> IngestOptions {
    var options = IngestOptions()
    options.format = .columns(try ColumnSpec.fromOverrides(["time.column=1", "time.form=us", "price=2", "header=false"]))
    options.decompression = DecompressionLimit(ratio: 100, floor: 1 << 20)
    return options
  }

  /// Runs a shell pipeline that writes `name` in `folder` (streamed: nothing large in memory).
  static func make(_ name: String, in folder: TemporaryFolder, _ pipeline: String) throws -> String {
    let path = folder.path + "/" + name
    #expect(try runProgram("/bin/sh", ["-c", pipeline.replacingOccurrences(of: "OUT", with: path)]) == 0)
    return path
  }

  static let newlines = "head -c 16777216 /dev/zero | tr '\\0' '\\n'"

  @Test(arguments: [
    ("bomb.csv.gz", "\(newlines) | gzip -1 > OUT"),
    ("bomb.csv.zst", "\(newlines) | zstd -q -1 > OUT"),
    ("bomb.zip", "cd DIR && \(newlines) > bomb.csv && zip -q -1 OUT bomb.csv && rm bomb.csv"),
  ])
  func bombStopsAtTheLimit(c: (name: String, pipeline: String)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try Self.make(c.name, in: folder, c.pipeline.replacingOccurrences(of: "DIR", with: folder.path))
    let compressed = try FileSource(path: path).size
    #expect(compressed < 1 << 20)
    var caught: IngestError? = nil
    do { _ = try Ingest.read(path: path, options: try Self.headerless()) } catch let error as IngestError { caught = error }
    let limit = max(1 << 20, 100 * compressed)
    #expect(caught?.reason == .decompressionLimit(limit: limit, compressed: compressed))
    #expect(caught?.position.path == path)
    // Every line before the limit was read: the error is on the line after them.
    #expect(caught?.position.line ?? 0 > 1)
    #expect(caught?.description.contains("exceeds the limit of \(limit) bytes for \(compressed) compressed bytes") == true)
    // The same file inflates fully under a limit above its size.
    var roomy = try Self.headerless()
    roomy.decompression = DecompressionLimit(ratio: 1, floor: 16 << 20)
    let file = try Ingest.read(path: path, options: roomy)
    #expect(file.report.rowsRead == 0)
  }

  @Test func defaultLimit() throws {
    let limit = IngestOptions().decompression
    #expect(limit == DecompressionLimit(ratio: 250, floor: 64 << 20))
    #expect(limit.bytes(compressed: 1000) == 64 << 20)
    #expect(limit.bytes(compressed: 1 << 20) == 250 << 20)
    #expect(limit.bytes(compressed: .max / 2) == .max)
    // No limit at all (Int.max) reads the file as it is.
    var options = IngestOptions()
    options.decompression = DecompressionLimit(ratio: .max, floor: .max)
    options.format = .columns(try ColumnSpec.load(path: Repository.data("formats/ccxt-ohlcv.json")))
    let file = try Ingest.read(path: fixture("upbit_BTC_KRW_20250824_081438.csv.gz"), options: options)
    #expect(file.report.rowsAccepted > 0)
  }

  @Test func zipEntryLargerThanItsHeaderSays() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let rows = String(repeating: "1700000000000000,1.5\n", count: 5000)
    folder.write("rows.csv", rows)
    let path = try Self.make("rows.zip", in: folder, "cd \(folder.path) && zip -q OUT rows.csv")
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    // The local header's uncompressed size (offset 22) understated: 1000 bytes.
    bytes.replaceSubrange(22..<26, with: [0xE8, 0x03, 0, 0])
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    var caught: IngestError? = nil
    do { _ = try Ingest.read(path: path, options: try Self.headerless()) } catch let error as IngestError { caught = error }
    #expect(caught?.reason == .corruptCompressedStream(detail: "zip entry inflates past the 1000 bytes its header declares"))
  }

  @Test func freqtradeJSONBombStopsAtTheLimit() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try Self.make("XRP_USDT-1h.json.zst", in: folder, "{ printf '[ '; head -c 16777216 /dev/zero | tr '\\0' ' '; } | zstd -q -1 > OUT")
    var options = IngestOptions()
    options.decompression = DecompressionLimit(ratio: 100, floor: 1 << 20)
    #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
    do { _ = try Ingest.read(path: path, options: options) } catch let error as IngestError {
      #expect(error.reason.kind == "decompression_limit")
      #expect(error.position.line == 1)
    }
  }

  /// Lines up to the limit are read; one byte more is `lineTooLong` at the line and
  /// the column past the limit, whether it ends with a newline or the file.
  @Test(arguments: [false, true])
  func lineLengthLimit(newlineAtEnd: Bool) throws {
    var options = try Self.headerless()
    options.maxLineBytes = 64
    let row = "1700000000000000,1.5"
    let longest = row + "," + String(repeating: "x", count: 64 - row.count - 1)
    let ok = "\(row)\n\(longest)" + (newlineAtEnd ? "\n" : "")
    let file = try Ingest.read(bytes: Array(ok.utf8), path: "ok.csv", options: options)
    #expect(file.report.rowsAccepted == 2)
    let bad = "\(row)\n\(row)\n\(longest)x" + (newlineAtEnd ? "\n" : "")
    #expect(throws: IngestError(.lineTooLong(limit: 64), at: SourcePosition(path: "bad.csv", line: 3, column: 65))) {
      try Ingest.read(bytes: Array(bad.utf8), path: "bad.csv", options: options)
    }
  }

  /// A file without any newline does not grow the line buffer past the limit: the
  /// error comes at the default 16 MiB, not after reading it all.
  @Test func fileWithoutNewlines() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = try Self.make("one-line.csv.gz", in: folder, "head -c 33554432 /dev/zero | gzip -1 > OUT")
    #expect(throws: IngestError(.lineTooLong(limit: 16 << 20), at: SourcePosition(path: path, line: 1, column: (16 << 20) + 1))) {
      try Ingest.read(path: path)
    }
  }

  /// Bytes in memory read exactly as the same bytes in a file (plain and compressed).
  @Test(arguments: ["huobi-dm-swap_quotes_BTC-USD.csv", "upbit_BTC_KRW_20250824_081438.csv.gz", "deribit_incremental_book_L2_BTC-PERPETUAL.csv"])
  func bytesReadAsTheFile(name: String) throws {
    var options = IngestOptions()
    if name.hasPrefix("upbit") { options.format = .columns(try ColumnSpec.load(path: Repository.data("formats/ccxt-ohlcv.json"))) }
    let path = fixture(name)
    let fromFile = try Ingest.read(path: path, options: options)
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let fromBytes = try Ingest.read(bytes: bytes, path: path, options: options)
    #expect(fromBytes.series.map(\.time) == fromFile.series.map(\.time))
    #expect(fromBytes.series.map { $0.bid.map(\.bitPattern) } == fromFile.series.map { $0.bid.map(\.bitPattern) })
    #expect(fromBytes.series.map { $0.ask.map(\.bitPattern) } == fromFile.series.map { $0.ask.map(\.bitPattern) })
    #expect(fromBytes.report.rowsRead == fromFile.report.rowsRead)
    #expect(fromBytes.report.rowsAccepted == fromFile.report.rowsAccepted)
    #expect(fromBytes.report.format == fromFile.report.format)
    #expect(fromBytes.series.count >= 1)
  }
}
