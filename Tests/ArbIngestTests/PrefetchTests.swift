import ArbCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ArbIngest

// Reading ahead on a second thread changes when bytes are read, never which: the same
// bytes in the same order, the wrapped source's error at the same byte, and a reader
// dropped early stops the thread.

/// A source that hands out `bytes` in pieces of at most `piece`, then fails with
/// `failure` (or ends).
private final class ScriptedSource: ByteSource {
  let path = "scripted.csv"
  private let bytes: [UInt8]
  private let piece: Int
  private let failure: IngestError?
  private var offset = 0

  init(_ bytes: [UInt8], piece: Int, failure: IngestError? = nil) {
    self.bytes = bytes
    self.piece = piece
    self.failure = failure
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    let n = min(buffer.count, piece, bytes.count - offset)
    if n == 0, let failure { throw failure }
    bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
    offset += n
    return n
  }
}

/// A source that never ends.
private final class EndlessSource: ByteSource {
  let path = "endless.csv"
  let reads = Mutex(0)

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    reads.withLock { $0 += 1 }
    buffer.initializeMemory(as: UInt8.self, repeating: 0x41)
    return buffer.count
  }
}

/// Everything `source` gives when read with a buffer of `bufferSize`, and the error
/// it ends with (nil at a clean end).
private func drain(_ source: ByteSource, bufferSize: Int) -> (bytes: [UInt8], error: IngestError?) {
  var out: [UInt8] = []
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 8)
  defer { buffer.deallocate() }
  do {
    while true {
      let n = try source.read(into: buffer)
      if n == 0 { return (out, nil) }
      out.append(contentsOf: buffer[0..<n])
    }
  } catch {
    return (out, error)
  }
}

@Suite("Reading ahead on a second thread")
struct PrefetchTests {
  static let randomBytes: [UInt8] = {
    var random = SplitMix64(seed: 7)
    return (0..<300_001).map { _ in UInt8(truncatingIfNeeded: random.next()) }
  }()

  @Test(
    "the same bytes for any chunk, slot count, piece and read size",
    arguments: [(1, 2, 1000, 1), (2, 4096, 333, 7), (3, 65536, 65536, 5000), (4, 1 << 20, 1 << 20, 1 << 20)])
  func sameBytes(c: (slots: Int, chunk: Int, piece: Int, read: Int)) {
    let bytes = c.chunk == 2 ? Array(Self.randomBytes.prefix(20_000)) : Self.randomBytes
    let source = PrefetchSource(ScriptedSource(bytes, piece: c.piece), path: "p", slots: c.slots, chunkBytes: c.chunk)
    let (out, error) = drain(source, bufferSize: c.read)
    #expect(error == nil)
    #expect(out.count == bytes.count)
    let same = out == bytes  // not printed: 300 kB of bytes
    #expect(same)
    // After the end, reads keep returning 0.
    #expect(drain(source, bufferSize: 10).bytes.isEmpty)
  }

  @Test("the wrapped source's error comes after exactly the bytes it gave")
  func errorAfterBytes() {
    let failure = IngestError(.readFailed(detail: "read failed: Input/output error"), at: SourcePosition(path: "scripted.csv", line: 0, column: 0))
    let bytes = Array(Self.randomBytes.prefix(123_457))
    let source = PrefetchSource(ScriptedSource(bytes, piece: 10_000, failure: failure), path: "p", slots: 2, chunkBytes: 4096)
    let (out, error) = drain(source, bufferSize: 1000)
    #expect(out.count == bytes.count)
    let same = out == bytes  // not printed: 300 kB of bytes
    #expect(same)
    #expect(error == failure)
  }

  @Test("a reader dropped early stops its thread after at most its slots of reading ahead")
  func droppedEarly() {
    let endless = EndlessSource()
    do {
      let source = PrefetchSource(endless, path: "p", slots: 3, chunkBytes: 4096)
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 100, alignment: 8)
      defer { buffer.deallocate() }
      #expect((try? source.read(into: buffer)) == 100)
      #expect(buffer.allSatisfy { $0 == 0x41 })
    }
    // The deinit joined the thread: no read happens after it.
    let reads = endless.reads.withLock { $0 }
    #expect(reads >= 1 && reads <= 4)
    Thread.sleep(forTimeInterval: 0.05)
    #expect(endless.reads.withLock { $0 } == reads)
  }

  /// A Tardis quotes file large enough that its gzip is read ahead (≥ 1 MiB compressed).
  static func largeQuotes(in folder: TemporaryFolder) -> String {
    var random = SplitMix64(seed: 11)
    var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    var time: Int64 = 1_700_000_000_000_000
    var mid = 30000.0
    for _ in 0..<120_000 {
      time += Int64(random.next() % 5000) + 1
      mid *= 1 + (random.uniform() - 0.5) * 1e-4
      let bid = (mid * 100).rounded(.down) / 100
      text += "binance,BTCUSDT,\(time),\(time + 900),\(Double(random.next() % 100_000) / 1000),\(bid + 0.01),\(bid),\(Double(random.next() % 100_000) / 1000)\n"
    }
    return folder.write("quotes.csv", text)
  }

  @Test("a gzip read ahead gives the plain file's columns; cut short, the same error as before")
  func largeGzip() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let plain = Self.largeQuotes(in: folder)
    let gzipped = try gzip(plain)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: gzipped))
    #expect(bytes.count >= Compression.prefetchThreshold)
    #expect(try Compression.open(path: gzipped) is PrefetchSource)
    // Streamed through zlib (not inflated whole in memory), as a larger file would be.
    var streaming = IngestOptions()
    streaming.gzipInMemoryLimit = 0
    let a = try Ingest.read(path: plain)
    let b = try Ingest.read(path: gzipped, options: streaming)
    #expect(a.report.rowsRead == 120_000)
    #expect(b.report.rowsRead == a.report.rowsRead && b.report.rowsAccepted == a.report.rowsAccepted)
    #expect(a.series.count == b.series.count)
    for (x, y) in zip(a.series, b.series) { #expect(sameColumns(x, y)) }

    let kept = bytes.count - 1000
    let cut = folder.write("cut.csv.gz", bytes.prefix(kept))
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: cut, options: streaming) }
    #expect(error?.reason == .truncatedCompressedStream(detail: "gzip data ends after \(kept) bytes in the middle of a member"))
    #expect((error?.position.line ?? 0) > 1000 && error?.position.column == 1)
    // Read with the default options, ISA-L refuses it and the stream reports it.
    let inMemory = #expect(throws: IngestError.self) { try Ingest.read(path: cut) }
    #expect(inMemory != nil && inMemory == error)
  }
}
