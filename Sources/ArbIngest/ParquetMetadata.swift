// The parts of Parquet's footer (`FileMetaData` in parquet-format's parquet.thrift) and
// page headers that the reader uses, with their Thrift field ids. Other fields are
// skipped.

/// Parquet physical types (`Type`).
enum ParquetType: Int32 {
  case boolean = 0, int32 = 1, int64 = 2, int96 = 3, float = 4, double = 5, byteArray = 6, fixedLenByteArray = 7
}

/// The logical types the reader gives a meaning to.
enum ParquetLogicalType: Equatable {
  case string
  case decimal(scale: Int, precision: Int)
  /// Units per second: 1000 (ms), 1_000_000 (µs), 1_000_000_000 (ns).
  case timestamp(unitsPerSecond: Int64)
  case integer(bits: Int, signed: Bool)
  case other
}

/// One element of the flattened schema tree.
struct ParquetSchemaElement {
  var name = ""
  var type: Int32? = nil
  var typeLength: Int32? = nil
  /// 0 required, 1 optional, 2 repeated.
  var repetition: Int32 = 0
  var children: Int32 = 0
  var logical: ParquetLogicalType? = nil

  init(_ r: inout ThriftReader) throws(ParquetFault) {
    var converted: Int32? = nil, scale: Int32 = 0, precision: Int32 = 0
    try r.readStruct { id, kind, r throws(ParquetFault) in
      switch id {
      case 1: type = try r.int32(kind)
      case 2: typeLength = try r.int32(kind)
      case 3: repetition = try r.int32(kind)
      case 4: name = try r.string()
      case 5: children = try r.int32(kind)
      case 6: converted = try r.int32(kind)
      case 7: scale = try r.int32(kind)
      case 8: precision = try r.int32(kind)
      case 10: logical = try Self.logicalType(&r, kind)
      default: return false
      }
      return true
    }
    // Files from before LogicalType carry the same meaning as a ConvertedType.
    if logical == nil, let converted {
      switch converted {
      case 0: logical = .string
      case 5: logical = .decimal(scale: Int(scale), precision: Int(precision))
      case 9: logical = .timestamp(unitsPerSecond: 1000)
      case 10: logical = .timestamp(unitsPerSecond: 1_000_000)
      case 11...14: logical = .integer(bits: 8 << Int(converted - 11), signed: false)
      case 15...18: logical = .integer(bits: 8 << Int(converted - 15), signed: true)
      default: logical = .other
      }
    }
  }

  /// The `LogicalType` union: the member set is the type.
  private static func logicalType(_ r: inout ThriftReader, _ kind: UInt8) throws(ParquetFault) -> ParquetLogicalType {
    guard kind == ThriftReader.Kind.structure else { throw ParquetFault("Thrift field of type \(kind) where LogicalType was expected") }
    var result = ParquetLogicalType.other
    try r.readStruct { id, kind, r throws(ParquetFault) in
      guard kind == ThriftReader.Kind.structure else { return false }
      switch id {
      case 1: result = .string
      case 5:
        var scale: Int32 = 0, precision: Int32 = 0
        try r.readStruct { id, kind, r throws(ParquetFault) in
          switch id {
          case 1: scale = try r.int32(kind)
          case 2: precision = try r.int32(kind)
          default: return false
          }
          return true
        }
        result = .decimal(scale: Int(scale), precision: Int(precision))
        return true
      case 8:
        var units: Int64 = 0
        try r.readStruct { id, kind, r throws(ParquetFault) in
          guard id == 2, kind == ThriftReader.Kind.structure else { return false }
          try r.readStruct { unit, _, _ in
            units = [1: 1000, 2: 1_000_000, 3: 1_000_000_000][unit] ?? 0
            return false
          }
          return true
        }
        guard units > 0 else { throw ParquetFault("TIMESTAMP logical type without a known unit") }
        result = .timestamp(unitsPerSecond: units)
        return true
      case 10:
        var bits: Int64 = 0, signed = true
        try r.readStruct { id, kind, r throws(ParquetFault) in
          switch id {
          case 1: bits = try r.integer(kind)
          case 2: signed = try r.bool(kind)
          default: return false
          }
          return true
        }
        result = .integer(bits: Int(bits), signed: signed)
        return true
      default: result = .other
      }
      return false
    }
    return result
  }
}

/// A column chunk's `ColumnMetaData`.
struct ParquetColumnChunk {
  var type: Int32 = -1
  var codec: Int32 = 0
  var valueCount: Int64 = 0
  var compressedSize: Int64 = 0
  var dataPageOffset: Int64 = -1
  var dictionaryPageOffset: Int64? = nil

