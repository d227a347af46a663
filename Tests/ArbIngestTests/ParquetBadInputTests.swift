import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Hand-broken copies of a good pyarrow file: each stops the read with a `ParquetError`
// naming the file, and the row group and column when the fault is in a page, never a
// crash or a read past the bytes.

@Suite("Parquet bad input")
struct ParquetBadInputTests {
  static let good = fixture("parquet/quotes-zstd-v1.parquet")

  /// The error reading `bytes` (written to a file), which must be a `ParquetError`.
  static func failure(_ bytes: [UInt8]) throws -> ParquetError? {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("broken.parquet", Data(bytes))
    let error = #expect(throws: ParquetError.self) { try Ingest.read(path: path) }
    #expect(error?.path == path)
    // Streamed (the next row group decoded on a thread of its own) and counted, a file
    // whose footer reads fails with the same error where the whole read does.
    let leg = try LegSpec(parsing: path)
    let streamed = #expect(throws: ParquetError.self) {
      // A footer that does not read leaves the file to the whole read (`open` is `nil`).
      let one = try LegSpec(parsing: "binance:linear:BTCUSDT=" + path)
      guard let stream = try FileQuoteStream.open(one, options: IngestOptions()) else { throw error! }
      _ = try drained(stream, rows: 7)
    }
    #expect(streamed == error)
    let counted = #expect(throws: ParquetError.self) {
      guard try FileQuoteStream.count(leg, options: IngestOptions()) != nil else { throw error! }
    }
    #expect(counted == error)
    return error
  }

  static func original() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: good))) }

  /// Where the first data page of `column` in row group `group` starts, and where its
  /// header's uncompressed size (field 2) and its payload start.
  static func dataPage(_ bytes: [UInt8], group: Int, column: Int) throws -> (header: Int, sizeField: Range<Int>, payload: Int) {
    try bytes.withUnsafeBytes { raw in
      let length = Int(raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt32.self))
      let metadata = try ParquetFileMetadata(UnsafeRawBufferPointer(rebasing: raw[(raw.count - 8 - length)..<(raw.count - 8)]))
      let start = Int(metadata.rowGroups[group].columns[column].dataPageOffset)
      var r = ThriftReader(raw, at: start)
      // Field 1 (type) then field 2 (uncompressed size), each a one-byte field header.
      _ = try r.byte()
      _ = try r.varint()
      _ = try r.byte()
      let sizeStart = r.at
      _ = try r.varint()
      let sizeField = sizeStart..<r.at
      r.at = start
      _ = try ParquetPageHeader(&r)
      return (start, sizeField, r.at)
    }
  }

  @Test("a file cut short has no footer")
  func truncated() throws {
    let bytes = try Self.original()
    let error = try Self.failure(Array(bytes.prefix(bytes.count - 100)))
    #expect(error?.reason == "not a Parquet file, or a truncated one: no PAR1 at its start and end")
    #expect(error?.rowGroup == nil && error?.column == nil)
  }

  @Test("a footer length longer than the file")
  func footerLength() throws {
    var bytes = try Self.original()
    bytes.replaceSubrange((bytes.count - 8)..<(bytes.count - 4), with: [0xFF, 0xFF, 0xFF, 0x7F])
    let error = try Self.failure(bytes)
    #expect(error?.reason == "footer of 2147483647 bytes is longer than the file (truncated?)")
  }

  @Test("a Thrift field of an unknown type in the footer")
  func badThriftField() throws {
    var bytes = try Self.original()
    let length = bytes[(bytes.count - 8)..<(bytes.count - 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
    // The footer's first field header: field 1 (version), i32; made type 13.
    let first = bytes.count - 8 - length
    #expect(bytes[first] == 0x15)
    bytes[first] = 0x1D
    let error = try Self.failure(bytes)
    #expect(error?.reason == "footer: unknown Thrift type 13")
  }

  @Test("a corrupt page names its row group and column")
  func corruptPage() throws {
    var bytes = try Self.original()
    let page = try Self.dataPage(bytes, group: 1, column: 5)
    // The zstd frame's magic number.
    bytes.replaceSubrange(page.payload..<page.payload + 4, with: [0, 0, 0, 0])
    let error = try Self.failure(bytes)
    #expect(error?.rowGroup == 1 && error?.column == "ask_price")
    #expect(error?.reason.hasPrefix("corrupt ZSTD page") == true)
  }

  /// The zigzag varint of `value` in exactly `length` bytes (padded with continuation
  /// bytes, which the compact protocol reads as the same value).
  static func varint(_ value: Int, length: Int) -> [UInt8] {
    var v = UInt64(value << 1)
    var bytes: [UInt8] = []
    for k in 0..<length {
      bytes.append(UInt8(v & 0x7F) | (k == length - 1 ? 0 : 0x80))
      v >>= 7
    }
    return bytes
  }

  @Test("a page that decompresses past its declared size")
  func pastDeclaredSize() throws {
    var bytes = try Self.original()
    let page = try Self.dataPage(bytes, group: 2, column: 6)
    bytes.replaceSubrange(page.sizeField, with: Self.varint(4, length: page.sizeField.count))
    let error = try Self.failure(bytes)
    #expect(error?.rowGroup == 2 && error?.column == "bid_price")
    #expect(error?.reason == "page decompresses past its declared size of 4 bytes")
  }

  @Test("a page longer than its column chunk")
  func pageSizePastChunk() throws {
    var bytes = try Self.original()
    let page = try Self.dataPage(bytes, group: 0, column: 2)
    // Field 3, the compressed size, follows field 2.
    let start = page.sizeField.upperBound + 1
    #expect(bytes[start - 1] == 0x15)
    var end = start
    while bytes[end] & 0x80 != 0 { end += 1 }
    let length = end - start + 1
    try #require(length >= 2)
    let size = (1 << (7 * length - 1)) - 1
    bytes.replaceSubrange(start...end, with: Self.varint(size, length: length))
    let error = try Self.failure(bytes)
    #expect(error?.rowGroup == 0 && error?.column == "timestamp")
    #expect(error?.reason == "page of \(size) bytes runs past its column chunk")
  }

  @Test("in the CLI: exit 65 and one line naming the file, the row group and the column")
  func parquetErrorText() {
    let error = ParquetError(path: "q.parquet", rowGroup: 1, column: "ask_price", reason: "corrupt ZSTD page")
    #expect(error.description == "q.parquet: error: row group 1, column 'ask_price': corrupt ZSTD page")
    #expect(error.kind == .data)
  }
}
