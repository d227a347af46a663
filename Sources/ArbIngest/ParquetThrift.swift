/// Why a Parquet file could not be read, before its place (row group, column) is known.
struct ParquetFault: Error {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}

/// A reader of Thrift's compact protocol over bytes, as Parquet's footer and page
/// headers are written. Every length is checked against the bytes left, and structs
/// nest at most `maxDepth` deep, so that no input makes it read out of bounds, allocate
/// beyond its input or recurse without end.
struct ThriftReader {
  /// Compact-protocol type ids.
  enum Kind {
    static let stop: UInt8 = 0, boolTrue: UInt8 = 1, boolFalse: UInt8 = 2, byte: UInt8 = 3, i16: UInt8 = 4, i32: UInt8 = 5
    static let i64: UInt8 = 6, double: UInt8 = 7, binary: UInt8 = 8, list: UInt8 = 9, set: UInt8 = 10, map: UInt8 = 11, structure: UInt8 = 12
  }
  static let maxDepth = 32

  let bytes: UnsafeRawBufferPointer
  /// Offset of the next byte.
  var at: Int
  private var depth = 0

  init(_ bytes: UnsafeRawBufferPointer, at: Int = 0) {
    self.bytes = bytes
    self.at = at
  }

  private func truncated() -> ParquetFault { ParquetFault("Thrift structure ends past its bytes (truncated or corrupt)") }

  mutating func byte() throws(ParquetFault) -> UInt8 {
    guard at < bytes.count else { throw truncated() }
    defer { at += 1 }
    return bytes[at]
  }

  mutating func varint() throws(ParquetFault) -> UInt64 {
    var value: UInt64 = 0
    for shift in stride(from: 0, to: 70, by: 7) {
      let b = try byte()
      guard shift < 64 else { throw ParquetFault("Thrift varint longer than 10 bytes") }
      value |= UInt64(b & 0x7F) << UInt64(shift)
      if b < 0x80 { return value }
    }
    throw ParquetFault("Thrift varint longer than 10 bytes")
  }

  mutating func zigzag() throws(ParquetFault) -> Int64 {
    let v = try varint()
    return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
  }

  /// The bytes of a `binary` (or string) value, as a range of `bytes`.
  mutating func binary() throws(ParquetFault) -> Range<Int> {
    let length = try varint()
    guard length <= UInt64(bytes.count - at) else { throw truncated() }
    defer { at += Int(length) }
    return at..<at + Int(length)
  }

  mutating func string() throws(ParquetFault) -> String {
    let range = try binary()
    return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  /// An integer field of type `kind` (byte, i16, i32 or i64).
  mutating func integer(_ kind: UInt8) throws(ParquetFault) -> Int64 {
    switch kind {
    case Kind.byte: return Int64(Int8(bitPattern: try byte()))
    case Kind.i16, Kind.i32, Kind.i64: return try zigzag()
    default: throw ParquetFault("Thrift field of type \(kind) where an integer was expected")
    }
  }

  /// An i32 field, checked to fit.
  mutating func int32(_ kind: UInt8) throws(ParquetFault) -> Int32 {
    let value = try integer(kind)
    guard let narrow = Int32(exactly: value) else { throw ParquetFault("Thrift i32 field out of range, was \(value)") }
    return narrow
  }

  mutating func bool(_ kind: UInt8) throws(ParquetFault) -> Bool {
    switch kind {
    case Kind.boolTrue: return true
    case Kind.boolFalse: return false
    default: throw ParquetFault("Thrift field of type \(kind) where a bool was expected")
    }
  }

  /// A list's header: its element count (at most the bytes left) and element type.
  mutating func listHeader(_ kind: UInt8) throws(ParquetFault) -> (count: Int, element: UInt8) {
    guard kind == Kind.list || kind == Kind.set else { throw ParquetFault("Thrift field of type \(kind) where a list was expected") }
    let header = try byte()
    var count = UInt64(header >> 4)
    if count == 15 { count = try varint() }
    // Every element takes at least one byte.
    guard count <= UInt64(bytes.count - at) else { throw truncated() }
    return (Int(count), header & 0x0F)
  }

  /// Walks a struct's fields: `field` reads the ones it knows and returns `false` for
  /// the others, which are skipped.
  mutating func readStruct(_ field: (Int16, UInt8, inout ThriftReader) throws(ParquetFault) -> Bool) throws(ParquetFault) {
    depth += 1
    guard depth <= Self.maxDepth else { throw ParquetFault("Thrift structures nested deeper than \(Self.maxDepth)") }
    var last: Int16 = 0
    while true {
      let header = try byte()
      let kind = header & 0x0F
      if kind == Kind.stop { break }
      let delta = Int16(header >> 4)
      let id: Int16
      if delta != 0 {
        id = last &+ delta
      } else {
        guard let explicit = Int16(exactly: try zigzag()) else { throw ParquetFault("Thrift field id out of range") }
        id = explicit
      }
      last = id
      if try !field(id, kind, &self) { try skip(kind) }
    }
    depth -= 1
  }

  /// Skips one value of type `kind`.
  mutating func skip(_ kind: UInt8) throws(ParquetFault) {
    switch kind {
    case Kind.boolTrue, Kind.boolFalse: return
    case Kind.byte: _ = try byte()
    case Kind.i16, Kind.i32, Kind.i64: _ = try varint()
    case Kind.double:
      guard bytes.count - at >= 8 else { throw truncated() }
      at += 8
    case Kind.binary: _ = try binary()
    case Kind.list, Kind.set:
      let (count, element) = try listHeader(kind)
      for _ in 0..<count { try skipElement(element) }
    case Kind.map:
      let count = try varint()
      guard count <= UInt64(bytes.count - at) else { throw truncated() }
      if count == 0 { return }
      let types = try byte()
      for _ in 0..<count {
        try skipElement(types >> 4)
        try skipElement(types & 0x0F)
      }
    case Kind.structure: try readStruct { _, _, _ in false }
    default: throw ParquetFault("unknown Thrift type \(kind)")
    }
  }

  /// Skips a list element: a bool in a list is a whole byte.
  private mutating func skipElement(_ kind: UInt8) throws(ParquetFault) {
    if kind == Kind.boolTrue || kind == Kind.boolFalse { _ = try byte() } else { try skip(kind) }
  }

  /// A list of structs, each read by `element`.
  mutating func structList<T>(_ kind: UInt8, _ element: (inout ThriftReader) throws(ParquetFault) -> T) throws(ParquetFault) -> [T] {
    let (count, type) = try listHeader(kind)
    guard type == Kind.structure else { throw ParquetFault("Thrift list of type \(type) where a list of structs was expected") }
    var items: [T] = []
    items.reserveCapacity(count)
    for _ in 0..<count { items.append(try element(&self)) }
    return items
  }
}
