#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The values of a streamed series kept for its exact quantiles: in memory up to
/// `memoryLimit` values, then in a temporary file (in `TMPDIR`, else `/tmp`; unlinked
/// as soon as it is created, so that it never outlives the process).
///
/// `quantiles` are exact, type 7, the same values as `Quantiles.compute` of all the
/// values: a spilled file is answered by radix passes over it (a histogram of 12 bits of
/// each value's order-preserving key narrows each wanted rank to a key range, until a
/// range holds few enough values to select from in memory), reading it a block at a time, so memory stays
/// bounded whatever the number of values. The first range of each rank is known without
/// a pass: every value is counted in one of 16,384 equal-width buckets as it is written,
/// the buckets first spread over the first values spilled and doubled in width whenever a
/// value falls outside them, so that a long series usually needs a single pass.
public final class ValueSpill {
  /// Values held in memory before they go to a file (8 MiB).
  public static let defaultMemoryLimit = 1 << 20
  /// Values read from the file at a time.
  static let blockValues = 1 << 16
  /// A key range with at most this many values is collected and its ranks selected in
  /// memory (1 MiB a range) rather than split by another pass over the file.
  public static let defaultSortLimit = 1 << 17
  /// Bits of the key each histogram pass resolves: 4,096 buckets per range split.
  static let digitBits = 12

  private let memoryLimit: Int
  private let sortLimit: Int
  private var buffer: [Double] = []
  private var descriptor: Int32 = -1
  /// Values written to the file.
  private var written = 0
  /// The smallest and largest order-preserving key written: the selection splits only
  /// that range, so that its buckets are fine where the values are.
  private var lowestKey = UInt64.max
  private var highestKey: UInt64 = 0
  /// How many values written fall in each bucket, counted as they go to the file (made
  /// with it): the selection starts from these buckets, a pass saved.
  private var bucketCounts = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
  /// The buckets, by value: a value x is the whole number x × `bucketScale` (a power
  /// of two, so that the buckets are equal widths of value), and bucket b holds the
  /// numbers n with `n >> bucketShift` = `bucketBase` + b. Widening the buckets (one more
  /// shift) merges them two by two exactly, so that the counts stay exact.
  private var bucketScale = 1.0
  private var bucketShift: Int64 = 0
  private var bucketBase: Int64 = 0
  static let bucketCount = 1 << 14
  /// Bits of the key the lookup of a value's range starts from.
  static let topBits = 16
  /// Passes over the file the selections made (what the tests check).
  private(set) var passes = 0

  /// - Parameter folder: where the file goes (default: `TMPDIR`, else `/tmp`).
  public init(memoryLimit: Int = ValueSpill.defaultMemoryLimit, sortLimit: Int = ValueSpill.defaultSortLimit, folder: String? = nil) {
    precondition(memoryLimit > 0 && sortLimit > 0, "a spill holds at least one value in memory")
    self.folder = folder ?? getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    self.memoryLimit = memoryLimit
    self.sortLimit = sortLimit
    buffer.reserveCapacity(Swift.min(memoryLimit, Self.blockValues))
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
    bucketCounts.deallocate()
  }

  /// Number of values appended.
  public var count: Int { written + buffer.count }

  /// Appends `values`.
  /// - Throws: `SpillError` when the temporary file cannot be made or written.
  public func append(_ values: UnsafeBufferPointer<Double>) throws(SpillError) {
    buffer.append(contentsOf: values)
    if buffer.count >= memoryLimit || (descriptor >= 0 && buffer.count >= Self.blockValues) { try flush() }
  }

  /// The type-7 quantiles at `probabilities` (0…1), or `nil` without values.
  /// - Throws: `SpillError` when the file cannot be read back.
  public func quantiles(_ probabilities: [Double]) throws(SpillError) -> [Double]? {
    guard descriptor >= 0 else { return Quantiles.computeInPlace(&buffer, probabilities: probabilities) }
    try flush()
    let n = written
    let ranks = Quantiles.ranks(count: n, probabilities: probabilities)
    let statistic = try select(ranks)
    return Quantiles.interpolate(count: n, probabilities: probabilities, statistic: statistic)
  }

