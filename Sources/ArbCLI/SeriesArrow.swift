import ArbAnalytics
import ArbCore
import ArbIngest

/// A `--series` file of `arbkit premium`, written a chunk at a time and put in place by
/// `commit`: CSV (`SeriesCSV.PremiumWriter`) or, for a name ending `.arrow` or
/// `.feather`, an Arrow IPC file (`PremiumArrowWriter`).
protocol PremiumSeriesOutput {
  mutating func write(_ chunk: PremiumChunk) throws
  mutating func commit() throws
}

extension SeriesCSV.PremiumWriter: PremiumSeriesOutput {}

enum SeriesOutput {
  /// Whether `path` names an Arrow IPC file by its extension.
  static func isArrow(_ path: String) -> Bool {
    let name = path.lowercased()
    return name.hasSuffix(".arrow") || name.hasSuffix(".feather")
  }

  /// The writer of the premium's `--series` file at `path`, by its extension.
  static func premium(path: String, legCount: Int) throws -> any PremiumSeriesOutput {
    isArrow(path) ? try PremiumArrowWriter(path: path, legCount: legCount) : try SeriesCSV.PremiumWriter(path: path, legCount: legCount)
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

/// The premium's `--series` as an Arrow IPC file, one record batch per chunk, with the
/// CSV's columns typed: `ts_us` TIMESTAMP(µs, UTC), `valid` bool, `mid_pct`, `exec_pct`
/// and each leg's `bid_K`, `ask_K` double, `direction` a string; null where the CSV is
/// empty.
struct PremiumArrowWriter: PremiumSeriesOutput {
  private let file: ArrowFileWriter
  private let legCount: Int
  private var unwritable: NonFiniteResult? = nil

  init(path: String, legCount: Int) throws {
    var fields = [
      ArrowField("ts_us", .timestampMicros, nullable: false), ArrowField("valid", .bool, nullable: false),
      ArrowField("mid_pct", .float64), ArrowField("exec_pct", .float64), ArrowField("direction", .utf8),
    ]
    for k in 1...legCount { fields += [ArrowField("bid_\(k)", .float64), ArrowField("ask_\(k)", .float64)] }
    file = try ArrowFileWriter(path: path, fields: fields)
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
