/// The type of a column of an Arrow file ArbKit writes.
public enum ArrowType: Sendable {
  /// `TIMESTAMP(µs, UTC)` from integer microseconds.
  case timestampMicros
  case float64
  case int64
  case bool
  case utf8
  /// Strings stored once each in a dictionary, the rows as `int32` indices into it (names).
  /// A file with such a column is written as one record batch.
  case dictionaryUTF8
}

/// One column of an Arrow file: its name, type and whether it may hold nulls.
public struct ArrowField: Sendable {
  public var name: String
  public var type: ArrowType
  public var nullable: Bool

  public init(_ name: String, _ type: ArrowType, nullable: Bool = true) {
    self.name = name
    self.type = type
    self.nullable = nullable
  }
}

/// The values of one column in one record batch: `valid[k] == false` is a null (`valid`
/// empty: none is null). Integers serve `int64` and `timestampMicros`.
public enum ArrowColumn {
  case integers([Int64], valid: [Bool] = [])
  case doubles([Double], valid: [Bool] = [])
  case bools([Bool], valid: [Bool] = [])
  /// For `utf8` and `dictionaryUTF8` fields.
  case strings([String?])
  /// Indices into a dictionary (written for `dictionaryUTF8` fields).
  case indices([Int32], valid: [Bool])
}

/// Writes an Arrow IPC file (Arrow's `File.fbs`, format version V5) a record batch at a
/// time, all or nothing (`AtomicFile`): the `ARROW1` magic, the schema, each batch as a
/// message whose buffers are 8-byte aligned (so that a reader maps the file and uses
/// them in place), the footer listing the batches, its length and the magic again.
public final class ArrowFileWriter {
  private let file: AtomicFile
  private let fields: [ArrowField]
  private let schema: FlatValue
  private var offset = 0
  private var blocks: [UInt8] = []
  private var blockCount = 0
  private var dictionaryBlocks: [UInt8] = []

  /// Starts the file at `path` with `fields` and the schema's key/value `metadata`.
  public init(path: String, fields: [ArrowField], metadata: [(String, String)] = []) throws {
    file = try AtomicFile(path: path)
    self.fields = fields
    let keyValues = metadata.map { key, value in FlatValue.table([.object(.string(key)), .object(.string(value))]) }
    schema = .table([
      .int16(0), .object(.tables(fields.enumerated().map { Self.field($1, id: $0) })), metadata.isEmpty ? nil : .object(.tables(keyValues)),
    ])
    try emit(Array("ARROW1".utf8) + [0, 0])
    _ = try message(type: 1, header: schema, body: [])
  }

  /// Appends one record batch, one column per field, all of the same length. The
  /// dictionaries of `dictionaryUTF8` fields are written first, so such a file takes one
  /// batch only.
  public func write(_ columns: [ArrowColumn]) throws {
    precondition(columns.count == fields.count, "\(columns.count) columns for \(fields.count) fields")
    var encoded = columns
    for (k, field) in fields.enumerated() where field.type == .dictionaryUTF8 {
      precondition(blockCount == 0, "a file with dictionary-encoded columns is written in one record batch")
      guard case .strings(let values) = columns[k] else { preconditionFailure("a dictionary column takes strings") }
      var index: [String: Int32] = [:]
      var words: [String?] = []
      let rows = values.map { value -> Int32 in
        guard let value else { return 0 }
        if let known = index[value] { return known }
        index[value] = Int32(words.count)
        words.append(value)
        return Int32(words.count - 1)
      }
      encoded[k] = .indices(rows, valid: values.map { $0 != nil })
      let (data, body) = Self.batch([.strings(words)])
      let (start, metadataLength) = try message(type: 2, header: .table([.int64(Int64(k)), .object(data)]), body: body)
      Self.block(&dictionaryBlocks, start: start, metadataLength: metadataLength, body: body.count)
    }
    let (batch, body) = Self.batch(encoded)
    let (start, metadataLength) = try message(type: 3, header: batch, body: body)
    Self.block(&blocks, start: start, metadataLength: metadataLength, body: body.count)
    blockCount += 1
  }

  /// A `Block` of the footer: where a message starts, its metadata's and its body's length.
  private static func block(_ blocks: inout [UInt8], start: Int, metadataLength: Int, body: Int) {
    FlatBuffer.append(&blocks, Int64(start))
    FlatBuffer.append(&blocks, Int32(metadataLength))
    FlatBuffer.append(&blocks, Int32(0))
    FlatBuffer.append(&blocks, Int64(body))
  }

