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
/// each column one data page (v1, PLAIN values, RLE / bit-packed definition levels for a
/// nullable column) compressed with ZSTD, then the footer with the schema — timestamps
/// `TIMESTAMP(MICROS, UTC)`, strings `STRING` — and the key/value metadata.
public final class ParquetFileWriter {
  private let file: AtomicFile
  private let fields: [ArrowField]
  private let metadata: [(String, String)]
  private var offset = 0
  private var rowGroups: [(rows: Int, columns: [(offset: Int, compressed: Int, uncompressed: Int, values: Int)])] = []

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
    let pages = concurrently(columns.count) { k in
      let (values, page) = Self.page(columns[k], nullable: fields[k].nullable)
      return (values: values, size: page.count, compressed: ParquetCodec.zstdCompress(page))
    }
    var chunks: [(offset: Int, compressed: Int, uncompressed: Int, values: Int)] = []
    var rows = -1
    for (values, size, compressed) in pages {
      precondition(rows < 0 || rows == values, "columns of \(rows) and \(values) rows in one row group")
      rows = values
      var header = ThriftWriter()
      header.i32(1, 0)
      header.i32(2, size)
      header.i32(3, compressed.count)
      header.structure(5) { h in
        h.i32(1, values)
        h.i32(2, 0)
        h.i32(3, 3)
        h.i32(4, 3)
      }
      header.end()
      chunks.append((offset, header.bytes.count + compressed.count, header.bytes.count + size, values))
      try emit(header.bytes)
      try emit(compressed)
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
          m.list(2, kind: ThriftReader.Kind.i32, count: 2) { w, e in w.element(e == 0 ? 0 : 3) }
          m.list(3, kind: ThriftReader.Kind.binary, count: 1) { w, _ in w.element(fields[k].name) }
          m.i32(4, Int(ParquetCodec.zstd.rawValue))
          m.int(5, Int64(chunk.values))
          m.int(6, Int64(chunk.uncompressed))
          m.int(7, Int64(chunk.compressed))
          m.int(9, Int64(chunk.offset))
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

  /// The page of `column`: definition levels (a nullable column) then the PLAIN values
  /// of its non-null rows; and its number of rows.
  private static func page(_ column: ArrowColumn, nullable: Bool) -> (rows: Int, bytes: [UInt8]) {
    var bytes: [UInt8] = []
    func levels(_ valid: [Bool], count: Int) -> (Int) -> Bool {
      let defined = valid.isEmpty ? [Bool](repeating: true, count: count) : valid
      guard nullable else { return { _ in true } }
      // One bit-packed run of ⌈count / 8⌉ groups of 8 one-bit levels.
      var run: [UInt8] = []
      let groups = (count + 7) / 8
      var header = UInt64(groups) << 1 | 1
      while header >= 0x80 {
        run.append(UInt8(header & 0x7F) | 0x80)
        header >>= 7
      }
      run.append(UInt8(header))
      var packed = [UInt8](repeating: 0, count: groups)
      for (k, isDefined) in defined.enumerated() where isDefined { packed[k >> 3] |= 1 << UInt8(k & 7) }
      run += packed
      FlatBuffer.append(&bytes, UInt32(run.count))
      bytes += run
      return { defined[$0] }
    }
    /// The PLAIN values of the rows `defined` keeps (in memory order: little-endian, as
    /// Parquet's), copied at once when `every` row is kept.
    func plain<T: BitwiseCopyable>(_ values: [T], every: Bool, _ defined: (Int) -> Bool) {
      bytes.reserveCapacity(bytes.count + values.count * MemoryLayout<T>.stride)
      if every {
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
      } else {
        for k in values.indices where defined(k) { withUnsafeBytes(of: values[k]) { bytes.append(contentsOf: $0) } }
      }
    }
    switch column {
    case .integers(let values, let valid):
      let defined = levels(valid, count: values.count)
      plain(values, every: !nullable || !valid.contains(false), defined)
      return (values.count, bytes)
    case .doubles(let values, let valid):
      let defined = levels(valid, count: values.count)
      plain(values, every: !nullable || !valid.contains(false), defined)
      return (values.count, bytes)
    case .bools(let values, let valid):
      let defined = levels(valid, count: values.count)
      let kept = values.indices.filter(defined).map { values[$0] }
      var packed = [UInt8](repeating: 0, count: (kept.count + 7) / 8)
      for (k, value) in kept.enumerated() where value { packed[k >> 3] |= 1 << UInt8(k & 7) }
      return (values.count, bytes + packed)
    case .strings(let values):
      let defined = levels(values.map { $0 != nil }, count: values.count)
      for k in values.indices where defined(k) {
        let text = values[k] ?? ""
        FlatBuffer.append(&bytes, UInt32(text.utf8.count))
        bytes += text.utf8
      }
      return (values.count, bytes)
    case .indices: preconditionFailure("dictionary indices are an Arrow encoding; give a Parquet writer the strings")
    }
  }

  private func emit(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try file.write($0) }
    offset += bytes.count
  }
}
