/// Writes Thrift's compact protocol, as Parquet's footer and page headers are read by
/// `ThriftReader`.
struct ThriftWriter {
  private(set) var bytes: [UInt8] = []
  private var lastField: [Int16] = [0]

  private mutating func varint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(v & 0x7F) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }

  private mutating func header(_ id: Int16, _ kind: UInt8) {
    let delta = id - lastField[lastField.count - 1]
    if delta > 0 && delta <= 15 {
      bytes.append(UInt8(delta) << 4 | kind)
    } else {
      bytes.append(kind)
      varint(UInt64(bitPattern: Int64((id << 1) ^ (id >> 15))))
    }
    lastField[lastField.count - 1] = id
  }

  mutating func int(_ id: Int16, _ value: Int64, kind: UInt8 = ThriftReader.Kind.i64) {
    header(id, kind)
    varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
  }

  mutating func i32(_ id: Int16, _ value: Int) { int(id, Int64(value), kind: ThriftReader.Kind.i32) }

  mutating func bool(_ id: Int16, _ value: Bool) { header(id, value ? ThriftReader.Kind.boolTrue : ThriftReader.Kind.boolFalse) }

  mutating func string(_ id: Int16, _ value: String) {
    header(id, ThriftReader.Kind.binary)
    varint(UInt64(value.utf8.count))
    bytes.append(contentsOf: value.utf8)
  }

  /// A struct field whose members `body` writes.
  mutating func structure(_ id: Int16, _ body: (inout ThriftWriter) -> Void) {
    header(id, ThriftReader.Kind.structure)
    lastField.append(0)
    body(&self)
    end()
  }

  /// Ends a struct (the top-level one included).
  mutating func end() {
    bytes.append(0)
    lastField.removeLast()
    if lastField.isEmpty { lastField = [0] }
  }

  /// A list field of `count` elements of type `kind`, each written by `element`.
  mutating func list(_ id: Int16, kind: UInt8, count: Int, _ element: (inout ThriftWriter, Int) -> Void) {
    header(id, ThriftReader.Kind.list)
    if count < 15 {
      bytes.append(UInt8(count) << 4 | kind)
    } else {
      bytes.append(0xF0 | kind)
      varint(UInt64(count))
    }
    for k in 0..<count {
      if kind == ThriftReader.Kind.structure {
        lastField.append(0)
        element(&self, k)
        end()
      } else {
        element(&self, k)
      }
    }
  }

  /// A bare i32 or string list element.
  mutating func element(_ value: Int) { varint(UInt64(bitPattern: Int64((value << 1) ^ (value >> 63)))) }
  mutating func element(_ value: String) {
    varint(UInt64(value.utf8.count))
    bytes.append(contentsOf: value.utf8)
  }
}

/// Writes a Parquet file all or nothing (`AtomicFile`): one row group per `write` call,
/// each column data pages of at most `pageRows` rows (v1, RLE / bit-packed definition
/// levels for a nullable column; numbers PLAIN, strings `RLE_DICTIONARY` after a PLAIN
/// dictionary page) compressed with ZSTD, then the footer with the schema — timestamps
/// `TIMESTAMP(MICROS, UTC)`, strings `STRING` — and the key/value metadata.
public final class ParquetFileWriter {
  private let file: AtomicFile
  private let fields: [ArrowField]
  private let metadata: [(String, String)]
  private var offset = 0
  private var rowGroups: [(rows: Int, columns: [ColumnChunk])] = []

  /// Rows per data page: what a reader decodes at a time.
  static let pageRows = 1 << 16

  /// Where a column chunk lies and what it holds.
  private struct ColumnChunk {
    var offset: Int
    var dataOffset: Int
    var compressed = 0
    var uncompressed = 0
    var values: Int
    var dictionary: Bool
  }

  /// A page before compression: a dictionary page, or a data page of `values` rows.
  private struct Page {
    var dictionary: Bool
    var values: Int
    var bytes: [UInt8]
  }

  public init(path: String, fields: [ArrowField], metadata: [(String, String)] = []) throws {
    file = try AtomicFile(path: path)
    self.fields = fields
    self.metadata = metadata
    try emit(Array("PAR1".utf8))
  }

