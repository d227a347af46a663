/// Covariance and correlation matrices of N series on one clock
/// (`docs/definitions.md`, "Covariance and correlation matrices").
///
/// Every series has one value per clock point; a non-finite value is a missing point.
/// - `completeCase`: only the points where all N series are valid; means, covariances
///   and variances all over those points (sample, divisor n − 1).
/// - `pairwise`: each pair (i, j) uses the points where both are valid, with that
///   subset's means and variances (pandas `DataFrame.cov`/`corr`).
///
/// The sums are those of `CovarianceAccumulator`, a chunk of points at a time.
///
/// A figure is `nan` (undefined, never printed) with fewer than 2 points, and a
/// correlation also when a variance is 0; a series' correlation with itself is 1. Matrices are row-major N × N.
public struct CovarianceMatrix: Sendable {
  public enum Missing: String, Sendable { case completeCase = "complete_case", pairwise }

  public var size: Int
  public var missing: Missing
  /// Points used by each pair.
  public var counts: [Int]
  public var covariance: [Double]
  public var correlation: [Double]

  /// Matrices of `series` (N arrays of equal length): a `CovarianceAccumulator` given
  /// them as one chunk.
  ///
  /// - Parameter blockPoints: points packed per BLAS call (memory N × blockPoints × 3 doubles).
  /// - Complexity: O(N² T) in BLAS, O(N T) in Swift.
  public init(series: [[Double]], missing: Missing, blockPoints: Int = 2048) {
    let length = series.first?.count ?? 0
    precondition(series.allSatisfy { $0.count == length }, "CovarianceMatrix: series of different lengths")
    var accumulator = CovarianceAccumulator(size: series.count, missing: missing, blockPoints: blockPoints)
    withUnsafeBuffers(series) { accumulator.add($0) }
    self = accumulator.matrix
  }

  /// Matrices of the `n` series stored one after another in `matrix` (row-major
  /// n × T), which is taken over. Complete case without a missing point: one pass
  /// centres every row in place on a provisional mean (that of its first 4096 finite
  /// values) and sums it, then one `dsyrk` call on the whole matrix (no packing copy);
  /// the corrected two-pass formula removes the provisional mean's offset exactly, and
  /// loses about `(offset / std)²` ulps. Otherwise the same as `init(series:missing:)`.
  public init(matrix: consuming [Double], series n: Int, missing: Missing) {
    precondition(n > 0 && matrix.count % n == 0, "CovarianceMatrix: \(matrix.count) values for \(n) series")
    let length = matrix.count / n
    // Each row's provisional mean, and Σ of the centred row (a nan or inf anywhere in a row makes it non-finite).
    let centred = matrix.withUnsafeMutableBufferPointer { m in
      (0..<n).map { Self.centre(UnsafeMutableBufferPointer(rebasing: m[$0 * length..<($0 + 1) * length])) }
    }
    let offset = centred.map(\.sum)
    guard missing == .completeCase && offset.allSatisfy(\.isFinite) else {
      // Shifted rows: every figure is the same (covariances do not depend on a shift).
      let series = (0..<n).map { Array(matrix[$0 * length..<($0 + 1) * length]) }
      self.init(series: series, missing: missing)
      return
    }
    var product = [Double](repeating: 0, count: n * n)
    matrix.withUnsafeBufferPointer { m in
      product.withUnsafeMutableBufferPointer { BLAS.syrk(rows: n, columns: length, alpha: 1, m, stride: length, beta: 0, $0) }
    }
    let sums = CovarianceSums.centred(product: product, mean: centred.map(\.mean), offset: offset, count: Double(length))
    self.init(sums, size: n, missing: missing)
  }

