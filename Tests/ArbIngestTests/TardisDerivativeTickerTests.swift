import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Tardis.dev `derivative_ticker`. The fixture is hand-made from the documented layout
// (sources.md §1.5, the header as Tardis writes it): two instruments interleaved,
// values left empty as the venues' ticker feeds leave them, a negative and a zero
// funding rate, and a row with no value read (only open interest). The expected
// series come from an independent split of the file text below.

@Suite("Tardis derivative_ticker")
struct TardisDerivativeTickerTests {
  static let path = fixture("tardis_derivative_ticker_hand-made.csv")
  /// Columns of the fields read, by series field.
  static let columns: [(SeriesField, Int)] = [(.price, 8), (.mark, 10), (.index, 9), (.fundingRate, 5)]

  /// The oracle: per (symbol, field), the (time, value) of every non-empty value.
  static func expected(timeColumn: Int) throws -> [String: [(Int64, Double)]] {
    var points: [String: [(Int64, Double)]] = [:]
    for line in try textLines(path).dropFirst() where !line.isEmpty {
      let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      for (field, column) in columns where !f[column].isEmpty {
        points["\(f[1]) \(field.rawValue)", default: []].append((Int64(f[timeColumn])!, Double(f[column])!))
      }
    }
    return points
  }

  @Test("each row feeds up to four series per instrument; an empty value adds no point", arguments: [Clock.local, .exchange])
  func series(clock: Clock) throws {
    var options = IngestOptions()
    options.clock = clock
    let file = try Ingest.read(path: Self.path, options: options)
    #expect(file.report.format == "tardis.derivative_ticker")
    #expect(file.report.rowsRead == 7 && file.report.rowsAccepted == 7 && file.report.rowsRejected == 0)
    let binance = Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT")
    let okx = Instrument(venue: "okx", market: .linear, symbol: "BTC-USDT-SWAP")
    let fields: [SeriesField] = [.price, .mark, .index, .fundingRate]
    #expect(file.series.map(\.instrument) == Array(repeating: binance, count: 4) + Array(repeating: okx, count: 4))
    #expect(file.series.map(\.field) == fields + fields)
    #expect(file.report.instruments.map(\.rows) == [3, 3, 3, 3, 2, 2, 1, 2])
    #expect(file.report.instruments.map(\.field) == file.series.map(\.field))
    let expected = try Self.expected(timeColumn: clock == .local ? 3 : 2)
    for s in file.series {
      let points = try #require(expected["\(s.instrument.symbol) \(s.field.rawValue)"])
      #expect(s.time == points.map(\.0) && s.bid == points.map(\.1) && s.ask == s.bid, "\(s.instrument) \(s.field)")
      #expect(s.priceSource == .last && s.clock == clock && s.otherTime.count == s.count)
      #expect(s.fundingInterval.isEmpty)
    }
    let funding = try #require(file.series.last)
    #expect(funding.bid == [-0.00003127, 0], "signed and zero rates are kept")
    // Named, and gzip-compressed: the same columns.
    options.format = RecordFormat(id: "tardis.derivative_ticker")
    #expect(options.format == .tardisDerivativeTicker)
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let gz = try gzip(folder.write("d.csv", try Data(contentsOf: URL(fileURLWithPath: Self.path))))
    for other in [try Ingest.read(path: Self.path, options: options), try Ingest.read(path: gz, options: options)] {
      #expect(other.series.count == 8 && zip(other.series, file.series).allSatisfy { sameColumns($0, $1) && $0.field == $1.field })
    }
  }

  static let header = TardisDerivativeTicker.header
  static let good = "binance-futures,BTCUSDT,1,100,,0.0001,,,93510.1,93498.7,93505.4"

  /// Bad rows, on line 3: the reason and the column where the field starts.
  static let badRows: [(row: String, reason: IngestError.Reason, column: Int)] = [
    ("binance-futures,BTCUSDT,2,200,,0.0001,,,93510.1,93498.7,-1", .nonPositivePrice(column: "mark_price", text: "-1"), 57),
    ("binance-futures,BTCUSDT,2,200,,abc,,,93510.1,93498.7,93505.4", .invalidNumber(column: "funding_rate", text: "abc"), 32),
    ("binance-futures,BTCUSDT,2,200,,nan,,,,,", .nonFinite(column: "funding_rate", text: "nan"), 32),
    ("binance-futures,BTCUSDT,2,200,,0.0001,,,0,,", .nonPositivePrice(column: "last_price", text: "0"), 41),
    ("binance-futures,BTCUSDT,2,200,,0.0001,,,93510.1,93498.7", .wrongFieldCount(expected: 11, found: 10), 56),
    // Backwards for its instrument, though it carries only a funding rate.
    ("binance-futures,BTCUSDT,2,50,,0.0001,,,,,", .timestampNotIncreasing(previous: 100, found: 50), 27),
  ]

