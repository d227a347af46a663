import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// A gzip file up to `IngestOptions.gzipInMemoryLimit` is inflated in memory by ISA-L
// and parsed while it inflates; anything else streams through zlib. Both paths must
// give the plain file's columns, counts and errors.

@Suite("Gzip inflated in memory")
struct InflatedGzipTests {
  /// Options that stream every gzip file through zlib.
  static func streaming(_ base: IngestOptions = IngestOptions()) -> IngestOptions {
    var options = base
    options.gzipInMemoryLimit = 0
    return options
  }

  static func contents(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

  /// The same row accounting, rejected rows and columns (bit for bit); the paths of a
  /// plain file and its gzip differ, so errors are compared by line, column and reason.
  static func expectSame(_ a: IngestedFile, _ b: IngestedFile) {
    #expect(a.report.rowsRead == b.report.rowsRead && a.report.rowsAccepted == b.report.rowsAccepted)
    #expect(a.report.rowsRejected == b.report.rowsRejected && a.report.rowsCollapsed == b.report.rowsCollapsed)
    #expect(a.report.rejectedByKind.map(\.kind) == b.report.rejectedByKind.map(\.kind))
    #expect(a.report.rejectedByKind.map(\.count) == b.report.rejectedByKind.map(\.count))
    #expect(a.report.errors.map(located) == b.report.errors.map(located))
    #expect(a.series.count == b.series.count)
    for (x, y) in zip(a.series, b.series) { #expect(sameColumns(x, y)) }
  }

  /// An error without its path.
  static func located(_ error: IngestError?) -> String? {
    error.map { "\($0.position.line):\($0.position.column) \($0.reason)" }
  }

  /// The whole inflated file, `nil` when it is not gzip or ISA-L refuses it.
  static func inflated(_ gzip: InflatedGzip?) throws -> [UInt8]? {
    guard let gzip, gzip.inflate(until: .max) else { return nil }
    return try gzip.bytes(0..<gzip.count)
  }

  static func inflated(_ path: String, limit: Int = 1 << 30) throws -> [UInt8]? { try inflated(InflatedGzip(path: path, limit: limit)) }

  /// `text` split at line breaks into `parts` files, each gzipped, concatenated into
  /// one gzip file of several members (as `cat a.gz b.gz` makes).
  static func members(_ text: String, cuts: [Double], name: String, in folder: TemporaryFolder) throws -> String {
    let bytes = Array(text.utf8)
    var starts = [0]
    for cut in cuts {
      let at = Int(Double(bytes.count) * cut)
      starts.append(bytes[at...].firstIndex(of: 10)! + 1)
    }
    starts.append(bytes.count)
    var joined = Data()
    for k in 0..<starts.count - 1 {
      let part = folder.write("\(name).part\(k)", Data(bytes[starts[k]..<starts[k + 1]]))
      joined += try Data(contentsOf: URL(fileURLWithPath: try gzip(part)))
    }
    return folder.write(name + ".gz", joined)
  }

  @Test("a one-member gzip inflates to its plain file at exactly its size, not a byte under")
  func exactSize() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let plain = PrefetchTests.largeQuotes(in: folder)
    let gzipped = try gzip(plain)
    let expected = try Self.contents(plain)
    #expect(try Self.inflated(gzipped, limit: expected.count) == expected)
    #expect(try Self.inflated(gzipped, limit: expected.count - 1) == nil)
    #expect(try Self.inflated(InflatedGzip(bytes: Self.contents(gzipped), path: gzipped, limit: expected.count)) == expected)
    #expect(try Self.inflated(InflatedGzip(bytes: Self.contents(gzipped), path: gzipped, limit: expected.count - 1)) == nil)
    // Not gzip, or not a regular file: left to the other readers.
    #expect(InflatedGzip(bytes: expected, path: plain, limit: 1 << 30) == nil)
    #expect(InflatedGzip(path: "/dev/null", limit: 1 << 30) == nil)
  }

  @Test("several members, the first far larger than the last one's ISIZE, read as the plain file")
  func multiMember() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let plain = PrefetchTests.largeQuotes(in: folder)
    let text = String(decoding: try Self.contents(plain), as: UTF8.self)
    // Members of about 9 MB, 0.2 MB and 50 bytes (the last trailer's size is no guide).
    let joined = try Self.members(text, cuts: [0.97, 0.99999], name: "joined.csv", in: folder)
    let expected = try Self.contents(plain)
    #expect(try Self.inflated(joined) == expected)
    let a = try Ingest.read(path: plain)
    Self.expectSame(a, try Ingest.read(path: joined))
    Self.expectSame(a, try Ingest.read(path: joined, options: Self.streaming()))
    #expect(a.report.rowsRead == 120_000)
  }

