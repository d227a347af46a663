#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore

/// The rows of consecutive row groups of a Parquet file, handed out in order a row group
/// decoded at a time: typed when `ParquetTypedPlan` serves the reader's layout and the
/// columns' types, else as the CSV line of the same row (`ParquetText`). Handing out may
/// stop after any row and resume there, so a stream holds one row group's columns (two
/// when it reads ahead: the next group is decoded on a thread of its own while the rows
/// of this one are handed out).
///
/// Each row group's pages are let go of once its rows are handed out (`MADV_DONTNEED` on
/// the mapped file): a file read to its end does not stay resident.
final class ParquetRowFeed {
  private let footer: ParquetReader.Footer
  /// The number of the next row (the header is line 1 of the CSV of the table).
  private(set) var number: Int
  /// The instrument of the last row (typed rows).
  private let cache: ParquetKeyCache?
  private let decoder: Decoder
  /// The thread that decodes ahead, or the one group decoded in turn.
  private let ahead: ReadAhead<DecodedGroup>?
  private let alone: DecodedGroup?
  /// The row group being handed out, and its rows handed out so far.
  private var current: DecodedGroup?
  private var nextRow = 0
  private var ended = false
  private var text: [UInt8] = []

  /// - Parameters:
  ///   - groups: the row groups handed out, in order; the first row is line `firstLine`.
  ///   - typed: read typed where the plan allows; `reader` is the reader the rows are for,
  ///     its header read (its layout decides the plan), `nil` to read every row as text.
  ///   - budget: bytes and values the feed may decode.
  ///   - readsAhead: decode the next row group on a thread while this one's rows are handed out.
  init(
    footer: ParquetReader.Footer, path: String, groups: Range<Int>, firstLine: Int, forms: [ParquetValueForm], used: [Bool], typed: Bool,
    reader: FileReader?, budget: Int, readsAhead: Bool = false
  ) {
    self.footer = footer
    number = firstLine
    let plan = typed ? reader.flatMap { ParquetTypedPlan(leaves: footer.leaves, forms: forms, used: used, reader: $0) } : nil
    cache = plan.flatMap { _ in reader.map { ParquetKeyCache(fields: $0.keyFields) } }
    decoder = Decoder(
      footer: footer, path: path, groups: groups, budget: budget, forms: forms, used: plan.map { $0.roles.map { $0 != nil } } ?? used, typed: plan != nil)
    if readsAhead && groups.count > 1 {
      let decoder = decoder
      ahead = ReadAhead(slots: [decoder.group(), decoder.group()], name: "parquet") { try decoder.fill($0) }
      alone = nil
    } else {
      ahead = nil
      alone = decoder.group()
    }
  }

  deinit { ahead?.stop() }

  /// Whether the rows are read typed (`ParquetTypedPlan`), not as text.
  var isTyped: Bool { cache != nil }

