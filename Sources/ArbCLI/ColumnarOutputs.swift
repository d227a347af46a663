import ArbAnalytics
import ArbCore
import ArbIngest

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
  static func premium(path: String, legCount: Int) throws -> any PremiumSeriesOutput {
    if let columnar = try PremiumColumnarWriter(path: path, legCount: legCount) { return columnar }
    return try SeriesCSV.PremiumWriter(path: path, legCount: legCount)
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

  /// `nil` when `path` names no columnar file.
  init?(path: String, legCount: Int) throws {
    var fields = [
      ArrowField("ts_us", .timestampMicros, nullable: false), ArrowField("valid", .bool, nullable: false),
      ArrowField("mid_pct", .float64), ArrowField("exec_pct", .float64), ArrowField("direction", .utf8),
    ]
    for k in 1...legCount { fields += [ArrowField("bid_\(k)", .float64), ArrowField("ask_\(k)", .float64)] }
    guard let file = try ColumnarFile.writer(path: path, fields: fields) else { return nil }
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
  /// The table written to `path`, not yet in place (`FileOutput.commit`): CSV, or for a
  /// name ending `.arrow`, `.feather` or `.parquet` a columnar file of the same columns, typed: a
  /// text column named `*_us` a TIMESTAMP(µs, UTC), one of whole numbers (a trade's
  /// number) int64, the other text columns (directions, venues) dictionary-encoded
  /// strings, the numbers doubles; an empty field is a null. A table without rows has
  /// only its `*_us` columns as timestamps, the others doubles.
  func file(_ path: String) throws -> AtomicFile {
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
    guard let writer = try ColumnarFile.writer(path: path, fields: fields) else {
      let file = try AtomicFile(path: path)
      try file.write(text)
      return file
    }
    try writer.write(columns)
    return try writer.finish()
  }
}

/// A CSV that ArbKit wrote, as the columnar file (Arrow IPC or Parquet, by the name) of the
/// same values (`rolling --out`, `candles --out`): one record batch or row group, each
/// column of its given type, an empty field a null. The numbers parse back to the exact values printed (shortest round-trip text).
enum CSVColumnar {
  static func write(_ csv: String, types: [ArrowType], to path: String) throws {
    var lines = csv.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
    let names = lines.isEmpty ? [] : lines.removeFirst().map(String.init)
    precondition(names.count == types.count, "\(types.count) types for the columns \(names)")
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
    let writer = try ColumnarFile.writer(path: path, fields: zip(names, types).map { ArrowField($0, $1) })!
    try writer.write(columns)
    try writer.commit()
  }
}
