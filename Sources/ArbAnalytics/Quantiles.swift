/// Quantiles by linear interpolation between order statistics (Hyndman–Fan type 7,
/// numpy's default): position `h = (n − 1) q`, value `x₍⌊h⌋₎ + (h − ⌊h⌋)(x₍⌊h⌋+1₎ − x₍⌊h⌋₎)`.
///
/// Several quantiles are answered by one multi-target quickselect on a copy: only the
/// sub-ranges holding a wanted rank are partitioned further, O(n) expected instead of
/// a full O(n log n) sort. Matches `numpy.quantile(x, q)`.
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
    var ranks = Set<Int>()
    for q in probabilities {
      precondition(q >= 0 && q <= 1, "quantile probability must be in 0...1, was \(q)")
      let h = Double(n - 1) * q
      let low = Int(h.rounded(.down))
      ranks.insert(low)
      ranks.insert(min(low + 1, n - 1))
    }
    let wanted = ranks.sorted()
    values.withUnsafeMutableBufferPointer { select($0, 0, n - 1, wanted[...]) }
    return probabilities.map { q in
      let h = Double(n - 1) * q
      let low = Int(h.rounded(.down))
      let high = min(low + 1, n - 1)
      return values[low] + (h - Double(low)) * (values[high] - values[low])
    }
  }

  /// Rearranges `a[lo...hi]` so that every rank in `ranks` holds its order statistic.
  private static func select(_ a: UnsafeMutableBufferPointer<Double>, _ lo: Int, _ hi: Int, _ ranks: ArraySlice<Int>) {
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
