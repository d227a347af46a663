#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A growable buffer of plain values whose storage stays put while it is read: a row
/// group's typed values are read through its pointer, without reference counting per
/// value. Emptied and refilled from row group to row group, keeping its capacity.
final class ParquetValueBuffer<Element: BitwiseCopyable> {
  private(set) var base: UnsafeMutablePointer<Element>
  private(set) var count = 0
  private var capacity = 16

  init() { base = .allocate(capacity: 16) }

  deinit { base.deallocate() }

  func removeAll() { count = 0 }

  /// Room for `n` more values.
  @inline(__always)
  func reserve(_ n: Int) {
    guard count + n > capacity else { return }
    let grown = max(count + n, capacity * 2)
    let moved = UnsafeMutablePointer<Element>.allocate(capacity: grown)
    moved.update(from: base, count: count)
    base.deallocate()
    base = moved
    capacity = grown
  }

  @inline(__always)
  func append(_ value: Element) {
    reserve(1)
    base[count] = value
    count += 1
  }

  /// Appends `n` values, written by `fill` from the pointer it is given.
  @inline(__always)
  func append<Failure: Error>(count n: Int, _ fill: (UnsafeMutablePointer<Element>) throws(Failure) -> Void) throws(Failure) {
    reserve(n)
    try fill(base + count)
    count += n
  }

  /// Appends `value` `n` times.
  func append(repeating value: Element, count n: Int) {
    reserve(n)
    (base + count).update(repeating: value, count: n)
    count += n
  }

  @inline(__always)
  subscript(k: Int) -> Element { base[k] }
}

/// The distinct strings of a BYTE_ARRAY column (an instrument's venue, symbol, market),
/// each with an id: a dictionary page's values are looked up once, its rows keep ids.
final class ParquetKeyTable {
  private var ids: [[UInt8]: Int32] = [:]
  private(set) var values: [[UInt8]] = []
  /// Whether each value would be quoted in the CSV: it holds a comma, a quote or a line break.
  private(set) var isQuoted: [Bool] = []
  /// Whether any value is quoted.
  private(set) var hasQuoted = false

  /// The id of the last value looked up: a PLAIN page of strings mostly repeats it.
  private var lastID = -1

  /// The id of `bytes`, new on first sight.
  func id(of bytes: UnsafeBufferPointer<UInt8>) throws(ParquetFault) -> Int32 {
    if lastID >= 0, values[lastID].withUnsafeBufferPointer({ $0.elementsEqual(bytes) }) { return Int32(lastID) }
    let value = Array(bytes)
    if let id = ids[value] {
      lastID = Int(id)
      return id
    }
    guard let id = Int32(exactly: values.count) else { throw ParquetFault("more than \(Int32.max) distinct strings") }
    let quoted = value.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
    ids[value] = id
    values.append(value)
    isQuoted.append(quoted)
    hasQuoted = hasQuoted || quoted
    lastID = Int(id)
    return id
  }
}

/// The values of one column of one row group, typed: a word per value (a FLOAT or
/// DOUBLE as a `Double`'s bits, an INT32 or INT64 as an `Int64`'s, a BYTE_ARRAY as its id
/// in `keys`) and whether it is defined (0 for a null). FLOAT, DOUBLE, INT32, INT64 and
/// BYTE_ARRAY columns only (`ParquetTypedPlan`).
struct ParquetColumnValues: ParquetValueSink {
  let type: ParquetType
  let keys: ParquetKeyTable
  let words = ParquetValueBuffer<UInt64>()
  let defined = ParquetValueBuffer<UInt8>()

  var count: Int { defined.count }

  func sibling() -> ParquetColumnValues { ParquetColumnValues(type: type, keys: keys) }

  func removeAll() {
    words.removeAll()
    defined.removeAll()
  }

  func reserve(values: Int) {
    words.reserve(values)
    defined.reserve(values)
  }

  func appendPlain(_ cursor: inout PageBytes, count: Int, leaf: ParquetLeaf, form: ParquetValueForm) throws(ParquetFault) {
    let width: Int
    switch type {
    case .int32, .float: width = 4
    case .int64, .double: width = 8
    case .byteArray:
      for _ in 0..<count {
        let length = Int(try cursor.littleEndian(4))
        guard length <= cursor.remaining else { throw ParquetFault("BYTE_ARRAY value of \(length) bytes runs past the end of the page") }
        words.append(UInt64(try keys.id(of: UnsafeBufferPointer(start: cursor.base + cursor.at, count: length))))
        cursor.at += length
      }
      defined.append(repeating: 1, count: count)
      return
    default: throw ParquetFault("\(type) values are not read as typed values")
    }
    guard count <= cursor.remaining / width else { throw ParquetFault("\(count) values of \(width) bytes run past the end of the page") }
    let base = cursor.base + cursor.at
    words.append(count: count) { out in
      switch type {
      case .int32: for k in 0..<count { out[k] = UInt64(bitPattern: Int64(PageBytes.load(Int32.self, base, k))) }
      case .float: for k in 0..<count { out[k] = Double(Float(bitPattern: PageBytes.load(UInt32.self, base, k))).bitPattern }
      default: for k in 0..<count { out[k] = PageBytes.load(UInt64.self, base, k) }
      }
    }
    defined.append(repeating: 1, count: count)
    cursor.at += count * width
  }

  func appendIntegers(_ values: UnsafeBufferPointer<Int64>, narrow: Bool, form: ParquetValueForm) {
    words.append(count: values.count) { out in
      for k in values.indices { out[k] = UInt64(bitPattern: values[k]) }
    }
    defined.append(repeating: 1, count: values.count)
  }

  func append(indices: UnsafeBufferPointer<UInt32>, from dictionary: ParquetColumnValues) throws(ParquetFault) {
    let size = dictionary.count
    let entries = dictionary.words.base
    try words.append(count: indices.count) { (out) throws(ParquetFault) in
      for k in indices.indices {
        let index = Int(indices[k])
        guard index < size else { throw ParquetFault("dictionary index \(index) past the dictionary's \(size) values") }
        out[k] = entries[index]
      }
    }
    defined.append(repeating: 1, count: indices.count)
  }

  func append(_ other: ParquetColumnValues, _ k: Int) {
    words.append(other.words[k])
    defined.append(other.defined[k])
  }

  func appendNull() {
    words.append(0)
    defined.append(0)
  }
}

extension ParquetValueForm {
  /// The whole number the CSV text of the INT32 (`narrow`) or INT64 `value` holds, as
  /// `DecimalParser.parseInt64` reads it back; `nil` when that text is none: a timestamp
  /// that overflows the unit it is written in, an unsigned value past `Int64.max`.
  @inline(__always)
  func integer(_ value: Int64, narrow: Bool) -> Int64? {
    switch self {
    case .integer(let signed):
      if signed { return value }
      return narrow ? Int64(UInt32(truncatingIfNeeded: value)) : value >= 0 ? value : nil
    case .timestamp(let from, let to):
      if to >= from {
        let (scaled, overflow) = value.multipliedReportingOverflow(by: to / from)
        return overflow ? nil : scaled
      }
      return value.floorDiv(from / to)
    default: return nil
    }
  }

  /// The number the CSV text of the INT32 (`narrow`) or INT64 `value` holds, as
  /// `DecimalParser.parse` reads it back; `nil` when that text is none.
  @inline(__always)
  func number(_ value: Int64, narrow: Bool) -> Double? {
    if case .integer(false) = self, !narrow { return Double(UInt64(bitPattern: value)) }
    return integer(value, narrow: narrow).map(Double.init)
  }
}
