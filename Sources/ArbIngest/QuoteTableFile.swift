import ArbCore

/// A file of ArbKit's normalised quotes (`arbkit.quotes`:
/// `ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last`) that `arbkit convert --to`
/// writes: CSV, or an Arrow IPC or Parquet file of the same columns (`ts_us` a
/// TIMESTAMP(µs, UTC), the names strings, the prices and sizes doubles,
/// null where the CSV is empty). A book series fills `bid`, `ask` and the sizes it has, a
/// one-price series (`last`) the `last` column alone; series follow one another, each in
/// time order, as the reader splits them again.
public final class QuoteTableFile {
  public static let header = "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last"
  /// Rows per record batch or row group (polars' default row group): what a streamed
  /// read of the file decodes at a time.
  static let batchRows = 1 << 18

  private let file: AtomicFile?
  private let columnar: (any ColumnarWriter)?
  public private(set) var rows = 0

  /// Starts the file at `path` in `format`; nothing is in place before `commit`.
  public init(path: String, format: TableFormat) throws {
    let names = Self.header.split(separator: ",").map(String.init)
    let types: [ArrowType] = [.timestampMicros, .utf8, .utf8, .utf8] + Array(repeating: .float64, count: 5)
    let fields = zip(names, types).enumerated().map { k, field in ArrowField(field.0, field.1, nullable: k > 0) }
    columnar = try ColumnarFile.writer(path: path, format: format, fields: fields)
    if columnar == nil {
      file = try AtomicFile(path: path)
      try file!.write(Self.header + "\n")
    } else {
      file = nil
    }
  }

  /// Appends the rows of `stream`, a price series (`SeriesField.price`), read to its end
  /// in batches of `batchRows` (a columnar file's row groups).
  public func append(_ stream: any QuoteStream) throws {
    precondition(stream.field == .price, "the quotes table holds prices, was \(stream.field)")
    let names = [stream.instrument.venue, stream.instrument.market.rawValue, stream.instrument.symbol]
    var batch = Batch()
    var ended = false
    while !ended {
      batch.removeAll()
      while batch.time.count < Self.batchRows, let chunk = try stream.next(maxRows: Self.batchRows - batch.time.count) {
        batch.append(chunk)
      }
      ended = batch.time.count < Self.batchRows
      if !batch.time.isEmpty { try write(batch, names: names, book: stream.priceSource == .book) }
    }
  }

  /// A batch of one series' rows; sizes `nan` where the series has none.
  private struct Batch {
    var time: [Int64] = []
    var bid: [Double] = []
    var ask: [Double] = []
    var bidSize: [Double] = []
    var askSize: [Double] = []

    mutating func append(_ chunk: QuoteChunk) {
      time += chunk.time
      bid += chunk.bid
      ask += chunk.ask
      bidSize += chunk.bidSize.isEmpty ? Array(repeating: .nan, count: chunk.count) : Array(chunk.bidSize)
      askSize += chunk.askSize.isEmpty ? Array(repeating: .nan, count: chunk.count) : Array(chunk.askSize)
    }

    mutating func removeAll() {
      time.removeAll(keepingCapacity: true)
      bid.removeAll(keepingCapacity: true)
      ask.removeAll(keepingCapacity: true)
      bidSize.removeAll(keepingCapacity: true)
      askSize.removeAll(keepingCapacity: true)
    }
  }

  /// Writes `rows`, one batch of the series named `names`; `book`: its bid, ask and
  /// sizes, else its one price in `last`.
  private func write(_ rows: Batch, names: [String], book: Bool) throws {
    let n = rows.time.count
    if let columnar {
      let none = [Double](repeating: .nan, count: n)
      let prices: [[Double]] = book ? [rows.bid, rows.ask, rows.bidSize, rows.askSize, none] : [none, none, none, none, rows.bid]
      try columnar.write(
        [.integers(rows.time)] + names.map { name in .strings(Array(repeating: name, count: n)) }
          + prices.map { values in .doubles(values, valid: values.map(\.isFinite)) })
    } else {
      var text = CSVBytes()
      let prefix = "," + names.map(CSV.field).joined(separator: ",") + ","
      for i in 0..<n {
        text.append(rows.time[i])
        text.append(prefix)
        if book {
          for value in [rows.bid[i], rows.ask[i], rows.bidSize[i], rows.askSize[i]] {
            text.append(number: value.isFinite ? value : nil)
            text.append(ascii: ",")
          }
          text.append(ascii: "\n")
        } else {
          text.append(",,,,")
          text.append(number: rows.bid[i])
          text.append(ascii: "\n")
        }
        if text.count > 1 << 20 {
          try file!.write(text)
          text.removeAll()
        }
      }
      try file!.write(text)
    }
    self.rows += n
  }

  /// Finishes the file (a columnar file's footer) and puts it in place.
  public func commit() throws {
    if let columnar { try columnar.commit() } else { try file!.commit() }
  }
}
