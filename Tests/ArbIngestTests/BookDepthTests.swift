import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

/// Depth kept on request: every level of the real Tardis book snapshots, the best
/// levels of books rebuilt from `incremental_book_L2`, compared with the file text read
/// here without the library's parsers.
@Suite("Book depth")
struct BookDepthTests {
  static func read(_ path: String, levels: Int = 25, format: RecordFormat? = nil) throws -> IngestedFile {
    var options = IngestOptions()
    options.format = format
    options.keepDepth = true
    options.depthLevels = levels
    return try Ingest.read(path: path, options: options)
  }

  static func levels(_ depth: BookDepth, _ i: Int, bid: Bool) -> [[Double]] {
    let (start, prices, sizes) = bid ? (depth.bidStart, depth.bidPrice, depth.bidSize) : (depth.askStart, depth.askPrice, depth.askSize)
    return (start[i]..<start[i + 1]).map { [prices[$0], sizes[$0]] }
  }

  @Test(
    "every level of the real book_snapshot_5 and _25 rows",
    arguments: [(5, "binance-futures_book_snapshot_5_BTCUSDT.csv"), (25, "binance-futures_book_snapshot_25_BTCUSDT.csv")])
  func snapshots(c: (levels: Int, file: String)) throws {
    let path = fixture(c.file)
    let series = try #require(try Self.read(path).series.first)
    let depth = try #require(series.depth)
    let rows = try textLines(path).dropFirst().filter { !$0.isEmpty }
    #expect(depth.count == series.count && series.count == rows.count)
    for (i, row) in rows.enumerated() {
      let f = row.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
      var asks: [[Double]] = [], bids: [[Double]] = []
      for level in 0..<c.levels {
        if let p = f[4 + 4 * level] { asks.append([p, f[5 + 4 * level]!]) }
        if let p = f[6 + 4 * level] { bids.append([p, f[7 + 4 * level]!]) }
      }
      #expect(Self.levels(depth, i, bid: true) == bids && Self.levels(depth, i, bid: false) == asks, "row \(i)")
      #expect(bids.count == c.levels && asks.count == c.levels)
    }
    // Without the option nothing is kept.
    #expect(try Ingest.read(path: path).series[0].depth == nil)
  }

  @Test("a level out of order or without a size is rejected with its column")
  func badLevels() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = TardisBooks.snapshotHeader(levels: 2)
    let two = RecordFormat.tardisBookSnapshot(levels: 2)
    let good = "binance-futures,BTCUSDT,1,1,10.1,1,10,2,10.2,3,9.9,4"
    let path = folder.write("book.csv", header + "\n" + good + "\n" + "binance-futures,BTCUSDT,2,2,10.1,1,10,2,10.2,3,10.5,4\n")
    #expect(throws: IngestError.self) { try Self.read(path, format: two) }
    do { _ = try Self.read(path, format: two) } catch let error as IngestError {
      #expect(error.position.line == 3 && "\(error)".contains("bids[1].price"))
    }
    let noSize = folder.write("nosize.csv", header + "\n" + "binance-futures,BTCUSDT,2,2,10.1,1,10,2,10.2,,9.9,4\n")
    do { _ = try Self.read(noSize, format: two); Issue.record("accepted a level without size") } catch let error as IngestError {
      #expect("\(error)".contains("asks[1].amount"))
    }
    // A missing deeper level ends that side.
    let short = folder.write("short.csv", header + "\n" + "binance-futures,BTCUSDT,2,2,10.1,1,10,2,,,9.9,4\n")
    let depth = try #require(try Self.read(short, format: two).series[0].depth)
    #expect(Self.levels(depth, 0, bid: false) == [[10.1, 1]] && Self.levels(depth, 0, bid: true) == [[10, 2], [9.9, 4]])
  }

  @Test("the real deribit L2 slice keeps the best levels, best first")
  func deribitL2() throws {
    let path = fixture("deribit_incremental_book_L2_BTC-PERPETUAL.csv")
    let rows = try textLines(path).dropFirst().filter { !$0.isEmpty }.map { $0.split(separator: ",").map(String.init) }
    let asks = rows.filter { $0[5] == "ask" }.map { [Double($0[6])!, Double($0[7])!] }.sorted { $0[0] < $1[0] }
    for levels in [5, 25] {
      let series = try #require(try Self.read(path, levels: levels).series.first)
      let depth = try #require(series.depth)
      #expect(depth.count == 1 && Self.levels(depth, 0, bid: true).isEmpty)
      #expect(Self.levels(depth, 0, bid: false) == Array(asks.prefix(levels)))
    }
  }

  @Test("L2 updates and deletes against a dictionary rebuild")
  func rebuilt() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var rng = SplitMix64(seed: 5)
    var lines = ["exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount"]
    var bids: [Double: Double] = [:], asks: [Double: Double] = [:]
    var expected: [(bids: [[Double]], asks: [[Double]])] = []
    func row(_ t: Int, _ snapshot: Bool, _ bid: Bool, _ price: Double, _ amount: Double) {
      lines.append("deribit,BTC-PERPETUAL,\(t),\(t),\(snapshot),\(bid ? "bid" : "ask"),\(price),\(amount)")
      if bid { bids[price] = amount == 0 ? nil : amount } else { asks[price] = amount == 0 ? nil : amount }
    }
    for k in 0..<8 {
      row(1, true, true, 100 - Double(k) * 0.5, Double(k + 1))
      row(1, true, false, 100.5 + Double(k) * 0.5, Double(k + 1))
    }
    func snapshotOfBook() {
      expected.append(
        (
          bids.sorted { $0.key > $1.key }.prefix(3).map { [$0.key, $0.value] },
          asks.sorted { $0.key < $1.key }.prefix(3).map { [$0.key, $0.value] }
        ))
    }
    snapshotOfBook()
    func draw(_ n: UInt64) -> Int { Int(rng.next() % n) }
    for t in 2..<40 {
      for _ in 0...draw(3) {
        let bid = draw(2) == 0
        let steps = Double(draw(10)) * 0.5
        let price: Double = bid ? 100 - steps : 100.5 + steps
        let amount: Double = draw(3) == 0 ? 0 : Double(1 + draw(9))
        row(t, false, bid, price, amount)
      }
      snapshotOfBook()
    }
    let path = folder.write("l2.csv", lines.joined(separator: "\n") + "\n")
    let depth = try #require(try Self.read(path, levels: 3).series.first?.depth)
    #expect(depth.count == expected.count)
    for i in 0..<min(depth.count, expected.count) {
      #expect(Self.levels(depth, i, bid: true) == expected[i].bids && Self.levels(depth, i, bid: false) == expected[i].asks, "instant \(i)")
    }
  }
}