  /// Subtracts from `row` the mean of its first 4096 finite values and returns that mean
  /// and the sum of the result (four accumulators, so that the loop vectorises).
  private static func centre(_ row: UnsafeMutableBufferPointer<Double>) -> (mean: Double, sum: Double) {
    var head = 0.0, finite = 0
    for v in row.prefix(4096) where v.isFinite {
      head += v
      finite += 1
    }
    let c = finite > 0 ? head / Double(finite) : 0
    var (s0, s1, s2, s3) = (0.0, 0.0, 0.0, 0.0)
    var k = 0
    while k + 4 <= row.count {
      row[k] -= c; row[k + 1] -= c; row[k + 2] -= c; row[k + 3] -= c
      s0 += row[k]; s1 += row[k + 1]; s2 += row[k + 2]; s3 += row[k + 3]
      k += 4
    }
    while k < row.count {
      row[k] -= c
      s0 += row[k]
      k += 1
    }
    return (c, (s0 + s1) + (s2 + s3))
  }

  /// The figures from the sums of every pair.
  init(_ sums: CovarianceSums, size n: Int, missing: Missing) {
    size = n
    self.missing = missing
    counts = sums.counts.map { Int($0) }
    covariance = [Double](repeating: .nan, count: n * n)
    correlation = covariance
    for i in 0..<n {
      for j in 0..<n where sums.counts[i * n + j] >= 2 {
        let m = sums.counts[i * n + j]
        covariance[i * n + j] = sums.cross[i * n + j] / (m - 1)
        let vi = sums.squares[i * n + j], vj = sums.squares[j * n + i]
        guard vi > 0 && vj > 0 else { continue }
        correlation[i * n + j] = i == j ? 1 : max(-1, min(1, sums.cross[i * n + j] / (vi * vj).squareRoot()))
      }
    }
  }
}

/// The covariance sums of N series merged a chunk of points at a time, so that memory
/// depends on the chunk and N, not on the length of the series
/// (`docs/definitions.md`, "Covariance and correlation matrices").
///
/// Each chunk's sums are taken about the chunk's own means: complete case as the
/// corrected two-pass (the complete points centred on their means, packed in blocks of
/// points and multiplied by BLAS `dsyrk`, minus `n r rᵀ` with `r` the mean of the
/// centred values); pairwise with the values shifted by each series' own mean, from
/// `dsyrk` of the shifted values (missing as 0) and of the validity masks and `dgemm` of
/// the values and of their squares against the masks, then `Σ(x−x̄)(y−ȳ) = Σxy − ΣxΣy / n`
/// per pair. Chunks are merged pair by pair with the update of Chan, Golub and LeVeque.
/// One chunk gives the same figures as its sums alone.
public struct CovarianceAccumulator: Sendable {
  public let size: Int
  public let missing: CovarianceMatrix.Missing
  /// Points packed per BLAS call (memory N × blockPoints × 3 doubles).
  public let blockPoints: Int
  private var sums: CovarianceSums

  public init(size: Int, missing: CovarianceMatrix.Missing, blockPoints: Int = 2048) {
    precondition(blockPoints > 0, "CovarianceAccumulator: blocks hold at least one point")
    self.size = size
    self.missing = missing
    self.blockPoints = blockPoints
    sums = CovarianceSums(size: size)
  }

  /// Adds the points of one chunk: `series` holds the N series, of equal length.
  public mutating func add(_ series: [UnsafeBufferPointer<Double>]) {
    precondition(series.count == size, "CovarianceAccumulator: \(series.count) series for \(size)")
    let length = series.first?.count ?? 0
    precondition(series.allSatisfy { $0.count == length }, "CovarianceAccumulator: series of different lengths")
    guard length > 0 else { return }
    let chunk =
      switch missing {
      case .completeCase: Self.completeCase(series, length: length, block: blockPoints)
      case .pairwise: Self.pairwise(series, length: length, block: blockPoints)
      }
    sums.merge(chunk)
  }

  /// The matrices of every point added so far.
  public var matrix: CovarianceMatrix { CovarianceMatrix(sums, size: size, missing: missing) }

