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
    private var text: String
    /// The first valid point whose premium is not finite: the file is never put in place
    /// (the statistics are not finite either, and the run is refused before `commit`).
    private var unwritable: NonFiniteResult? = nil

    init(path: String, legCount: Int) throws {
      file = try AtomicFile(path: path)
      self.legCount = legCount
      text = "ts_us,valid,mid_pct,exec_pct,direction"
      for k in 0..<legCount { text += ",bid_\(k + 1),ask_\(k + 1)" }
      text += "\n"
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
        text += String(chunk.time[i])
        if chunk.valid[i] {
          text += ",1," + NumberText.csv(chunk.mid[i]) + "," + NumberText.csv(chunk.exec[i])
          text += ",\(chunk.rich[i] + 1)>\(chunk.cheap[i] + 1)"
        } else {
          text += ",0,,,"
        }
        for k in 0..<legCount {
          let bid = chunk.quotes[i * width + k], ask = chunk.quotes[i * width + legCount + k]
          text += "," + NumberText.csv(bid.isFinite ? bid : nil) + "," + NumberText.csv(ask.isFinite ? ask : nil)
        }
        text += "\n"
        if text.utf8.count > 1 << 20 { try flush() }
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
      text.removeAll(keepingCapacity: true)
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
    try write(to: output, header: (["ts_us"] + columns.map(\.name)).joined(separator: ","), rows: clock.count) { i, text in
      let t = clock[i]
      text += String(t)
      for (c, column) in columns.enumerated() {
        while next[c] < column.time.count && column.time[next[c]] <= t { next[c] += 1 }
        let p = next[c] - 1
        text += "," + (p >= 0 && column.valid[p] ? NumberText.csv(column.values[p]) : "")
      }
    }
  }

  /// Writes `header`, then `rows` lines each appended by `row(i, &text)`, to `output`,
  /// all or nothing: a columnar file of `ts_us` and doubles, or CSV.
  private static func write(to output: TableOutput, header: String, rows: Int, row: (Int, inout String) -> Void) throws {
    let columns = header.split(separator: ",").count
    var writer = try RowWriter(output, types: [.timestampMicros] + Array(repeating: .float64, count: columns - 1))
    try writer.append(header + "\n")
    var line = ""
    for i in 0..<rows {
      row(i, &line)
      try writer.append(line + "\n")
      line.removeAll(keepingCapacity: true)
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

  /// Appends a row per point of `time`, `columns` in the order of the names.
  mutating func append(time: UnsafeBufferPointer<Int64>, columns: [Column]) throws {
    guard unwritable == nil else { return }
    var line = ""
    for i in time.indices {
      line += String(time[i])
      for (name, column) in zip(names, columns) {
        let value = column.valid[i] ? column.values[i] : nil
        if let value, !value.isFinite {
          unwritable = NonFiniteResult(key: "series.\(time[i]).\(name)", value: value)
          return
        }
        line += "," + NumberText.csv(value)
      }
      line += "\n"
      try writer.append(line)
      line.removeAll(keepingCapacity: true)
    }
  }

  /// Writes what is left and puts the file in place.
  mutating func finish() throws {
    if let unwritable { throw unwritable }
    _ = try writer.finish()
  }
}
