import ArbAnalytics
import ArbCore
import ArbIngest

/// A table file a command writes (`--series`, `--trades`, `--out` …) and its format:
/// `--output-format` when given, else the one the name's extension says.
struct TableOutput {
  static let flag = "--output-format"
  static let help = (
    "--output-format csv|arrow|parquet", "the format of the table files written (default: by each name's extension: .arrow/.feather, .parquet, else CSV)"
  )

  let path: String
  let format: TableFormat

  init(_ path: String, format: TableFormat? = nil) {
    self.path = path
    self.format = format ?? TableFormat(path: path)
  }

  /// The table files named by `flags` (`--series`, `--out` …; `nil` for one not given),
  /// in the format `--output-format` names or their names say.
  ///
  /// - Throws: `UsageError` for a format that is none of csv, arrow, parquet, or one
  ///   given without any of `flags`.
  static func parse(_ cursor: ArgumentCursor, flags: [String]) throws(UsageError) -> [TableOutput?] {
    let format = try cursor.value(flag, "csv, arrow or parquet", TableFormat.init(rawValue:))
    let outputs = flags.map { cursor.value($0).map { TableOutput($0, format: format) } }
    if let format, outputs.allSatisfy({ $0 == nil }) {
      throw UsageError("\(flag) \(format.rawValue) names the format of \(flags.joined(separator: ", ")), none of which was given")
    }
    return outputs
  }

  /// A columnar writer of `fields` for this file; `nil` for CSV.
  func writer(fields: [ArrowField], metadata: [(String, String)] = []) throws -> (any ColumnarWriter)? {
    try ColumnarFile.writer(path: path, format: format, fields: fields, metadata: metadata)
  }
}

/// A `--series` file of `arbkit premium`, written a chunk at a time and put in place by
/// `commit`: CSV (`SeriesCSV.PremiumWriter`) or, for a name ending `.arrow`, `.feather`
/// or `.parquet`, a columnar file (`PremiumColumnarWriter`).
protocol PremiumSeriesOutput {
  mutating func write(_ chunk: PremiumChunk) throws
  mutating func commit() throws
}

extension SeriesCSV.PremiumWriter: PremiumSeriesOutput {}

enum SeriesOutput {
  /// The writer of the premium's `--series` file at `path`, by its name.
  static func premium(_ output: TableOutput, legCount: Int) throws -> any PremiumSeriesOutput {
    if let columnar = try PremiumColumnarWriter(output, legCount: legCount) { return columnar }
    return try SeriesCSV.PremiumWriter(path: output.path, legCount: legCount)
  }
}

extension PremiumChunk {
  /// The first valid point whose premium is not finite, as the figure that stops the run.
  func firstNonFinite() -> NonFiniteResult? {
    for i in 0..<count where valid[i] && !(mid[i].isFinite && exec[i].isFinite) {
      let (key, value) = mid[i].isFinite ? ("exec_pct", exec[i]) : ("mid_pct", mid[i])
      return NonFiniteResult(key: "series.\(time[i]).\(key)", value: value)
    }
    return nil
  }
}

/// The premium's `--series` as an Arrow IPC or Parquet file, one record batch or row group
/// per chunk, with the CSV's columns typed: `ts_us` TIMESTAMP(µs, UTC), `valid` bool,
/// `mid_pct`, `exec_pct` and each leg's `bid_K`, `ask_K` double, `direction` a string;
/// null where the CSV is empty.
struct PremiumColumnarWriter: PremiumSeriesOutput {
  private let file: any ColumnarWriter
  private let legCount: Int
  private var unwritable: NonFiniteResult? = nil

  /// `nil` when `output` is a CSV file.
  init?(_ output: TableOutput, legCount: Int) throws {
    var fields = [
      ArrowField("ts_us", .timestampMicros, nullable: false), ArrowField("valid", .bool, nullable: false),
      ArrowField("mid_pct", .float64), ArrowField("exec_pct", .float64), ArrowField("direction", .utf8),
    ]
    for k in 1...legCount { fields += [ArrowField("bid_\(k)", .float64), ArrowField("ask_\(k)", .float64)] }
    guard let file = try output.writer(fields: fields) else { return nil }
    self.file = file
    self.legCount = legCount
  }

