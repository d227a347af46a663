/// Which columns of a Parquet table the typed path reads, and as what: the columns that
/// name an instrument as strings, times and funding intervals as whole numbers, prices
/// and sizes as numbers. `nil` (`init`) when the layout or a column's type is one the
/// typed path does not serve; the rows are then read as CSV text (`ParquetText`).
struct ParquetTypedPlan {
  enum Role { case key, integer, number }

  /// The role of each column, `nil` for one not read.
  let roles: [Role?]

  /// A plan for the columns `leaves`, written as `forms`, whose rows `reader` (its header
  /// read) validates; `used` are the columns the text path would read.
  init?(leaves: [ParquetLeaf], forms: [ParquetValueForm], used: [Bool], reader: FileReader) {
    let layout = reader.layout
    // Book levels, a rebuilt book, a wide file, a candle's close time, a time of text:
    // the CSV path's.
    guard reader.books == nil, layout.venueColumns == nil, layout.depthLevels == 0, !layout.timeIsCloseTime,
      Self.isEpoch(layout.timeForm), layout.otherTime == nil || Self.isEpoch(layout.otherTimeForm),
      // A row of one field can be an empty line, which the CSV path skips; a row of a
      // wrong field count is rejected by it.
      leaves.count >= 2, leaves.count <= FieldOffsets.capacity,
      layout.fieldCount.map({ $0 == leaves.count }) ?? (leaves.count >= reader.minimumFields)
    else { return nil }
    var roles = [Role?](repeating: nil, count: leaves.count)
    func assign(_ k: Int?, _ role: Role) -> Bool {
      guard let k else { return true }
      guard k < leaves.count, roles[k] == nil || roles[k] == role else { return false }
      roles[k] = role
      return true
    }
    let numbers = [layout.bid, layout.ask, layout.bidSize, layout.askSize, layout.price, layout.tradeSize] + layout.values.map(\.column)
    guard reader.keyFields.allSatisfy({ assign($0, .key) }), [layout.time, layout.otherTime, layout.fundingIntervalHours].allSatisfy({ assign($0, .integer) }),
      numbers.allSatisfy({ assign($0, .number) })
    else { return nil }
    for k in leaves.indices where roles[k] != nil || used[k] {
      guard used[k], let role = roles[k], Self.serves(role, leaves[k], forms[k]) else { return nil }
    }
    self.roles = roles
  }

  private static func isEpoch(_ form: TimeForm) -> Bool { TimeParser.epoch(0, form: form) != nil }

  /// Whether `leaf`, written as `form`, can be read typed in `role`.
  private static func serves(_ role: Role, _ leaf: ParquetLeaf, _ form: ParquetValueForm) -> Bool {
    switch (role, leaf.type, form) {
    case (.key, .byteArray?, .text): true
    case (.integer, .int32?, .integer), (.integer, .int64?, .integer), (.integer, .int32?, .timestamp), (.integer, .int64?, .timestamp): true
    case (.number, .int32?, .integer), (.number, .int64?, .integer), (.number, .float?, .floating), (.number, .double?, .floating): true
    default: false
    }
  }
}

/// One column of a row group read typed, through its buffers (valid while its reader
/// reads no other chunk).
struct ParquetTypedColumn {
  let words: UnsafePointer<UInt64>
  let defined: UnsafePointer<UInt8>
  let form: ParquetValueForm
  let narrow: Bool
  let isFloating: Bool
  /// The strings of a BYTE_ARRAY column, kept by its reader (no reference counting per
  /// value read). `Unmanaged`, not an `unowned(unsafe)` optional: with such a field, the
  /// compiler's code and the type's value witnesses (generic code: `Optional.map`) hold a
  /// `nil` column in different fields, so a column not read could be taken as one read.
  let keys: Unmanaged<ParquetKeyTable>?

  init(_ values: ParquetColumnValues, form: ParquetValueForm) {
    words = UnsafePointer(values.words.base)
    defined = UnsafePointer(values.defined.base)
    self.form = form
    narrow = values.type == .int32
    isFloating = form == .floating
    keys = values.type == .byteArray ? .passUnretained(values.keys) : nil
  }

