import ArbCore

/// Detection and dispatch of the formats read as JSON (`RecordFormat.jsonFormats`).
///
/// Detection looks at the start of the decompressed stream: `[[` is freqtrade OHLCV;
/// `[` then `{` with `"btc_krw_price"` in the first 64 KiB is `kimchi.history`; a first
/// line starting `{"t":"header"` is `cryptofeed.jsonl`; a first line with a
/// `"recv_ts_us"` key is `rest.snapshots`; one with `"exchange"`, `"bids"` and
/// `"asks"` keys is `orderbook.jsonl`. Anything else is left to the CSV reader.
enum JSONSources {
  /// How much of the stream detection reads.
  static let detectionBytes = 1 << 16

  /// The JSON format to read `path` with: `named` when it is one, else the detected one;
  /// `nil` for a file the CSV reader takes.
  static func format(path: String, size: Int, named: RecordFormat?) throws(FileError) -> RecordFormat? {
    if named == nil && size == 0 { return nil }
    return format(head: named == nil ? try prefix(path: path) : [], named: named)
  }

  /// The JSON format of a stream whose first `detectionBytes` (decompressed) are
  /// `head`: `named` when it is one, else the detected one; `nil` for the CSV reader.
  static func format(head: [UInt8], named: RecordFormat?) -> RecordFormat? {
    if let named { return RecordFormat.jsonFormats.contains(named) ? named : nil }
    if FreqtradeJSON.looksLikeOHLCV(head: head.prefix(4096)) { return .freqtradeOHLCV }
    var i = 0
    func skipWhitespace() { while i < head.count, head[i] == 32 || head[i] == 9 || head[i] == 10 || head[i] == 13 { i += 1 } }
    skipWhitespace()
    guard i < head.count else { return nil }
    if head[i] == UInt8(ascii: "[") {
      i += 1
      skipWhitespace()
      return i < head.count && head[i] == UInt8(ascii: "{") && contains(head[i...], "\"btc_krw_price\"") ? .kimchiHistory : nil
    }
    guard head[i] == UInt8(ascii: "{") else { return nil }
    let line = head[i..<(head[i...].firstIndex(of: 10) ?? head.count)]
    if line.starts(with: Array("{\"t\":\"header\"".utf8)) { return .cryptofeed }
    if contains(line, "\"recv_ts_us\"") { return .restSnapshots }
    if contains(line, "\"exchange\"") && contains(line, "\"bids\"") && contains(line, "\"asks\"") { return .orderBookLines }
    return nil
  }

  /// Reads `path` in the JSON `format`.
  static func read(_ format: RecordFormat, path: String, options: IngestOptions) throws -> IngestedFile {
    try read(format, source: try Compression.open(path: path, limit: options.decompression), path: path, options: options)
  }

  /// Reads the decompressed `source` (of the file `path`) in the JSON `format`.
  static func read(_ format: RecordFormat, source: ByteSource, path: String, options: IngestOptions) throws -> IngestedFile {
    if format.isJSONLines {
      // JSON lines are read as a line-based file is, each line by the format's handler.
      var lineOptions = options
      lineOptions.format = format
      return try Ingest.readLines(source, options: lineOptions, expectedRows: 1024)
    }
    switch format {
    case .kimchiHistory: return try DailyHistoryJSON.read(source: source, path: path, options: options)
    default: return try FreqtradeJSON.read(source: source, path: path, options: options)
    }
  }

  /// The first `detectionBytes` of the decompressed stream (fewer for a shorter file).
  private static func prefix(path: String) throws(FileError) -> [UInt8] {
    let source = try Compression.open(path: path)
    var head = [UInt8](repeating: 0, count: detectionBytes)
    var filled = 0
    while filled < head.count {
      let n = head.withUnsafeMutableBytes { (try? source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))) ?? 0 }
      if n == 0 { break }
      filled += n
    }
    return Array(head.prefix(filled))
  }

  private static func contains(_ bytes: ArraySlice<UInt8>, _ word: String) -> Bool {
    let needle = Array(word.utf8)
    guard bytes.count >= needle.count else { return false }
    var k = bytes.startIndex
    while k <= bytes.endIndex - needle.count {
      if bytes[k] == needle[0] && bytes[k..<k + needle.count].elementsEqual(needle) { return true }
      k += 1
    }
    return false
  }
}