  /// Writes the buffer to the file (made on first use).
  private func flush() throws(SpillError) {
    if descriptor < 0 {
      var template = Array((folder + "/arbkit-values-XXXXXX").utf8CString)
      descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
      guard descriptor >= 0 else { throw SpillError(folder: folder, errno: errno) }
      template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
      bucketCounts = .allocate(capacity: Self.bucketCount)
      bucketCounts.initialize(repeating: 0)
      spreadBuckets()
    }
    var low = lowestKey, high = highestKey
    // The buckets in locals: the loop reads no stored property.
    let counts = bucketCounts, scale = bucketScale, buckets = UInt64(Self.bucketCount)
    var (shift, base) = (bucketShift, bucketBase)
    for x in buffer {
      let key = Quantiles.key(x)
      low = Swift.min(low, key)
      high = Swift.max(high, key)
      var n = Self.number(x, scale: scale) >> shift
      if n < base || UInt64(bitPattern: n &- base) >= buckets {
        widen(toHold: x)
        (shift, base) = (bucketShift, bucketBase)
        n = Self.number(x, scale: scale) >> shift
      }
      counts[Int(n &- base)] += 1
    }
    (lowestKey, highestKey) = (low, high)
    let failure: Int32? = buffer.withUnsafeBytes { bytes in
      var done = 0
      while done < bytes.count {
        let n = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(written * 8 + done))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return n < 0 ? errno : ENOSPC }
        done += n
      }
      return nil
    }
    if let failure { throw SpillError(folder: folder, errno: failure) }
    written += buffer.count
    buffer.removeAll(keepingCapacity: true)
  }

  /// Spreads the buckets over the values held (the first spilled): they take the middle
  /// half of the buckets.
  private func spreadBuckets() {
    guard let low = buffer.min(), let high = buffer.max() else { return }
    let span = high - low > 0 ? high - low : Swift.max(abs(low), .leastNormalMagnitude) * 1e-6
    // The largest power of two that makes the span at most half the buckets' numbers,
    // and keeps these values' numbers within ±2^61 (values a few ulps apart would
    // otherwise take numbers past an Int64, and the buckets' base with them).
    let magnitude = Swift.max(abs(low), abs(high))
    let fits = magnitude > 0 ? 60 - Int(magnitude.exponent) : 1_000
    let exponent = Swift.max(-1_000, Swift.min(1_000, fits, Int((Double(Self.bucketCount / 2) / span).exponent)))
    bucketScale = Double(sign: .plus, exponent: exponent, significand: 1)
    bucketShift = 0
    bucketBase = Self.number(low, scale: bucketScale) - Int64(Self.bucketCount / 4)
  }

  /// `x × scale` as a whole number, rounded towards zero: never less than a smaller
  /// value's.
  @inline(__always)
  private static func number(_ x: Double, scale: Double) -> Int64 {
    let scaled = x * scale
    return scaled >= 0x1p63 ? .max : scaled <= -0x1p63 ? .min : Int64(scaled)
  }

  /// The bucket of `x` (outside `0..<bucketCount` when the buckets do not reach it yet).
  @inline(__always)
  private func bucket(_ x: Double) -> Int {
    let n = Self.number(x, scale: bucketScale) >> bucketShift
    guard n >= bucketBase, UInt64(bitPattern: n &- bucketBase) < UInt64(Self.bucketCount) else { return n < bucketBase ? -1 : Self.bucketCount }
    return Int(n - bucketBase)
  }

  /// Doubles the buckets' width until `x` falls in one, merging their counts two by two:
  /// the buckets held so far fill the half on the side away from `x`.
  private func widen(toHold x: Double) {
    while true {
      let b = bucket(x)
      if b >= 0 && b < Self.bucketCount { return }
      let half = Int64(Self.bucketCount / 2)
      let base = bucketBase >> 1 - (b < 0 ? half - 1 : 0)
      var merged = [Int](repeating: 0, count: Self.bucketCount)
      for i in 0..<Self.bucketCount where bucketCounts[i] > 0 { merged[Int((bucketBase &+ Int64(i)) >> 1 &- base)] += bucketCounts[i] }
      for i in 0..<Self.bucketCount { bucketCounts[i] = merged[i] }
      bucketShift += 1
      bucketBase = base
    }
  }

  /// The keys of the values written that lie in bucket `b`: from the first key whose
  /// value is in it or after, up to the one before the next bucket's first (buckets
  /// keep the values' order, so that these are found by bisection).
  private func keys(ofBucket b: Int) -> (low: UInt64, high: UInt64) {
    func first(from b: Int) -> UInt64? {
      guard bucket(Quantiles.value(ofKey: highestKey)) >= b else { return nil }
      var (low, high) = (lowestKey, highestKey)
      while low < high {
        let middle = low + (high - low) / 2
        if bucket(Quantiles.value(ofKey: middle)) >= b { high = middle } else { low = middle + 1 }
      }
      return low
    }
    return (first(from: b) ?? highestKey, first(from: b + 1).map { $0 - 1 } ?? highestKey)
  }

  /// The folder of the temporary file.
  private let folder: String

  /// Calls `body` with each block of the file's values in order.
  private func forEachBlock(_ body: (UnsafeBufferPointer<Double>) -> Void) throws(SpillError) {
    let block = UnsafeMutableBufferPointer<Double>.allocate(capacity: Self.blockValues)
    defer { block.deallocate() }
    var position = 0
    while position < written {
      let rows = Swift.min(Self.blockValues, written - position)
      let bytes = UnsafeMutableRawBufferPointer(block)
      var done = 0
      while done < rows * 8 {
        let n = pread(descriptor, bytes.baseAddress! + done, rows * 8 - done, off_t(position * 8 + done))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw SpillError(folder: folder, errno: n < 0 ? errno : EIO) }
        done += n
      }
      body(UnsafeBufferPointer(rebasing: block[0..<rows]))
      position += rows
    }
  }

  /// A range of keys and what is known of it: how many values lie below it and in it.
  private struct KeyRange: Hashable {
    var low: UInt64
    var high: UInt64
    var below: Int
    var count: Int
  }

  /// The order statistics at `ranks` (ascending, distinct) of the file's values.
  private func select(_ ranks: [Int]) throws(SpillError) -> [Int: Double] {
    var result: [Int: Double] = [:]
    // Each unresolved rank's range: the bucket that holds it, within the keys seen.
    let shift = UInt64(64 - Self.topBits)
    var pending: [(Int, KeyRange)] = []
    var (bucket, below) = (0, 0)
    for rank in ranks {
      while below + bucketCounts[bucket] <= rank {
        below += bucketCounts[bucket]
        bucket += 1
      }
      let (low, high) = keys(ofBucket: bucket)
      pending.append((rank, KeyRange(low: low, high: high, below: below, count: bucketCounts[bucket])))
    }
    while true {
      // A range of one key is that key's value.
      for (rank, range) in pending where range.low == range.high { result[rank] = Quantiles.value(ofKey: range.low) }
      pending.removeAll { $0.1.low == $0.1.high }
      if pending.isEmpty { return result }
      // Ranges never overlap (each is one bucket of a range split before): in key order,
      // a value's range is the first whose high is not below its key.
      let ranges = Array(Set(pending.map(\.1))).sorted { $0.low < $1.low }
      let collects = ranges.map { $0.count <= sortLimit }
      let shifts = ranges.map { range in
        var shift: UInt64 = 0
        while (range.high - range.low) >> shift >= 1 << Self.digitBits { shift += 1 }
        return shift
      }
      // Flat buffers: 4,096 counts per range split; the values of each range collected, from `offsets[r]`.
      let digit = Self.digitBits
      let histograms = UnsafeMutableBufferPointer<Int>.allocate(capacity: ranges.count << digit)
      defer { histograms.deallocate() }
      histograms.initialize(repeating: 0)
      var offsets = [0]
      for r in ranges.indices { offsets.append(offsets[r] + (collects[r] ? ranges[r].count : 0)) }
      let collected = UnsafeMutableBufferPointer<Double>.allocate(capacity: offsets[ranges.count])
      defer { collected.deallocate() }
      // Per range, in buffers the pass reads without bounds or exclusivity checks: low and
      // high key, shift to its bucket (`UInt64.max`: its values are collected), next slot.
      let bounds = UnsafeMutableBufferPointer<(low: UInt64, high: UInt64, shift: UInt64, next: Int)>.allocate(capacity: ranges.count)
      defer { bounds.deallocate() }
      for r in ranges.indices { bounds[r] = (ranges[r].low, ranges[r].high, collects[r] ? .max : shifts[r], offsets[r]) }
      let count = ranges.count
      // Per top bucket of a key, the first range that does not end below the bucket: the
      // search for a value's range starts there.
      let firstRange = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 1 << Self.topBits)
      defer { firstRange.deallocate() }
      var r = 0
      for bucket in 0..<(1 << Self.topBits) {
        while r < count && ranges[r].high >> shift < UInt64(bucket) { r += 1 }
        firstRange[bucket] = Int32(r)
      }
      passes += 1
      try forEachBlock { block in
        for x in block {
          let key = Quantiles.key(x)
          var r = Int(firstRange[Int(key >> shift)])
          while r < count && bounds[r].high < key { r += 1 }
          guard r < count, bounds[r].low <= key else { continue }
          if bounds[r].shift == .max {
            collected[bounds[r].next] = x
            bounds[r].next += 1
          } else {
            histograms[r << digit + Int((key - bounds[r].low) >> bounds[r].shift)] += 1
          }
        }
      }
      for r in ranges.indices where collects[r] {
        let ranks = pending.filter { $0.1 == ranges[r] }.map { offsets[r] + $0.0 - ranges[r].below }.sorted()
        Quantiles.select(collected, offsets[r], offsets[r + 1] - 1, ranks[...])
      }
      var next: [(Int, KeyRange)] = []
      for (rank, range) in pending {
        let r = ranges.firstIndex(of: range)!
        if collects[r] {
          result[rank] = collected[offsets[r] + rank - range.below]
          continue
        }
        // The bucket that holds the rank, and the values below it.
        var below = range.below, bucket = 0
        while below + histograms[r << digit + bucket] <= rank {
          below += histograms[r << digit + bucket]
          bucket += 1
        }
        let low = range.low + (UInt64(bucket) << shifts[r])
        let width = (UInt64(1) << shifts[r]) - 1
        let high = range.high - low < width ? range.high : low + width
        next.append((rank, KeyRange(low: low, high: high, below: below, count: histograms[r << digit + bucket])))
      }
      pending = next
    }
  }
}

/// A temporary file of values that cannot be made, written or read back.
public struct SpillError: Error, Sendable, CustomStringConvertible {
  public var folder: String
  public var errno: Int32

  public var description: String {
    "cannot keep the series' values for its quantiles in a temporary file in \(folder) (set TMPDIR to another folder): "
      + String(cString: strerror(errno))
  }
}
