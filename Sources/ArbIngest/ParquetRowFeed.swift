#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The rows of consecutive row groups of a Parquet file, handed out in order a row group
/// decoded at a time: typed when `ParquetTypedPlan` serves the reader's layout and the
/// columns' types, else as the CSV line of the same row (`ParquetText`). Handing out may
/// stop after any row and resume there, so a stream holds one row group's columns.
///
/// Each row group's pages are let go of once its rows are handed out (`MADV_DONTNEED` on
/// the mapped file): a file read to its end does not stay resident.
final class ParquetRowFeed {
  private let footer: ParquetReader.Footer
  private let path: String
  private var groups: Range<Int>
  /// Bytes and values the feed may still decode (the decompression limit).
  private var budget: Int
  /// The number of the next row (the header is line 1 of the CSV of the table).
  private(set) var number: Int
  private let columns: Columns
  /// The row group being handed out, and its rows handed out so far.
  private var group = -1
  private var rows = 0
  private var nextRow = 0
  private var text: [UInt8] = []

  private enum Columns {
    case typed(readers: [ParquetColumnReader<ParquetColumnValues>], used: [Bool], forms: [ParquetValueForm], cache: ParquetKeyCache, current: Typed)
    case text(readers: [ParquetColumnReader<ParquetColumnText>], used: [Bool], current: TextColumns)
  }

  /// The current row group's typed columns, and whether a naming column holds a string
  /// the CSV quotes.
  private final class Typed {
    var values: [ParquetColumnValues?] = []
    var columns: [ParquetTypedColumn?] = []
    var quoted = false
  }

  private final class TextColumns {
    var columns: [ParquetColumnText?] = []
  }

  /// - Parameters:
  ///   - groups: the row groups handed out, in order; the first row is line `firstLine`.
  ///   - typed: read typed where the plan allows; `reader` is the reader the rows are for,
  ///     its header read (its layout decides the plan), `nil` to read every row as text.
  ///   - budget: bytes and values the feed may decode.
  init(
    footer: ParquetReader.Footer, path: String, groups: Range<Int>, firstLine: Int, forms: [ParquetValueForm], used: [Bool], typed: Bool,
    reader: FileReader?, budget: Int
  ) {
    self.footer = footer
    self.path = path
    self.groups = groups
    self.budget = budget
    number = firstLine
    if typed, let reader, let plan = ParquetTypedPlan(leaves: footer.leaves, forms: forms, used: used, reader: reader) {
      let readers = footer.leaves.enumerated().map { k, leaf in
        ParquetColumnReader(leaf: leaf, form: forms[k], data: footer.data, values: ParquetColumnValues(type: leaf.type ?? .byteArray, keys: ParquetKeyTable()))
      }
      columns = .typed(readers: readers, used: plan.roles.map { $0 != nil }, forms: forms, cache: ParquetKeyCache(fields: reader.keyFields), current: Typed())
    } else {
      let readers = footer.leaves.enumerated().map { k, leaf in ParquetColumnReader(leaf: leaf, form: forms[k], data: footer.data, values: ParquetColumnText())
      }
      columns = .text(readers: readers, used: used, current: TextColumns())
    }
  }

  /// Hands each row to `typed` (a row read typed) or `line` (a row as its CSV line, without
  /// its line break), with its line number, until one returns `false` or the rows end.
  /// Returns whether rows remain.
  func read(
    typed: (ParquetRowFields, Int) throws -> Bool, line: (UnsafeBufferPointer<UInt8>, Int) throws -> Bool
  ) throws -> Bool {
    while true {
      if nextRow == rows {
        if group >= 0 { release(group) }
        guard let g = groups.popFirst() else { return false }
        try load(g)
        continue
      }
      var r = nextRow, number = self.number
      defer { (nextRow, self.number) = (r, number) }
      var more = true
      switch columns {
      case .typed(_, _, _, let cache, let current):
        let quoted = current.quoted
        try current.columns.withUnsafeBufferPointer { columns in
          while more && r < rows {
            let row = ParquetRowFields(columns: columns, row: r, cache: cache)
            if quoted && row.hasQuotedKey() {
              row.line(into: &text)
              more = try text.withUnsafeBufferPointer { try line($0, number) }
            } else {
              more = try typed(row, number)
            }
            r += 1
            number += 1
          }
        }
      case .text(_, _, let current):
        try Self.withBuffers(current.columns) { columns in
          while more && r < rows {
            text.removeAll(keepingCapacity: true)
            Self.appendRow(r, of: columns, to: &text)
            more = try text.withUnsafeBufferPointer { try line($0, number) }
            r += 1
            number += 1
          }
        }
      }
      if !more { return true }
    }
  }

