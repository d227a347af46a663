/// A leaf column of a Parquet schema.
struct ParquetLeaf {
  /// The column's name: its path in the schema, dot-separated.
  var name: String
  var type: ParquetType?
  var typeLength: Int
  var logical: ParquetLogicalType?
  var maxDefinition: Int
  var maxRepetition: Int
}

/// How a column's values are written as CSV text, the text a CSV of the same table holds.
enum ParquetValueForm: Equatable {
  /// Integers as written (unsigned when the logical type says so).
  case integer(signed: Bool)
  /// A TIMESTAMP of `from` units per second, written in `to` units per second.
  case timestamp(from: Int64, to: Int64)
  /// A DECIMAL: the big-endian (or INT32/INT64) unscaled integer with `scale` digits after the point.
  case decimal(scale: Int)
  /// nautilus_trader's fixed-point prices and sizes: a little-endian signed integer of
  /// 8 or 16 bytes with `scale` digits after the point.
  case fixedPoint(scale: Int)
  /// FLOAT and DOUBLE, shortest text that reads back to the same value.
  case floating
  /// Bytes as text, quoted when they hold a comma, a quote or a line break.
  case text
  case boolean
}

/// Where `ParquetColumnReader` puts a column chunk's values: as their CSV text
/// (`ParquetColumnText`) or typed (`ParquetColumnValues`).
protocol ParquetValueSink {
  var count: Int { get }
  /// An empty sink made as this one is (for a dictionary, or a page's defined values).
  func sibling() -> Self
  /// Empties it, keeping its capacity.
  mutating func removeAll()
  mutating func reserve(values: Int)
  /// `count` PLAIN values of `leaf`'s physical type, read as `form`.
  mutating func appendPlain(_ cursor: inout PageBytes, count: Int, leaf: ParquetLeaf, form: ParquetValueForm) throws(ParquetFault)
  /// INT32 (`narrow`) or INT64 values, decoded.
  mutating func appendIntegers(_ values: UnsafeBufferPointer<Int64>, narrow: Bool, form: ParquetValueForm)
  /// The values of `dictionary` at `indices`.
  mutating func append(indices: UnsafeBufferPointer<UInt32>, from dictionary: Self) throws(ParquetFault)
  /// Value `k` of `other`.
  mutating func append(_ other: Self, _ k: Int)
  mutating func appendNull()
}

/// The values of one column of one row group as CSV fields: value `k` is
/// `bytes[ends[k - 1] ..< ends[k]]`, empty for a null.
struct ParquetColumnText: TextOutputStream, ParquetValueSink {
  var bytes: [UInt8] = []
  var ends: [Int] = []

  var count: Int { ends.count }

  /// Empties it, keeping its capacity.
  mutating func removeAll() {
    bytes.removeAll(keepingCapacity: true)
    ends.removeAll(keepingCapacity: true)
  }

  func sibling() -> ParquetColumnText { ParquetColumnText() }

  mutating func reserve(values: Int) { reserve(values: values, bytes: values * 12) }

  mutating func appendNull() { close() }

  mutating func reserve(values: Int, bytes size: Int) {
    ends.reserveCapacity(ends.count + values)
    bytes.reserveCapacity(bytes.count + size)
  }

  @inline(__always)
  mutating func close() { ends.append(bytes.count) }

  /// Appends `text` to the open value (`TextOutputStream`).
  mutating func write(_ text: String) { bytes.append(contentsOf: text.utf8) }

  /// Appends ASCII bytes to the open value: how `Double.write(to:)` hands over the digits
  /// of its `description` without making a `String`.
  mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }

  /// Appends value `k` of `other`.
  @inline(__always)
  mutating func append(_ other: ParquetColumnText, _ k: Int) {
    let start = k == 0 ? 0 : other.ends[k - 1]
    bytes.append(contentsOf: other.bytes[start..<other.ends[k]])
    close()
  }
}

