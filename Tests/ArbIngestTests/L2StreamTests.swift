import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// A Tardis `incremental_book_L2` file streams: its books are rebuilt row after row as
// the whole read rebuilds them, and each instant's quote (and, with its depth kept, the
// book behind it) is handed out as the next instant closes it. The points, accounting,
// errors and books are those of the whole read at every chunk size.
@Suite("Streamed L2 books")
struct L2StreamTests {
  /// Two instruments' books in one file, with bad rows every 97 messages.
  static func file(_ folder: TemporaryFolder, _ name: String, messages: Int, seed: UInt64, badEvery: Int = 97) -> String {
    let rows = TardisL2Generator.rows(exchange: "binance-futures", symbols: ["BTCUSDT", "ETHUSDT"], messages: messages, seed: seed, badEvery: badEvery)
    return folder.write(name, ([TardisL2Generator.header] + rows).joined(separator: "\n") + "\n")
  }

  /// The leg's books handed out by its stream at `rows` points a chunk, joined.
  static func streamedBooks(_ leg: LegSpec, options: IngestOptions, rows: Int) throws -> BookDepth {
    let stream = try #require(try FileQuoteStream.open(leg, options: options))
    var depth = BookDepth()
    while let chunk = try stream.next(maxRows: rows) {
      let books = try #require(chunk.books)
      #expect(books.count == chunk.count)
      depth.append(contentsOf: books)
    }
    return depth
  }

  @Test(arguments: [Clock.local, .exchange])
  func `the points, accounting and errors of the whole read, for each instrument, in a window and across files`(clock: Clock) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.file(folder, "book.csv", messages: 3_000, seed: 11)
    var options = FileQuoteStreamTests.options(folder)
    options.clock = clock
    let whole = try Ingest.read(path: path, options: options)
    #expect(whole.series.count == 2 && whole.series.allSatisfy { $0.count > 500 })
    #expect(whole.report.rowsRejected > 20 && whole.report.rowsBeforeSnapshot > 0 && whole.report.crossedStates > 5)
    for series in whole.series {
      let leg = "\(series.instrument)=\(path)"
      #expect(try FileQuoteStreamTests.check(leg, options: options, "\(leg) \(clock)"))
      let window = TimeWindow(from: series.time[series.count / 3], to: series.time[2 * series.count / 3])
      var windowed = FileQuoteStreamTests.options(folder, window: window)
      windowed.clock = clock
      #expect(try FileQuoteStreamTests.check(leg, options: windowed, "\(leg) \(clock) window"))
    }
    // The same instruments in two files, the second gzipped: each file's books rebuilt
    // from its own rows, as the whole read of the leg does.
    let first = Self.file(folder, "a.csv", messages: 1_500, seed: 12)
    let second = Self.file(folder, "b.csv", messages: 1_500, seed: 13)
    #expect(try runProgram("/bin/sh", ["-c", "gzip '\(second)'"]) == 0)
    #expect(try FileQuoteStreamTests.check("binance:linear:ETHUSDT=\(first),\(second).gz", options: options, "two files \(clock)"))
    // Under `fail`, the first bad row stops the stream where it stops the whole read.
    var failing = IngestOptions()
    failing.clock = clock
    #expect(try FileQuoteStreamTests.check("binance:linear:BTCUSDT=\(path)", options: failing, "fail \(clock)"))
  }

  @Test func `with their depth kept, the books handed out are the whole read's, chunk by chunk`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.file(folder, "book.csv", messages: 3_000, seed: 21)
    for levels in [1, 3, 25] {
      var options = FileQuoteStreamTests.options(folder)
      (options.keepDepth, options.depthLevels) = (true, levels)
      for symbol in ["BTCUSDT", "ETHUSDT"] {
        let leg = try LegSpec(parsing: "binance:linear:\(symbol)=\(path)")
        let whole = try #require(try leg.load(options: options).series.depth)
        #expect(whole.count > 500 && whole.deepest <= levels && whole.deepest >= min(levels, 3))
        #expect(try FileQuoteStreamTests.check("binance:linear:\(symbol)=\(path)", options: options, "\(symbol) depth \(levels)"))
        for rows in FileQuoteStreamTests.chunkSizes {
          #expect(try Self.streamedBooks(leg, options: options, rows: rows) == whole, "\(symbol) depth \(levels) chunk \(rows)")
        }
      }
    }
  }

  @Test func `however many rows are asked, books come a few thousand at a time`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.file(folder, "long.csv", messages: 24_000, seed: 22)
    var options = FileQuoteStreamTests.options(folder)
    options.keepDepth = true
    let leg = try LegSpec(parsing: "binance:linear:BTCUSDT=\(path)")
    let whole = try leg.load(options: options).series
    let stream = try #require(try FileQuoteStream.open(leg, options: options))
    var (counts, time) = ([Int](), [Int64]())
    while let chunk = try stream.next(maxRows: 1 << 16) {
      counts.append(chunk.count)
      time += chunk.time
    }
    #expect(whole.count > 2 * BookChunk.rowsAtATime && time == whole.time)
    #expect(counts.count > 2 && counts.dropLast().allSatisfy { $0 == BookChunk.rowsAtATime } && counts.last! <= BookChunk.rowsAtATime, "\(counts)")
    // Without their depth, the rows asked for.
    options.keepDepth = false
    let plain = try #require(try FileQuoteStream.open(leg, options: options))
    #expect(try plain.next(maxRows: 1 << 16)?.count == whole.count)
  }

  @Test func `counted and drained as the whole read counts and reads it`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = Self.file(folder, "book.csv", messages: 2_000, seed: 31)
    var options = FileQuoteStreamTests.options(folder)
    options.keptErrors = 1_000
    #expect(try FileQuoteStreamTests.checkCount(path, options: options, "count"))
    #expect(try FileQuoteStreamTests.checkDrain(path, options: options, "drain"))
  }
}
