import ArbCore

// A daily kimchi-premium history (`kimchi.history`): one JSON array of objects,
// ascending by `date` (`YYYY-MM-DD`), such as
// `{"date": "2024-06-07", "btc_krw_price": 98000000.0, "foreignUsd": 71000.0,
//   "foreignSource": "Bitstamp", "fx_rate": 1370.5, "usdt_price": 1380.0, …}`.
// Each object is a row stamped at its date, 00:00 UTC. Series, one point per key present:
// `btc_krw_price` → upbit spot KRW-BTC; `foreignUsd` → spot BTC/USD of the venue named
// by `foreignSource` (bitstamp `btcusd`, coinbase `BTC-USD`, else `BTCUSD`);
// `fx_rate` → fx USDKRW; `usdt_price` → upbit spot KRW-USDT. A missing key or `null`
// adds no point. Other keys (the author's premiums, volumes) are not read.

/// Reads a daily history file, whole (it is small), with the usual row accounting.
enum DailyHistoryJSON {
  /// The largest file read (decompressed); a history of daily rows is far smaller.
  static let maxBytes = 256 << 20

  static func read(source: ByteSource, path: String, options: IngestOptions) throws -> IngestedFile {
    let bytes = try readAll(source, path: path)
    var report = IngestReport(path: path, format: RecordFormat.kimchiHistory.id)
    var sink = JSONSeriesSink(clock: options.clock, sort: options.sort, keepsOtherTime: false)
    var builders: [SeriesBuilder] = []
    var quarantine: [UInt8] = []
    try bytes.withUnsafeBufferPointer { buffer throws(IngestError) in
      var lineStarts: [Int] = []
      func position(_ offset: Int) -> SourcePosition {
        if lineStarts.isEmpty { lineStarts = [0] + buffer.indices.filter { buffer[$0] == 10 }.map { $0 + 1 } }
        var low = 0, high = lineStarts.count - 1
        while low < high {
          let mid = (low + high + 1) / 2
          if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return SourcePosition(path: path, line: low + 1, column: offset - lineStarts[low] + 1)
      }
      guard buffer.contains(where: { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }) else {
        throw IngestError(.emptyFile, at: SourcePosition(path: path, line: 1, column: 1))
      }
      var scanner = JSONScanner()
      do throws(JSONScanError) {
        try scanner.scan(buffer)
      } catch {
        throw IngestError(.malformedJSON(expected: error.expected, found: error.found), at: position(error.offset))
      }
      let document = JSONDocument(bytes: buffer, nodes: scanner.nodes)
      guard document.kind(0) == .array else {
        throw IngestError(.malformedJSON(expected: "'[' starting an array of daily objects", found: document.text(0).prefix(20).description), at: position(0))
      }
      var points: [JSONPoint] = []
      for row in document.elements(0) {
        report.rowsRead += 1
        points.removeAll(keepingCapacity: true)
        do throws(JSONFault) {
          try readRow(document, row, into: &points)
          try sink.append(points, at: document.nodes[row].start, to: &builders)
          report.rowsAccepted += 1
        } catch {
          let rejected = IngestError(error.reason, at: position(error.offset))
          if options.badRows == .fail { throw rejected }
          report.countRejection(rejected, keep: options.keptErrors)
          quarantine.append(contentsOf: document.raw(row))
          quarantine.append(10)
        }
      }
    }
    let series = builders.finish(in: sink.order(builders), rows: options.sort ? .unsorted : .ascending, into: &report)
    if report.rowsRejected > 0 {
      report.quarantinePath = try options.writeQuarantine(of: path, suffix: ".rejected.jsonl", header: [], lines: quarantine)
    }
    return IngestedFile(report: report, series: series)
  }

  /// The points of one daily object.
  static func readRow(_ document: JSONDocument, _ row: Int, into points: inout [JSONPoint]) throws(JSONFault) {
    let start = document.nodes[row].start
    guard document.kind(row) == .object else {
      throw JSONFault(reason: .invalidValue(column: "row", text: document.text(row), expected: "an object"), offset: start)
    }
    let dateNode = document.member(row, "date")
    guard let dateNode, document.kind(dateNode) == .string, case let raw = document.raw(dateNode), raw.count > 0,
      let time = TimeParser.parse(raw.baseAddress!, raw.count, form: .date, defaultOffset: 0)
    else {
      throw JSONFault(reason: .invalidTimestamp(column: "date", text: document.text(dateNode)), offset: dateNode.map { document.nodes[$0].start } ?? start)
    }
    func add(_ key: StaticString, _ instrument: Instrument) throws(JSONFault) {
      guard let value = try document.price(document.member(row, key), "\(key)", optional: true) else { return }
      points.appendQuote(instrument, time: time, exchangeTime: nil, bid: nil, ask: nil, last: value)
    }
    try add("btc_krw_price", Instrument(venue: "upbit", market: .spot, symbol: "KRW-BTC"))
    try add("foreignUsd", foreignInstrument(document.member(row, "foreignSource").map { document.text($0) }))
    try add("fx_rate", Instrument(venue: "fx", market: .fx, symbol: "USDKRW"))
    try add("usdt_price", Instrument(venue: "upbit", market: .spot, symbol: "KRW-USDT"))
  }

  /// The BTC/USD instrument of the venue named by `foreignSource`.
  static func foreignInstrument(_ source: String?) -> Instrument {
    let venue = (source ?? "unknown").lowercased()
    let symbol = venue == "bitstamp" ? "btcusd" : venue == "coinbase" ? "BTC-USD" : "BTCUSD"
    return Instrument(venue: venue, market: .spot, symbol: symbol)
  }

  /// The decompressed bytes of the file, up to `maxBytes`.
  private static func readAll(_ source: ByteSource, path: String) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 1 << 20)
    var filled = 0
    while true {
      if filled == bytes.count {
        guard bytes.count < maxBytes else {
          throw IngestError(.readFailed(detail: "a JSON history larger than \(maxBytes >> 20) MiB"), at: SourcePosition(path: path, line: 1, column: 1))
        }
        bytes.append(contentsOf: repeatElement(0, count: bytes.count))
      }
      let n = try bytes.withUnsafeMutableBytes { raw throws(IngestError) in try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...])) }
      if n == 0 { break }
      filled += n
    }
    bytes.removeSubrange(filled...)
    return bytes
  }
}