  /// Appends one row group, one column per field, all of the same length. The columns'
  /// pages are made and compressed on all cores, then written in order.
  public func write(_ columns: [ArrowColumn]) throws {
    precondition(columns.count == fields.count, "\(columns.count) columns for \(fields.count) fields")
    // Each thread reads its own column only.
    nonisolated(unsafe) let columns = columns
    let fields = fields
    let made = concurrently(columns.count) { k in
      let (rows, pages) = Self.pages(columns[k], nullable: fields[k].nullable)
      return (rows: rows, pages: pages.map { (page: $0, compressed: ParquetCodec.zstdCompress($0.bytes)) })
    }
    var chunks: [ColumnChunk] = []
    var rows = -1
    for (values, pages) in made {
      precondition(rows < 0 || rows == values, "columns of \(rows) and \(values) rows in one row group")
      rows = values
      var chunk = ColumnChunk(offset: offset, dataOffset: offset, values: values, dictionary: pages.first?.page.dictionary ?? false)
      for (page, compressed) in pages {
        if !page.dictionary && chunk.dataOffset == chunk.offset && chunk.dictionary { chunk.dataOffset = offset }
        var header = ThriftWriter()
        header.i32(1, page.dictionary ? 2 : 0)
        header.i32(2, page.bytes.count)
        header.i32(3, compressed.count)
        if page.dictionary {
          header.structure(7) { h in
            h.i32(1, page.values)
            h.i32(2, 0)
          }
        } else {
          header.structure(5) { h in
            h.i32(1, page.values)
            h.i32(2, chunk.dictionary ? 8 : 0)
            h.i32(3, 3)
            h.i32(4, 3)
          }
        }
        header.end()
        chunk.compressed += header.bytes.count + compressed.count
        chunk.uncompressed += header.bytes.count + page.bytes.count
        try emit(header.bytes)
        try emit(compressed)
      }
      chunks.append(chunk)
    }
    rowGroups.append((max(rows, 0), chunks))
  }

  /// Writes the footer and puts the file in place.
  public func commit() throws { try FileOutput.commit([try finish()]) }

  /// Writes the footer; the file is put in place by `FileOutput.commit` with the outputs
  /// it belongs with.
  public func finish() throws -> AtomicFile {
    var footer = ThriftWriter()
    footer.i32(1, 1)
    footer.list(2, kind: ThriftReader.Kind.structure, count: fields.count + 1) { w, k in
      guard k > 0 else {
        w.string(4, "schema")
        w.i32(5, fields.count)
        return
      }
      Self.schema(fields[k - 1], into: &w)
    }
    footer.int(3, Int64(rowGroups.reduce(0) { $0 + $1.rows }))
    footer.list(4, kind: ThriftReader.Kind.structure, count: rowGroups.count) { w, g in
      let group = rowGroups[g]
      w.list(1, kind: ThriftReader.Kind.structure, count: group.columns.count) { w, k in
        let chunk = group.columns[k]
        w.int(2, Int64(chunk.offset))
        w.structure(3) { m in
          m.i32(1, Int(Self.physicalType(fields[k].type).rawValue))
          // PLAIN, RLE (levels), and RLE_DICTIONARY for a dictionary-encoded chunk.
          let encodings = chunk.dictionary ? [0, 3, 8] : [0, 3]
          m.list(2, kind: ThriftReader.Kind.i32, count: encodings.count) { w, e in w.element(encodings[e]) }
          m.list(3, kind: ThriftReader.Kind.binary, count: 1) { w, _ in w.element(fields[k].name) }
          m.i32(4, Int(ParquetCodec.zstd.rawValue))
          m.int(5, Int64(chunk.values))
          m.int(6, Int64(chunk.uncompressed))
          m.int(7, Int64(chunk.compressed))
          m.int(9, Int64(chunk.dataOffset))
          if chunk.dictionary { m.int(11, Int64(chunk.offset)) }
        }
      }
      w.int(2, Int64(group.columns.reduce(0) { $0 + $1.uncompressed }))
      w.int(3, Int64(group.rows))
    }
    if !metadata.isEmpty {
      footer.list(5, kind: ThriftReader.Kind.structure, count: metadata.count) { w, k in
        w.string(1, metadata[k].0)
        w.string(2, metadata[k].1)
      }
    }
    footer.string(6, "arbkit")
    footer.end()
    var tail = footer.bytes
    FlatBuffer.append(&tail, UInt32(footer.bytes.count))
    tail.append(contentsOf: Array("PAR1".utf8))
    try emit(tail)
    return file
  }

  private static func physicalType(_ type: ArrowType) -> ParquetType {
    switch type {
    case .timestampMicros, .int64: .int64
    case .float64: .double
    case .bool: .boolean
    case .utf8, .dictionaryUTF8: .byteArray
    }
  }

  /// A leaf of the schema: type, optional or required, name, converted and logical type.
  private static func schema(_ field: ArrowField, into w: inout ThriftWriter) {
    w.i32(1, Int(physicalType(field.type).rawValue))
    w.i32(3, field.nullable ? 1 : 0)
    w.string(4, field.name)
    switch field.type {
    case .timestampMicros:
      w.i32(6, 10)
      w.structure(10) { l in
        l.structure(8) { t in
          t.bool(1, true)
          t.structure(2) { u in u.structure(2) { _ in } }
        }
      }
    case .utf8, .dictionaryUTF8:
      w.i32(6, 0)
      w.structure(10) { l in l.structure(1) { _ in } }
    case .float64, .int64, .bool: break
    }
  }

