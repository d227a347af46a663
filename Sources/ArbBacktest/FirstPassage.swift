import ArbCore

/// A column of values with block maxima (or minima), answering "the first position at
/// or after `i` whose value is ≥ (or ≤) a threshold" without scanning every position:
/// blocks of 64 and of 4096 are skipped by their extreme value.
///
/// Memory is the column plus 1/64 + 1/4096 of it, whatever the number of queries.
struct FirstPassage: Sendable {
  private let values: [Double]
  private let small: [Double]
  private let large: [Double]
  /// `true`: queries ask for ≥ threshold (blocks keep maxima); `false`: ≤ (minima).
  private let upward: Bool
  static let smallBlock = 64
  static let largeBlock = 4096

  /// `values` with `nan` where no passage may happen (never ≥ or ≤ anything).
  init(_ values: consuming [Double], upward: Bool) {
    // nan never passes: store it as the value that never reaches any threshold.
    var clean = values
    let never = upward ? -Double.infinity : Double.infinity
    if clean.withUnsafeBufferPointer({ $0.contains { $0.isNaN } }) {
      // Only then written: a column shared with its builder is not copied.
      clean.withUnsafeMutableBufferPointer { clean in
        for k in clean.indices where clean[k].isNaN { clean[k] = never }
      }
    }
    self.values = clean
    small = Self.extremes(clean, Self.smallBlock, upward: upward)
    large = Self.extremes(small, Self.largeBlock / Self.smallBlock, upward: upward)
    self.upward = upward
  }

  /// The maximum (or minimum) of each block of `size` values, the last one possibly short.
  private static func extremes(_ column: [Double], _ size: Int, upward: Bool) -> [Double] {
    let blocks = (column.count + size - 1) / size
    return [Double](largeCapacity: blocks) { result in
      column.withUnsafeBufferPointer { column in
        for b in 0..<blocks {
          let block = UnsafeBufferPointer(rebasing: column[(b * size)..<min(b * size + size, column.count)])
          var extreme = block[0]
          if upward {
            for value in block { extreme = max(extreme, value) }
          } else {
            for value in block { extreme = min(extreme, value) }
          }
          result[b] = extreme
        }
      }
      return blocks
    }
  }

  var count: Int { values.count }

  /// The value at position `p` (`nan` stored as ∓infinity).
  subscript(p: Int) -> Double { values[p] }

  /// The first position `p` in `start..<limit` (`limit` at most `count`) with a passing
  /// value, or `nil`.
  ///
  /// A block whose extreme does not pass is skipped from wherever `p` is inside it
  /// (its extreme bounds every value after `p` in it too); only a small block that
  /// may pass is scanned, eight values at a time.
  func first(from start: Int, threshold: Double, before limit: Int? = nil) -> Int? {
    let end = min(limit ?? values.count, values.count)
    return upward ? search(AtLeast.self, start, end, threshold) : search(AtMost.self, start, end, threshold)
  }

  @inline(__always)
  private func search<Test: PassageTest>(_: Test.Type, _ start: Int, _ end: Int, _ threshold: Double) -> Int? {
    values.withUnsafeBufferPointer { values in
      small.withUnsafeBufferPointer { small in
        large.withUnsafeBufferPointer { large in
          var p = start
          while p < end {
            let big = p / Self.largeBlock
            if !Test.passes(large[big], threshold) {
              p = (big + 1) * Self.largeBlock
              continue
            }
            let block = p / Self.smallBlock
            let blockEnd = min((block + 1) * Self.smallBlock, end)
            if Test.passes(small[block], threshold) {
              // Eight at a time while eight remain, then one by one.
              let base = UnsafeRawPointer(values.baseAddress!)
              while p + 8 <= blockEnd {
                let eight = base.loadUnaligned(fromByteOffset: p * 8, as: SIMD8<Double>.self)
                if Test.anyPasses(eight, threshold) { break }
                p += 8
              }
              while p < blockEnd {
                if Test.passes(values[p], threshold) { return p }
                p += 1
              }
            }
            p = blockEnd
          }
          return nil
        }
      }
    }
  }
}

/// Whether a value passes a threshold: `AtLeast` (≥) or `AtMost` (≤), one value or any
/// of eight.
private protocol PassageTest {
  static func passes(_ value: Double, _ threshold: Double) -> Bool
  static func anyPasses(_ values: SIMD8<Double>, _ threshold: Double) -> Bool
}

private enum AtLeast: PassageTest {
  @inline(__always) static func passes(_ value: Double, _ threshold: Double) -> Bool { value >= threshold }
  @inline(__always) static func anyPasses(_ values: SIMD8<Double>, _ threshold: Double) -> Bool { any(values .>= threshold) }
}

private enum AtMost: PassageTest {
  @inline(__always) static func passes(_ value: Double, _ threshold: Double) -> Bool { value <= threshold }
  @inline(__always) static func anyPasses(_ values: SIMD8<Double>, _ threshold: Double) -> Bool { any(values .<= threshold) }
}
