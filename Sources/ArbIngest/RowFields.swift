/// The fields of one row as `FileReader` validates them: read from a CSV line's text or
/// from a Parquet row group's typed columns, checked by the same rules
/// (`FileReader.decodeRow`). Field `k` is the row's `k`-th column.
protocol RowFields {
  /// Whether field `k` is empty (a null).
  func isEmpty(_ k: Int) -> Bool
  /// Field `k` as a number, `nil` when it is none; asked only of a field not empty.
  func number(_ k: Int, scratch: inout [UInt8]) -> Double?
  /// Field `k` as a whole number, `nil` when empty or none.
  func integer(_ k: Int) -> Int64?
  /// Field `k` as a time in µs, read in `form` (`isCloseTime`: a candle's close time);
  /// `nil` when it is none.
  func time(_ k: Int, form: TimeForm, offset: Int64, isCloseTime: Bool) -> Int64?
  /// The builder group of the row's instrument in `reader`, made on first sight; `nil`
  /// when a market field names no market kind.
  func group(in reader: inout FileReader) -> Int?
}

/// The fields of a CSV line split by the reader's `FieldSplitter`.
struct TextRowFields: RowFields {
  let line: UnsafeBufferPointer<UInt8>
  let starts: UnsafeMutablePointer<Int>
  let ends: UnsafeMutablePointer<Int>
  let thousands: UInt8?

  private var base: UnsafePointer<UInt8> { line.baseAddress! }

  @inline(__always)
  func isEmpty(_ k: Int) -> Bool { starts[k] == ends[k] }

  @inline(__always)
  func number(_ k: Int, scratch: inout [UInt8]) -> Double? {
    Self.number(base, starts[k], ends[k], thousands: thousands, scratch: &scratch)
  }

  @inline(__always)
  func integer(_ k: Int) -> Int64? { DecimalParser.parseInt64(base + starts[k], ends[k] - starts[k]) }

  @inline(__always)
  func time(_ k: Int, form: TimeForm, offset: Int64, isCloseTime: Bool) -> Int64? {
    isCloseTime
      ? TimeParser.parseCloseTime(base + starts[k], ends[k] - starts[k])
      : TimeParser.parse(base + starts[k], ends[k] - starts[k], form: form, defaultOffset: offset)
  }

  @inline(__always)
  func group(in reader: inout FileReader) -> Int? { reader.groupIndex(line) }

  /// Parses bytes `[start, end)` of `base`, dropping the `thousands` separator if there is
  /// one (through `scratch`).
  @inline(__always)
  static func number(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, thousands: UInt8?, scratch: inout [UInt8]) -> Double? {
    guard let separator = thousands else { return DecimalParser.parse(base + start, end - start) }
    if scratch.count < end - start { scratch = [UInt8](repeating: 0, count: end - start) }
    return scratch.withUnsafeMutableBufferPointer { buffer in
      var n = 0
      for k in start..<end where base[k] != separator {
        buffer[n] = base[k]
        n += 1
      }
      return DecimalParser.parse(UnsafePointer(buffer.baseAddress!), n)
    }
  }
}