  /// The pages of `column` and its number of rows: data pages of `pageRows` rows, each its
  /// definition levels (a nullable column) then its non-null values, PLAIN, or for strings
  /// their indices into the dictionary page that comes first.
  private static func pages(_ column: ArrowColumn, nullable: Bool) -> (rows: Int, pages: [Page]) {
    let count: Int
    var dictionary: (page: [UInt8], ids: [String: Int], width: Int)? = nil
    switch column {
    case .integers(let values, _): count = values.count
    case .doubles(let values, _): count = values.count
    case .bools(let values, _): count = values.count
    case .strings(let values):
      count = values.count
      var page: [UInt8] = []
      var ids: [String: Int] = [:]
      for case let text? in values where ids[text] == nil {
        ids[text] = ids.count
        FlatBuffer.append(&page, UInt32(text.utf8.count))
        page += text.utf8
      }
      dictionary = (page, ids, max(1, Int.bitWidth - max(ids.count - 1, 0).leadingZeroBitCount))
    case .indices: preconditionFailure("dictionary indices are an Arrow encoding; give a Parquet writer the strings")
    }
    var pages = dictionary.map { [Page(dictionary: true, values: $0.ids.count, bytes: $0.page)] } ?? []
    for start in stride(from: 0, to: max(count, 1), by: pageRows) {
      let rows = start..<min(start + pageRows, count)
      pages.append(
        Page(dictionary: false, values: rows.count, bytes: page(column, rows, nullable: nullable, dictionary: dictionary.map { ($0.ids, $0.width) })))
    }
    return (count, pages)
  }

  /// The data page of `rows` of `column`.
  private static func page(_ column: ArrowColumn, _ rows: Range<Int>, nullable: Bool, dictionary: (ids: [String: Int], width: Int)?) -> [UInt8] {
    var bytes: [UInt8] = []
    /// Writes the definition levels of `rows` (`valid` empty: all defined); whether row `k` is defined.
    func levels(_ valid: @escaping (Int) -> Bool) -> (Int) -> Bool {
      guard nullable else { return { _ in true } }
      // One bit-packed run of ⌈count / 8⌉ groups of 8 one-bit levels.
      let groups = (rows.count + 7) / 8
      var run: [UInt8] = []
      varint(UInt64(groups) << 1 | 1, into: &run)
      var packed = [UInt8](repeating: 0, count: groups)
      for (k, row) in rows.enumerated() where valid(row) { packed[k >> 3] |= 1 << UInt8(k & 7) }
      run += packed
      FlatBuffer.append(&bytes, UInt32(run.count))
      bytes += run
      return valid
    }
    /// The PLAIN values of the rows `defined` keeps (in memory order: little-endian, as
    /// Parquet's), copied at once when every row is kept.
    func plain<T: BitwiseCopyable>(_ values: [T], _ valid: [Bool]) {
      let defined = levels { valid.isEmpty || valid[$0] }
      bytes.reserveCapacity(bytes.count + rows.count * MemoryLayout<T>.stride)
      if !nullable || valid.isEmpty || !valid[rows].contains(false) {
        values[rows].withUnsafeBytes { bytes.append(contentsOf: $0) }
      } else {
        for k in rows where defined(k) { withUnsafeBytes(of: values[k]) { bytes.append(contentsOf: $0) } }
      }
    }
    switch column {
    case .integers(let values, let valid): plain(values, valid)
    case .doubles(let values, let valid): plain(values, valid)
    case .bools(let values, let valid):
      let defined = levels { valid.isEmpty || valid[$0] }
      let kept = rows.filter(defined).map { values[$0] }
      var packed = [UInt8](repeating: 0, count: (kept.count + 7) / 8)
      for (k, value) in kept.enumerated() where value { packed[k >> 3] |= 1 << UInt8(k & 7) }
      bytes += packed
    case .strings(let values):
      let (ids, width) = dictionary!
      let defined = levels { values[$0] != nil }
      // The bit width, then an RLE run per run of equal indices.
      bytes.append(UInt8(width))
      var run: (id: Int, count: Int)? = nil
      func flush() {
        guard let (id, count) = run else { return }
        varint(UInt64(count) << 1, into: &bytes)
        for b in 0..<(width + 7) / 8 { bytes.append(UInt8(truncatingIfNeeded: id >> (8 * b))) }
      }
      for k in rows where defined(k) {
        let id = ids[values[k]!]!
        if run?.id == id {
          run!.count += 1
        } else {
          flush()
          run = (id, 1)
        }
      }
      flush()
    case .indices: preconditionFailure("dictionary indices are an Arrow encoding; give a Parquet writer the strings")
    }
    return bytes
  }

  /// `value` as an unsigned LEB128 varint.
  private static func varint(_ value: UInt64, into bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7F) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  private func emit(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try file.write($0) }
    offset += bytes.count
  }
}