  /// Hands each row to `typed` (a row read typed) or `line` (a row as its CSV line, without
  /// its line break), with its line number, until one returns `false` or the rows end.
  /// Returns whether rows remain.
  func read(
    typed: (ParquetRowFields, Int) throws -> Bool, line: (UnsafeBufferPointer<UInt8>, Int) throws -> Bool
  ) throws -> Bool {
    while true {
      guard let current, nextRow < current.rows else {
        try advance()
        if ended { return false }
        continue
      }
      var r = nextRow, number = self.number
      defer { (nextRow, self.number) = (r, number) }
      var more = true
      let rows = current.rows
      if let cache {
        let quoted = current.quoted
        try current.typed.withUnsafeBufferPointer { columns in
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
      } else {
        try Self.withBuffers(current.text) { columns in
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

  /// Lets go of the row group handed out and takes the next one; `ended` after the last.
  private func advance() throws {
    guard !ended else { return }
    if let current {
      release(current.group)
      ahead?.release()
      self.current = nil
    }
    nextRow = 0
    if let ahead {
      current = ahead.take()
      if current == nil, let failure = ahead.failure {
        ended = true
        throw failure
      }
    } else if try decoder.fill(alone!) {
      current = alone
    }
    ended = current == nil
    // Two groups decoded ahead have column readers, and so string ids, of their own.
    if ahead != nil { cache?.forget() }
  }

  /// A row group decoded, with the column readers whose buffers hold its columns.
  private final class DecodedGroup {
    let typedReaders: [ParquetColumnReader<ParquetColumnValues>]
    let textReaders: [ParquetColumnReader<ParquetColumnText>]
    var group = -1
    var rows = 0
    /// Typed: the columns, their values, and whether a naming column holds a string the CSV quotes.
    var values: [ParquetColumnValues?] = []
    var typed: [ParquetTypedColumn?] = []
    var quoted = false
    /// As text.
    var text: [ParquetColumnText?] = []

    init(typedReaders: [ParquetColumnReader<ParquetColumnValues>], textReaders: [ParquetColumnReader<ParquetColumnText>]) {
      self.typedReaders = typedReaders
      self.textReaders = textReaders
    }
  }

  /// Decodes the row groups in turn (on the reading-ahead thread when there is one: it
  /// alone then touches the budget and the groups left).
  private final class Decoder {
    let footer: ParquetReader.Footer
    let path: String
    var groups: Range<Int>
    var budget: Int
    let forms: [ParquetValueForm]
    let used: [Bool]
    let typed: Bool

    init(footer: ParquetReader.Footer, path: String, groups: Range<Int>, budget: Int, forms: [ParquetValueForm], used: [Bool], typed: Bool) {
      (self.footer, self.path, self.groups, self.budget) = (footer, path, groups, budget)
      (self.forms, self.used, self.typed) = (forms, used, typed)
    }

    /// A group with column readers of its own.
    func group() -> DecodedGroup {
      func readers<Values>(_ values: (ParquetLeaf) -> Values) -> [ParquetColumnReader<Values>] {
        footer.leaves.enumerated().map { k, leaf in ParquetColumnReader(leaf: leaf, form: forms[k], data: footer.data, values: values(leaf)) }
      }
      return typed
        ? DecodedGroup(typedReaders: readers { ParquetColumnValues(type: $0.type ?? .byteArray, keys: ParquetKeyTable()) }, textReaders: [])
        : DecodedGroup(typedReaders: [], textReaders: readers { _ in ParquetColumnText() })
    }

    /// Decodes the next row group into `slot`; `false` when none is left.
    func fill(_ slot: DecodedGroup) throws -> Bool {
      guard let g = groups.popFirst() else { return false }
      let group = footer.metadata.rowGroups[g]
      guard group.columns.count == footer.leaves.count else {
        throw ParquetError(path: path, rowGroup: g, reason: "\(group.columns.count) column chunks for \(footer.leaves.count) columns")
      }
      guard group.rows >= 0, group.rows <= Int64(budget / 8) else {
        throw ParquetError(path: path, rowGroup: g, reason: "\(group.rows) rows, beyond the decompression limit (a decompression bomb?)")
      }
      let rows = Int(group.rows)
      func decode<Values>(_ readers: [ParquetColumnReader<Values>]) throws -> [Values?] {
        try readers.indices.map { k -> Values? in
          guard used[k] else { return nil }
          do throws(ParquetFault) { return try readers[k].read(group.columns[k], rows: rows, budget: &budget) } catch {
            throw ParquetError(path: path, rowGroup: g, column: readers[k].leaf.name, reason: error.reason)
          }
        }
      }
      // The last group's columns are let go of first: their readers reuse the buffers.
      (slot.values, slot.typed, slot.text) = ([], [], [])
      if typed {
        slot.values = try decode(slot.typedReaders)
        slot.typed = slot.values.enumerated().map { k, values in values.map { ParquetTypedColumn($0, form: forms[k]) } }
        slot.quoted = slot.values.contains { $0?.type == .byteArray && $0!.keys.hasQuoted }
      } else {
        slot.text = try decode(slot.textReaders)
      }
      (slot.group, slot.rows) = (g, rows)
      return true
    }
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
