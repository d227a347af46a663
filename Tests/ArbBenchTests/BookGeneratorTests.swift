import ArbCore
import ArbIngest
import Foundation
import TestSupport
import Testing

@testable import arbkit_bench

// The book-fill benchmark's generated `book_snapshot_5` files, read back by the Tardis
// reader with their books, and the scenario written beside them.
@Suite("book-fill benchmark data")
struct BookGeneratorTests {
  static let rows = 2_000

  static func generated(venue: Int, in folder: TemporaryFolder) throws -> QuoteSeries {
    let path = folder.path + "/books_\(venue).csv"
    try BookGenerator(rows: rows, seed: 7).write(venue: venue, to: path)
    var options = IngestOptions()
    options.keepDepth = true
    let series = try Ingest.read(path: path, options: options).series
    #expect(series.count == 1)
    return try #require(series.first)
  }

  @Test("every row reads back as five levels a side, its top the quote", arguments: [0, 1])
  func fiveLevels(venue: Int) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let leg = try Self.generated(venue: venue, in: folder)
    let depth = try #require(leg.depth)
    #expect(leg.count == Self.rows && depth.count == Self.rows)
    #expect(zip(leg.time, leg.time.dropFirst()).allSatisfy { $0 < $1 })
    let wrongRows = (0..<Self.rows).filter { r in
      let (bids, asks) = (depth.bidStart[r]..<depth.bidStart[r + 1], depth.askStart[r]..<depth.askStart[r + 1])
      return bids.count != BookGenerator.levels || asks.count != BookGenerator.levels || depth.bidPrice[bids.lowerBound] != leg.bid[r]
        || depth.askPrice[asks.lowerBound] != leg.ask[r] || !(leg.bid[r] < leg.ask[r])
        || !(bids.map { depth.bidSize[$0] } + asks.map { depth.askSize[$0] }).allSatisfy { $0 >= 0.001 && $0 <= 0.060 }
    }
    #expect(wrongRows.isEmpty)
  }

  /// Levels that keep their size from one book to the next are what leaves taken
  /// liquidity missing for later walks.
  @Test func `most levels at an unchanged price keep their size`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let depth = try #require(try Self.generated(venue: 0, in: folder).depth)
    var unchanged = 0, kept = 0
    for r in 1..<Self.rows {
      for (l, previous) in zip(depth.bidStart[r]..<depth.bidStart[r + 1], depth.bidStart[r - 1]..<depth.bidStart[r])
      where depth.bidPrice[l] == depth.bidPrice[previous] {
        unchanged += 1
        if depth.bidSize[l] == depth.bidSize[previous] { kept += 1 }
      }
    }
    #expect(unchanged > Self.rows)
    #expect(Double(kept) > 0.6 * Double(unchanged))
  }

  @Test func `the scenario walks the books of both files`() throws {
    let text = try BookFillData.scenarioText(files: ["/data/a.csv", "/data/b.csv"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    let costs = try #require(object["costs"] as? [String: Any]), legs = try #require(object["legs"] as? [[String: Any]])
    #expect(costs["fill"] as? String == "book" && costs["partial"] as? String == BookFillData.partial.rawValue)
    #expect(legs.map { $0["files"] as? [String] } == [["a.csv"], ["b.csv"]])
    #expect(Set(legs.compactMap { $0["venue"] as? String }).count == 2)
  }
}