  mutating func write(_ chunk: PremiumChunk) throws {
    guard unwritable == nil else { return }
    if let bad = chunk.firstNonFinite() {
      unwritable = bad
      return
    }
    let valid = Array(chunk.valid)
    var columns: [ArrowColumn] = [
      .integers(Array(chunk.time)), .bools(valid), .doubles(Array(chunk.mid), valid: valid), .doubles(Array(chunk.exec), valid: valid),
      .strings((0..<chunk.count).map { i in valid[i] ? "\(chunk.rich[i] + 1)>\(chunk.cheap[i] + 1)" : nil }),
    ]
    let width = 2 * legCount
    for k in 0..<legCount {
      for side in [k, legCount + k] {
        let values = (0..<chunk.count).map { chunk.quotes[$0 * width + side] }
        columns.append(.doubles(values, valid: values.map(\.isFinite)))
      }
    }
    try file.write(columns)
  }

  mutating func commit() throws {
    if let unwritable { throw unwritable }
    try file.commit()
  }
}

extension CSVTable {
  /// The table written to `output`, not yet in place (`FileOutput.commit`): CSV, or an
  /// Arrow IPC or Parquet file of the same columns, typed, with `metadata`: a
  /// text column named `*_us` a TIMESTAMP(µs, UTC), one of whole numbers (a trade's
  /// number) int64, the other text columns (directions, venues) dictionary-encoded
  /// strings, the numbers doubles; an empty field is a null. A table without rows has
  /// only its `*_us` columns as timestamps, the others doubles.
  func file(_ output: TableOutput, metadata: [(String, String)] = []) throws -> AtomicFile {
    let names = header.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    // The text columns come first (the times among them).
    let textCount = rows.first?.fields.count ?? names.prefix { $0.hasSuffix("_us") }.count
    var fields: [ArrowField] = []
    var columns: [ArrowColumn] = []
    for (k, name) in names.enumerated() {
      if k >= textCount {
        fields.append(ArrowField(name, .float64))
        columns.append(.doubles(rows.map { $0.numbers[k - textCount] }))
        continue
      }
      let texts = rows.map { $0.fields[k] }
      let integers = texts.map { Int64($0) }
      if name.hasSuffix("_us") || integers.allSatisfy({ $0 != nil }) {
        fields.append(ArrowField(name, name.hasSuffix("_us") ? .timestampMicros : .int64))
        columns.append(.integers(integers.map { $0 ?? 0 }, valid: integers.map { $0 != nil }))
      } else {
        fields.append(ArrowField(name, .dictionaryUTF8))
        columns.append(.strings(texts.map { $0.isEmpty ? nil : $0 }))
      }
    }
    guard let writer = try output.writer(fields: fields, metadata: metadata) else {
      let file = try AtomicFile(path: output.path)
      try file.write(text)
      return file
    }
    try writer.write(columns)
    return try writer.finish()
  }
}

/// A CSV that ArbKit wrote, as the columnar file (Arrow IPC or Parquet) of the same values
/// (`rolling --out`, `candles --out`, the `--series` of `basis` and `kimchi`, the PnL
/// matrix): one record batch or row group, each column of its given type, an empty field
/// a null. The numbers parse back to the exact values printed (shortest round-trip text).
enum CSVColumnar {
  static func write(_ csv: String, types: [ArrowType], to output: TableOutput, metadata: [(String, String)] = []) throws {
    var lines = rows(csv)
    let names = lines.isEmpty ? [] : lines.removeFirst().map(String.init)
    let writer = try output.writer(fields: fields(names, types), metadata: metadata)!
    try writer.write(columns(lines, types: types))
    try writer.commit()
  }

  /// The fields of the columns `names`, typed by `types`.
  static func fields(_ names: [String], _ types: [ArrowType]) -> [ArrowField] {
    precondition(names.count == types.count, "\(types.count) types for the columns \(names)")
    return zip(names, types).map { ArrowField($0, $1) }
  }

