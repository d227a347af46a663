/// Finds the fields of one delimited line, in place: no copies, no `String`s.
///
/// A field that starts with the quote byte runs to the matching closing quote (a
/// doubled quote inside is an escaped quote); its range excludes the quotes. Quoted
/// fields may not span lines.
package struct FieldSplitter {
  let delimiter: UInt8
  /// The quote byte, or `nil` when the format has no quoting.
  let quote: UInt8?
  /// Start and end (exclusive) offsets of each field found by the last `split`: raw
  /// pointers into `storage`, allocated once (no per-line allocation, no reference
  /// counting per access).
  package let starts: UnsafeMutablePointer<Int>
  package let ends: UnsafeMutablePointer<Int>
  /// After a `split` that found a quoted field not closed by a quote before the delimiter
  /// or the line's end: that field's index, its start (`starts`) at its opening quote.
  package private(set) var badQuotedField = 0
  private let storage: FieldOffsets

  /// The delimiter repeated in every byte of a word, for the 8-bytes-at-a-time scan.
  private let pattern: UInt64

  package init(delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8? = nil) {
    self.delimiter = delimiter
    pattern = UInt64(delimiter) &* 0x0101_0101_0101_0101
    self.quote = quote
    storage = FieldOffsets()
    starts = storage.starts
    ends = storage.ends
  }

  /// Splits `line`; returns the number of fields (at most `FieldOffsets.capacity`: the
  /// line is cut there), or `nil` for a quoted field that is not closed by a quote right
  /// before the delimiter or the line's end (`badQuotedField`).
  ///
  /// - Complexity: O(line length).
  @inline(__always)
  package mutating func split(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
    var count = 0
    let n = line.count
    guard let p = line.baseAddress else {
      set(starts, 0, 0)
      set(ends, 0, 0)
      return 1
    }
    var i = 0
    while true {
      if let q = quote, i < n, p[i] == q {
        var j = i + 1
        while true {
          guard j < n else { return badQuote(count, at: i) }
          if p[j] == q {
            if j + 1 < n && p[j + 1] == q { j += 2; continue }
            break
          }
          j += 1
        }
        set(starts, count, i + 1)
        set(ends, count, j)
        count += 1
        guard j + 1 == n || p[j + 1] == delimiter else { return badQuote(count, at: i) }
        i = j + 1
      } else {
        let j = Self.find(delimiter, p, from: i, to: n, pattern: pattern)
        set(starts, count, i)
        set(ends, count, j)
        count += 1
        i = j
      }
      if i >= n { return min(count, FieldOffsets.capacity) }
      i += 1  // past the delimiter
      if i == n {
        set(starts, count, n)
        set(ends, count, n)
        return min(count + 1, FieldOffsets.capacity)
      }
    }
  }

  /// The text of field `k` of `line` (split last): a quoted field with each doubled
  /// quote read as one quote (`"q""uote"` is `q"uote`), any other as it is.
  package func text(_ line: UnsafeBufferPointer<UInt8>, _ k: Int) -> String {
    let field = UnsafeBufferPointer(rebasing: line[starts[k]..<ends[k]])
    // Only a quoted field starts right after a quote: any other starts the line or follows a delimiter.
    guard let quote, starts[k] > 0, line[starts[k] - 1] == quote, field.contains(quote) else {
      return String(decoding: field, as: UTF8.self)
    }
    var bytes: [UInt8] = []
    var previousWasQuote = false
    for byte in field {
      let skip = byte == quote && !previousWasQuote
      previousWasQuote = skip
      if !skip { bytes.append(byte) }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Records the quoted field `index` at `start` as the bad one (an empty field there).
  private mutating func badQuote(_ index: Int, at start: Int) -> Int? {
    badQuotedField = min(index, FieldOffsets.capacity)
    set(starts, index, start)
    set(ends, index, start)
    return nil
  }

  @inline(__always)
  private func set(_ offsets: UnsafeMutablePointer<Int>, _ index: Int, _ value: Int) {
    offsets[min(index, FieldOffsets.capacity)] = value
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

/// The fixed allocation behind a splitter's field offsets. A line with more than
/// `capacity` fields is cut there: no format has that many, so it fails the
/// field-count check.
package final class FieldOffsets {
  package static let capacity = 4096
  let starts: UnsafeMutablePointer<Int>
  let ends: UnsafeMutablePointer<Int>

  init() {
    starts = .allocate(capacity: Self.capacity + 1)
    ends = .allocate(capacity: Self.capacity + 1)
  }

  deinit {
    starts.deallocate()
    ends.deallocate()
  }
}
