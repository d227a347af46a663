// Parquet's value encodings (parquet-format's Encodings.md): the RLE / bit-packed
// hybrid (levels and dictionary indices) and DELTA_BINARY_PACKED. Every read is bounded
// by the bytes given; a count that the bytes cannot hold is an error, never a read past
// them.

/// A cursor over a page's bytes.
struct PageBytes {
  let base: UnsafePointer<UInt8>
  let count: Int
  var at = 0

  init(_ bytes: UnsafeRawBufferPointer) {
    base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
    count = bytes.count
  }

  var remaining: Int { count - at }

  /// The little-endian `T` at index `k` of the values from `base`.
  @inline(__always)
  static func load<T: FixedWidthInteger>(_: T.Type, _ base: UnsafePointer<UInt8>, _ k: Int) -> T {
    T(littleEndian: UnsafeRawPointer(base + k * MemoryLayout<T>.size).loadUnaligned(as: T.self))
  }

  mutating func varint() throws(ParquetFault) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while at < count {
      let b = base[at]
      at += 1
      guard shift < 64 else { break }
      value |= UInt64(b & 0x7F) << shift
      if b < 0x80 { return value }
      shift += 7
    }
    throw ParquetFault("varint runs past the end of the page")
  }

  mutating func zigzag() throws(ParquetFault) -> Int64 {
    let v = try varint()
    return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
  }

  /// `n` (≤ 8) bytes, little-endian.
  mutating func littleEndian(_ n: Int) throws(ParquetFault) -> UInt64 {
    guard n <= remaining else { throw ParquetFault("value runs past the end of the page") }
    var value: UInt64 = 0
    for k in 0..<n { value |= UInt64(base[at + k]) << UInt64(8 * k) }
    at += n
    return value
  }

  /// Value `index` of `width` (≤ 64) bits packed least significant bit first from
  /// `start`; bytes past the page read as zero.
  @inline(__always)
  func unpack(from start: Int, index: Int, width: Int) -> UInt64 {
    guard width > 0 else { return 0 }
    let bit = index * width
    let first = start + bit >> 3, shift = UInt64(bit & 7)
    let available = count - first
    var low: UInt64 = 0
    if available >= 8 {
      low = UInt64(littleEndian: UnsafeRawPointer(base + first).loadUnaligned(as: UInt64.self))
    } else {
      for k in 0..<max(available, 0) { low |= UInt64(base[first + k]) << UInt64(8 * k) }
    }
    var result = low >> shift
    if shift > 0 && UInt64(width) + shift > 64 && available > 8 { result |= UInt64(base[first + 8]) << (64 - shift) }
    return width == 64 ? result : result & ((1 << UInt64(width)) - 1)
  }
}

enum ParquetEncodings {
  /// Decodes `count` values of the RLE / bit-packed hybrid of `width` bits from `bytes`
  /// into `out`.
  static func hybrid(_ bytes: inout PageBytes, width: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) throws(ParquetFault) {
    guard width >= 0 && width <= 32 else { throw ParquetFault("RLE bit width \(width) is above 32") }
    var n = 0
    while n < count {
      let header = try bytes.varint()
      if header & 1 == 0 {
        let run = Int(clamping: header >> 1)
        guard run > 0 else { throw ParquetFault("RLE run of length 0") }
        let value = try bytes.littleEndian((width + 7) / 8)
        guard width == 32 || value >> UInt64(width) == 0 else { throw ParquetFault("RLE value wider than \(width) bits") }
        let take = min(run, count - n)
        (out + n).initialize(repeating: UInt32(value), count: take)
        n += take
      } else {
        let groups = Int(clamping: header >> 1)
        guard groups > 0 else { throw ParquetFault("bit-packed run of 0 groups") }
        let take = min(groups.multipliedReportingOverflow(by: 8).partialValue, count - n)
        let used = (take * width + 7) / 8
        guard used <= bytes.remaining else { throw ParquetFault("bit-packed run past the end of the page") }
        let start = bytes.at
        for k in 0..<take { out[n + k] = UInt32(truncatingIfNeeded: bytes.unpack(from: start, index: k, width: width)) }
        n += take
        // The last run may stop short of its padding.
        let (full, overflow) = groups.multipliedReportingOverflow(by: width)
        bytes.at = !overflow && full <= bytes.remaining ? start + full : bytes.count
      }
    }
  }

  /// Decodes `count` DELTA_BINARY_PACKED values into `out`, wrapping on overflow as
  /// the writer did (an INT32 column's values are the low 32 bits).
  static func deltaBinaryPacked(_ bytes: inout PageBytes, count: Int, into out: UnsafeMutablePointer<Int64>) throws(ParquetFault) {
    let blockSize = try bytes.varint(), miniblocks = try bytes.varint()
    let total = try bytes.varint()
    var value = try bytes.zigzag()
    guard blockSize > 0, blockSize % 128 == 0, blockSize <= 1 << 20, miniblocks > 0, blockSize % miniblocks == 0,
      (blockSize / miniblocks) % 32 == 0
    else { throw ParquetFault("DELTA_BINARY_PACKED header with block size \(blockSize) and \(miniblocks) miniblocks") }
    guard total >= UInt64(count) else { throw ParquetFault("DELTA_BINARY_PACKED holds \(total) values, the page needs \(count)") }
    guard count > 0 else { return }
    out[0] = value
    var n = 1
    let perMiniblock = Int(blockSize / miniblocks)
    while n < count {
      let minDelta = try bytes.zigzag()
      guard Int(miniblocks) <= bytes.remaining else { throw ParquetFault("DELTA_BINARY_PACKED block past the end of the page") }
      let widths = bytes.at
      bytes.at += Int(miniblocks)
      for m in 0..<Int(miniblocks) where n < count {
        let width = Int(bytes.base[widths + m])
        guard width <= 64 else { throw ParquetFault("DELTA_BINARY_PACKED bit width \(width) is above 64") }
        let take = min(perMiniblock, count - n)
        guard (take * width + 7) / 8 <= bytes.remaining else { throw ParquetFault("DELTA_BINARY_PACKED miniblock past the end of the page") }
        let start = bytes.at
        for k in 0..<take {
          value = value &+ minDelta &+ Int64(bitPattern: bytes.unpack(from: start, index: k, width: width))
          out[n + k] = value
        }
        n += take
        bytes.at = min(bytes.count, start + perMiniblock * width / 8)
      }
    }
  }

  /// The bits needed for values up to `maxValue`.
  static func bitWidth(_ maxValue: Int) -> Int { maxValue == 0 ? 0 : Int.bitWidth - maxValue.leadingZeroBitCount }
}
