import ArbAnalytics
import ArbCore
import ArbIngest

/// The `--series PATH` files: the aligned series of `arbkit premium`
/// (`ts_us,valid,mid_pct,exec_pct,direction,bid_1,ask_1,…`; at an invalid point the
/// premiums and direction are empty; `direction` is `R>C`, the 1-based legs sold (rich)
/// and bought (cheap) by the best executable trade), and the columns of `kimchi` and
/// `basis` (`ts_us,NAME,…`, see `write(columns:to:)`).
enum SeriesCSV {
  /// One column of `write(columns:to:)`: a series on its own clock.
  struct Column {
    var name: String
    var time: [Int64]
    var valid: [Bool]
    var values: [Double]

    /// The `column` of `series` (its `mid` by default), valid where `series` is.
    init(_ name: String, _ series: PremiumSeries, _ column: [Double]? = nil) {
      self.name = name
      time = series.time
      valid = series.valid
      values = column ?? series.mid
    }

    /// The consecutive pieces of one column, joined.
    static func joined(_ pieces: [Column]) -> Column {
      var column = pieces[0]
      for piece in pieces.dropFirst() {
        column.time += piece.time
        column.valid += piece.valid
        column.values += piece.values
      }
      return column
    }
  }

  /// The `--series` file of `arbkit premium`, written a chunk of points at a time as the
  /// premium stream yields them (with `keepQuotes`), and put in place by `commit`.
  struct PremiumWriter {
    private let file: AtomicFile
    private let legCount: Int
    /// The rows not yet written.
    private var text = CSVBytes()
    /// The first valid point whose premium is not finite: the file is never put in place
    /// (the statistics are not finite either, and the run is refused before `commit`).
    private var unwritable: NonFiniteResult? = nil

    init(path: String, legCount: Int) throws {
      file = try AtomicFile(path: path)
      self.legCount = legCount
      text.append("ts_us,valid,mid_pct,exec_pct,direction")
      for k in 0..<legCount { text.append(",bid_\(k + 1),ask_\(k + 1)") }
      text.append(ascii: "\n")
    }

    /// Appends one row per point of `chunk`: each leg's quote in force, empty before its
    /// first quote.
    mutating func write(_ chunk: PremiumChunk) throws {
      let width = 2 * legCount
      guard unwritable == nil else { return }
      if let bad = chunk.firstNonFinite() {
        unwritable = bad
        return
      }
      for i in 0..<chunk.count {
        text.append(chunk.time[i])
        if chunk.valid[i] {
          text.append(",1")
          text.appendField(chunk.mid[i])
          text.appendField(chunk.exec[i])
          text.append(ascii: ",")
          text.append(Int(chunk.rich[i]) + 1)
          text.append(ascii: ">")
          text.append(Int(chunk.cheap[i]) + 1)
        } else {
          text.append(",0,,,")
        }
        for k in 0..<legCount {
          let bid = chunk.quotes[i * width + k], ask = chunk.quotes[i * width + legCount + k]
          text.appendField(bid.isFinite ? bid : nil)
          text.appendField(ask.isFinite ? ask : nil)
        }
        text.append(ascii: "\n")
        if text.count > 1 << 20 { try flush() }
      }
    }

    /// Writes what is left and puts the file in place.
    mutating func commit() throws {
      if let unwritable { throw unwritable }
      try flush()
      try file.commit()
    }

    private mutating func flush() throws {
      try file.write(text)
      text.removeAll()
    }
  }

  /// Writes `ts_us` and one CSV column per `columns`, one row per point of the union of
  /// the columns' clocks. A column holds its value at its last point at or before the
  /// row's time (its inputs change only at its own points), empty where that point is
  /// invalid or the column has no point yet.
  ///
  /// A columnar `output` holds the same values, `ts_us` a TIMESTAMP(µs, UTC) and the
  /// columns doubles (`CSVColumnar`).
  ///
  /// - Complexity: O(rows × columns) after sorting the times.
  static func write(columns: [Column], to output: TableOutput) throws {
    let clock = Array(Set(columns.flatMap(\.time))).sorted()
    var next = [Int](repeating: 0, count: columns.count)
    var writer = try RowWriter(output, types: [.timestampMicros] + Array(repeating: .float64, count: columns.count))
    try writer.append((["ts_us"] + columns.map(\.name)).joined(separator: ",") + "\n")
    for t in clock {
      try writer.appendRow { row in
        row.append(t)
        for (c, column) in columns.enumerated() {
          while next[c] < column.time.count && column.time[next[c]] <= t { next[c] += 1 }
          let p = next[c] - 1
          row.appendField(p >= 0 && column.valid[p] ? column.values[p] : nil)
        }
        row.append(ascii: "\n")
      }
    }
    _ = try writer.finish()
  }
}

/// A `--series` file of columns that share one clock, written a chunk of points at a
/// time as a series is streamed: `ts_us`, then a value per column, empty where the
/// column is not valid: the rows `SeriesCSV.write(columns:to:)` gives for columns on the
/// same points. Put in place by `finish`.
struct PointRowsWriter {
  /// One column of a chunk: its values, read where `valid` holds.
  struct Column {
    var values: UnsafeBufferPointer<Double>
    var valid: UnsafeBufferPointer<Bool>
  }

  private var writer: RowWriter
  private let names: [String]
  /// The first valid figure that is not finite: the file is never put in place (the
  /// summaries are not finite either, and the run is refused before `finish`).
  private var unwritable: NonFiniteResult? = nil

  init(_ output: TableOutput, names: [String]) throws {
    writer = try RowWriter(output, types: [.timestampMicros] + Array(repeating: .float64, count: names.count))
    self.names = names
    try writer.append((["ts_us"] + names).joined(separator: ",") + "\n")
  }

  /// Appends a row per point of `time`, `columns` in the order of the names (any beyond
  /// the names left out).
  mutating func append(time: UnsafeBufferPointer<Int64>, columns: [Column]) throws {
    guard unwritable == nil else { return }
    let columns = columns.prefix(names.count)
    for i in time.indices {
      if let (name, column) = zip(names, columns).first(where: { $1.valid[i] && !$1.values[i].isFinite }) {
        unwritable = NonFiniteResult(key: "series.\(time[i]).\(name)", value: column.values[i])
        return
      }
      try writer.appendRow { row in
        row.append(time[i])
        for column in columns { row.appendField(column.valid[i] ? column.values[i] : nil) }
        row.append(ascii: "\n")
      }
    }
  }

  /// Writes what is left and puts the file in place.
  mutating func finish() throws {
    if let unwritable { throw unwritable }
    _ = try writer.finish()
  }
}