extension BookDepthTests {
  @Test("every level of the real Binance and Upbit order-book lines, sorted best first")
  func orderBookLines() throws {
    for name in ["binance_BTC_USDT_06.jsonl.gz", "upbit_BTC_KRW_06.jsonl.gz"] {
      let path = fixture("json/" + name)
      let series = try #require(try Self.read(path).series.first)
      let depth = try #require(series.depth)
      // The lines, decompressed by the gzip tool and parsed by Foundation.
      let folder = TemporaryFolder()
      defer { folder.cleanup() }
      let text = try String(contentsOfFile: try gunzip(path, into: folder), encoding: .utf8)
      let lines = text.split(separator: "\n")
      #expect(depth.count == series.count && series.count == lines.count)
      for (i, line) in lines.enumerated() {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        func side(_ key: String) -> [[Double]] { ((object[key] as? [[Any]]) ?? []).map { $0.map { ($0 as? NSNumber)?.doubleValue ?? Double("\($0)")! } } }
        #expect(Self.levels(depth, i, bid: true) == side("bids").sorted { $0[0] > $1[0] }, "\(name) line \(i)")
        #expect(Self.levels(depth, i, bid: false) == side("asks").sorted { $0[0] < $1[0] }, "\(name) line \(i)")
        #expect(Self.levels(depth, i, bid: true).count == 20)
      }
    }
  }
}

extension BookDepthTests {
  @Test("books follow their rows: equal times collapse to the last, --sort reorders, files join")
  func booksFollowRows() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = TardisBooks.snapshotHeader(levels: 2)
    func row(_ t: Int, _ bid: Double) -> String { "binance-futures,BTCUSDT,\(t),\(t),\(bid + 1),1,\(bid),2,\(bid + 2),3,\(bid - 1),4" }
    var options = IngestOptions()
    options.keepDepth = true
    options.format = .tardisBookSnapshot(levels: 2)
    // Rows at 1, 3, 3, 2: the two at 3 collapse to the second; sorted, the book of 2 comes second.
    let unsorted = folder.write("unsorted.csv", [header, row(1, 10), row(3, 20), row(3, 30), row(2, 40)].joined(separator: "\n") + "\n")
    options.sort = true
    let sorted = try #require(try Ingest.read(path: unsorted, options: options).series.first)
    #expect(sorted.time == [1, 2, 3] && sorted.bid == [10, 40, 30])
    let depth = try #require(sorted.depth)
    #expect((0..<3).map { Self.levels(depth, $0, bid: true) } == [[[10, 2], [9, 4]], [[40, 2], [39, 4]], [[30, 2], [29, 4]]])
    // Two files of one leg: the books of both, the shared boundary time collapsing to the later file's.
    options.sort = false
    let first = folder.write("a.csv", [header, row(1, 10), row(2, 20)].joined(separator: "\n") + "\n")
    let second = folder.write("b.csv", [header, row(2, 25), row(3, 30)].joined(separator: "\n") + "\n")
    let leg = try LegSpec(instrument: nil, paths: [first, second]).load(options: options)
    #expect(leg.series.time == [1, 2, 3] && leg.series.bid == [10, 25, 30])
    let joined = try #require(leg.series.depth)
    #expect((0..<3).map { Self.levels(joined, $0, bid: false) } == [[[11, 1], [12, 3]], [[26, 1], [27, 3]], [[31, 1], [32, 3]]])
  }
}

extension BookDepthTests {
  @Test("a book snapshot file read as two halves keeps the same books as one pass")
  func halves() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var text = TardisBooks.snapshotHeader(levels: 3) + "\n"
    var time: Int64 = 1_000
    for i in 0..<3000 {
      time += Int64(1 + i % 3)
      let bid = 100 + Double(i % 50) / 10
      let symbol = i % 4 == 0 ? "ETHUSDT" : "BTCUSDT"
      text += "binance-futures,\(symbol),\(time),\(time),\(bid + 0.1),1,\(bid),2,\(bid + 0.2),3,\(bid - 0.1),4,\(bid + 0.3),5,\(bid - 0.2),\(i % 7)\n"
    }
    let path = folder.write("snap.csv", text)
    var options = IngestOptions()
    options.keepDepth = true
    options.format = .tardisBookSnapshot(levels: 3)
    let size = try FileSource(path: path).size
    var halves = try #require(try Ingest.readInTwoHalves(PlainFile(path: path, count: size), options: options))
    let split = try halves.finish()
    let whole = try Ingest.readSequentially(path: path, options: options, size: size)
    #expect(split.series.count == 2 && split.series.map(\.depth) == whole.series.map(\.depth))
    #expect(split.series.allSatisfy { $0.depth?.count == $0.count && $0.depth?.deepest == 3 })
  }
}
