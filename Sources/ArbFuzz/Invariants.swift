import ArbCore
import ArbIngest

/// What every outcome of a read must satisfy, whatever the input.
enum Invariants {
  /// Row accounting, column lengths, prices finite and positive (or `nan` for an empty
  /// book side), sizes not negative, no crossed quote, time in order.
  static func check(_ file: IngestedFile, options: IngestOptions) -> [String] {
    var problems: [String] = []
    let report = file.report
    if report.rowsRead != report.rowsAccepted + report.rowsRejected {
      problems.append("rows read \(report.rowsRead) != accepted \(report.rowsAccepted) + rejected \(report.rowsRejected)")
    }
    if report.errors.count > options.keptErrors { problems.append("kept \(report.errors.count) errors") }
    if report.rejectedByKind.reduce(0, { $0 + $1.count }) != report.rowsRejected { problems.append("rejections by kind do not add up") }
    for series in file.series {
      let n = series.count
      let lengths = [series.bid.count, series.ask.count]
      if lengths.contains(where: { $0 != n }) { problems.append("\(series.instrument): column lengths \(lengths) for \(n) times") }
      for optional in [series.otherTime.count, series.bidSize.count, series.askSize.count] where optional != 0 && optional != n {
        problems.append("\(series.instrument): optional column of \(optional) values for \(n) times")
      }
      guard problems.isEmpty else { return problems }
      for k in 0..<n {
        let bid = series.bid[k], ask = series.ask[k]
        // Prices are finite and positive; rates (funding, premium index) finite, any sign.
        for price in [bid, ask] where !price.isNaN && !(price.isFinite && (series.field.isRate || price > 0)) {
          problems.append("\(series.instrument) \(series.field.rawValue): value \(price) at row \(k)")
        }
        if bid.isNaN && ask.isNaN { problems.append("\(series.instrument): no price at row \(k)") }
        if bid > ask { problems.append("\(series.instrument): crossed quote \(bid) > \(ask) at row \(k)") }
        if k > 0 && series.time[k] < series.time[k - 1] { problems.append("\(series.instrument): time goes back at row \(k)") }
        for size in [series.bidSize, series.askSize] where !size.isEmpty && !(size[k].isNaN || (size[k].isFinite && size[k] >= 0)) {
          problems.append("\(series.instrument): size \(size[k]) at row \(k)")
        }
        if problems.count > 5 { return problems }
      }
    }
    return problems
  }

  /// The error names the input and, for plain input, points inside it: a line that
  /// exists (or the one after the last) and a column at most one past its end.
  static func check(_ error: IngestError, in bytes: [UInt8], path: String) -> [String] {
    let position = error.position
    if position.path != path { return ["error names '\(position.path)', not the input: \(error)"] }
    if error.description.isEmpty { return ["empty error message"] }
    if position.line < 0 || position.column < 0 { return ["negative position: \(error)"] }
    // Lines of compressed input are lines of what it inflates to, those of a Parquet
    // file lines of its table's CSV: not checked here.
    let magic = Array(bytes.prefix(4))
    let compressed =
      magic.starts(with: [0x1f, 0x8b]) || magic == [0x50, 0x4b, 3, 4] || magic == [0x28, 0xb5, 0x2f, 0xfd] || magic == Array("PAR1".utf8)
    guard !compressed, position.line > 0 else { return [] }
    var line = 1, start = 0
    for k in bytes.indices where bytes[k] == 10 {
      if line == position.line { break }
      line += 1
      start = k + 1
    }
    guard line == position.line || position.line == line + 1 else {
      return ["error at line \(position.line) of an input of \(line) lines: \(error)"]
    }
    let length = line == position.line ? (bytes[start...].firstIndex(of: 10) ?? bytes.count) - start : 0
    if position.column > length + 1 {
      return ["error at column \(position.column) of a line of \(length) bytes: \(error)"]
    }
    return []
  }
}
