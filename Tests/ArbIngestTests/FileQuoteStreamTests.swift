import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// A leg's CSV and Parquet files streamed a chunk at a time give exactly what
// `LegSpec.load` gives for the whole files: the same points bit for bit, the same row
// accounting, the same errors, at any chunk size, inside a window and across
// consecutive files.
@Suite("File quote stream")
struct FileQuoteStreamTests {
  static let chunkSizes = [1, 7, 300, 1 << 16]

  /// The legs of every fixture that reads: one naming each series the whole read finds,
  /// and the file alone.
  static func legs(_ folder: TemporaryFolder) -> [String] {
    var legs: [String] = []
    for path in StoreTests.sources {
      guard let file = try? Ingest.read(path: path, options: options(folder)) else { continue }
      legs.append(path)
      legs += file.series.map { "\($0.instrument)=\(path)#\($0.field.rawValue)" }
    }
    return legs
  }

  static func options(_ folder: TemporaryFolder, window: TimeWindow? = nil) -> IngestOptions {
    var options = StoreTests.options(folder)
    options.storeColumns = .all
    options.window = window
    return options
  }

  /// Checks the streamed leg `text` against its whole read at each of `chunkSizes`;
  /// returns whether it streamed.
  static func check(_ text: String, options: IngestOptions, _ comment: Comment, chunkSizes: [Int] = chunkSizes) throws -> Bool {
    let leg = try LegSpec(parsing: text)
    let whole = Result { try leg.load(options: options) }
    for rows in chunkSizes {
      let opened = Result { try FileQuoteStream.open(leg, options: options) }
      guard case .success(let stream?) = opened else {
        if case .failure(let error) = opened {
          // The first file's header or first series already fails: as the whole read does.
          guard case .failure(let expected) = whole else { Issue.record("\(comment): streamed \(error), whole read none"); return true }
          #expect("\(error)" == "\(expected)", comment)
          return true
        }
        return false
      }
      switch whole {
      case .failure(let expected):
        #expect(throws: (any Error).self, comment) { _ = try drained(stream, rows: rows) }
        let again = try #require(try FileQuoteStream.open(leg, options: options))
        do {
          _ = try drained(again, rows: rows)
        } catch {
          #expect("\(error)" == "\(expected)", comment)
        }
      case .success(let loaded):
        let streamed = try drained(stream, rows: rows)
        let series = loaded.series
        #expect(streamed.instrument == series.instrument && streamed.field == series.field && streamed.clock == series.clock, comment)
        #expect(streamed.priceSource == series.priceSource, comment)
        #expect(streamed.time == series.time, "\(comment) chunk \(rows)")
        #expect(bits(streamed.bid) == bits(series.bid) && bits(streamed.ask) == bits(series.ask), "\(comment) chunk \(rows)")
        #expect(bits(streamed.bidSize) == bits(series.bidSize) && bits(streamed.askSize) == bits(series.askSize), "\(comment) chunk \(rows)")
        #expect(streamed.otherTime == series.otherTime, "\(comment) chunk \(rows)")
        #expect(stream.reports.count == loaded.reports.count, comment)
        for (a, b) in zip(stream.reports, loaded.reports) { expectSameAccounting(a, b, comment) }
      }
    }
    return true
  }

  static func expectSameAccounting(_ a: IngestReport, _ b: IngestReport, _ comment: Comment) {
    #expect(a.rowsRead == b.rowsRead && a.rowsAccepted == b.rowsAccepted && a.rowsRejected == b.rowsRejected, comment)
    #expect(a.rowsCollapsed == b.rowsCollapsed && a.rowsOutsideWindow == b.rowsOutsideWindow, comment)
    #expect(a.rejectedByKind.map(\.kind) == b.rejectedByKind.map(\.kind), comment)
    #expect(a.rejectedByKind.map(\.count) == b.rejectedByKind.map(\.count), comment)
    #expect(a.instruments.map(\.0) == b.instruments.map(\.0) && a.instruments.map(\.2) == b.instruments.map(\.2), comment)
    #expect(a.firstTime == b.firstTime && a.lastTime == b.lastTime, comment)
    #expect(a.format == b.format && a.quarantinePath == b.quarantinePath, comment)
    #expect(a.rowsBeforeSnapshot == b.rowsBeforeSnapshot && a.crossedStates == b.crossedStates, comment)
  }