/// Reads one column chunk into `Values` (text or typed): its pages (dictionary, v1 and
/// v2 data pages), their codec, definition levels and value encodings. One per column,
/// reused from row group to row group with its buffers.
final class ParquetColumnReader<Values: ParquetValueSink> {
  let leaf: ParquetLeaf
  let form: ParquetValueForm
  /// The file's bytes before the footer: every page must lie inside them.
  let data: UnsafeRawBufferPointer
  private var dictionary: Values
  private var hasDictionary = false
  private var levels: [UInt32] = []
  private var indices: [UInt32] = []
  private var integers: [Int64] = []
  private var scratch: Values
  /// The values of the last column chunk read: their buffers are reused by the next one.
  private var output: Values
  /// The current page, decompressed.
  private var pageBuffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

  /// A reader of `leaf`'s chunks into sinks made as `values` is.
  init(leaf: ParquetLeaf, form: ParquetValueForm, data: UnsafeRawBufferPointer, values: Values) {
    self.leaf = leaf
    self.form = form
    self.data = data
    dictionary = values.sibling()
    scratch = values.sibling()
    output = values
  }

  deinit { pageBuffer.deallocate() }

  /// The `rows` values of `chunk`. `budget` is the bytes and values the file may
  /// still decode (the decompression limit); each page is charged against it.
  func read(_ chunk: ParquetColumnChunk, rows: Int, budget: inout Int) throws(ParquetFault) -> Values {
    guard leaf.maxRepetition == 0 else { throw ParquetFault("nested (repeated) columns are not read") }
    guard let type = leaf.type, chunk.type == type.rawValue else {
      throw ParquetFault("column chunk of physical type \(chunk.type) in a column of another type")
    }
    guard let codec = ParquetCodec(rawValue: chunk.codec) else { throw ParquetFault("unknown codec \(chunk.codec)") }
    guard chunk.valueCount == Int64(rows) else { throw ParquetFault("column chunk holds \(chunk.valueCount) values for \(rows) rows") }
    let start = chunk.start
    guard start >= 0, chunk.compressedSize >= 0, start <= Int64(data.count), chunk.compressedSize <= Int64(data.count) - start else {
      throw ParquetFault("column chunk at bytes \(start)..<\(start &+ chunk.compressedSize) lies outside the file's data")
    }
    let bytes = UnsafeRawBufferPointer(rebasing: data[Int(start)..<Int(start + chunk.compressedSize)])
    hasDictionary = false
    // The caller has let go of the last chunk's values: their buffers are reused, not copied.
    var out = output
    output = output.sibling()
    out.removeAll()
    // Grows past this as its pages (charged against the budget) come.
    out.reserve(values: min(rows, 1 << 20))
    var r = ThriftReader(bytes)
    while out.count < rows {
      guard r.at < bytes.count else { throw ParquetFault("column chunk ends after \(out.count) of its \(rows) values") }
      let header = try ParquetPageHeader(&r)
      guard Int(header.compressedSize) <= bytes.count - r.at else { throw ParquetFault("page of \(header.compressedSize) bytes runs past its column chunk") }
      let page = UnsafeRawBufferPointer(rebasing: bytes[r.at..<r.at + Int(header.compressedSize)])
      r.at += Int(header.compressedSize)
      budget -= Int(header.uncompressedSize) + 8 * Int(header.valueCount)
      guard budget >= 0 else { throw ParquetFault("pages decode to more than the decompression limit (a decompression bomb?)") }
      switch header.type {
      case 2: try readDictionary(header, page, codec)
      case 0, 3:
        guard Int(header.valueCount) <= rows - out.count else { throw ParquetFault("data page holds more values than the row group has rows") }
        try readData(header, page, codec, into: &out)
      default: continue
      }
    }
    output = out
    return out
  }

  /// The page's values region, decompressed into `pageBuffer` unless stored plain.
  private func inflate(
    _ page: UnsafeRawBufferPointer, size: Int, _ codec: ParquetCodec, compressed: Bool
  ) throws(ParquetFault) -> UnsafeRawBufferPointer {
    guard compressed && codec != .uncompressed else {
      guard page.count == size else { throw ParquetFault("uncompressed page of \(page.count) bytes declares \(size)") }
      return page
    }
    if pageBuffer.count < size {
      pageBuffer.deallocate()
      pageBuffer = .allocate(byteCount: size, alignment: 16)
    }
    let target = UnsafeMutableRawBufferPointer(rebasing: pageBuffer[0..<size])
    try codec.decompress(page, into: target)
    return UnsafeRawBufferPointer(target)
  }

