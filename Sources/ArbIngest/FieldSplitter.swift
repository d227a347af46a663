/// Finds the fields of one delimited line, in place: no copies, no `String`s.
///
/// A field that starts with the quote byte runs to the matching closing quote (a
/// doubled quote inside is an escaped quote); its range excludes the quotes. Quoted
/// fields may not span lines.
struct FieldSplitter {
  let delimiter: UInt8
  /// The quote byte, or `nil` when the format has no quoting.
  let quote: UInt8?
  /// Start offset of each field found by the last `split`.
  private(set) var starts: [Int] = []
  /// End offset (exclusive) of each field found by the last `split`.
  private(set) var ends: [Int] = []

  init(delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8? = nil) {
    self.delimiter = delimiter
    self.quote = quote
    starts.reserveCapacity(32)
    ends.reserveCapacity(32)
  }

  /// Splits `line`; returns the number of fields, or `nil` for an unterminated quote.
  ///
  /// - Complexity: O(line length).
  @inline(__always)
  mutating func split(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
    starts.removeAll(keepingCapacity: true)
    ends.removeAll(keepingCapacity: true)
    let n = line.count
    guard let p = line.baseAddress else {
      starts.append(0)
      ends.append(0)
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
        starts.append(i + 1)
        ends.append(j)
        i = j + 1
        guard i == n || p[i] == delimiter else { return nil }
      } else {
        var j = i
        while j < n && p[j] != delimiter { j += 1 }
        starts.append(i)
        ends.append(j)
        i = j
      }
      if i >= n { return starts.count }
      i += 1  // past the delimiter
      if i == n {
        starts.append(n)
        ends.append(n)
        return starts.count
      }
    }
  }
}