  @Test func `every leg of every fixture streams the points and accounting of the whole read`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var streamed = 0
    for leg in Self.legs(folder) where try Self.check(leg, options: Self.options(folder), "\(leg)") { streamed += 1 }
    #expect(streamed >= 30, "most fixture legs stream")
  }

  @Test func `inside a window the stream keeps the points the whole read keeps`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var checked = 0
    for path in StoreTests.sources {
      guard let file = try? Ingest.read(path: path, options: Self.options(folder)), let series = file.series.first, series.count >= 3 else { continue }
      // The middle third, its ends on points (the window's start is inclusive, its end exclusive).
      let window = TimeWindow(from: series.time[series.count / 3], to: series.time[2 * series.count / 3])
      let leg = "\(series.instrument)=\(path)#\(series.field.rawValue)"
      if try Self.check(leg, options: Self.options(folder, window: window), "\(leg) window") { checked += 1 }
    }
    #expect(checked >= 10)
  }

  @Test func `consecutive files join: a first row at the last time replaces it, an earlier one is the whole read's error`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let day = StoreFixture.march1
    let a = StoreFixture.quotes(folder, "a.csv", [day, day + 5, day + 9, day + 9])
    let joined = StoreFixture.quotes(folder, "b.csv", [day + 9, day + 12, day + 20], seed: 3)
    let overlapping = StoreFixture.quotes(folder, "c.csv", [day + 7, day + 30], seed: 5)
    let later = StoreFixture.quotes(folder, "d.csv", [day + 40, day + 41], seed: 7)
    let options = Self.options(folder)
    #expect(try Self.check("aa:spot:BTCUSDC=\(a),\(joined),\(later)", options: options, "join"))
    #expect(try Self.check("aa:spot:BTCUSDC=\(a),\(overlapping)", options: options, "overlap"))
    let window = TimeWindow(from: day + 9, to: day + 41)
    #expect(try Self.check("aa:spot:BTCUSDC=\(a),\(joined),\(later)", options: Self.options(folder, window: window), "join window"))
  }

  @Test func `a series the leg takes only if no exact match follows is decided by a scan, not kept to the end`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let count = FileQuoteStream.undecidedLimit + 5000
    func rows(_ market: String, from start: Int, _ n: Int) -> String {
      (start..<start + n).map { k in "\(StoreFixture.march1 + Int64(k)),aa,\(market),BTCUSDC,100,100.5,1,1,100\n" }.joined()
    }
    // Only the perp: the spot leg takes it, as the whole read does.
    let perp = folder.write("perp.csv", StoreFixture.header + rows("linear", from: 0, count))
    #expect(try Self.check("aa:spot:BTCUSDC=\(perp)", options: IngestOptions(), "partial match only"))
    // The spot market after more perp rows than are kept: the exact match is the one taken.
    let both = folder.write("both.csv", StoreFixture.header + rows("linear", from: 0, count) + rows("spot", from: count, 3000))
    #expect(try Self.check("aa:spot:BTCUSDC=\(both)", options: IngestOptions(), "exact match after the limit"))
    // A bad row after the limit fails the stream as it fails the whole read.
    let bad = folder.write("bad.csv", StoreFixture.header + rows("linear", from: 0, count) + "1709251300000000,aa,linear,BTCUSDC,oops,100.5,1,1,100\n")
    #expect(try Self.check("aa:spot:BTCUSDC=\(bad)", options: IngestOptions(), "bad row after the limit"))
  }

  @Test func `a bad row fails the stream where it fails the whole read`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let rows = (0..<2000).map { k in "\(StoreFixture.march1 + Int64(k)),aa,spot,BTCUSDC,100,100.5,1,1,100\n" }.joined()
    let bad = folder.write("bad.csv", StoreFixture.header + rows + "1709251300000000,aa,spot,BTCUSDC,oops,100.5,1,1,100\n")
    var options = IngestOptions()
    options.storeColumns = .all
    #expect(try Self.check("aa:spot:BTCUSDC=\(bad)", options: options, "bad row"))
    let backwards = folder.write("back.csv", StoreFixture.header + rows + "1709251200000005,aa,spot,BTCUSDC,100,100.5,1,1,100\n")
    #expect(try Self.check("aa:spot:BTCUSDC=\(backwards)", options: options, "backwards"))
  }

  @Test func `every Parquet fixture streams what the whole read gives, typed and as text`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let names = try FileManager.default.contentsOfDirectory(atPath: fixture("parquet")).filter { $0.hasSuffix(".parquet") }.sorted()
    var (checked, streamed) = (0, 0)
    for name in names {
      let path = ParquetTests.parquet(name)
      // The tables of no known format (column spec fixtures) are left out.
      guard let file = try? Ingest.read(path: path, options: Self.options(folder)) else { continue }
      for leg in [path] + file.series.map({ "\($0.instrument)=\(path)#\($0.field.rawValue)" }) {
        for asText in [false, true] {
          var options = Self.options(folder)
          options.parquetAsText = asText
          checked += 1
          if try Self.check(leg, options: options, "\(leg) as text: \(asText)") { streamed += 1 }
        }
      }
      // The middle third of its first series.
      let series = try #require(file.series.first)
      let window = TimeWindow(from: series.time[series.count / 3], to: series.time[2 * series.count / 3])
      #expect(try Self.check("\(series.instrument)=\(path)#\(series.field.rawValue)", options: Self.options(folder, window: window), "\(name) window"))
    }
    #expect(checked >= 40 && streamed == checked, "every Parquet fixture streams, alone and by each of its series")
  }

  @Test func `a Parquet table streams row group by row group: bad rows, other instruments and quarantine as the whole read`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.path + "/bad.parquet"
    try ParquetTypedPathTests.badTable(at: path, groups: 5, rows: 2_400)
    let quarantine = folder.path + "/rejected.csv"
    for symbol in ["BTCUSDT", "ETHUSDT"] {
      let leg = "binance:linear:\(symbol)=\(path)"
      for asText in [false, true] {
        var options = IngestOptions()
        options.storeColumns = .all
        options.parquetAsText = asText
        options.badRows = .skip
        options.keptErrors = 1000
        options.quarantinePath = quarantine
        #expect(try Self.check(leg, options: options, "\(leg) skip, as text: \(asText)"))
        // The quarantine holds the same lines, whichever read wrote it.
        _ = try LegSpec(parsing: leg).load(options: options)
        let whole = try Data(contentsOf: URL(fileURLWithPath: quarantine))
        let stream = try #require(try FileQuoteStream.open(try LegSpec(parsing: leg), options: options))
        _ = try drained(stream, rows: 500)
        #expect(try Data(contentsOf: URL(fileURLWithPath: quarantine)) == whole, "\(leg) quarantine")
        // A symbol the CSV quotes (`A,"B"`) is another instrument's, not a bad row.
        #expect(whole.split(separator: 10).count == 10, "the header and the 9 bad rows of the table")
        options.badRows = .fail
        options.quarantinePath = nil
        #expect(try Self.check(leg, options: options, "\(leg) fail, as text: \(asText)"))
      }
    }
  }

  /// Checks that counting the file `path` (when it streams) reports what its whole read
  /// reports, with the same price sources and quarantine; returns whether it streamed.
  static func checkCount(_ path: String, options: IngestOptions, _ comment: Comment) throws -> Bool {
    let spec = try LegSpec(parsing: path)
    let whole = Result { try Ingest.read(path: path, options: try spec.ingestOptions(options, specOverrides: [])) }
    let quarantine = options.quarantinePath.flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
    let counted: (report: IngestReport, priceSources: [PriceSource])?
    do { counted = try FileQuoteStream.count(spec, options: options) } catch {
      // Counting fails where the whole read fails, with the same error.
      guard case .failure(let expected) = whole else {
        Issue.record("\(comment): counted \(error), the whole read none")
        return true
      }
      #expect("\(error)" == "\(expected)", comment)
      return true
    }
    guard let counted else { return false }
    let file = try whole.get()
    let (a, b) = (counted.report, file.report)
    expectSameAccounting(a, b, comment)
    let (errors, wholeErrors) = (a.errors.map { "\($0)" }, b.errors.map { "\($0)" })
    #expect(a.path == b.path && a.warnings == b.warnings, comment)
    #expect(errors == wholeErrors, comment)
    #expect(a.instruments.map(\.1) == b.instruments.map(\.1), comment)
    #expect(counted.priceSources == file.series.map(\.priceSource), comment)
    if let path = options.quarantinePath { #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) == quarantine, comment) }
    return true
  }

  @Test func `counting a file keeps no point and reports what the whole read reports`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let parquet = try FileManager.default.contentsOfDirectory(atPath: fixture("parquet")).filter { $0.hasSuffix(".parquet") }.sorted().map(ParquetTests.parquet)
    let bad = folder.path + "/bad.parquet"
    try ParquetTypedPathTests.badTable(at: bad, groups: 5, rows: 2_400)
    var (checked, counted) = (0, 0)
    for path in StoreTests.sources + parquet + [bad] {
      var windows: [TimeWindow?] = [nil]
      if let series = (try? Ingest.read(path: path, options: Self.options(folder)))?.series.first, series.count >= 3 {
        windows.append(TimeWindow(from: series.time[series.count / 3], to: series.time[2 * series.count / 3]))
      }
      for window in windows {
        var options = Self.options(folder, window: window)
        options.quarantinePath = folder.path + "/rejected-\(checked).csv"
        checked += 1
        if try Self.checkCount(path, options: options, "\(path) window \(String(describing: window))") { counted += 1 }
      }
    }
    #expect(counted >= 60 && counted < checked, "most files are counted; JSON documents are not (\(counted) of \(checked))")
  }

  /// Every series of a drained file, joined, in the order the sink was told of them.
  struct CollectedSeries: SeriesSink {
    var series: [QuoteSeries] = []

    mutating func begin(_ k: Int, instrument: Instrument, field: SeriesField) {
      #expect(k == series.count, "series are numbered in order")
      series.append(QuoteSeries(instrument: instrument, priceSource: .book, field: field, clock: .local))
    }

    mutating func append(_ k: Int, _ chunk: QuoteChunk) {
      #expect(chunk.count > 0 && (series[k].time.last ?? .min) < chunk.time[0], "chunks ascend after the points before")
      series[k].time += chunk.time
      series[k].otherTime += chunk.otherTime
      series[k].bid += chunk.bid
      series[k].ask += chunk.ask
      series[k].bidSize += chunk.bidSize
      series[k].askSize += chunk.askSize
    }
  }

  /// Checks that draining the file `path` (when it streams; a plain file by pairs of
  /// `segments`) hands out every series of its whole read in one pass bit for bit, with
  /// the same report, price sources and quarantine, at every chunk size of `chunkSizes`;
  /// returns whether it streamed.
  static func checkDrain(
    _ path: String, options: IngestOptions, segments: DrainSegments = DrainSegments(), chunkSizes: [Int] = chunkSizes, _ comment: Comment
  ) throws -> Bool {
    let spec = try LegSpec(parsing: path)
    var onePass = options
    onePass.splitLargeFiles = false
    let whole = Result { try Ingest.read(path: path, options: try spec.ingestOptions(onePass, specOverrides: [])) }
    let quarantine = options.quarantinePath.flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
    for rows in chunkSizes {
      var sink = CollectedSeries()
      let drained: (report: IngestReport, priceSources: [PriceSource])?
      do { drained = try FileQuoteStream.drain(spec, options: options, chunkRows: rows, segments: segments, into: &sink) } catch {
        guard case .failure(let expected) = whole else {
          Issue.record("\(comment): drained \(error), the whole read none")
          return true
        }
        #expect("\(error)" == "\(expected)", comment)
        continue
      }
      guard let drained else { return false }
      let file = try whole.get()
      expectSameAccounting(drained.report, file.report, comment)
      #expect(drained.report.errors.map { "\($0)" } == file.report.errors.map { "\($0)" }, comment)
      #expect(drained.priceSources == file.series.map(\.priceSource), comment)
      #expect(sink.series.count == file.series.count, comment)
      // Numbered as they appeared, which is the whole read's order but for a JSON source's
      // (its series ranked): each series of the whole read is one of the sink's.
      var unmatched = sink.series
      for b in file.series {
        let found = unmatched.firstIndex { a in
          a.instrument == b.instrument && a.field == b.field && a.time == b.time && a.otherTime == b.otherTime && bits(a.bid) == bits(b.bid)
            && bits(a.ask) == bits(b.ask) && bits(a.bidSize) == bits(b.bidSize) && bits(a.askSize) == bits(b.askSize)
        }
        #expect(found != nil, "\(comment) chunk \(rows): \(b.instrument) \(b.field) drained")
        if let found { unmatched.remove(at: found) }
      }
      if RecordFormat(id: file.report.format)?.isJSONLines != true {
        #expect(sink.series.map(\.instrument) == file.series.map(\.instrument), "\(comment): in the whole read's order")
      }
      if let path = options.quarantinePath { #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) == quarantine, comment) }
    }
    return true
  }

  @Test func `draining a file hands out every series the whole read gives, a chunk at a time`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let parquet = try FileManager.default.contentsOfDirectory(atPath: fixture("parquet")).filter { $0.hasSuffix(".parquet") }.sorted().map(ParquetTests.parquet)
    let bad = folder.path + "/bad.parquet"
    try ParquetTypedPathTests.badTable(at: bad, groups: 5, rows: 2_400)
    var (checked, drained, several) = (0, 0, 0)
    for path in StoreTests.sources + parquet + [bad] {
      var windows: [TimeWindow?] = [nil]
      let file = try? Ingest.read(path: path, options: Self.options(folder))
      if let series = file?.series.first, series.count >= 3 {
        windows.append(TimeWindow(from: series.time[series.count / 3], to: series.time[2 * series.count / 3]))
      }
      for window in windows {
        var options = Self.options(folder, window: window)
        options.quarantinePath = folder.path + "/rejected-\(checked).csv"
        checked += 1
        if try Self.checkDrain(path, options: options, "\(path) window \(String(describing: window))") {
          drained += 1
          if (file?.series.count ?? 0) > 1 { several += 1 }
        }
        // A plain file by pairs of segments of a few lines, on two threads.
        let segments = DrainSegments(bytes: 97, minimumFileBytes: 0)
        _ = try Self.checkDrain(path, options: options, segments: segments, chunkSizes: [7], "\(path) window \(String(describing: window)) in segments")
      }
    }
    #expect(drained >= 60 && drained < checked, "most files drain (\(drained) of \(checked))")
    #expect(several >= 4, "files of more than one series drain (\(several))")
  }

  @Test func `a leg naming none of several instruments, or finding none, fails as the whole read: every instrument listed, bad rows first and quarantined`()
    throws
  {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    func rows(_ symbols: [String], from start: Int, _ n: Int) -> String {
      (start..<start + n).map { k in "binance-futures,\(symbols[k % symbols.count]),\(1_700_000_000_000_000 + k),\(1_700_000_000_000_000 + k),1,100.5,100,1\n" }
        .joined()
    }
    // A third instrument after 5,000 rows of two; a bad row after it; every row bad.
    let three = folder.write("three.csv", header + rows(["BTCUSDT", "ETHUSDT"], from: 0, 5_000) + rows(["SOLUSDT"], from: 5_000, 10))
    let bad = folder.write("bad.csv", header + rows(["BTCUSDT", "ETHUSDT"], from: 0, 5_000) + "binance-futures,ETHUSDT,oops,1,1,100.5,100,1\n")
    let allBad = folder.write("all-bad.csv", header + rows(["BTCUSDT"], from: 0, 50).replacingOccurrences(of: ",100.5,", with: ",x,"))
    // Another venue's BTCUSDT, more of it than is kept undecided, then a bad row: a scan decides.
    let otherVenue = folder.write(
      "other-venue.csv", header + rows(["BTCUSDT"], from: 0, FileQuoteStream.undecidedLimit + 100) + "binance-futures,BTCUSDT,oops,1,1,100.5,100,1\n")
    let cases = [
      (three, false), (bad, false), (bad, true), ("binance:linear:BTCUSDT=\(allBad)", true), ("bybit:linear:BTCUSDT=\(otherVenue)", true),
      ("bybit:linear:BTCUSDT=\(otherVenue)", false),
    ]
    for (leg, skip) in cases {
      var options = IngestOptions()
      options.badRows = skip ? .skip : .fail
      options.quarantinePath = folder.path + "/rejected.csv"
      let spec = try LegSpec(parsing: leg)
      try? FileManager.default.removeItem(atPath: options.quarantinePath!)
      let whole = Result { try spec.load(options: options) }
      let quarantine = try? Data(contentsOf: URL(fileURLWithPath: options.quarantinePath!))
      try? FileManager.default.removeItem(atPath: options.quarantinePath!)
      let streamed = Result { try FileQuoteStream.open(spec, options: options).map { try drained($0, rows: 100) } }
      guard case .failure(let expected) = whole, case .failure(let error) = streamed else {
        Issue.record("\(leg) skip \(skip): both reads fail")
        continue
      }
      #expect("\(error)" == "\(expected)", "\(leg) skip \(skip)")
      #expect((try? Data(contentsOf: URL(fileURLWithPath: options.quarantinePath!))) == quarantine, "\(leg) skip \(skip): the same quarantine")
      #expect((quarantine != nil) == skip, "\(leg) skip \(skip)")
    }
  }

  @Test func `sources that cannot stream in order are left to the whole read`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = StoreFixture.quotes(folder, "q.csv", [StoreFixture.march1, StoreFixture.march1 + 1])
    var sorted = IngestOptions()
    sorted.sort = true
    #expect(try FileQuoteStream.open(try LegSpec(parsing: path), options: sorted) == nil, "--sort")
    let json = fixture("XRP_USDT_USDT-1h-mark.json")
    #expect(try FileQuoteStream.open(try LegSpec(parsing: json), options: IngestOptions()) == nil, "JSON")
    #expect(try FileQuoteStream.open(try LegSpec(parsing: path), options: IngestOptions()) != nil)
  }
}