  private func readDictionary(_ header: ParquetPageHeader, _ page: UnsafeRawBufferPointer, _ codec: ParquetCodec) throws(ParquetFault) {
    guard header.encoding == 0 || header.encoding == 2 else { throw ParquetFault("dictionary page in encoding \(header.encoding), expected PLAIN") }
    let values = try inflate(page, size: Int(header.uncompressedSize), codec, compressed: true)
    var cursor = PageBytes(values)
    dictionary = dictionary.sibling()
    try dictionary.appendPlain(&cursor, count: Int(header.valueCount), leaf: leaf, form: form)
    hasDictionary = true
  }

  private func readData(
    _ header: ParquetPageHeader, _ page: UnsafeRawBufferPointer, _ codec: ParquetCodec, into out: inout Values
  ) throws(ParquetFault) {
    let count = Int(header.valueCount)
    let body: UnsafeRawBufferPointer
    var levelBytes: PageBytes? = nil
    if header.type == 3 {
      let levelsSize = Int(header.definitionBytes) + Int(header.repetitionBytes)
      guard levelsSize <= page.count, levelsSize <= Int(header.uncompressedSize) else { throw ParquetFault("levels larger than their page") }
      if leaf.maxDefinition > 0 {
        levelBytes = PageBytes(UnsafeRawBufferPointer(rebasing: page[Int(header.repetitionBytes)..<levelsSize]))
      }
      body = try inflate(
        UnsafeRawBufferPointer(rebasing: page[levelsSize...]), size: Int(header.uncompressedSize) - levelsSize, codec,
        compressed: header.isCompressed)
    } else {
      body = try inflate(page, size: Int(header.uncompressedSize), codec, compressed: true)
    }
    var cursor = PageBytes(body)
    var defined = count
    if leaf.maxDefinition > 0 {
      if header.type == 0 {
        let length = Int(try cursor.littleEndian(4))
        guard length <= cursor.remaining else { throw ParquetFault("definition levels longer than their page") }
        levelBytes = PageBytes(UnsafeRawBufferPointer(rebasing: body[cursor.at..<cursor.at + length]))
        cursor.at += length
      }
      if levels.count < count { levels = [UInt32](repeating: 0, count: count) }
      let width = ParquetEncodings.bitWidth(leaf.maxDefinition)
      try levels.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<UInt32>) throws(ParquetFault) in
        try ParquetEncodings.hybrid(&levelBytes!, width: width, count: count, into: buffer.baseAddress!)
      }
      let top = UInt32(leaf.maxDefinition)
      defined = levels[0..<count].reduce(0) { $0 + ($1 == top ? 1 : 0) }
    }
    if defined == count {
      try values(header.encoding, &cursor, count: count, into: &out)
      return
    }
    scratch.removeAll()
    try values(header.encoding, &cursor, count: defined, into: &scratch)
    var v = 0
    let top = UInt32(leaf.maxDefinition)
    for k in 0..<count {
      if levels[k] == top {
        out.append(scratch, v)
        v += 1
      } else {
        out.appendNull()
      }
    }
  }

  /// `count` values in `encoding` into `out`.
  private func values(_ encoding: Int32, _ cursor: inout PageBytes, count: Int, into out: inout Values) throws(ParquetFault) {
    switch encoding {
    case 0: try out.appendPlain(&cursor, count: count, leaf: leaf, form: form)
    case 2, 8:
      guard hasDictionary else { throw ParquetFault("dictionary-encoded page without a dictionary page") }
      let width = Int(try cursor.littleEndian(1))
      if indices.count < count { indices = [UInt32](repeating: 0, count: count) }
      try indices.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<UInt32>) throws(ParquetFault) in
        try ParquetEncodings.hybrid(&cursor, width: width, count: count, into: buffer.baseAddress!)
        try out.append(indices: UnsafeBufferPointer(rebasing: buffer[0..<count]), from: dictionary)
      }
    case 5:
      guard leaf.type == .int32 || leaf.type == .int64 else { throw ParquetFault("DELTA_BINARY_PACKED in a column that is not INT32 or INT64") }
      if integers.count < count { integers = [Int64](repeating: 0, count: count) }
      try integers.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<Int64>) throws(ParquetFault) in
        try ParquetEncodings.deltaBinaryPacked(&cursor, count: count, into: buffer.baseAddress!)
      }
      let narrow = leaf.type == .int32
      if narrow { for k in 0..<count { integers[k] = Int64(Int32(truncatingIfNeeded: integers[k])) } }
      integers.withUnsafeBufferPointer { out.appendIntegers(UnsafeBufferPointer(rebasing: $0[0..<count]), narrow: narrow, form: form) }
    default: throw ParquetFault("encoding \(ParquetText.encodingName(encoding)) is not read")
    }
  }
}

