import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// JSON-lines sources (`rest.snapshots`, `cryptofeed.jsonl`, `orderbook.jsonl`) stream a
// leg a chunk at a time and give what the whole read gives: the series the whole read
// would pick (its whole books before a ticker's tops before last prices), the same
// points bit for bit, the same books, accounting, quarantine and errors.
@Suite("Streamed JSON lines")
struct JSONLineStreamTests {
  static func options(_ folder: TemporaryFolder, depth: Bool, clock: Clock = .local) -> IngestOptions {
    var options = FileQuoteStreamTests.options(folder)
    options.keepDepth = depth
    options.clock = clock
    return options
  }

  /// The JSON-lines fixtures: recorded REST responses, cryptofeed slices, order-book lines.
  static var fixtures: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: fixture("json"))) ?? []
    return names.filter { $0.contains(".jsonl") }.sorted().map { fixture("json/" + $0) }
  }

  @Test(arguments: [false, true])
  func `every JSON-lines fixture streams each of its series as the whole read picks it`(depth: Bool) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var checked = 0
    for path in Self.fixtures {
      for clock in [Clock.local, .exchange] {
        let options = Self.options(folder, depth: depth, clock: clock)
        let whole = Result { try Ingest.read(path: path, options: options) }
        let series = (try? whole.get().series) ?? []
        for leg in [path] + series.map({ "\($0.instrument)=\(path)#\($0.field.rawValue)" }) {
          #expect(try FileQuoteStreamTests.check(leg, options: options, "\(leg) \(clock) depth \(depth)"), "\(leg) streams")
          checked += 1
        }
        #expect(try FileQuoteStreamTests.checkCount(path, options: options, "\(path) \(clock) depth \(depth)"), "\(path) is counted")
        // Into a store (`convert`, `board`), without books.
        let drains = try FileQuoteStreamTests.checkDrain(path, options: options, "\(path) \(clock) depth \(depth) drained")
        #expect(drains != (depth && (path.contains("rest-snapshots") || path.contains("_06.jsonl"))), "\(path) drains unless its books are kept")
      }
    }
    #expect(Self.fixtures.count >= 9 && checked > 60, "\(checked) legs")
  }

  @Test(arguments: [false, true])
  func `a recording of tickers and books streams the whole read's series, books and accounting`(depth: Bool) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("rec.jsonl", RecordingGenerator.lines(tickersFirst: 400, mixed: 2_600, seed: 5))
    let options = Self.options(folder, depth: depth)
    let whole = try Ingest.read(path: path, options: options)
    #expect(whole.report.rowsRejected >= 30 && whole.report.errorRecords >= 10 && whole.report.skippedByKind.map(\.kind) == ["torn last line"])
    // With depth, BTCUSDT's whole books are a series before its tickers' tops.
    #expect(whole.series.count == (depth ? 3 : 2))
    for leg in ["binance:spot:BTCUSDT=\(path)", "binance:spot:ETHUSDT=\(path)", "binance:spot:BTCUSD=\(path)"] {
      #expect(try FileQuoteStreamTests.check(leg, options: options, "\(leg) depth \(depth)"))
      var windowed = options
      windowed.window = TimeWindow(from: RecordingGenerator.start + 60_000_000, to: RecordingGenerator.start + 200_000_000)
      #expect(try FileQuoteStreamTests.check(leg, options: windowed, "\(leg) depth \(depth) window"))
    }
    #expect(try FileQuoteStreamTests.checkDrain(path, options: options, "drained depth \(depth)") == !depth)
    var failing = IngestOptions()
    failing.keepDepth = depth
    #expect(try FileQuoteStreamTests.check("binance:spot:BTCUSDT=\(path)", options: failing, "fail depth \(depth)"))
    guard depth else { return }
    let leg = try LegSpec(parsing: "binance:spot:BTCUSDT=\(path)")
    let books = try #require(try leg.load(options: options).series.depth)
    #expect(books.count > 800 && books.deepest == 3)
    for rows in FileQuoteStreamTests.chunkSizes {
      #expect(try L2StreamTests.streamedBooks(leg, options: options, rows: rows) == books, "chunk \(rows)")
    }
    // A ticker's tops have no books to hand out.
    let tickers = try #require(try FileQuoteStream.open(try LegSpec(parsing: "binance:spot:ETHUSDT=\(path)"), options: options))
    #expect(try tickers.next(maxRows: 100)?.books == nil)
  }

  @Test func `whole books after more ticker tops than are kept undecided are found by a scan`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("late-books.jsonl", RecordingGenerator.lines(tickersFirst: FileQuoteStream.undecidedLimit + 500, mixed: 900, seed: 7))
    let options = Self.options(folder, depth: true)
    let leg = "binance:spot:BTCUSDT=\(path)"
    #expect(try FileQuoteStreamTests.check(leg, options: options, "late books", chunkSizes: [300, 1 << 16]))
    let books = try #require(try LegSpec(parsing: leg).load(options: options).series.depth)
    #expect(try L2StreamTests.streamedBooks(try LegSpec(parsing: leg), options: options, rows: 4_000) == books)
  }

  @Test func `a leg over several recordings joins them, with books only when every file has them`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var lines = RecordingGenerator.lines(tickersFirst: 0, mixed: 1_200, seed: 9).split(separator: "\n", omittingEmptySubsequences: false)
    lines.removeLast()  // the torn line is the last of a recording only
    let first = folder.write("a.jsonl", lines.prefix(600).joined(separator: "\n") + "\n")
    let second = folder.write("b.jsonl", lines.dropFirst(599).joined(separator: "\n") + "\n")
    #expect(try runProgram("/bin/sh", ["-c", "gzip '\(second)'"]) == 0)
    for depth in [false, true] {
      #expect(try FileQuoteStreamTests.check("binance:spot:BTCUSDT=\(first),\(second).gz", options: Self.options(folder, depth: depth), "two files \(depth)"))
    }
    // Books in the first file only, or in the last only: the whole read keeps none.
    let tickersOnly = folder.write("c.jsonl", RecordingGenerator.lines(tickersFirst: 300, mixed: 0, skipping: 1_200, seed: 10))
    let booksLater = folder.write("d.jsonl", RecordingGenerator.lines(tickersFirst: 0, mixed: 300, skipping: 1_500, seed: 11))
    let options = Self.options(folder, depth: true)
    for files in [[first, tickersOnly], [first, tickersOnly, booksLater], [tickersOnly, booksLater]] {
      let text = "binance:spot:BTCUSDT=" + files.joined(separator: ",")
      let leg = try LegSpec(parsing: text)
      #expect(try leg.load(options: options).series.depth == nil)
      #expect(try FileQuoteStreamTests.check(text, options: options, "\(files.count) files"))
      let stream = try #require(try FileQuoteStream.open(leg, options: options))
      #expect(try stream.next(maxRows: 100)?.books == nil, "\(files.count) files: no books handed out")
    }
  }

  @Test func `a JSON document is read whole; a sorted read too`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("rec.jsonl", RecordingGenerator.lines(tickersFirst: 10, mixed: 10, seed: 3))
    let leg = try LegSpec(parsing: "binance:spot:BTCUSDT=\(path)")
    #expect(try FileQuoteStream.open(leg, options: StoreTests.options(folder)) != nil)
    var sorted = StoreTests.options(folder)
    sorted.sort = true
    #expect(try FileQuoteStream.open(leg, options: sorted) == nil)
    #expect(try FileQuoteStream.open(try LegSpec(parsing: fixture("json/history-slice.json")), options: IngestOptions()) == nil)
  }
}
