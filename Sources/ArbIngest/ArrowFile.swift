/// The type of a column of an Arrow file ArbKit writes.
public enum ArrowType: Sendable {
  /// `TIMESTAMP(µs, UTC)` from integer microseconds.
  case timestampMicros
  case float64
  case int64
  case bool
  case utf8
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
  case strings([String?])
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

  /// Starts the file at `path` with `fields` and the schema's key/value `metadata`.
  public init(path: String, fields: [ArrowField], metadata: [(String, String)] = []) throws {
    file = try AtomicFile(path: path)
    self.fields = fields
    let keyValues = metadata.map { key, value in FlatValue.table([.object(.string(key)), .object(.string(value))]) }
    schema = .table([.int16(0), .object(.tables(fields.map(Self.field))), metadata.isEmpty ? nil : .object(.tables(keyValues))])
    try emit(Array("ARROW1".utf8) + [0, 0])
    _ = try message(type: 1, header: schema, body: [])
  }

  /// Appends one record batch, one column per field, all of the same length.
  public func write(_ columns: [ArrowColumn]) throws {
    precondition(columns.count == fields.count, "\(columns.count) columns for \(fields.count) fields")
    var body: [UInt8] = []
    var nodes: [UInt8] = [], buffers: [UInt8] = []
    var rows = -1
    func buffer(_ bytes: UnsafeRawBufferPointer) {
      FlatBuffer.append(&buffers, Int64(body.count))
      FlatBuffer.append(&buffers, Int64(bytes.count))
      body.append(contentsOf: bytes)
      FlatBuffer.pad(&body, to: 8)
    }
    func validity(_ valid: [Bool], count: Int) -> Int {
      let nulls = valid.isEmpty ? 0 : valid.lazy.filter { !$0 }.count
      if nulls == 0 { buffer(UnsafeRawBufferPointer(start: nil, count: 0)) } else { Self.bits(valid).withUnsafeBytes { buffer($0) } }
      return nulls
    }
    for column in columns {
      let count: Int, nulls: Int
      switch column {
      case .integers(let values, let valid):
        (count, nulls) = (values.count, validity(valid, count: values.count))
        values.withUnsafeBytes { buffer($0) }
      case .doubles(let values, let valid):
        (count, nulls) = (values.count, validity(valid, count: values.count))
        values.withUnsafeBytes { buffer($0) }
      case .bools(let values, let valid):
        (count, nulls) = (values.count, validity(valid, count: values.count))
        Self.bits(values).withUnsafeBytes { buffer($0) }
      case .strings(let values):
        (count, nulls) = (values.count, validity(values.map { $0 != nil }, count: values.count))
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
    let (start, metadataLength) = try message(type: 3, header: batch, body: body)
    FlatBuffer.append(&blocks, Int64(start))
    FlatBuffer.append(&blocks, Int32(metadataLength))
    FlatBuffer.append(&blocks, Int32(0))
    FlatBuffer.append(&blocks, Int64(body.count))
    blockCount += 1
  }

  /// Writes the end-of-stream marker and the footer, and puts the file in place.
  public func commit() throws {
    try emit([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
    let footer = FlatBuffer.serialize(
      .table([.int16(4), .object(schema), .object(.structs([], count: 0)), .object(.structs(blocks, count: blockCount))]))
    var tail = footer
    FlatBuffer.append(&tail, Int32(footer.count))
    tail.append(contentsOf: Array("ARROW1".utf8))
    try emit(tail)
    try file.commit()
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
  private static func field(_ field: ArrowField) -> FlatValue {
    let (id, type): (UInt8, FlatValue)
    switch field.type {
    case .timestampMicros: (id, type) = (10, .table([.int16(2), .object(.string("UTC"))]))
    case .float64: (id, type) = (3, .table([.int16(2)]))
    case .int64: (id, type) = (2, .table([.int32(64), .bool(true)]))
    case .bool: (id, type) = (6, .table([]))
    case .utf8: (id, type) = (5, .table([]))
    }
    return .table([.object(.string(field.name)), .bool(field.nullable), .uint8(id), .object(type), nil, .object(.tables([]))])
  }

  /// `values` as a bitmap, least significant bit first.
  private static func bits(_ values: [Bool]) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: (values.count + 7) / 8)
    for (k, value) in values.enumerated() where value { bytes[k >> 3] |= 1 << UInt8(k & 7) }
    return bytes
  }
}
