/// A FlatBuffers value, written by `FlatBuffer.serialize` (the Arrow IPC metadata).
indirect enum FlatValue {
  /// A table: field `k` of the schema is element `k` (`nil`: absent, its default).
  case table([FlatField?])
  case string(String)
  /// A vector of tables.
  case tables([FlatValue])
  /// A vector of structs of 8-byte alignment, given as their little-endian bytes.
  case structs([UInt8], count: Int)
}

/// One field of a table.
enum FlatField {
  case bool(Bool)
  case uint8(UInt8)
  case int16(Int16)
  case int32(Int32)
  case int64(Int64)
  case object(FlatValue)

  /// Bytes in the table (an object is a 4-byte offset to it).
  var size: Int {
    switch self {
    case .bool, .uint8: 1
    case .int16: 2
    case .int32, .object: 4
    case .int64: 8
    }
  }
}

/// Serializes FlatBuffers front to back: each object is written after the one that
/// refers to it, so every offset points forward, and every scalar lies at a multiple of
/// its size from the start (which the caller places 8-byte aligned).
enum FlatBuffer {
  /// The bytes of a buffer whose root is `root`, padded to a multiple of 8.
  static func serialize(_ root: FlatValue) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 4)
    let position = write(root, into: &bytes)
    patch(&bytes, at: 0, UInt32(position))
    pad(&bytes, to: 8)
    return bytes
  }

  private static func write(_ value: FlatValue, into bytes: inout [UInt8]) -> Int {
    switch value {
    case .string(let text):
      pad(&bytes, to: 4)
      let position = bytes.count
      append(&bytes, UInt32(text.utf8.count))
      bytes.append(contentsOf: text.utf8)
      bytes.append(0)
      return position
    case .structs(let content, let count):
      // The elements, after the 4-byte count, start 8-byte aligned.
      while (bytes.count + 4) % 8 != 0 { bytes.append(0) }
      let position = bytes.count
      append(&bytes, UInt32(count))
      bytes.append(contentsOf: content)
      return position
    case .tables(let items):
      pad(&bytes, to: 4)
      let position = bytes.count
      append(&bytes, UInt32(items.count))
      bytes.append(contentsOf: repeatElement(0, count: 4 * items.count))
      for (k, item) in items.enumerated() {
        let slot = position + 4 + 4 * k
        patch(&bytes, at: slot, UInt32(write(item, into: &bytes) - slot))
      }
      return position
    case .table(let fields):
      return writeTable(fields, into: &bytes)
    }
  }

  private static func writeTable(_ fields: [FlatField?], into bytes: inout [UInt8]) -> Int {
    // Field offsets from the table's start (8-byte aligned), each aligned to its size.
    var offsets = [UInt16](repeating: 0, count: fields.count)
    var cursor = 4
    for (k, field) in fields.enumerated() {
      guard let field else { continue }
      cursor = (cursor + field.size - 1) / field.size * field.size
      offsets[k] = UInt16(cursor)
      cursor += field.size
    }
    pad(&bytes, to: 2)
    let vtable = bytes.count
    append(&bytes, UInt16(4 + 2 * fields.count))
    append(&bytes, UInt16(cursor))
    for offset in offsets { append(&bytes, offset) }
    pad(&bytes, to: 8)
    let table = bytes.count
    append(&bytes, UInt32(table - vtable))
    bytes.append(contentsOf: repeatElement(0, count: cursor - 4))
    var children: [(slot: Int, value: FlatValue)] = []
    for (k, field) in fields.enumerated() {
      guard let field else { continue }
      let slot = table + Int(offsets[k])
      switch field {
      case .bool(let value): bytes[slot] = value ? 1 : 0
      case .uint8(let value): bytes[slot] = value
      case .int16(let value): patch(&bytes, at: slot, UInt16(bitPattern: value))
      case .int32(let value): patch(&bytes, at: slot, UInt32(bitPattern: value))
      case .int64(let value): patch(&bytes, at: slot, UInt64(bitPattern: value))
      case .object(let value): children.append((slot, value))
      }
    }
    for child in children { patch(&bytes, at: child.slot, UInt32(write(child.value, into: &bytes) - child.slot)) }
    return table
  }

  static func pad(_ bytes: inout [UInt8], to alignment: Int) {
    while bytes.count % alignment != 0 { bytes.append(0) }
  }

  static func append<T: FixedWidthInteger>(_ bytes: inout [UInt8], _ value: T) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  private static func patch<T: FixedWidthInteger>(_ bytes: inout [UInt8], at offset: Int, _ value: T) {
    withUnsafeBytes(of: value.littleEndian) { raw in
      for k in 0..<raw.count { bytes[offset + k] = raw[k] }
    }
  }
}
