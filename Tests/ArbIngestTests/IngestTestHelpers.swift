import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

#if canImport(Glibc)
import Glibc
#endif

// Shared helpers for the ingest tests: fixtures, byte-level parser calls, the strtod
// oracle, small files in a temporary folder, and gzip through the system tool.

/// Path of a file in `Tests/ArbIngestTests/Fixtures`, found from this source file.
func fixture(_ name: String) -> String {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures").appendingPathComponent(name).path
}

/// Calls `body` with the UTF-8 bytes of `text` (a valid pointer even when empty).
func withBytes<T>(_ text: String, _ body: (UnsafePointer<UInt8>, Int) -> T) -> T {
  var bytes = Array(text.utf8)
  let count = bytes.count
  bytes.append(0)
  return bytes.withUnsafeBufferPointer { body($0.baseAddress!, count) }
}

func parseDecimal(_ text: String) -> Double? { withBytes(text) { DecimalParser.parse($0, $1) } }
func parseInt64(_ text: String) -> Int64? { withBytes(text) { DecimalParser.parseInt64($0, $1) } }
func parseScaled(_ text: String, scale: Int) -> Int64? {
  withBytes(text) { DecimalParser.parseScaled($0, $1, scale: scale) }
}
func parseTime(_ text: String, _ form: TimeForm, offset: Int64 = 0) -> Int64? {
  withBytes(text) { TimeParser.parse($0, $1, form: form, defaultOffset: offset) }
}

/// The oracle: `strtod` over the whole text, or `nil` when it does not consume all of it.
func strtodValue(_ text: String) -> Double? {
  text.withCString { start -> Double? in
    var end: UnsafeMutablePointer<CChar>? = nil
    let value = strtod(start, &end)
    guard let end, end - UnsafeMutablePointer(mutating: start) == text.utf8.count, !text.isEmpty else { return nil }
    return value
  }
}

/// The texts of `fields` whose `DecimalParser` value is not bitwise the `strtod` value.
func strtodMismatches(_ fields: [String]) -> [String] {
  fields.compactMap { text in
    guard let expected = strtodValue(text) else { return "\(text): strtod rejects it" }
    guard let found = parseDecimal(text) else { return "\(text): parser rejects it" }
    return found.bitPattern == expected.bitPattern ? nil : "\(text): \(found) vs strtod \(expected)"
  }
}

/// The bit patterns of a column, so that `nan` compares equal to itself.
func bits(_ column: [Double]) -> [UInt64] { column.map(\.bitPattern) }

/// Every column of two series is bitwise the same (instrument and price source too).
func sameColumns(_ a: QuoteSeries, _ b: QuoteSeries) -> Bool {
  a.instrument == b.instrument && a.priceSource == b.priceSource && a.time == b.time
    && a.otherTime == b.otherTime && bits(a.bid) == bits(b.bid) && bits(a.ask) == bits(b.ask)
    && bits(a.bidSize) == bits(b.bidSize) && bits(a.askSize) == bits(b.askSize)
}

/// The gzip tool of this machine.
let gzipTool = FileManager.default.isExecutableFile(atPath: "/usr/bin/gzip") ? "/usr/bin/gzip" : "/bin/gzip"

/// A system tool that exited with a failure status.
struct ToolFailed: Error, CustomStringConvertible {
  var description: String
}

/// Compresses `path` to `path.gz` (keeping the original) and returns the new path.
func gzip(_ path: String) throws -> String {
  let status = try runProgram(gzipTool, ["-k", "-n", "-f", path])
  guard status == 0 else { throw ToolFailed(description: "gzip \(path) exited with \(status)") }
  return path + ".gz"
}

/// Decompresses a copy of `gzPath` into `folder` and returns the plain file's path.
func gunzip(_ gzPath: String, into folder: TemporaryFolder) throws -> String {
  let name = URL(fileURLWithPath: gzPath).lastPathComponent
  let copy = folder.write(name, try Data(contentsOf: URL(fileURLWithPath: gzPath)))
  let status = try runProgram(gzipTool, ["-d", "-f", copy])
  guard status == 0 else { throw ToolFailed(description: "gzip -d \(copy) exited with \(status)") }
  return String(copy.dropLast(3))
}

/// Reads `text` written to `name` in a fresh temporary folder.
func ingest(_ text: String, name: String = "input.csv", options: IngestOptions = IngestOptions()) throws -> IngestedFile {
  let folder = TemporaryFolder()
  defer { folder.cleanup() }
  var options = options
  if options.quarantinePath == nil { options.quarantinePath = folder.path + "/rejected.csv" }
  return try Ingest.read(path: folder.write(name, text), options: options)
}

/// Options reading a column spec given as JSON text.
func columnOptions(_ json: String, sort: Bool = false) throws -> IngestOptions {
  var options = IngestOptions()
  options.format = .columns(try ColumnSpec.decode(Data(json.utf8), path: "spec.json"))
  options.sort = sort
  return options
}

/// The lines of a file as `LineReader` hands them out with a given chunk size.
func readLines(_ path: String, chunkSize: Int) throws -> [[UInt8]] {
  var lines: [[UInt8]] = []
  var reader = LineReader(source: try Compression.open(path: path), chunkSize: chunkSize)
  defer { reader.close() }
  var numbers: [Int] = []
  try reader.forEachLine { line, number throws(IngestError) in
    lines.append(Array(line))
    numbers.append(number)
  }
  #expect(numbers == (0..<lines.count).map { $0 + 1 }, "line numbers count from 1 without gaps")
  return lines
}

/// The text of a file as lines split on `\n` (test side only; the reader never does this).
func textLines(_ path: String) throws -> [String] {
  try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

/// The Tardis quotes header, and one accepted row at local time 100.
let tardisQuotesHeader = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount"
let tardisGoodRow = "binance,BTCUSDT,1,100,1,10.5,10.4,2"

/// The zstd tool of this machine (`make test` installs it).
let zstdTool = FileManager.default.isExecutableFile(atPath: "/usr/bin/zstd") ? "/usr/bin/zstd" : "/bin/zstd"

/// Compresses `path` to `path.zst` (keeping the original; one frame, with the content
/// checksum the tool writes by default) and returns the new path.
func zstd(_ path: String) throws -> String {
  let status = try runProgram(zstdTool, ["-q", "-k", "-f", path, "-o", path + ".zst"])
  guard status == 0 else { throw ToolFailed(description: "zstd \(path) exited with \(status)") }
  return path + ".zst"
}

/// Every quote of `stream` in chunks of at most `rows` (each checked to hold 1 to `rows`
/// quotes), joined into one series named as the stream; the stream is then at its end.
func drained(_ stream: any QuoteStream, rows: Int) throws -> QuoteSeries {
  var joined = QuoteSeries(instrument: stream.instrument, priceSource: .book, field: stream.field, clock: stream.clock)
  while let chunk = try stream.next(maxRows: rows) {
    #expect(chunk.count > 0 && chunk.count <= rows)
    joined.time += chunk.time
    joined.otherTime += chunk.otherTime
    joined.bid += chunk.bid
    joined.ask += chunk.ask
    joined.bidSize += chunk.bidSize
    joined.askSize += chunk.askSize
  }
  #expect(try stream.next(maxRows: rows) == nil, "an ended stream stays ended")
  joined.priceSource = stream.priceSource
  return joined
}