  /// Value `r` as the CSV field the text path writes (empty for a null).
  func write(_ r: Int, into out: inout ParquetColumnText) {
    guard defined[r] != 0 else { return }
    let word = words[r]
    if let keys {
      keys.takeUnretainedValue().values[Int(word)].withUnsafeBufferPointer { ParquetText.bytes($0, .text, into: &out) }
    } else if isFloating {
      ParquetText.double(Double(bitPattern: word), into: &out)
    } else {
      ParquetText.integer(Int64(bitPattern: word), narrow, form, into: &out)
    }
  }
}

/// The instrument of the last row of a part: the ids of its naming fields and its group,
/// in buffers (read and written per row without reference counting or access checks).
final class ParquetKeyCache {
  /// The naming fields (`FileReader.keyFields`).
  let fields: UnsafeMutableBufferPointer<Int>
  /// The group (-1 for none yet), then the id of each naming field.
  let state: UnsafeMutableBufferPointer<Int>

  init(fields: [Int]) {
    self.fields = .allocate(capacity: fields.count)
    _ = self.fields.initialize(from: fields)
    state = .allocate(capacity: fields.count + 1)
    state.initialize(repeating: -1)
  }

  deinit {
    fields.deallocate()
    state.deallocate()
  }

  /// Forgets the last row's instrument: the next row's is looked up again (its ids may
  /// come from another reader's strings).
  func forget() { state.update(repeating: -1) }
}

/// Row `row` of a row group's typed columns (`nil` for a column not read), as
/// `FileReader` validates it.
struct ParquetRowFields: RowFields {
  let columns: UnsafeBufferPointer<ParquetTypedColumn?>
  let row: Int
  unowned(unsafe) let cache: ParquetKeyCache

  @inline(__always)
  func isEmpty(_ k: Int) -> Bool { columns[k]!.defined[row] == 0 }

  @inline(__always)
  func number(_ k: Int, scratch: inout [UInt8]) -> Double? {
    let column = columns[k]!
    let word = column.words[row]
    return column.isFloating ? Double(bitPattern: word) : column.form.number(Int64(bitPattern: word), narrow: column.narrow)
  }

  @inline(__always)
  func integer(_ k: Int) -> Int64? {
    let column = columns[k]!
    guard column.defined[row] != 0 else { return nil }
    return column.form.integer(Int64(bitPattern: column.words[row]), narrow: column.narrow)
  }

  @inline(__always)
  func time(_ k: Int, form: TimeForm, offset: Int64, isCloseTime: Bool) -> Int64? {
    integer(k).flatMap { TimeParser.epoch($0, form: form) }
  }

  /// The id of the string in naming field `k`, -1 for a null.
  @inline(__always)
  private func id(_ k: Int) -> Int32 {
    let column = columns[k]!
    return column.defined[row] == 0 ? -1 : Int32(truncatingIfNeeded: column.words[row])
  }

  /// The bytes of naming field `k` (empty for a null).
  private func bytes(_ k: Int) -> [UInt8] {
    let id = id(k)
    return id < 0 ? [] : columns[k]!.keys!.takeUnretainedValue().values[Int(id)]
  }

  @inline(__always)
  func group(in reader: inout FileReader) -> Int? {
    let fields = cache.fields, state = cache.state
    var same = state[0] >= 0
    for i in fields.indices {
      let id = Int(id(fields[i]))
      if state[i + 1] != id {
        state[i + 1] = id
        same = false
      }
    }
    if same { return state[0] }
    var key: [UInt8] = []
    for k in fields {
      key += bytes(k)
      key.append(0x1F)
    }
    let group = reader.groupIndex(key: key) { String(decoding: bytes($0), as: UTF8.self) }
    state[0] = group ?? -1
    return group
  }

  /// Whether a naming field holds a string the CSV quotes: the row is then read as its
  /// CSV line, as the splitter (quoting or not) reads it.
  func hasQuotedKey() -> Bool {
    cache.fields.contains { k in
      let id = id(k)
      return id >= 0 && columns[k]!.keys!.takeUnretainedValue().isQuoted[Int(id)]
    }
  }

  /// The row as the CSV line the text path makes of it (`ParquetReader.appendRow`).
  func line(into bytes: inout [UInt8]) {
    var text = ParquetColumnText()
    for k in columns.indices {
      if k > 0 { text.bytes.append(UInt8(ascii: ",")) }
      columns[k]?.write(row, into: &text)
    }
    bytes = text.bytes
  }
}
