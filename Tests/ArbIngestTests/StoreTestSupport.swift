import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

/// Stores and quote files made for the store tests.
enum StoreFixture {
  static let header = "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n"
  /// 2024-03-01T00:00:00Z.
  static let march1: Int64 = 1_709_251_200_000_000
  static let day = TimeText.microsPerDay

  /// A native CSV of venue `venue` quoting at `times`; prices move with the row and `seed`.
  static func quotes(_ folder: TemporaryFolder, _ name: String, _ times: [Int64], venue: String = "aa", seed: Double = 0) -> String {
    let rows = times.enumerated().map { k, t in
      let bid = 100 + seed + Double(k % 97) * 0.25
      return "\(t),\(venue),spot,BTCUSDC,\(bid),\(bid + 0.5),\(1 + k % 3),\(2 + k % 5),\(bid)\n"
    }
    return folder.write(name, header + rows.joined())
  }

  /// Converts `paths` (each read whole with `options`, or as `convert` reads it, streamed
  /// `chunkRows` points at a time when it can be) into the store `folder/name`.
  @discardableResult
  static func convert(_ paths: [String], into store: String, options: IngestOptions = IngestOptions(), chunkRows: Int? = nil) throws -> [Bool] {
    let transaction = try StoreTransaction(path: store, clock: options.clock)
    let added = try paths.map { path in
      guard let chunkRows else { return try transaction.add(try Ingest.read(path: path, options: options)) }
      return try transaction.add(LegSpec(instrument: nil, paths: [path]), options: options, chunkRows: chunkRows) != nil
    }
    try transaction.commit()
    return added
  }

  /// The bytes and modification time of every file under `folder`, by relative path.
  static func snapshot(_ folder: String) -> [String: (Data, Date)] {
    var files: [String: (Data, Date)] = [:]
    for name in (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? [] {
      let path = folder + "/" + name
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular,
        let data = FileManager.default.contents(atPath: path)
      else { continue }
      files[name] = (data, attributes[.modificationDate] as? Date ?? .distantPast)
    }
    return files
  }

  /// Every quote of `stream` in chunks of at most `rows`, joined into one series.
  static func drain(_ stream: StoreQuoteStream, rows: Int, like series: QuoteSeries) throws -> (QuoteSeries, chunks: Int) {
    var joined = QuoteSeries(instrument: series.instrument, priceSource: series.priceSource, field: series.field, clock: series.clock)
    var chunks = 0
    while let chunk = try stream.next(maxRows: rows) {
      #expect(chunk.count <= rows && chunk.count > 0 && stream.mappedPartitions <= 1)
      chunks += 1
      joined.time += chunk.time
      joined.otherTime += chunk.otherTime
      joined.bid += chunk.bid
      joined.ask += chunk.ask
      joined.bidSize += chunk.bidSize
      joined.askSize += chunk.askSize
    }
    return (joined, chunks)
  }
}
