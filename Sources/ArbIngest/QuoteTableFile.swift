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

  /// Appends the rows of `series`, a price series (`SeriesField.price`).
  public func append(_ series: QuoteSeries) throws {
    precondition(series.field == .price, "the quotes table holds prices, was \(series.field)")
    let names = [series.instrument.venue, series.instrument.market.rawValue, series.instrument.symbol]
    let book = series.priceSource == .book
    for start in stride(from: 0, to: series.count, by: Self.batchRows) {
      let rows = start..<min(start + Self.batchRows, series.count)
      if let columnar {
        let none = [Double](repeating: .nan, count: rows.count)
        let prices: [[Double]] =
          book
          ? [Array(series.bid[rows]), Array(series.ask[rows]), Array(series.bidSize[rows]), Array(series.askSize[rows]), none]
          : [none, none, none, none, Array(series.bid[rows])]
        try columnar.write(
          [.integers(Array(series.time[rows]))] + names.map { name in .strings(Array(repeating: name, count: rows.count)) }
            + prices.map { values in .doubles(values, valid: values.map(\.isFinite)) })
      } else {
        var text = CSVBytes()
        let prefix = "," + names.map(CSV.field).joined(separator: ",") + ","
        for i in rows {
          text.append(series.time[i])
          text.append(prefix)
          if book {
            for value in [series.bid[i], series.ask[i], series.bidSize[i], series.askSize[i]] {
              text.append(number: value.isFinite ? value : nil)
              text.append(ascii: ",")
            }
            text.append(ascii: "\n")
          } else {
            text.append(",,,,")
            text.append(number: series.bid[i])
            text.append(ascii: "\n")
          }
          if text.count > 1 << 20 {
            try file!.write(text)
            text.removeAll()
          }
        }
        try file!.write(text)
      }
      self.rows += rows.count
    }
  }

  /// Finishes the file (a columnar file's footer) and puts it in place.
  public func commit() throws {
    if let columnar { try columnar.commit() } else { try file!.commit() }
  }
}