  /// Decodes the columns of row group `g` that the rows need.
  private func load(_ g: Int) throws {
    let group = footer.metadata.rowGroups[g]
    guard group.columns.count == footer.leaves.count else {
      throw ParquetError(path: path, rowGroup: g, reason: "\(group.columns.count) column chunks for \(footer.leaves.count) columns")
    }
    guard group.rows >= 0, group.rows <= Int64(budget / 8) else {
      throw ParquetError(path: path, rowGroup: g, reason: "\(group.rows) rows, beyond the decompression limit (a decompression bomb?)")
    }
    let rows = Int(group.rows)
    func decode<Values>(_ readers: [ParquetColumnReader<Values>], _ used: [Bool]) throws -> [Values?] {
      try readers.indices.map { k -> Values? in
        guard used[k] else { return nil }
        do throws(ParquetFault) { return try readers[k].read(group.columns[k], rows: rows, budget: &budget) } catch {
          throw ParquetError(path: path, rowGroup: g, column: readers[k].leaf.name, reason: error.reason)
        }
      }
    }
    switch columns {
    case .typed(let readers, let used, let forms, _, let current):
      // The last group's columns are let go of first: their readers reuse the buffers.
      (current.columns, current.values) = ([], [])
      current.values = try decode(readers, used)
      current.columns = current.values.enumerated().map { k, values in values.map { ParquetTypedColumn($0, form: forms[k]) } }
      current.quoted = current.values.contains { $0?.type == .byteArray && $0!.keys.hasQuoted }
    case .text(let readers, let used, let current):
      current.columns = []
      current.columns = try decode(readers, used)
    }
    (self.group, self.rows, nextRow) = (g, rows, 0)
  }

  /// Lets go of the pages of row group `g` (those wholly inside its column chunks' span).
  private func release(_ g: Int) {
    let chunks = footer.metadata.rowGroups[g].columns
    guard let first = chunks.map(\.start).min(), let base = footer.data.baseAddress,
      let end = chunks.map({ $0.start &+ $0.compressedSize }).max(), first >= 0, end <= Int64(footer.data.count)
    else { return }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let start = (Int(bitPattern: base) + Int(first) + page - 1) & ~(page - 1)
    let stop = (Int(bitPattern: base) + Int(end)) & ~(page - 1)
    if stop > start { madvise(UnsafeMutableRawPointer(bitPattern: start), stop - start, MADV_DONTNEED) }
  }

  /// A column's text as buffers: value `k` is `bytes[ends[k - 1] ..< ends[k]]`.
  private typealias ColumnBuffers = (bytes: UnsafeBufferPointer<UInt8>, ends: UnsafeBufferPointer<Int>)

  /// Calls `body` with the buffers of `columns` (`nil` for a column not read), valid during
  /// the call: the rows are then put together without reference counting per field.
  private static func withBuffers(_ columns: [ParquetColumnText?], _ body: ([ColumnBuffers?]) throws -> Void) throws {
    var buffers: [ColumnBuffers?] = []
    func nest(_ k: Int) throws {
      guard k < columns.count else { return try body(buffers) }
      guard let column = columns[k] else {
        buffers.append(nil)
        return try nest(k + 1)
      }
      try column.bytes.withUnsafeBufferPointer { bytes in
        try column.ends.withUnsafeBufferPointer { ends in
          buffers.append((bytes, ends))
          try nest(k + 1)
        }
      }
    }
    try nest(0)
  }

  /// Appends row `r` of `columns` as a CSV line without its line break (an unread column's field empty).
  private static func appendRow(_ r: Int, of columns: [ColumnBuffers?], to line: inout [UInt8]) {
    for k in columns.indices {
      if k > 0 { line.append(UInt8(ascii: ",")) }
      guard let column = columns[k] else { continue }
      let start = r == 0 ? 0 : column.ends[r - 1]
      line.append(contentsOf: UnsafeBufferPointer(rebasing: column.bytes[start..<column.ends[r]]))
    }
  }
}
