import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

#if canImport(Glibc)
import Glibc
#endif

// The store: a round trip gives back every column bit for bit, quotes land in the
// partition of their UTC day, appending leaves the partitions there untouched, and a
// changed source, a conflicting one or a damaged partition is refused with its file.
@Suite("Store")
struct StoreTests {
  typealias F = StoreFixture

  /// Every fixture that reads (bad rows skipped), and the two demo recordings.
  static var sources: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: fixture(""))) ?? []
    return names.sorted().map { fixture($0) } + [
      Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz"), Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv"),
    ]
  }

  static func options(_ folder: TemporaryFolder) -> IngestOptions {
    var options = IngestOptions()
    options.badRows = .skip
    options.quarantinePath = folder.path + "/rejected.csv"
    return options
  }

  @Test func `xxh64 matches the published test vectors`() {
    let vectors: [(String, UInt64)] = [
      ("", 0xEF46_DB37_51D8_E999), ("a", 0xD24E_C4F1_A98C_6E5B), ("abc", 0x44BC_2CF5_AD77_0999),
      ("Nobody inspects the spammish repetition", 0xFBCE_A83C_8A37_8BF1),
    ]
    for (text, expected) in vectors {
      #expect(Array(text.utf8).withUnsafeBytes { XXHash64.hash($0) } == expected, "\(text)")
    }
  }

  @Test func `xxh64 read in blocks is the hash of the whole, each block's end told once`() {
    var random = SplitMix64(seed: 9)
    for n in [0, 31, 32, 33, 95, 96, 97, 1_000, 4_127] {
      let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      bytes.withUnsafeBytes { raw in
        let whole = XXHash64.hash(raw, block: 1 << 22)
        for block in [32, 64, 96] {
          var ends: [Int] = []
          #expect(XXHash64.hash(raw, block: block) { ends.append($0) } == whole, "\(n) bytes in blocks of \(block)")
          // Every block's end, the last at the end of the whole stripes (the tail is hashed after).
          let stripes = n - n % 32
          #expect(ends == (stripes == 0 ? [] : Array(stride(from: block, to: stripes, by: block)) + [stripes]), "\(n) \(block)")
        }
      }
    }
  }

  /// A column added to `QuoteSeries` must be added to the store too, or it would be
  /// lost on the round trip without an error.
  @Test func `the store keeps every column of QuoteSeries`() {
    let series = QuoteSeries(instrument: Instrument(venue: "v", market: .spot, symbol: "s"), priceSource: .book)
    let columns = Mirror(reflecting: series).children.compactMap { child -> String? in
      guard child.value is [Int64] || child.value is [Double], let label = child.label else { return nil }
      return label.reduce(into: "") { name, c in name += c.isUppercase ? "_" + c.lowercased() : String(c) }
    }
    #expect(columns.count >= 6)
    #expect(Set(columns) == Set(StoreColumn.all.map(\.name)))
  }

  @Test func `every series of every fixture comes back bit for bit, with its accounting`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var checked = 0
    var sawRejected = false
    for (k, path) in Self.sources.enumerated() {
      guard let direct = try? Ingest.read(path: path, options: Self.options(folder)) else { continue }
      let store = folder.path + "/s\(k)"
      try F.convert([path], into: store, options: Self.options(folder))
      let stored = try Ingest.read(path: store)
      #expect(stored.series.count == direct.series.count, "\(path)")
      for (a, b) in zip(direct.series, stored.series) {
        #expect(sameColumns(a, b), "\(path) \(a.instrument)")
        #expect(a.field == b.field && a.clock == b.clock && a.fundingInterval == b.fundingInterval, "\(path)")
      }
      let report = stored.report
      #expect(report.format == "store" && report.warnings.isEmpty)
      #expect(report.rowsRead == direct.report.rowsRead && report.rowsAccepted == direct.report.rowsAccepted, "\(path)")
      #expect(report.rowsRejected == direct.report.rowsRejected && report.rowsCollapsed == direct.report.rowsCollapsed, "\(path)")
      #expect(report.rejectedByKind.map(\.count) == direct.report.rejectedByKind.map(\.count), "\(path)")
      #expect(report.instruments.map(\.rows) == direct.series.map(\.count), "\(path)")
      #expect(report.firstTime == direct.report.firstTime && report.lastTime == direct.report.lastTime, "\(path)")
      sawRejected = sawRejected || direct.report.rowsRejected > 0
      checked += 1
    }
    #expect(checked >= 20, "most fixtures read")
    #expect(sawRejected, "a file with rejected rows is among them")
  }

  @Test("every fixture streamed into a store makes the bytes the whole read makes", arguments: [1, 7, 300])
  func streamedConvert(chunkRows: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var (checked, failed) = (0, 0)
    for (k, path) in Self.sources.enumerated() where !path.hasSuffix("/json") && !path.hasSuffix("/parquet") {
      let (whole, streamed) = (folder.path + "/w\(k)", folder.path + "/s\(k)")
      try? FileManager.default.removeItem(atPath: folder.path + "/rejected.csv")
      let expected = Result { try F.convert([path], into: whole, options: Self.options(folder)) }
      let quarantine = try? Data(contentsOf: URL(fileURLWithPath: folder.path + "/rejected.csv"))
      try? FileManager.default.removeItem(atPath: folder.path + "/rejected.csv")
      do {
        try F.convert([path], into: streamed, options: Self.options(folder), chunkRows: chunkRows)
      } catch {
        guard case .failure(let wholeError) = expected else { Issue.record("\(path): streamed \(error), whole none"); continue }
        #expect("\(error)" == "\(wholeError)", "\(path)")
        failed += 1
        continue
      }
      _ = try expected.get()
      let (a, b) = (F.snapshot(whole), F.snapshot(streamed))
      #expect(a.keys.sorted() == b.keys.sorted(), "\(path)")
      for (name, file) in a { #expect(b[name]?.0 == file.0, "\(path): \(name)") }
      #expect((try? Data(contentsOf: URL(fileURLWithPath: folder.path + "/rejected.csv"))) == quarantine, "\(path): the quarantine")
      checked += 1
    }
    #expect(checked >= 20 && failed > 0, "\(checked) fixtures converted alike, \(failed) failing alike")
  }

  @Test func `a file of two series over three days streams into the partitions the whole read makes`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Two instruments interleaved, two rows at each time to collapse, a bad row, rows at midnights.
    var lines = [F.header.dropLast().description]
    for k in 0..<3_000 {
      let t = F.march1 + Int64(k / 4) * 345_600_000
      let venue = k % 2 == 0 ? "aa" : "bb"
      lines.append(k == 1_234 ? "\(t),aa,spot,BTCUSDC,x,1,1,1," : "\(t),\(venue),spot,BTCUSDC,\(100 + k % 13),\(101 + k % 13),1,2,")
    }
    lines.append("\(F.march1 + 3 * F.day),aa,spot,BTCUSDC,100,101,1,2,")
    let path = folder.write("two.csv", lines.joined(separator: "\n") + "\n")
    try F.convert([path], into: folder.path + "/whole", options: Self.options(folder))
    for chunkRows in [1, 5, 1_000] {
      let store = folder.path + "/streamed-\(chunkRows)"
      try F.convert([path], into: store, options: Self.options(folder), chunkRows: chunkRows)
      let (a, b) = (F.snapshot(folder.path + "/whole"), F.snapshot(store))
      #expect(a.keys.sorted() == b.keys.sorted())
      for (name, file) in a { #expect(b[name]?.0 == file.0, "\(chunkRows): \(name)") }
    }
    let read = try Ingest.read(path: folder.path + "/whole")
    #expect(read.series.count == 2 && read.report.rowsRejected == 1 && read.report.rowsCollapsed > 0)
    #expect(F.snapshot(folder.path + "/whole").keys.filter { $0.hasSuffix("partition.json") }.count == 7, "4 days of aa, 3 of bb")
  }

  @Test func `skipping the sizes and the other clock leaves every other column as it was`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let source = fixture("BTCUSDT-bookTicker-2024-03-01.csv")
    let direct = try Ingest.read(path: source).series[0]
    try F.convert([source], into: folder.path + "/store")
    var options = IngestOptions()
    options.storeColumns = .skippingSizesAndOtherClock
    let partial = try Ingest.read(path: folder.path + "/store", options: options).series[0]
    #expect(!direct.otherTime.isEmpty && !direct.bidSize.isEmpty)
    #expect(partial.bidSize.isEmpty && partial.askSize.isEmpty && partial.otherTime.isEmpty)
    #expect(partial.time == direct.time && bits(partial.bid) == bits(direct.bid) && bits(partial.ask) == bits(direct.ask))
  }

  @Test func `a funding-rate series keeps its signed rates and per-point intervals`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Binance fundingRate: the interval changes from 8 h to 4 h; one rate is negative.
    let path = folder.write(
      "BTCUSDT-fundingRate-2025-01.csv",
      "calc_time,funding_interval_hours,last_funding_rate\n1735689600001,8,0.00010000\n1735718400003,8,-0.00002500\n1735732800000,4,0\n")
    let direct = try Ingest.read(path: path)
    let interval = direct.series[0].fundingInterval
    #expect(interval == [8, 8, 4].map { Int64($0) * 3_600_000_000 })
    try F.convert([path], into: folder.path + "/store")
    let stored = try Ingest.read(path: folder.path + "/store").series[0]
    #expect(stored.field == .fundingRate && stored.fundingInterval == interval)
    #expect(stored.bid == [0.0001, -0.000025, 0] && stored.time == direct.series[0].time)
  }

  /// Hand-worked: the last µs of a day stays in it, a quote exactly at midnight starts
  /// the next day, and a day without quotes has no partition.
  @Test func `quotes land in the partition of their UTC day`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let times = [F.march1 + 1, F.march1 + F.day - 1, F.march1 + F.day, F.march1 + F.day + 5, F.march1 + 3 * F.day]
    let source = F.quotes(folder, "q.csv", times)
    let store = folder.path + "/store"
    try F.convert([source], into: store)
    let series = try #require(try Store.open(path: store).series.first)
    #expect(series.partitions.map(\.day) == ["2024-03-01", "2024-03-02", "2024-03-04"])
    #expect(series.partitions.map(\.rows) == [2, 2, 1])
    #expect(series.partitions.map(\.firstTime) == [times[0], times[2], times[4]])
    #expect(series.partitions.map(\.lastTime) == [times[1], times[3], times[4]])
    #expect(series.partitions[1].path == store + "/aa/spot/BTCUSDC/price/2024-03-02")
    let day2 = try Data(contentsOf: URL(fileURLWithPath: series.partitions[1].path + "/time.i64"))
    #expect(day2.withUnsafeBytes { Array($0.bindMemory(to: Int64.self)) } == [times[2], times[3]])
    #expect(sameColumns(try Store.open(path: store).read(series), try Ingest.read(path: source).series[0]))
  }

  @Test func `the partition.json and store.json say what numpy needs`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let source = fixture("BTCUSDT-bookTicker-2024-03-01.csv")
    let file = try Ingest.read(path: source)
    let store = folder.path + "/store"
    try F.convert([source], into: store)
    let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store + "/store.json"))) as? [String: Any])
    #expect(manifest["format"] as? String == "arbkit.store" && manifest["version"] as? Int == 1 && manifest["clock"] as? String == "local")
    let sources = try #require(manifest["sources"] as? [[String: Any]])
    let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
    #expect(sources[0]["size"] as? Int == bytes.count && sources[0]["rows_read"] as? Int == file.report.rowsRead)
    let hex = String(bytes.withUnsafeBytes { XXHash64.hash($0) }, radix: 16)
    #expect(sources[0]["checksum"] as? String == "xxh64:" + String(repeating: "0", count: 16 - hex.count) + hex)
    let folderName = "binance/spot/BTCUSDT/price/2024-03-01"
    let partitionPath = store + "/" + folderName + "/partition.json"
    let partition = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: partitionPath))) as? [String: Any])
    let series = file.series[0]
    #expect(partition["rows"] as? Int == series.count && partition["day"] as? String == "2024-03-01")
    #expect(partition["first_ts_us"] as? Int64 == series.time.first && partition["last_ts_us"] as? Int64 == series.time.last)
    let columns = try #require(partition["columns"] as? [[String: String]])
    #expect(columns.map { $0["name"]! } == ["time", "other_time", "bid", "ask", "bid_size", "ask_size"])
    for column in columns {
      let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: store + "/" + folderName + "/" + column["file"]!)))
      let words = (0..<series.count).map { k in (0..<8).reduce(UInt64(0)) { $0 | UInt64(raw[8 * k + $1]) << (8 * $1) } }
      #expect(raw.count == series.count * 8)
      switch column["name"]! {
      case "time": #expect(column["dtype"] == "<i8" && words == series.time.map { UInt64(bitPattern: $0) })
      case "other_time": #expect(column["dtype"] == "<i8" && words == series.otherTime.map { UInt64(bitPattern: $0) })
      case "bid": #expect(column["dtype"] == "<f8" && words == bits(series.bid))
      case "ask": #expect(column["dtype"] == "<f8" && words == bits(series.ask))
      case "bid_size": #expect(words == bits(series.bidSize))
      default: #expect(words == bits(series.askSize))
      }
    }
  }

  @Test func `numpy.memmap reads a column as stored`() throws {
    guard (try? runProgram("/usr/bin/env", ["python3", "-c", "import numpy"])) == 0 else { return }  // numpy missing: nothing to check
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let times = (0..<50).map { F.march1 + Int64($0) * 3_600_000_000 }  // 50 hours: three days
    let source = F.quotes(folder, "q.csv", times)
    let store = folder.path + "/store"
    try F.convert([source], into: store)
    let bids = try Ingest.read(path: source).series[0].bid
    // Each day's bids through numpy.memmap with the dtype and rows of partition.json, joined.
    let script = """
      import json, sys, numpy as np
      store = json.load(open(sys.argv[1] + '/store.json'))
      s = store['series'][0]
      out = []
      for p in s['partitions']:
          folder = sys.argv[1] + '/' + s['folder'] + '/' + p['day']
          meta = json.load(open(folder + '/partition.json'))
          c = {c['name']: c for c in meta['columns']}['bid']
          out.append(np.memmap(folder + '/' + c['file'], dtype=c['dtype'], mode='r', shape=(meta['rows'],)))
      np.concatenate(out).tofile(sys.argv[2])
      """
    #expect(try runProgram("/usr/bin/env", ["python3", "-c", script, store, folder.path + "/bids.bin"]) == 0)
    let read = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/bids.bin"))
    #expect(read.withUnsafeBytes { bits(Array($0.bindMemory(to: Double.self))) } == bits(bids))
  }

  @Test func `appending a second day adds one partition and leaves the first's files as they were`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let first = F.quotes(folder, "day1.csv", (0..<10).map { F.march1 + Int64($0) * 60_000_000 })
    let second = F.quotes(folder, "day2.csv", (0..<12).map { F.march1 + F.day + Int64($0) * 60_000_000 }, seed: 3)
    let store = folder.path + "/store"
    try F.convert([first], into: store)
    let before = F.snapshot(store + "/aa/spot/BTCUSDC/price/2024-03-01")
    #expect(before.count == 6)
    Thread.sleep(forTimeInterval: 0.01)
    #expect(try F.convert([second], into: store) == [true])
    let after = F.snapshot(store + "/aa/spot/BTCUSDC/price/2024-03-01")
    #expect(after.keys.sorted() == before.keys.sorted())
    for (name, (data, date)) in before { #expect(after[name]?.0 == data && after[name]?.1 == date, "\(name)") }
    let opened = try Store.open(path: store)
    #expect(opened.series.count == 1 && opened.series[0].partitions.map(\.day) == ["2024-03-01", "2024-03-02"])
    let direct = try [first, second].map { try Ingest.read(path: $0).series[0] }
    let whole = try opened.read(opened.series[0])
    #expect(whole.time == direct[0].time + direct[1].time && bits(whole.bid) == bits(direct[0].bid + direct[1].bid))
    let report = try Ingest.read(path: store).report
    #expect(report.rowsRead == 22 && report.rowsAccepted == 22 && report.instruments.map(\.rows) == [22])
  }

  @Test func `converting an unchanged source again changes nothing`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let source = F.quotes(folder, "q.csv", [F.march1, F.march1 + F.day])
    let store = folder.path + "/store"
    try F.convert([source], into: store)
    let before = F.snapshot(store)
    Thread.sleep(forTimeInterval: 0.01)
    #expect(try F.convert([source], into: store) == [false])
    let after = F.snapshot(store)
    #expect(after.keys.sorted() == before.keys.sorted())
    for (name, (data, date)) in before { #expect(after[name]?.0 == data && after[name]?.1 == date, "\(name)") }
    let names = try FileManager.default.contentsOfDirectory(atPath: store).sorted()
    #expect(names == ["aa", "store.json"], "no staging folder is left")
  }

  @Test func `a source with other quotes of a stored day is refused; one with the same quotes adds nothing`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let times = (0..<5).map { F.march1 + Int64($0) * 1_000_000 }
    let source = F.quotes(folder, "a.csv", times)
    let store = folder.path + "/store"
    try F.convert([source], into: store)
    let before = F.snapshot(store)
    // Other quotes of the same day (no time in common): refused, nothing written.
    let other = F.quotes(folder, "b.csv", times.map { $0 + 500_000 })
    let error = try #require(throws: StoreError.self) { try F.convert([other], into: store) }
    guard case .conflict(let partition, let named, let reason) = error else { Issue.record("\(error)"); return }
    #expect(partition == store + "/aa/spot/BTCUSDC/price/2024-03-01" && named.hasSuffix("/b.csv"))
    #expect(reason.contains("holds 5 quotes of aa:spot:BTCUSDC (price) on 2024-03-01, the store 5 other ones from "), "\(reason)")
    #expect("\(error)".hasSuffix("; nothing was added"))
    #expect(F.snapshot(store).keys.sorted() == before.keys.sorted())
    // The same quotes (other line endings, so another file): nothing stored twice.
    let text = try String(contentsOfFile: source, encoding: .utf8)
    let copy = folder.write("c.csv", text.split(separator: "\n").joined(separator: "\r\n") + "\r\n")
    #expect(try F.convert([copy], into: store) == [true])
    let read = try Ingest.read(path: store)
    #expect(read.series[0].time == times)
    #expect(read.report.rowsAccepted == 10 && read.report.rowsCollapsed == 5, "the copy's rows count as collapsed")
  }

  @Test func `a series already stored with another price source is refused`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let store = folder.path + "/store"
    try F.convert([F.quotes(folder, "a.csv", [F.march1])], into: store)
    let transaction = try StoreTransaction(path: store, clock: .local)
    let source = F.quotes(folder, "b.csv", [F.march1 + F.day])
    #expect(try transaction.beginSource(path: source))
    // A streamed source knows its price source at its end: the series is checked there.
    let file = try Ingest.read(path: source)
    try transaction.writer(instrument: file.series[0].instrument, field: .price, priceSource: .last).append(file.series[0])
    let error = try #require(throws: StoreError.self) { try transaction.endSource(report: file.report) }
    #expect("\(error)".contains("has last prices of aa:spot:BTCUSDC (price), the store book prices"), "\(error)")
  }

  @Test func `a source that changed makes the store stale; a touched or missing one does not`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let source = F.quotes(folder, "q.csv", [F.march1, F.march1 + 1])
    let store = folder.path + "/store"
    try F.convert([source], into: store)
    var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, source, &times, 0) == 0)
    #expect(try Ingest.read(path: store).series[0].count == 2, "same bytes, new mtime: still fresh")
    let text = try String(contentsOfFile: source, encoding: .utf8)
    try text.replacingOccurrences(of: "100.5,", with: "100.6,").write(toFile: source, atomically: false, encoding: .utf8)
    let error = try #require(throws: StoreError.self) { try Ingest.read(path: store) }
    guard case .stale(_, let changed, let change) = error else { Issue.record("\(error)"); return }
    #expect(changed.hasSuffix("/q.csv") && change.hasPrefix("checksum xxh64:"), "\(change)")
    #expect(throws: StoreError.self) { try StoreTransaction(path: store, clock: .local) }
    try (text + "\(F.march1 + 2),aa,spot,BTCUSDC,1,2,1,1,1\n").write(toFile: source, atomically: false, encoding: .utf8)
    #expect("\(try #require(throws: StoreError.self) { try Ingest.read(path: store) })".contains("(size "))
    try FileManager.default.removeItem(atPath: source)
    let kept = try Ingest.read(path: store)
    #expect(kept.series[0].count == 2 && kept.report.warnings.count == 1 && kept.report.warnings[0].contains("is missing"))
  }

  /// A store of three days (one partition each, 4 quotes a day): its path and the series.
  static func threeDays(_ folder: TemporaryFolder) throws -> (store: String, source: String, partitions: [String]) {
    let times = (0..<3).flatMap { d in (0..<4).map { F.march1 + Int64(d) * F.day + Int64($0) * 3_600_000_000 } }
    let source = F.quotes(folder, "q.csv", times)
    let store = folder.path + "/store"
    try F.convert([source], into: store)
    return (store, source, try Store.open(path: store).series[0].partitions.map(\.path))
  }

  @Test func `a truncated, padded or wrongly timed partition is named`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (store, _, partitions) = try Self.threeDays(folder)
    let bid = partitions[1] + "/bid.f64"
    #expect(truncate(bid, 20) == 0)
    #expect(throws: StoreError.corrupt(file: bid, reason: "truncated: 20 bytes, expected 4 rows × 8 = 32")) { try Ingest.read(path: store) }
    #expect(truncate(bid, 40) == 0)
    let long = try #require(throws: StoreError.self) { try Ingest.read(path: store) }
    #expect("\(long)" == "\(bid): error: corrupt store, too long: 40 bytes, expected 4 rows × 8 = 32; convert into a new store")
    #expect(truncate(bid, 32) == 0)
    let time = partitions[2] + "/time.i64"
    let handle = try #require(FileHandle(forWritingAtPath: time))
    try handle.write(contentsOf: Data(repeating: 0, count: 8))
    try handle.close()
    let error = try #require(throws: StoreError.self) { try Ingest.read(path: store) }
    guard case .corrupt(let file, let reason) = error else { Issue.record("\(error)"); return }
    #expect(file == time && reason.contains("differs from partition.json's"), "\(reason)")
    // The stream finds it too, after the two good days.
    let opened = try Store.open(path: store)
    let stream = opened.stream(opened.series[0])
    #expect(try stream.next(maxRows: 100)?.count == 4 && stream.next(maxRows: 100)?.count == 4)
    #expect(throws: StoreError.corrupt(file: file, reason: reason)) { try stream.next(maxRows: 100) }
  }

  @Test func `times that do not ascend inside a partition are corrupt`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (store, _, partitions) = try Self.threeDays(folder)
    let time = partitions[0] + "/time.i64"
    var values = try Data(contentsOf: URL(fileURLWithPath: time)).withUnsafeBytes { Array($0.bindMemory(to: Int64.self)) }
    values.swapAt(1, 2)
    try values.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: time))
    let error = try #require(throws: StoreError.self) { try Ingest.read(path: store) }
    #expect(error == .corrupt(file: time, reason: "row 2 has time \(values[2]), not after the time before it, \(values[1])"))
  }

  @Test("the stream's chunks joined are the whole series", arguments: [1, 7, 1000])
  func streamChunks(rows: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // 2,000 quotes a minute apart: two partial days and a whole one between.
    let times = (0..<2000).map { F.march1 + 20 * 3_600_000_000 + Int64($0) * 60_000_000 }
    let source = F.quotes(folder, "q.csv", times)
    let store = folder.path + "/store"
    try F.convert([source], into: store)
    let direct = try Ingest.read(path: source).series[0]
    let opened = try Store.open(path: store)
    #expect(opened.series[0].partitions.map(\.rows) == [240, 1440, 320])
    let (joined, chunks) = try F.drain(opened.stream(opened.series[0]), rows: rows, like: direct)
    #expect(sameColumns(joined, direct))
    // A chunk never spans two partitions.
    let expected = [240, 1440, 320].reduce(0) { $0 + ($1 + rows - 1) / rows }
    #expect(chunks == expected)
    let slim = try F.drain(opened.stream(opened.series[0], columns: .skippingSizesAndOtherClock), rows: rows, like: direct).0
    #expect(slim.bidSize.isEmpty && slim.time == direct.time && bits(slim.ask) == bits(direct.ask))
  }

  /// The window [from, to) against a filter of the direct read, at partition edges and inside.
  static let windows: [(from: Int64?, to: Int64?)] = [
    (F.march1 + F.day, F.march1 + 2 * F.day), (F.march1 + 3_600_000_000, F.march1 + F.day + 1), (nil, F.march1 + 1),
    (F.march1 + 2 * F.day + 3 * 3_600_000_000, nil), (F.march1 + 7_200_000_000, F.march1 + 7_200_000_001), (F.march1 + 5 * F.day, nil),
  ]

  @Test("a window selects exactly the quotes in [from, to), from a store and from a file", arguments: windows)
  func window(c: (from: Int64?, to: Int64?)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (store, source, _) = try Self.threeDays(folder)
    let all = try Ingest.read(path: source)
    let kept = all.series[0].time.indices.filter { k in
      let t = all.series[0].time[k]
      return (c.from.map { t >= $0 } ?? true) && (c.to.map { t < $0 } ?? true)
    }
    var options = IngestOptions()
    options.window = TimeWindow(from: c.from, to: c.to)
    for path in [store, source] {
      let read = try Ingest.read(path: path, options: options)
      #expect(read.series[0].time == kept.map { all.series[0].time[$0] }, "\(path)")
      #expect(bits(read.series[0].bid) == bits(kept.map { all.series[0].bid[$0] }) && read.series[0].askSize == kept.map { all.series[0].askSize[$0] })
      #expect(read.report.rowsRead == 12 && read.report.rowsAccepted == 12 && read.report.rowsOutsideWindow == 12 - kept.count, "\(path)")
      #expect(read.report.instruments.map(\.rows) == [kept.count] && read.report.firstTime == read.series[0].time.first)
    }
    let opened = try Store.open(path: store)
    let stream = opened.stream(opened.series[0], window: options.window!)
    let streamed = try F.drain(stream, rows: 3, like: all.series[0]).0
    #expect(streamed.time == kept.map { all.series[0].time[$0] })
    let needed = opened.series[0].partitions.filter { options.window!.overlaps(first: $0.firstTime, last: $0.lastTime) }.count
    #expect(stream.openedPartitions == needed)
  }

  @Test func `partitions outside the window are not opened`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (store, _, partitions) = try Self.threeDays(folder)
    #expect(truncate(partitions[0] + "/time.i64", 3) == 0)
    try FileManager.default.removeItem(atPath: partitions[2])
    var options = IngestOptions()
    options.window = TimeWindow(from: F.march1 + F.day, to: F.march1 + 2 * F.day)
    let read = try Ingest.read(path: store, options: options)
    #expect(read.series[0].count == 4 && read.series[0].time.allSatisfy { options.window!.contains($0) })
    #expect(throws: StoreError.self) { try Ingest.read(path: store) }
  }

  @Test func `a name becomes one folder name, one to one`() {
    let cases: [(String, String)] = [
      ("BTCUSDT", "BTCUSDT"), ("BTC/USDT", "BTC%2FUSDT"), ("BTC-PERP_1.5", "BTC-PERP_1.5"), ("..", "%2E."), ("", "%"),
      ("50%", "50%25"), ("a b", "a%20b"), ("원", "%EC%9B%90"), (".hidden", "%2Ehidden"),
    ]
    for (name, folder) in cases { #expect(StoreLayout.folderName(name) == folder, "\(name)") }
    #expect(Set(cases.map { StoreLayout.folderName($0.0) }).count == cases.count)
  }

  /// A key of the first series (or of its first partition), its new value as JSON, the reason.
  static let badManifest: [(key: String, value: String, reason: String)] = [
    ("market", "\"perp\"", "'series.0.market' is 'perp', expected one of spot, linear, inverse, future, fx"),
    ("folder", "\"../../elsewhere\"", "'series.0.folder' is '../../elsewhere', expected 'aa/spot/BTCUSDC/price'"),
    ("columns", "[\"time\", \"bid\"]", "'series.0.columns' lacks 'ask'"),
    ("columns", "[\"bid\", \"time\", \"ask\"]", "'series.0.columns' is out of order or repeats a column"),
    ("rows", "-1", "'series.0.partitions.0.rows' is -1, expected 1 to 1152921504606846975"),
    ("source", "3", "'series.0.partitions.0.source' is 3, expected an index into the 1 sources"),
    ("first_ts_us", "0", "'series.0.partitions.0' holds times outside its day '2024-03-01'"),
  ]

  @Test("a store.json field no convert writes is named before a partition is opened", arguments: badManifest)
  func badField(c: (key: String, value: String, reason: String)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (store, _, _) = try Self.threeDays(folder)
    let path = store + "/store.json"
    var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    var series = manifest["series"] as! [[String: Any]]
    let value = try JSONSerialization.jsonObject(with: Data(c.value.utf8), options: .fragmentsAllowed)
    if ["rows", "source", "first_ts_us"].contains(c.key) {
      var partitions = series[0]["partitions"] as! [[String: Any]]
      partitions[0][c.key] = value
      series[0]["partitions"] = partitions
    } else {
      series[0][c.key] = value
    }
    manifest["series"] = series
    try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: path))
    #expect(throws: StoreError.corrupt(file: path, reason: c.reason)) { try Ingest.read(path: store) }
  }

  @Test func `a store of another version or format, or another clock, is refused`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (store, _, _) = try Self.threeDays(folder)
    let path = store + "/store.json"
    var options = IngestOptions()
    options.clock = .exchange
    #expect(throws: StoreError.clockMismatch(store: store, stored: .local, requested: .exchange)) { try Ingest.read(path: store, options: options) }
    let original = try String(contentsOfFile: path, encoding: .utf8)
    try original.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2").write(toFile: path, atomically: false, encoding: .utf8)
    #expect(throws: StoreError.unsupportedVersion(file: path, found: 2, supported: 1)) { try Ingest.read(path: store) }
    try "not json".write(toFile: path, atomically: false, encoding: .utf8)
    #expect(throws: StoreError.corrupt(file: path, reason: "not a JSON object")) { try Ingest.read(path: store) }
  }

  @Test func `a folder that is not a store is not written into`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    folder.write("notes.txt", "keep me")
    #expect(throws: FileError.self) { try StoreTransaction(path: folder.path, clock: .local) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
  }

  @Test func `a transaction that is not committed leaves nothing`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let (store, _, _) = try Self.threeDays(folder)
    let before = F.snapshot(store)
    do {
      let transaction = try StoreTransaction(path: store, clock: .local)
      _ = try transaction.add(try Ingest.read(path: F.quotes(folder, "more.csv", [F.march1 + 9 * F.day])))
    }
    #expect(F.snapshot(store).keys.sorted() == before.keys.sorted())
    #expect(try FileManager.default.contentsOfDirectory(atPath: store).sorted() == ["aa", "store.json"])
  }
}
