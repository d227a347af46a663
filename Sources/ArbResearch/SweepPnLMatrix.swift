import ArbBacktest
import ArbCore
import ArbIngest
import Foundation

/// `sweep --pnl-matrix PATH --period P`: the PnL each cell booked in each period, as the
/// daily journal books it (a trade on the period of its exit, funding on the period it
/// is paid), one row per period from that of the first valid point to that of the last
/// and one column per cell: `period_start_us,CELL,…` (docs/cli.md, sweep).
public enum SweepPnLMatrix {
  public static let firstColumn = "period_start_us"

  /// `--period`: a whole number of hours or days, `6h`, `1d`, `2d`.
  public struct Period: Equatable, Sendable {
    public let text: String
    /// µs.
    public let length: Int64

    public static let day = Period("1d")!

    /// `nil` unless `text` is digits and `h` or `d`, a positive duration.
    public init?(_ text: String) {
      let units: [Character: Int64] = ["h": 3_600_000_000, "d": TimeText.microsPerDay]
      guard let unit = text.last.flatMap({ units[$0] }), text.dropLast().allSatisfy({ ("0"..."9").contains($0) }),
        let count = Int64(text.dropLast()), count > 0
      else { return nil }
      let (length, overflow) = count.multipliedReportingOverflow(by: unit)
      guard !overflow else { return nil }
      self.text = text
      self.length = length
    }
  }

  /// One cell's column: the span of its valid points and the PnL of its periods that
  /// have a booking, in time order.
  public struct Column: Sendable {
    public var cell: Int
    public var times: ClosedRange<Int64>?
    public var booked: [(period: Int64, pnl: Double)]

    public init(cell: Int, journal: PnLJournal, length: Int64, offset: Int64) {
      self.cell = cell
      times = journal.firstTime.flatMap { first in journal.lastTime.map { first...$0 } }
      booked = journal.bookedPerPeriod(length: length, offset: offset)
    }
  }

  /// The matrix of `columns` (in cell order) with periods of `length` µs in the zone of `offset`.
  ///
  /// - Throws: `NonFiniteResult` for a period's PnL that is not a finite number (`pnl_matrix.ROW.CELL`);
  ///   `TimeError` when the first period starts before the range of times.
  public static func text(_ columns: [Column], length: Int64, offset: Int64) throws -> String {
    var text = ([firstColumn] + columns.map { String($0.cell) }).joined(separator: ",") + "\n"
    let spans = columns.compactMap(\.times)
    guard let first = spans.map(\.lowerBound).min(), let last = spans.map(\.upperBound).max() else { return text }
    let periods = PnLJournal.period(of: first, length: length, offset: offset)...PnLJournal.period(of: last, length: length, offset: offset)
    var start = try TimeArithmetic.add(-(first + offset).floorMod(length), to: first, .pnlPeriod)
    var next = [Int](repeating: 0, count: columns.count)
    let zero = NumberText.csv(0)
    for (row, period) in periods.enumerated() {
      text += String(start)
      for (c, column) in columns.enumerated() {
        var value = zero
        if next[c] < column.booked.count, column.booked[next[c]].period == period {
          let pnl = column.booked[next[c]].pnl
          guard pnl.isFinite else { throw NonFiniteResult(key: String(column.cell), value: pnl).inside(String(row + 1)).inside("pnl_matrix") }
          value = NumberText.csv(pnl)
          next[c] += 1
        }
        text += "," + value
      }
      text += "\n"
      // The last period starts at or before the last valid point: no overflow.
      if period < periods.upperBound { start += length }
    }
    return text
  }

  /// A matrix file read back for `arbkit merge`: its cells, and each row's start and fields.
  public struct File {
    public var cells: [Int]
    public var rows: [(start: Int64, values: [Substring])]