  init(_ r: inout ThriftReader) throws(ParquetFault) {
    var sawMetadata = false
    try r.readStruct { id, kind, r throws(ParquetFault) in
      guard id == 3, kind == ThriftReader.Kind.structure else { return false }
      sawMetadata = true
      try r.readStruct { id, kind, r throws(ParquetFault) in
        switch id {
        case 1: type = try r.int32(kind)
        case 4: codec = try r.int32(kind)
        case 5: valueCount = try r.integer(kind)
        case 7: compressedSize = try r.integer(kind)
        case 9: dataPageOffset = try r.integer(kind)
        case 11: dictionaryPageOffset = try r.integer(kind)
        default: return false
        }
        return true
      }
      return true
    }
    guard sawMetadata else { throw ParquetFault("column chunk without its metadata (a separate file is not read)") }
  }

  /// Where the chunk's first page starts: the dictionary page when there is one.
  var start: Int64 {
    if let dictionary = dictionaryPageOffset, dictionary > 0, dictionary < dataPageOffset { return dictionary }
    return dataPageOffset
  }
}

struct ParquetRowGroup {
  var rows: Int64 = 0
  var columns: [ParquetColumnChunk] = []

  init(_ r: inout ThriftReader) throws(ParquetFault) {
    try r.readStruct { id, kind, r throws(ParquetFault) in
      switch id {
      case 1: columns = try r.structList(kind) { r throws(ParquetFault) in try ParquetColumnChunk(&r) }
      case 3: rows = try r.integer(kind)
      default: return false
      }
      return true
    }
  }
}

/// The footer: schema, row groups and key/value metadata.
struct ParquetFileMetadata {
  var schema: [ParquetSchemaElement] = []
  var rows: Int64 = 0
  var rowGroups: [ParquetRowGroup] = []
  var keyValues: [String: String] = [:]

  init(_ bytes: UnsafeRawBufferPointer) throws(ParquetFault) {
    var r = ThriftReader(bytes)
    try r.readStruct { id, kind, r throws(ParquetFault) in
      switch id {
      case 2: schema = try r.structList(kind) { r throws(ParquetFault) in try ParquetSchemaElement(&r) }
      case 3: rows = try r.integer(kind)
      case 4: rowGroups = try r.structList(kind) { r throws(ParquetFault) in try ParquetRowGroup(&r) }
      case 5:
        let pairs = try r.structList(kind) { r throws(ParquetFault) -> (String, String) in
          var key = "", value = ""
          try r.readStruct { id, kind, r throws(ParquetFault) in
            guard kind == ThriftReader.Kind.binary, id == 1 || id == 2 else { return false }
            if id == 1 { key = try r.string() } else { value = try r.string() }
            return true
          }
          return (key, value)
        }
        for (key, value) in pairs { keyValues[key] = value }
      default: return false
      }
      return true
    }
  }
}

/// A page header (`PageHeader`, with its data, dictionary or v2 data page header).
struct ParquetPageHeader {
  /// 0 data page, 1 index page, 2 dictionary page, 3 data page v2.
  var type: Int32 = -1
  var uncompressedSize: Int32 = -1
  var compressedSize: Int32 = -1
  var valueCount: Int32 = 0
  var encoding: Int32 = 0
  /// v2 only: the levels' byte lengths (stored uncompressed before the values).
  var definitionBytes: Int32 = 0
  var repetitionBytes: Int32 = 0
  var isCompressed = true

  init(_ r: inout ThriftReader) throws(ParquetFault) {
    try r.readStruct { id, kind, r throws(ParquetFault) in
      switch id {
      case 1: type = try r.int32(kind)
      case 2: uncompressedSize = try r.int32(kind)
      case 3: compressedSize = try r.int32(kind)
      case 5, 7, 8:
        guard kind == ThriftReader.Kind.structure else { return false }
        let v2 = id == 8
        try r.readStruct { field, kind, r throws(ParquetFault) in
          switch (field, v2) {
          case (1, _): valueCount = try r.int32(kind)
          case (2, false), (4, true): encoding = try r.int32(kind)
          case (5, true): definitionBytes = try r.int32(kind)
          case (6, true): repetitionBytes = try r.int32(kind)
          case (7, true): isCompressed = try r.bool(kind)
          default: return false
          }
          return true
        }
      default: return false
      }
      return true
    }
    guard uncompressedSize >= 0, compressedSize >= 0, valueCount >= 0, definitionBytes >= 0, repetitionBytes >= 0 else {
      throw ParquetFault("page header with a negative size or count")
    }
  }
}
