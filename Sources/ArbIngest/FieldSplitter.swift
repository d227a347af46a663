/// Finds the fields of one delimited line, in place: no copies, no `String`s.
///
/// A field that starts with the quote byte runs to the matching closing quote (a
/// doubled quote inside is an escaped quote); its range excludes the quotes. Quoted
/// fields may not span lines.
struct FieldSplitter {
  let delimiter: UInt8
  /// The quote byte, or `nil` when the format has no quoting.
  let quote: UInt8?
  /// Start and end (exclusive) offsets of each field found by the last `split`, in
  /// storage that lives as long as the splitter's owner keeps it (no per-line allocation).
  private(set) var starts: FieldOffsets
  private(set) var ends: FieldOffsets

  /// The delimiter repeated in every byte of a word, for the 8-bytes-at-a-time scan.
  private let pattern: UInt64

  init(delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8? = nil) {
    self.delimiter = delimiter
    pattern = UInt64(delimiter) &* 0x0101_0101_0101_0101
    self.quote = quote
    starts = FieldOffsets()
    ends = FieldOffsets()
  }

  /// Splits `line`; returns the number of fields (at most `FieldOffsets.capacity`: the
  /// line is cut there), or `nil` for an unterminated quote.
  ///
  /// - Complexity: O(line length).
  @inline(__always)
  mutating func split(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
    var count = 0
    let n = line.count
    guard let p = line.baseAddress else {
      starts.set(0, 0)
      ends.set(0, 0)
      return 1
    }
    var i = 0
    while true {
      if let q = quote, i < n, p[i] == q {
        var j = i + 1
        while true {
          guard j < n else { return nil }
          if p[j] == q {
            if j + 1 < n && p[j + 1] == q { j += 2; continue }
            break
          }
          j += 1
        }
        starts.set(count, i + 1)
        ends.set(count, j)
        count += 1
        i = j + 1
        guard i == n || p[i] == delimiter else { return nil }
      } else {
        let j = Self.find(delimiter, p, from: i, to: n, pattern: pattern)
        starts.set(count, i)
        ends.set(count, j)
        count += 1
        i = j
      }
      if i >= n { return min(count, FieldOffsets.capacity) }
      i += 1  // past the delimiter
      if i == n {
        starts.set(count, n)
        ends.set(count, n)
        return min(count + 1, FieldOffsets.capacity)
      }
    }
  }

  /// Index of the first `byte` in `p[from..<to]`, or `to`. Scans a word at a time: a
  /// byte equal to the delimiter becomes zero after the xor, and the lowest zero byte
  /// of a word is found exactly by `(x − 0x01…) & ~x & 0x80…` (SWAR).
  @inline(__always)
  static func find(_ byte: UInt8, _ p: UnsafePointer<UInt8>, from: Int, to n: Int, pattern: UInt64) -> Int {
    var j = from
    while j + 8 <= n {
      let x = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self) ^ pattern
      let zero = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
      if zero != 0 { return j + zero.trailingZeroBitCount >> 3 }
      j += 8
    }
    while j < n && p[j] != byte { j += 1 }
    return j
  }
}

/// Field offsets in one fixed allocation shared by copies of the splitter (a reference
/// type, so writes never trigger copy-on-write). A line with more than `capacity`
/// fields is cut there: no format has that many, so it fails the field-count check.
final class FieldOffsets {
  static let capacity = 4096
  let storage: UnsafeMutablePointer<Int>

  init() { storage = .allocate(capacity: Self.capacity + 1) }

  deinit { storage.deallocate() }

  @inline(__always)
  func set(_ index: Int, _ value: Int) { storage[min(index, Self.capacity)] = value }

  @inline(__always)
  subscript(index: Int) -> Int { storage[index] }
}