  /// The fields of each line of `csv`.
  static func rows(_ csv: some StringProtocol) -> [[Substring]] {
    csv.split(separator: "\n", omittingEmptySubsequences: true).map { Substring($0).split(separator: ",", omittingEmptySubsequences: false) }
  }

  /// The values of `lines` by column, typed by `types`; an empty field is null.
  static func columns(_ lines: [[Substring]], types: [ArrowType]) -> [ArrowColumn] {
    var columns: [ArrowColumn] = []
    for (k, type) in types.enumerated() {
      let texts = lines.map { $0[k] }
      switch type {
      case .timestampMicros, .int64:
        let values = texts.map { Int64($0) }
        columns.append(.integers(values.map { $0 ?? 0 }, valid: values.map { $0 != nil }))
      case .float64:
        let values = texts.map { Double($0) }
        columns.append(.doubles(values.map { $0 ?? .nan }, valid: values.map { $0 != nil }))
      case .bool: columns.append(.bools(texts.map { $0 == "1" || $0 == "true" }, valid: texts.map { !$0.isEmpty }))
      case .utf8, .dictionaryUTF8: columns.append(.strings(texts.map { $0.isEmpty ? nil : String($0) }))
      }
    }
    return columns
  }
}

/// Per-row text output of the series commands: CSV rows written to a file in chunks
/// (an `AtomicFile`, in place at `finish`), or collected for stdout. A columnar file
/// gets the CSV's values a record batch (row group) per megabyte of rows as they come;
/// one that ends within its first megabyte is one batch (`CSVColumnar.write`).
struct RowWriter {
  private let file: AtomicFile?
  /// A columnar file and its columns' types.
  private let columnar: (output: TableOutput, types: [ArrowType])?
  /// The columnar file once its first batch is written, and its columns' names.
  private var table: (writer: any ColumnarWriter, names: [String])? = nil
  /// The rows not yet written.
  private var text = CSVBytes()

  /// Writes to `output`, or collects the text when `output` is nil; `types` are the CSV
  /// columns' types for a columnar `output`.
  init(_ output: TableOutput?, types: [ArrowType] = []) throws {
    columnar = output.flatMap { $0.format == .csv ? nil : ($0, types) }
    file = try columnar == nil ? output.map { try AtomicFile(path: $0.path) } : nil
  }

  /// Whether the rows go to a columnar file (which holds the CSV's rows, not JSON).
  var isColumnar: Bool { columnar != nil }

  /// Appends whole lines.
  mutating func append(_ line: String) throws {
    text.append(line)
    try flushWhenFull()
  }

  /// Appends one row: `row` writes its fields and the end of its line.
  mutating func appendRow(_ row: (inout CSVBytes) -> Void) throws {
    row(&text)
    try flushWhenFull()
  }

  /// Writes what is left and puts the file in place; returns the collected text for stdout.
  mutating func finish() throws -> String? {
    if let columnar {
      guard let table else {
        try CSVColumnar.write(text.string, types: columnar.types, to: columnar.output)
        return nil
      }
      try flush()
      try table.writer.commit()
      return nil
    }
    guard let file else { return text.string }
    try flush()
    try file.commit()
    return nil
  }

  /// Writes the rows so far once they pass a megabyte (a file's; stdout's are kept).
  private mutating func flushWhenFull() throws {
    if (file != nil || columnar != nil) && text.count > 1 << 20 { try flush() }
  }

  private mutating func flush() throws {
    if let columnar {
      var lines = CSVColumnar.rows(text.string)
      if table == nil {
        let names = lines.isEmpty ? [] : lines.removeFirst().map(String.init)
        table = (try columnar.output.writer(fields: CSVColumnar.fields(names, columnar.types))!, names)
      }
      if !lines.isEmpty { try table!.writer.write(CSVColumnar.columns(lines, types: columnar.types)) }
    } else {
      try file?.write(text)
    }
    text.removeAll()
  }
}