  @Test("a gzip over the in-memory limit streams through zlib, with the same result")
  func overTheLimit() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let plain = PrefetchTests.largeQuotes(in: folder)
    let gzipped = try gzip(plain)
    let size = try Self.contents(plain).count, compressed = try Self.contents(gzipped).count
    var options = IngestOptions()
    #expect(options.gzipInMemoryLimit == 1 << 31)
    options.gzipInMemoryLimit = size - 1
    #expect(options.gzipInMemoryBytes(compressed: compressed) == size - 1)
    #expect(try Self.inflated(gzipped, limit: options.gzipInMemoryBytes(compressed: compressed)) == nil)
    Self.expectSame(try Ingest.read(path: plain), try Ingest.read(path: gzipped, options: options))
  }

  @Test("a bomb exceeds the decompression limit in memory too: it streams and stops with the limit error")
  func bomb() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let single = try InputBoundsTests.make("bomb.csv.gz", in: folder, "\(InputBoundsTests.newlines) | gzip -1 > OUT")
    // A last member of one line: the trailer's ISIZE (1) hides the bomb before it.
    let small = try gzip(folder.write("small.csv", "\n"))
    let hidden = folder.write("hidden.csv.gz", try Data(contentsOf: URL(fileURLWithPath: single)) + Data(contentsOf: URL(fileURLWithPath: small)))
    let options = try InputBoundsTests.headerless()
    for path in [single, hidden] {
      let compressed = try Self.contents(path).count
      let limit = max(1 << 20, 100 * compressed)
      #expect(options.gzipInMemoryBytes(compressed: compressed) == limit)
      #expect(try Self.inflated(path, limit: limit) == nil)
      let error = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: options) }
      #expect(error?.reason == .decompressionLimit(limit: limit, compressed: compressed))
      let streamed = #expect(throws: IngestError.self) { try Ingest.read(path: path, options: Self.streaming(options)) }
      #expect(error == streamed)
    }
  }

  @Test("truncated or corrupt: ISA-L refuses it, and the stream reports the same error as always")
  func brokenStreams() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, bytes) = try CompressionTests.gzipQuotes(in: folder)
    var broken: [(String, Data)] = [1, 8, 9, 5000].map { cut in ("cut\(cut)", bytes.prefix(bytes.count - cut)) }
    for (name, offsetFromEnd) in [("crc", 8), ("length", 4), ("middle", bytes.count / 2)] {
      var copy = bytes
      copy[copy.count - offsetFromEnd] ^= 0x5A
      broken.append((name, copy))
    }
    // Bytes after the last member that are not another member.
    broken.append(("trailing", bytes + Data("not gzip".utf8)))
    for (name, data) in broken {
      let path = folder.write(name + ".csv.gz", data)
      #expect(try Self.inflated(path) == nil, "\(name)")
      let error = #expect(throws: IngestError.self, "\(name)") { try Ingest.read(path: path) }
      let streamed = #expect(throws: IngestError.self, "\(name)") { try Ingest.read(path: path, options: Self.streaming()) }
      #expect(error != nil && error == streamed, "\(name)")
      #expect(["truncated_stream", "corrupt_stream"].contains(error?.reason.kind ?? ""), "\(name)")
      #expect(error?.position.path == path)
    }
  }

  /// CRC-32 (the gzip polynomial), bit by bit.
  static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  @Test("a member with a header CRC or reserved flags streams through zlib, which checks them (ISA-L does not)")
  func headerCRC() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (path, bytes) = try CompressionTests.gzipQuotes(in: folder)
    // gzip -n writes a 10-byte header without a name: set FHCRC and insert the CRC-16
    // (the low half of the header's CRC-32) after it.
    var header = [UInt8](bytes.prefix(10))
    header[3] |= 0x02
    let crc = Self.crc32(header)
    for (name, check) in [("good", UInt16(truncatingIfNeeded: crc)), ("bad", UInt16(truncatingIfNeeded: crc) ^ 1)] {
      let withCRC = folder.write(name + ".csv.gz", Data(header + [UInt8(check & 0xFF), UInt8(check >> 8)]) + bytes.dropFirst(10))
      #expect(try Self.inflated(withCRC) == nil)
      if name == "good" {
        Self.expectSame(try Ingest.read(path: path), try Ingest.read(path: withCRC))
      } else {
        let error = #expect(throws: IngestError.self) { try Ingest.read(path: withCRC) }
        #expect(error?.reason == .corruptCompressedStream(detail: "header crc mismatch"))
      }
    }
    // A reserved flag (0x20, encryption in old gzip versions): ISA-L ignores it, zlib refuses it.
    var reserved = bytes
    reserved[3] |= 0x20
    let flagged = folder.write("reserved.csv.gz", reserved)
    #expect(try Self.inflated(flagged) == nil)
    let error = #expect(throws: IngestError.self) { try Ingest.read(path: flagged) }
    #expect(error?.reason == .corruptCompressedStream(detail: "unknown header flags set"))
  }

  /// A file of 400 000 Tardis quotes (over `parallelThreshold`) with a crossed book
  /// every `badEvery` rows, plain and gzipped.
  static func largeFile(badEvery: Int, in folder: TemporaryFolder) throws -> (plain: String, gzipped: String) {
    let plain = folder.write("q\(badEvery).csv", TwoHalvesTests.quotes(rows: 400_000, badEvery: badEvery, seed: 5))
    return (plain, try gzip(plain))
  }

  /// Reads `path` while it inflates `chunk` bytes at a time.
  static func pipeline(_ path: String, chunk: Int, _ options: IngestOptions) throws -> IngestedFile? {
    let gzip = try #require(InflatedGzip(path: path, limit: 1 << 30, chunk: chunk))
    return try Ingest.read(gzip, options: options)
  }

  @Test("the follower reads up to the split, just after the first line break past the middle of what it left")
  func splitPoint() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (plain, gzipped) = try Self.largeFile(badEvery: 0, in: folder)
    let expected = try Self.contents(plain)
    let gzip = try #require(InflatedGzip(path: gzipped, limit: 1 << 30, chunk: 1 << 16))
    #expect(gzip.inflate(until: 1000) && gzip.count == 1 << 16)
    let follower = gzip.follower(from: 100)
    var taken = [UInt8](repeating: 0, count: 5000)
    #expect(try taken.withUnsafeMutableBytes { try follower.read(into: $0) } == 5000)
    #expect(gzip.inflate(until: .max) && gzip.count == expected.count)
    let rest = try #require(gzip.split())
    let middle = 5100 + (expected.count - 5100) / 2
    #expect(rest.upperBound == expected.count && rest.lowerBound > middle)
    #expect(expected[rest.lowerBound - 1] == 10 && !expected[middle..<rest.lowerBound - 1].contains(10))
    // The follower ends exactly there.
    var read = Array(taken), buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let n = try buffer.withUnsafeMutableBytes { try follower.read(into: $0) }
      if n == 0 { break }
      read += buffer[..<n]
    }
    #expect(read == Array(expected[100..<rest.lowerBound]))
    #expect(try gzip.bytes(rest) == Array(expected[rest]))
  }

  @Test(
    "a large gzip parsed while it inflates, in two parts: the plain file's columns, counts, errors and quarantine",
    arguments: [1 << 20, 4096])
  func pipelineMatchesPlain(chunk: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Bad rows all through the file, so in both parts wherever the split falls.
    let (plain, gzipped) = try Self.largeFile(badEvery: 9_973, in: folder)
    #expect(try Self.contents(plain).count >= parallelThreshold)
    var skip = IngestOptions()
    skip.badRows = .skip
    skip.keptErrors = 100
    var oneThread = skip
    oneThread.splitLargeFiles = false
    for (k, options) in [skip, oneThread].enumerated() {
      var plainOptions = options, gzipOptions = options
      plainOptions.quarantinePath = folder.path + "/plain\(k).rejected"
      gzipOptions.quarantinePath = folder.path + "/gzip\(k).rejected"
      let plainRead = try Ingest.read(path: plain, options: plainOptions)
      #expect(plainRead.report.rowsRejected == 40 && plainRead.report.errors.last?.position.line == 398_921)
      Self.expectSame(plainRead, try #require(try Self.pipeline(gzipped, chunk: chunk, gzipOptions)))
      #expect(try Self.contents(plainOptions.quarantinePath!) == Self.contents(gzipOptions.quarantinePath!))
    }
    // Stopping at the first bad row: the same error, at its line in the whole file.
    let error = #expect(throws: IngestError.self) { try Self.pipeline(gzipped, chunk: chunk, IngestOptions()) }
    #expect(error?.position.line == 9_974 && error?.position.path == gzipped)
  }

  @Test(
    "stopping at a bad row late in the file: its line in the whole file, wherever the split fell",
    arguments: [1 << 20, 4096])
  func pipelineLateError(chunk: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (plain, gzipped) = try Self.largeFile(badEvery: 390_000, in: folder)
    let plainError = #expect(throws: IngestError.self) { try Ingest.read(path: plain) }
    let error = #expect(throws: IngestError.self) { try Self.pipeline(gzipped, chunk: chunk, IngestOptions()) }
    #expect(error?.position.line == 390_001 && error?.position.path == gzipped)
    #expect(Self.located(error) == Self.located(plainError))
  }

  @Test("a large multi-member gzip parsed while it inflates reads as the plain file")
  func pipelineMultiMember() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (plain, _) = try Self.largeFile(badEvery: 50_000, in: folder)
    let text = String(decoding: try Self.contents(plain), as: UTF8.self)
    let joined = try Self.members(text, cuts: [0.3, 0.5, 0.51, 0.9], name: "joined.csv", in: folder)
    var skip = IngestOptions()
    skip.badRows = .skip
    let plainRead = try Ingest.read(path: plain, options: skip)
    #expect(plainRead.report.rowsRejected == 8)
    for chunk in [1 << 20, 4096] { Self.expectSame(plainRead, try #require(try Self.pipeline(joined, chunk: chunk, skip))) }
  }

  @Test("a large broken gzip: the partial parse is dropped and the stream reports its error, as zlib always did")
  func pipelineBroken() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (_, gzipped) = try Self.largeFile(badEvery: 0, in: folder)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: gzipped))
    // Found mid-stream, at the very end (after the split), past the last member, at a
    // later member's start (a cut file and a wrong length: `brokenStreams`).
    var broken: [(String, Data)] = [("trailing", bytes + Data("junk".utf8))]
    for (name, offsetFromEnd) in [("crc", 8), ("middle", bytes.count / 2)] {
      var copy = bytes
      copy[copy.count - offsetFromEnd] ^= 0x5A
      broken.append((name, copy))
    }
    // A good member followed by one with a header CRC.
    var hcrc = bytes
    hcrc[3] |= 0x02
    broken.append(("second member with FHCRC", bytes + hcrc))
    for (name, data) in broken {
      let path = folder.write(name + ".csv.gz", data)
      // Small chunks here; `Ingest.read` below takes 1 MiB ones, and would not throw
      // had the pipeline kept the file.
      #expect(try Self.pipeline(path, chunk: 4096, IngestOptions()) == nil, "\(name)")
      let error = #expect(throws: IngestError.self, "\(name)") { try Ingest.read(path: path) }
      let streamed = #expect(throws: IngestError.self, "\(name)") { try Ingest.read(path: path, options: Self.streaming()) }
      #expect(error != nil && error == streamed, "\(name)")
    }
  }

  /// The shipped real files, and fixtures of the three layouts the benchmark times.
  static let realFiles =
    CompressionTests.realFiles + [
      (fixture("BTCUSDT-bookTicker-2024-03-01.csv"), nil),
      (fixture("BTCUSDT-aggTrades-2025-01-01-spot.csv"), nil),
      (fixture("BTCUSDT2025-01-01.csv"), nil),
    ]

  @Test("real files: the same row accounting plain, inflated in memory and streamed", arguments: realFiles)
  func realFileAccounting(c: (file: String, spec: String?)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (plain, gzipped) = try CompressionTests.plainAndGzip(c.file, in: folder)
    var options = try CompressionTests.options(spec: c.spec)
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.csv"
    let a = try Ingest.read(path: plain, options: options)
    #expect(a.report.rowsRead > 0)
    Self.expectSame(a, try Ingest.read(path: gzipped, options: options))
    Self.expectSame(a, try Ingest.read(path: gzipped, options: Self.streaming(options)))
  }
}
