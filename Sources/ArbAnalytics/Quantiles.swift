/// Quantiles by linear interpolation between order statistics (Hyndman–Fan type 7,
/// numpy's default): position `h = (n − 1) q`, value `x₍⌊h⌋₎ + (h − ⌊h⌋)(x₍⌊h⌋+1₎ − x₍⌊h⌋₎)`.
///
/// Several quantiles are answered together without a full O(n log n) sort. Large
/// inputs first take one radix pass: a histogram of the top 16 bits of each value's
/// order-preserving key finds the buckets that hold the wanted ranks, and a second
/// pass moves just those buckets' values to the front; a multi-target quickselect
/// (partitioning only the sub-ranges that hold a wanted rank) then finishes on that
/// small front. Matches `numpy.quantile(x, q)`.
public enum Quantiles {
  /// The type-7 quantiles of `values` at each probability in `probabilities` (0…1).
  /// Returns `nil` for empty input.
  public static func compute(_ values: [Double], probabilities: [Double]) -> [Double]? {
    var work = values
    return computeInPlace(&work, probabilities: probabilities)
  }

  /// As `compute`, reordering `values` instead of copying them.
  public static func computeInPlace(_ values: inout [Double], probabilities: [Double]) -> [Double]? {
    let n = values.count
    guard n > 0 else { return nil }
    let wanted = ranks(count: n, probabilities: probabilities)
    let statistic: [Int: Double] = values.withUnsafeMutableBufferPointer { a in
      if n >= 1 << 16 { return radixSelect(a, wanted) }
      select(a, 0, n - 1, wanted[...])
      return Dictionary(uniqueKeysWithValues: wanted.map { ($0, a[$0]) })
    }
    return interpolate(count: n, probabilities: probabilities, statistic: statistic)
  }

  /// The ranks (0-based, ascending, distinct) whose order statistics the type-7
  /// quantiles of `count` values at `probabilities` need.
  static func ranks(count n: Int, probabilities: [Double]) -> [Int] {
    var ranks = Set<Int>()
    for q in probabilities {
      precondition(q >= 0 && q <= 1, "quantile probability must be in 0...1, was \(q)")
      let h = Double(n - 1) * q
      let low = Int(h.rounded(.down))
      ranks.insert(low)
      ranks.insert(min(low + 1, n - 1))
    }
    return ranks.sorted()
  }

  /// The type-7 quantiles of `count` values from their order statistics at `ranks(count:probabilities:)`.
  static func interpolate(count n: Int, probabilities: [Double], statistic: [Int: Double]) -> [Double] {
    probabilities.map { q in
      let h = Double(n - 1) * q
      let low = Int(h.rounded(.down))
      let high = min(low + 1, n - 1)
      return statistic[low]! + (h - Double(low)) * (statistic[high]! - statistic[low]!)
    }
  }

  /// The double of an order-preserving `key`.
  @inline(__always)
  static func value(ofKey key: UInt64) -> Double {
    Double(bitPattern: key >> 63 != 0 ? key & ~(1 << 63) : ~key)
  }

  /// An unsigned key with the order of the doubles (no NaN here): flip all bits of a
  /// negative value, only the sign bit of a positive one.
  @inline(__always)
  static func key(_ x: Double) -> UInt64 {
    let bits = x.bitPattern
    return bits >> 63 != 0 ? ~bits : bits | (1 << 63)
  }

  /// The order statistics at `ranks` (sorted) of `a`, which it reorders.
  private static func radixSelect(_ a: UnsafeMutableBufferPointer<Double>, _ ranks: [Int]) -> [Int: Double] {
    let buckets = 1 << 16
    var counts = [Int32](repeating: 0, count: buckets)
    for x in a { counts[Int(key(x) >> 48)] &+= 1 }
    // The bucket of each rank, and how many values lie in lower buckets.
    var bucketOf: [Int] = [], below: [Int] = []
    var running = 0, b = 0
    for r in ranks {
      while running + Int(counts[b]) <= r {
        running += Int(counts[b])
        b += 1
      }
      bucketOf.append(b)
      below.append(running)
    }
    // Move the values of the wanted buckets to the front, keeping nothing else.
    var wantedBucket = [Bool](repeating: false, count: buckets)
    for b in bucketOf { wantedBucket[b] = true }
    var front = 0
    for i in 0..<a.count where wantedBucket[Int(key(a[i]) >> 48)] {
      a.swapAt(i, front)
      front += 1
    }
    // A rank's place in the front: the wanted buckets below its own, then its place
    // inside its bucket.
    var frontBelow = [Int](repeating: 0, count: buckets)
    var sum = 0
    for b in Set(bucketOf).sorted() {
      frontBelow[b] = sum
      sum += Int(counts[b])
    }
    let frontRanks = ranks.indices.map { frontBelow[bucketOf[$0]] + ranks[$0] - below[$0] }
    select(a, 0, front - 1, Array(Set(frontRanks)).sorted()[...])
    return Dictionary(uniqueKeysWithValues: ranks.indices.map { (ranks[$0], a[frontRanks[$0]]) })
  }

  /// Rearranges `a[lo...hi]` so that every rank in `ranks` holds its order statistic.
  static func select(_ a: UnsafeMutableBufferPointer<Double>, _ lo: Int, _ hi: Int, _ ranks: ArraySlice<Int>) {
    var lo = lo, hi = hi
    var ranks = ranks
    while true {
      guard let first = ranks.first, let last = ranks.last, lo < hi else { return }
      if hi - lo < 24 {
        insertionSort(a, lo, hi)
        return
      }
      // Median of three as pivot, Hoare partition (balanced on repeated values).
      let mid = lo + (hi - lo) / 2
      if a[mid] < a[lo] { a.swapAt(mid, lo) }
      if a[hi] < a[lo] { a.swapAt(hi, lo) }
      if a[hi] < a[mid] { a.swapAt(hi, mid) }
      let pivot = a[mid]
      var i = lo - 1, j = hi + 1
      while true {
        repeat { i += 1 } while a[i] < pivot
        repeat { j -= 1 } while a[j] > pivot
        if i >= j { break }
        a.swapAt(i, j)
      }
      // a[lo...j] ≤ pivot ≤ a[j+1...hi]
      let split = ranks.partitioningIndex { $0 > j }
      let left = ranks[..<split], right = ranks[split...]
      if first > j {
        lo = j + 1
        ranks = right
      } else if last <= j {
        hi = j
        ranks = left
      } else if left.count <= right.count {
        select(a, lo, j, left)
        lo = j + 1
        ranks = right
      } else {
        select(a, j + 1, hi, right)
        hi = j
        ranks = left
      }
    }
  }

  private static func insertionSort(_ a: UnsafeMutableBufferPointer<Double>, _ lo: Int, _ hi: Int) {
    guard lo < hi else { return }
    for i in (lo + 1)...hi {
      let x = a[i]
      var j = i - 1
      while j >= lo && a[j] > x {
        a[j + 1] = a[j]
        j -= 1
      }
      a[j + 1] = x
    }
  }
}

extension ArraySlice where Element == Int {
  /// The first index whose element satisfies `belongs` (elements are sorted so that
  /// all non-matching come first).
  fileprivate func partitioningIndex(where belongs: (Int) -> Bool) -> Int {
    var lo = startIndex, hi = endIndex
    while lo < hi {
      let mid = (lo + hi) / 2
      if belongs(self[mid]) { hi = mid } else { lo = mid + 1 }
    }
    return lo
  }
}