  @Test("a bad row: fail throws it at line:column, skip counts the row once", arguments: badRows)
  func badRow(c: (row: String, reason: IngestError.Reason, column: Int)) throws {
    let text = Self.header + "\n" + Self.good + "\n" + c.row + "\nbinance-futures,BTCUSDT,3,300,,-0.0002,,,,,\n"
    let error = #expect(throws: IngestError.self) { try ingest(text) }
    #expect(error?.reason == c.reason)
    #expect(error?.position.line == 3 && error?.position.column == c.column)
    var options = IngestOptions()
    options.badRows = .skip
    let file = try ingest(text, options: options)
    #expect(file.report.rowsRead == 3 && file.report.rowsAccepted == 2 && file.report.rowsRejected == 1)
    // No value of the rejected row reaches any series.
    #expect(file.series.map(\.count) == [1, 1, 1, 2])
    #expect(file.series.last?.bid == [0.0001, -0.0002])
  }

  @Test("another instrument going back in time is not out of order")
  func orderPerInstrument() throws {
    let text = Self.header + "\n" + Self.good + "\nokex-swap,BTC-USDT-SWAP,1,50,,0.0003,,,,,\n"
    let file = try ingest(text)
    #expect(file.report.rowsAccepted == 2 && file.series.last?.time == [50] && file.series.last?.field == .fundingRate)
  }
}

extension TardisDerivativeTickerTests {
  /// `rows` generated ticker rows of two instruments, each value empty one time in three.
  static func generated(rows: Int, seed: UInt64) -> String {
    var rng = SplitMix64(seed: seed)
    var text = header + "\n"
    var time: Int64 = 1_735_689_600_000_000
    for i in 0..<rows {
      time += Int64(1 + rng.next() % 1000)
      let (exchange, symbol) = i % 2 == 0 ? ("binance-futures", "BTCUSDT") : ("bybit", "ETHUSDT")
      func value(_ text: String) -> String { rng.next() % 3 == 0 ? "" : text }
      let rate = value(String(Double(Int64(rng.next() % 200) - 100) / 1_000_000))
      let last = value(String(90000 + Double(rng.next() % 10000) / 10))
      let index = value(String(90000 + Double(rng.next() % 10000) / 10))
      let mark = value(String(90000 + Double(rng.next() % 10000) / 10))
      text += "\(exchange),\(symbol),\(time - 2000),\(time),,\(rate),,,\(last),\(index),\(mark)\n"
    }
    return text
  }

  @Test("read as two halves: the same series, field by field, as in one pass")
  func twoHalves() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("ticker.csv", Self.generated(rows: 5000, seed: 11))
    let size = try FileSource(path: path).size
    let one = try Ingest.readSequentially(path: path, options: IngestOptions(), size: size)
    var halves = try #require(try Ingest.readInTwoHalves(PlainFile(path: path, count: size), options: IngestOptions()))
    let two = try halves.finish()
    #expect(one.report.rowsRead == 5000 && two.report.rowsRead == 5000 && two.report.rowsAccepted == 5000)
    #expect(one.series.count == 8 && two.series.count == 8)
    #expect(one.report.instruments.map(\.rows) == two.report.instruments.map(\.rows))
    for (x, y) in zip(one.series, two.series) {
      #expect(x.field == y.field && sameColumns(x, y))
    }
    // Every point is a value of the text: no row lost at the boundary.
    let points = one.series.reduce(0) { $0 + $1.count }
    let values = try textLines(path).dropFirst().filter { !$0.isEmpty }.reduce(0) { count, line in
      let f = line.split(separator: ",", omittingEmptySubsequences: false)
      return count + [5, 8, 9, 10].filter { !f[$0].isEmpty }.count
    }
    #expect(points == values)
  }
}

extension TardisDerivativeTickerTests {
  @Test("a row going back across the halves' boundary is caught whichever series it feeds")
  func twoHalvesBoundary() throws {
    // One instrument, fixed-width rows: only a last price before the boundary, only a
    // funding rate after it, and the first row after it goes back 500 µs.
    func row(_ time: Int64, funding: Bool) -> String {
      "binance-futures,BTCUSDT,\(time - 2),\(time),,\(funding ? "0.00010" : ""),,,\(funding ? "" : "93500.1"),,\n"
    }
    let count = 2000
    let lines = (0..<count).map { row(1_735_689_600_000_000 + Int64($0) * 1000, funding: false) }
    let head = Self.header + "\n"
    let size = head.utf8.count + lines.reduce(0) { $0 + $1.utf8.count }
    // The first line after the middle, as `readInTwoHalves` splits.
    var offset = head.utf8.count, split = 0
    while offset < size / 2 + 1 { offset += lines[split].utf8.count; split += 1 }
    var edited = lines
    for k in split..<count { edited[k] = row(1_735_689_600_000_000 + Int64(k) * 1000, funding: true) }
    edited[split] = row(1_735_689_600_000_000 + Int64(split - 1) * 1000 - 500, funding: true)
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("ticker.csv", head + edited.joined())
    #expect(try FileSource(path: path).size == size)
    #expect(try Ingest.readInTwoHalves(PlainFile(path: path, count: size), options: IngestOptions()) == nil, "falls back to one pass")
    let error = #expect(throws: IngestError.self) { try Ingest.readSequentially(path: path, options: IngestOptions(), size: size) }
    #expect(error?.position.line == split + 2)
    #expect(error?.reason.kind == "timestamp_backwards")
  }
}