  private static func completeCase(_ x: [UnsafeBufferPointer<Double>], length: Int, block wanted: Int) -> CovarianceSums {
    let n = x.count
    // A finite sum means a series has no missing point (a nan or inf would propagate):
    // when all are finite, every point is complete and no mask pass is needed.
    let sums = x.map { BLAS.sum($0) }
    var rows: [Int]? = nil  // the complete points, or nil for all of them
    if !sums.allSatisfy(\.isFinite) {
      var complete = [Bool](repeating: true, count: length)
      for series in x { for t in 0..<length where !series[t].isFinite { complete[t] = false } }
      rows = complete.indices.filter { complete[$0] }
    }
    let used = rows?.count ?? length
    let count = Double(used)
    let mean = zip(x, sums).map { series, sum -> Double in
      guard used > 0 else { return 0 }
      guard let rows else { return sum / count }
      var total = 0.0
      for t in rows { total += series[t] }
      return total / count
    }
    let block = min(wanted, max(used, 1))
    var product = [Double](repeating: 0, count: n * n)
    var offset = [Double](repeating: 0, count: n)  // Σ of the centred values
    var packed = [Double](repeating: 0, count: n * block)
    packed.withUnsafeMutableBufferPointer { a in
      product.withUnsafeMutableBufferPointer { c in
        var start = 0
        while start < used {
          let b = min(block, used - start)
          for i in 0..<n {
            let series = x[i], m = mean[i]
            let row = UnsafeMutableBufferPointer(rebasing: a[i * block..<i * block + b])
            if let rows {
              for k in 0..<b { row[k] = series[rows[start + k]] - m }
            } else {
              let source = UnsafeBufferPointer(rebasing: series[start..<start + b])
              for k in 0..<b { row[k] = source[k] - m }
            }
            offset[i] += BLAS.sum(UnsafeBufferPointer(row))
          }
          BLAS.syrk(rows: n, columns: b, alpha: 1, UnsafeBufferPointer(a), stride: block, beta: start == 0 ? 0 : 1, c)
          start += b
        }
      }
    }
    return .centred(product: product, mean: mean, offset: offset, count: count)
  }

  private static func pairwise(_ x: [UnsafeBufferPointer<Double>], length: Int, block wanted: Int) -> CovarianceSums {
    let n = x.count
    let shift = x.map { series -> Double in
      var sum = 0.0, count = 0
      for v in series where v.isFinite {
        sum += v
        count += 1
      }
      return count > 0 ? sum / Double(count) : 0
    }
    let block = min(wanted, length)
    var counts = [Double](repeating: 0, count: n * n), products = counts, sums = counts, squareSums = counts
    var values = [Double](repeating: 0, count: n * block), masks = values, squares = values
    values.withUnsafeMutableBufferPointer { d in
      masks.withUnsafeMutableBufferPointer { m in
        squares.withUnsafeMutableBufferPointer { q in
          var start = 0
          while start < length {
            let b = min(block, length - start)
            for i in 0..<n {
              let series = x[i], c = shift[i]
              for k in 0..<b {
                let v = series[start + k]
                let ok = v.isFinite
                let e = ok ? v - c : 0
                d[i * block + k] = e
                m[i * block + k] = ok ? 1 : 0
                q[i * block + k] = e * e
              }
            }
            let beta: Double = start == 0 ? 0 : 1
            let (dv, mv, qv) = (UnsafeBufferPointer(d), UnsafeBufferPointer(m), UnsafeBufferPointer(q))
            counts.withUnsafeMutableBufferPointer { BLAS.syrk(rows: n, columns: b, alpha: 1, mv, stride: block, beta: beta, $0) }
            products.withUnsafeMutableBufferPointer { BLAS.syrk(rows: n, columns: b, alpha: 1, dv, stride: block, beta: beta, $0) }
            sums.withUnsafeMutableBufferPointer { BLAS.gemmTransposed(rows: n, columns: b, alpha: 1, dv, mv, stride: block, beta: beta, $0) }
            squareSums.withUnsafeMutableBufferPointer { BLAS.gemmTransposed(rows: n, columns: b, alpha: 1, qv, mv, stride: block, beta: beta, $0) }
            start += b
          }
        }
      }
    }
    var result = CovarianceSums(size: n)
    result.centre = shift
    for i in 0..<n {
      for j in 0..<n {
        let (a, b) = (min(i, j), max(i, j))  // syrk fills the upper triangle
        let m = counts[a * n + b]
        result.counts[i * n + j] = m
        guard m > 0 else { continue }
        // Σx_i and Σx_j over the pair's points: row i and row j of the value-mask products.
        let si = sums[i * n + j], sj = sums[j * n + i]
        result.means[i * n + j] = si / m
        result.cross[i * n + j] = products[a * n + b] - si * sj / m
        result.squares[i * n + j] = max(squareSums[i * n + j] - si * si / m, 0)
      }
    }
    return result
  }
}