    /// Reads the matrix at `path`, written with periods of `length` µs.
    /// - Throws: `ShardMatrixError` naming the line that is not one of a matrix.
    public init(path: String, length: Int64) throws {
      try InputFile.check(path)
      guard let data = FileManager.default.contents(atPath: path) else { throw FileError.missing(path: path) }
      let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
      let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
      guard header.first == Substring(SweepPnLMatrix.firstColumn), lines.last?.isEmpty == true else {
        throw ShardMatrixError(path: path, line: 1, reason: .header)
      }
      let cells = header.dropFirst().compactMap { Int($0) }
      guard cells.count == header.count - 1 else { throw ShardMatrixError(path: path, line: 1, reason: .column(String(lines[0]))) }
      self.cells = cells
      rows = []
      for (k, line) in lines.dropFirst().dropLast().enumerated() {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == header.count, let start = Int64(fields[0]), fields.dropFirst().allSatisfy({ Double($0)?.isFinite == true }) else {
          throw ShardMatrixError(path: path, line: k + 2, reason: .row(cells: cells.count, was: String(line)))
        }
        if let previous = rows.last?.start, start.subtractingReportingOverflow(previous) != (length, false) {
          throw ShardMatrixError(path: path, line: k + 2, reason: .gap(start: start, previous: previous, length: length))
        }
        rows.append((start, Array(fields.dropFirst())))
      }
    }
  }

  /// The matrix of the whole sweep from its shards' matrices (`shards[i]` holds the
  /// cells i, i + N, … of `totalCells`): rows over the union of the shards' periods, 0
  /// where a shard has no row.
  public static func merged(_ shards: [File], paths: [String], totalCells: Int, length: Int64) throws(SweepError) -> String {
    let count = shards.count
    for (k, shard) in shards.enumerated() where shard.cells != Array(stride(from: k, to: totalCells, by: count)) {
      throw SweepError("\(paths[k]): its columns are not the cells of its shard \(k + 1)/\(count)")
    }
    var text = ([firstColumn] + (0..<totalCells).map(String.init)).joined(separator: ",") + "\n"
    guard let earliest = shards.indices.filter({ !shards[$0].rows.isEmpty }).min(by: { shards[$0].rows[0].start < shards[$1].rows[0].start }),
      let last = shards.compactMap({ $0.rows.last?.start }).max()
    else { return text }
    let first = shards[earliest].rows[0].start
    // The row of each shard at period `first` + k·length: its own first row is at `offsets[i]`.
    var offsets: [Int] = []
    for (k, shard) in shards.enumerated() {
      let start = shard.rows.first?.start ?? first
      guard (start - first).floorMod(length) == 0 else {
        throw SweepError("\(paths[k]): its periods start at other times than those of \(paths[earliest]) (journal.tz differs)")
      }
      offsets.append(Int((start - first) / length))
    }
    let zero = NumberText.csv(0)
    for k in 0...Int((last - first) / length) {
      text += String(first + Int64(k) * length)
      for cell in 0..<totalCells {
        let shard = shards[cell % count], row = k - offsets[cell % count]
        text += "," + (shard.rows.indices.contains(row) ? String(shard.rows[row].values[cell / count]) : zero)
      }
      text += "\n"
    }
    return text
  }
}

/// A line of a file given as a shard's PnL matrix that is not one `sweep --pnl-matrix` writes (exit 65).
public struct ShardMatrixError: Diagnostic {
  public enum Reason: Equatable, Sendable {
    /// The first line is not `period_start_us,CELL,…`, or the last line has no newline.
    case header
    /// A header column that is not a cell number (the header).
    case column(String)
    /// A row without its start and one finite number per cell.
    case row(cells: Int, was: String)
    /// A row whose period does not follow the one before.
    case gap(start: Int64, previous: Int64, length: Int64)
  }

  public var path: String
  public var line: Int
  public var reason: Reason

  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }

  public var description: String {
    let text: String
    switch reason {
    case .header: text = "not a pnl matrix of arbkit sweep (header \(SweepPnLMatrix.firstColumn),CELL,… and rows ending in a newline)"
    case .column(let header): text = "a column that is not a cell number, was '\(header)'"
    case .row(let cells, let line): text = "expected \(SweepPnLMatrix.firstColumn) and \(cells) finite numbers, was '\(line)'"
    case .gap(let start, let previous, let length):
      text = "period \(start) does not follow \(previous) by the sweep's period of \(TimeText.durationText(length))"
    }
    return "\(path):\(line):1: error: \(text)"
  }
}
