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

  init(delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8? = nil) {
    self.delimiter = delimiter
    self.quote = quote
    starts = FieldOffsets()
    ends = FieldOffsets()
  }

  /// Splits `line`; returns the number of fields, or `nil` for an unterminated quote.
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
        var j = i
        while j < n && p[j] != delimiter { j += 1 }
        starts.set(count, i)
        ends.set(count, j)
        count += 1
        i = j
      }
      if i >= n { return count }
      i += 1  // past the delimiter
      if i == n {
        starts.set(count, n)
        ends.set(count, n)
        return count + 1
      }
    }
  }
}

/// A growable array of field offsets backed by one allocation shared by copies of the
/// splitter (a reference type, so writes never trigger copy-on-write).
final class FieldOffsets {
  private var storage: UnsafeMutablePointer<Int>
  private var capacity: Int

  init() {
    capacity = 64
    storage = .allocate(capacity: capacity)
  }

  deinit { storage.deallocate() }

  @inline(__always)
  func set(_ index: Int, _ value: Int) {
    if index >= capacity { grow() }
    storage[index] = value
  }

  @inline(__always)
  subscript(index: Int) -> Int { storage[index] }

  private func grow() {
    let bigger = UnsafeMutablePointer<Int>.allocate(capacity: capacity * 2)
    bigger.update(from: storage, count: capacity)
    storage.deallocate()
    storage = bigger
    capacity *= 2
  }
}