  /// The `RecordBatch` table of `columns` and its body: each buffer 8-byte aligned.
  private static func batch(_ columns: [ArrowColumn]) -> (FlatValue, [UInt8]) {
    var body: [UInt8] = []
    var nodes: [UInt8] = [], buffers: [UInt8] = []
    var rows = -1
    func buffer(_ bytes: UnsafeRawBufferPointer) {
      FlatBuffer.append(&buffers, Int64(body.count))
      FlatBuffer.append(&buffers, Int64(bytes.count))
      body.append(contentsOf: bytes)
      FlatBuffer.pad(&body, to: 8)
    }
    func validity(_ valid: [Bool]) -> Int {
      let nulls = valid.lazy.filter { !$0 }.count
      if nulls == 0 { buffer(UnsafeRawBufferPointer(start: nil, count: 0)) } else { bits(valid).withUnsafeBytes { buffer($0) } }
      return nulls
    }
    for column in columns {
      let count: Int, nulls: Int
      switch column {
      case .integers(let values, let valid):
        (count, nulls) = (values.count, validity(valid))
        values.withUnsafeBytes { buffer($0) }
      case .doubles(let values, let valid):
        (count, nulls) = (values.count, validity(valid))
        values.withUnsafeBytes { buffer($0) }
      case .bools(let values, let valid):
        (count, nulls) = (values.count, validity(valid))
        bits(values).withUnsafeBytes { buffer($0) }
      case .indices(let values, let valid):
        (count, nulls) = (values.count, validity(valid))
        values.withUnsafeBytes { buffer($0) }
      case .strings(let values):
        (count, nulls) = (values.count, validity(values.map { $0 != nil }))
        var ends: [Int32] = [0]
        var text: [UInt8] = []
        for value in values {
          if let value { text.append(contentsOf: value.utf8) }
          ends.append(Int32(text.count))
        }
        ends.withUnsafeBytes { buffer($0) }
        text.withUnsafeBytes { buffer($0) }
      }
      precondition(rows < 0 || rows == count, "columns of \(rows) and \(count) rows in one batch")
      rows = count
      FlatBuffer.append(&nodes, Int64(count))
      FlatBuffer.append(&nodes, Int64(nulls))
    }
    let batch = FlatValue.table([
      .int64(Int64(max(rows, 0))), .object(.structs(nodes, count: columns.count)), .object(.structs(buffers, count: buffers.count / 16)),
    ])
    return (batch, body)
  }

  /// Writes the end-of-stream marker and the footer, and puts the file in place.
  public func commit() throws { try FileOutput.commit([try finish()]) }

  /// Writes the end-of-stream marker and the footer; the file is put in place by
  /// `FileOutput.commit` with the outputs it belongs with.
  public func finish() throws -> AtomicFile {
    try emit([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
    let footer = FlatBuffer.serialize(
      .table([
        .int16(4), .object(schema), .object(.structs(dictionaryBlocks, count: dictionaryBlocks.count / 24)),
        .object(.structs(blocks, count: blockCount)),
      ]))
    var tail = footer
    FlatBuffer.append(&tail, Int32(footer.count))
    tail.append(contentsOf: Array("ARROW1".utf8))
    try emit(tail)
    return file
  }

  /// Writes one encapsulated message (continuation marker, metadata length, `Message`
  /// flatbuffer, body); returns where it starts and its metadata's length with the prefix.
  private func message(type: UInt8, header: FlatValue, body: [UInt8]) throws -> (start: Int, metadataLength: Int) {
    let metadata = FlatBuffer.serialize(.table([.int16(4), .uint8(type), .object(header), .int64(Int64(body.count))]))
    let start = offset
    var prefix: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
    FlatBuffer.append(&prefix, Int32(metadata.count))
    try emit(prefix + metadata)
    try emit(body)
    return (start, 8 + metadata.count)
  }

  private func emit(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try file.write($0) }
    offset += bytes.count
  }

  /// A field of the schema: name, nullable, type.
  private static func field(_ field: ArrowField, id dictionary: Int) -> FlatValue {
    let (id, type): (UInt8, FlatValue)
    var encoding: FlatField? = nil
    switch field.type {
    case .timestampMicros: (id, type) = (10, .table([.int16(2), .object(.string("UTC"))]))
    case .float64: (id, type) = (3, .table([.int16(2)]))
    case .int64: (id, type) = (2, .table([.int32(64), .bool(true)]))
    case .bool: (id, type) = (6, .table([]))
    case .utf8: (id, type) = (5, .table([]))
    case .dictionaryUTF8:
      (id, type) = (5, .table([]))
      // DictionaryEncoding: its id (the column's position), int32 indices, not ordered.
      encoding = .object(.table([.int64(Int64(dictionary)), .object(.table([.int32(32), .bool(true)])), .bool(false)]))
    }
    return .table([.object(.string(field.name)), .bool(field.nullable), .uint8(id), .object(type), encoding, .object(.tables([]))])
  }

  /// `values` as a bitmap, least significant bit first.
  private static func bits(_ values: [Bool]) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: (values.count + 7) / 8)
    for (k, value) in values.enumerated() where value { bytes[k >> 3] |= 1 << UInt8(k & 7) }
    return bytes
  }
}