/// Per pair (i, j), row i and column j of N × N arrays: the points used, the mean of
/// series i over them less `centre[i]`, `Σ (x_i − x̄_i)(x_j − x̄_j)` and `Σ (x_i − x̄_i)²`
/// over them. The means are kept about a centre near the values, so that a difference of
/// two means keeps its digits when the values are far from 0.
struct CovarianceSums: Sendable {
  let size: Int
  var counts: [Double]
  var centre: [Double]
  var means: [Double]
  var cross: [Double]
  var squares: [Double]

  /// No point.
  init(size n: Int) {
    size = n
    counts = [Double](repeating: 0, count: n * n)
    centre = [Double](repeating: 0, count: n)
    means = counts
    cross = counts
    squares = counts
  }

  /// From `Σ d_i d_j` (upper triangle of `product`) and `Σ d_i` of values centred on
  /// provisional means `mean`, over `count` points: `Σ (d_i − r_i)(d_j − r_j)` with
  /// `r = Σd / count` (the corrected two-pass), about the means `mean + r`.
  static func centred(product: [Double], mean: [Double], offset: [Double], count: Double) -> CovarianceSums {
    let n = offset.count
    var sums = CovarianceSums(size: n)
    sums.centre = mean
    for i in 0..<n {
      for j in i..<n {
        let s = count == 0 ? 0 : product[i * n + j] - offset[i] * offset[j] / count
        sums.cross[i * n + j] = s
        sums.cross[j * n + i] = s
      }
    }
    for i in 0..<n {
      for j in 0..<n {
        sums.counts[i * n + j] = count
        sums.means[i * n + j] = count == 0 ? 0 : offset[i] / count
        sums.squares[i * n + j] = sums.cross[i * n + i]
      }
    }
    return sums
  }

  /// Adds the sums of other points, pair by pair (Chan, Golub and LeVeque):
  /// `δ = x̄_b − x̄_a`, `C = C_a + C_b + δ_i δ_j n_a n_b / n`; with no point before,
  /// `other` as it is. A series' centre is that of the first sums with a point of it.
  mutating func merge(_ other: CovarianceSums) {
    let n = size
    for i in 0..<n where counts[i * n + i] == 0 { centre[i] = other.centre[i] }
    // The other's means about this centre (a difference of close centres is exact).
    var moved = other.means
    for i in 0..<n { for j in 0..<n { moved[i * n + j] += other.centre[i] - centre[i] } }
    let old = means
    for i in 0..<n {
      for j in 0..<n {
        let ij = i * n + j, ji = j * n + i
        let na = counts[ij], nb = other.counts[ij]
        guard nb > 0 else { continue }
        guard na > 0 else {
          (counts[ij], means[ij], cross[ij], squares[ij]) = (nb, moved[ij], other.cross[ij], other.squares[ij])
          continue
        }
        let total = na + nb
        let di = moved[ij] - old[ij], dj = moved[ji] - old[ji]
        let weight = na * nb / total
        counts[ij] = total
        means[ij] = old[ij] + di * (nb / total)
        cross[ij] += other.cross[ij] + di * dj * weight
        squares[ij] += other.squares[ij] + di * di * weight
      }
    }
  }
}
