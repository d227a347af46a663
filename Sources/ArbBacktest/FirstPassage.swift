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
    var clean = values
    var blocks = Self.extremes(clean, Self.smallBlock, upward: upward)
    if blocks.sawNaN {
      // nan never passes: stored as the value that never reaches any threshold. Only
      // then written: a column shared with its builder is not copied.
      let never = upward ? -Double.infinity : Double.infinity
      clean.withUnsafeMutableBufferPointer { clean in
        for k in clean.indices where clean[k].isNaN { clean[k] = never }
      }
      blocks = Self.extremes(clean, Self.smallBlock, upward: upward)
    }
    self.values = clean
    small = blocks.extremes
    large = Self.extremes(small, Self.largeBlock / Self.smallBlock, upward: upward).extremes
    self.upward = upward
  }

  /// The maximum (or minimum) of each block of `size` values, the last one possibly
  /// short, and whether `column` holds a `nan` (then the extremes are meaningless).
  private static func extremes(_ column: [Double], _ size: Int, upward: Bool) -> (extremes: [Double], sawNaN: Bool) {
    upward ? extremes(AtLeast.self, column, size) : extremes(AtMost.self, column, size)
  }

  @inline(__always)
  private static func extremes<Test: PassageTest>(_: Test.Type, _ column: [Double], _ size: Int) -> (extremes: [Double], sawNaN: Bool) {
    let blocks = (column.count + size - 1) / size
    var nan = SIMDMask<SIMD8<Double>.MaskStorage>(repeating: false)
    let extremes = [Double](largeCapacity: blocks) { result in
      column.withUnsafeBufferPointer { column in
        let base = UnsafeRawPointer(column.baseAddress!)
        for b in 0..<blocks {
          var p = b * size
          let end = min(p + size, column.count)
          // Eight lanes at a time while eight remain, then one by one.
          var lanes = SIMD8<Double>(repeating: column[p])
          while p + 8 <= end {
            let eight = base.loadUnaligned(fromByteOffset: p * 8, as: SIMD8<Double>.self)
            nan .|= eight .!= eight
            lanes = Test.further(lanes, eight)
            p += 8
          }
          var extreme = Test.furthest(lanes)
          while p < end {
            let value = column[p]
            nan .|= SIMDMask(repeating: value.isNaN)
            // A value that passes the extreme as a threshold lies further (or equals it).
            if Test.passes(value, extreme) { extreme = value }
            p += 1
          }
          result[b] = extreme
        }
      }
      return blocks
    }
    return (extremes, any(nan))
  }

  var count: Int { values.count }

  /// The value at position `p` (`nan` stored as ∓infinity).
  subscript(p: Int) -> Double { values[p] }

  /// The first position `p` in `start..<limit` (`limit` at most `count`) with a passing
  /// value, or `nil`.
  ///
  /// A block whose extreme does not pass is skipped from wherever `p` is inside it
  /// (its extreme bounds every value after `p` in it too): the first large block that
  /// may pass, then its first small block that may, then that block's values; each
  /// level is scanned eight entries at a time.
  func first(from start: Int, threshold: Double, before limit: Int? = nil) -> Int? {
    let end = min(limit ?? values.count, values.count)
    return upward ? search(AtLeast.self, start, end, threshold) : search(AtMost.self, start, end, threshold)
  }

  @inline(__always)
  private func search<Test: PassageTest>(_ test: Test.Type, _ start: Int, _ end: Int, _ threshold: Double) -> Int? {
    values.withUnsafeBufferPointer { values in
      small.withUnsafeBufferPointer { small in
        large.withUnsafeBufferPointer { large in
          let (smallSize, largeSize) = (Self.smallBlock, Self.largeBlock)
          var p = start
          while p < end {
            // Blocks are numbered up to the one holding `end - 1`.
            guard let big = Self.firstPassing(test, large, p / largeSize, (end - 1) / largeSize + 1, threshold) else { return nil }
            p = max(p, big * largeSize)
            let bigEnd = min((big + 1) * largeSize, end)
            guard let block = Self.firstPassing(test, small, p / smallSize, (bigEnd - 1) / smallSize + 1, threshold) else {
              p = bigEnd
              continue
            }
            p = max(p, block * smallSize)
            let blockEnd = min((block + 1) * smallSize, end)
            if let hit = Self.firstPassing(test, values, p, blockEnd, threshold) { return hit }
            p = blockEnd
          }
          return nil
        }
      }
    }
  }

  /// The first index in `from..<to` of `column` whose value passes: eight at a time
  /// while eight remain, then one by one.
  @inline(__always)
  private static func firstPassing<Test: PassageTest>(
    _: Test.Type, _ column: UnsafeBufferPointer<Double>, _ from: Int, _ to: Int, _ threshold: Double
  ) -> Int? {
    let base = UnsafeRawPointer(column.baseAddress!)
    var p = from
    while p + 8 <= to {
      if Test.anyPasses(base.loadUnaligned(fromByteOffset: p * 8, as: SIMD8<Double>.self), threshold) { break }
      p += 8
    }
    while p < to {
      if Test.passes(column[p], threshold) { return p }
      p += 1
    }
    return nil
  }
}

/// Whether a value passes a threshold: `AtLeast` (≥) or `AtMost` (≤), one value or any
/// of eight; and the block extremes that bound them: lane by lane the value further in
/// the passing direction, and the furthest lane.
private protocol PassageTest {
  static func passes(_ value: Double, _ threshold: Double) -> Bool
  static func anyPasses(_ values: SIMD8<Double>, _ threshold: Double) -> Bool
  static func further(_ lanes: SIMD8<Double>, _ values: SIMD8<Double>) -> SIMD8<Double>
  static func furthest(_ lanes: SIMD8<Double>) -> Double
}

private enum AtLeast: PassageTest {
  @inline(__always) static func passes(_ value: Double, _ threshold: Double) -> Bool { value >= threshold }
  @inline(__always) static func anyPasses(_ values: SIMD8<Double>, _ threshold: Double) -> Bool { any(values .>= threshold) }
  @inline(__always) static func further(_ lanes: SIMD8<Double>, _ values: SIMD8<Double>) -> SIMD8<Double> {
    lanes.replacing(with: values, where: values .> lanes)
  }
  @inline(__always) static func furthest(_ lanes: SIMD8<Double>) -> Double { lanes.max() }
}

private enum AtMost: PassageTest {
  @inline(__always) static func passes(_ value: Double, _ threshold: Double) -> Bool { value <= threshold }
  @inline(__always) static func anyPasses(_ values: SIMD8<Double>, _ threshold: Double) -> Bool { any(values .<= threshold) }
  @inline(__always) static func further(_ lanes: SIMD8<Double>, _ values: SIMD8<Double>) -> SIMD8<Double> {
    lanes.replacing(with: values, where: values .< lanes)
  }
  @inline(__always) static func furthest(_ lanes: SIMD8<Double>) -> Double { lanes.min() }
}