extension ParquetColumnText {
  mutating func appendPlain(_ cursor: inout PageBytes, count: Int, leaf: ParquetLeaf, form: ParquetValueForm) throws(ParquetFault) {
    guard let type = leaf.type else { throw ParquetFault("unknown physical type") }
    let width: Int
    switch type {
    case .int32, .float: width = 4
    case .int64, .double: width = 8
    case .fixedLenByteArray: width = leaf.typeLength
    case .int96: throw ParquetFault("INT96 values are not read")
    case .boolean:
      guard (count + 7) / 8 <= cursor.remaining else { throw ParquetFault("\(count) booleans run past the end of the page") }
      for k in 0..<count { ParquetText.append(cursor.unpack(from: cursor.at, index: k, width: 1) == 1 ? "true" : "false", into: &self) }
      cursor.at += (count + 7) / 8
      return
    case .byteArray:
      reserve(values: count, bytes: min(cursor.remaining, count * 16))
      for _ in 0..<count {
        let length = Int(try cursor.littleEndian(4))
        guard length <= cursor.remaining else { throw ParquetFault("BYTE_ARRAY value of \(length) bytes runs past the end of the page") }
        ParquetText.bytes(UnsafeBufferPointer(start: cursor.base + cursor.at, count: length), form, into: &self)
        cursor.at += length
      }
      return
    }
    guard width > 0, count <= cursor.remaining / width else { throw ParquetFault("\(count) values of \(width) bytes run past the end of the page") }
    reserve(values: count, bytes: count * 12)
    let base = cursor.base + cursor.at
    switch type {
    case .int32: for k in 0..<count { ParquetText.integer(Int64(PageBytes.load(Int32.self, base, k)), true, form, into: &self) }
    case .int64: for k in 0..<count { ParquetText.integer(PageBytes.load(Int64.self, base, k), false, form, into: &self) }
    case .float: for k in 0..<count { ParquetText.double(Double(Float(bitPattern: PageBytes.load(UInt32.self, base, k))), into: &self) }
    case .double: for k in 0..<count { ParquetText.double(Double(bitPattern: PageBytes.load(UInt64.self, base, k)), into: &self) }
    default: for k in 0..<count { ParquetText.bytes(UnsafeBufferPointer(start: base + k * width, count: width), form, into: &self) }
    }
    cursor.at += count * width
  }

  mutating func appendIntegers(_ values: UnsafeBufferPointer<Int64>, narrow: Bool, form: ParquetValueForm) {
    for value in values { ParquetText.integer(value, narrow, form, into: &self) }
  }

  mutating func append(indices: UnsafeBufferPointer<UInt32>, from dictionary: ParquetColumnText) throws(ParquetFault) {
    let size = dictionary.count
    reserve(values: indices.count, bytes: indices.count * (dictionary.bytes.count / max(size, 1) + 1))
    // Through buffers: no reference counting per value.
    try dictionary.bytes.withUnsafeBufferPointer { bytes throws(ParquetFault) in
      try dictionary.ends.withUnsafeBufferPointer { ends throws(ParquetFault) in
        for index in indices {
          let index = Int(index)
          guard index < size else { throw ParquetFault("dictionary index \(index) past the dictionary's \(size) values") }
          self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]))
          close()
        }
      }
    }
  }
}
