import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// The OpenBLAS wrappers against the pure-Swift loops in `Oracle`.
@Suite("BLAS wrappers")
struct BLASTests {
  /// Lengths around the kernels' unrolling (4, 8, 16) and OpenBLAS's threading threshold.
  static let lengths: [Int] = [0, 1, 2, 3, 5, 7, 8, 17, 33, 1001, 20_001]

  static func vector(_ n: Int, seed: UInt64) -> [Double] {
    var rng = SplitMix64(seed: seed)
    return (0..<n).map { _ in rng.normal() * 3 + 0.5 }
  }

  @Test("dot, sum, asum, nrm2 match the loops", arguments: lengths)
  func reductions(n: Int) {
    let x = Self.vector(n, seed: 1), y = Self.vector(n, seed: 2)
    x.withUnsafeBufferPointer { xb in
      y.withUnsafeBufferPointer { yb in
        // Cancelling sums (dot, sum) may lose relative accuracy: compare against the size
        // of the terms, Σ|xᵢyᵢ| and Σ|xᵢ|, not against the small result.
        let dotScale = Oracle.asum(zip(x, y).map { $0 * $1 }), sumScale = Oracle.asum(x)
        #expect(abs(BLAS.dot(xb, yb) - Oracle.dot(x, y)) <= 1e-14 * Swift.max(dotScale, 1))
        #expect(abs(BLAS.sum(xb) - Oracle.sum(x)) <= 1e-14 * Swift.max(sumScale, 1))
        #expect(isClose(BLAS.asum(xb), Oracle.asum(x), rel: 1e-12))
        #expect(isClose(BLAS.nrm2(xb), Oracle.nrm2(x), rel: 1e-12))
      }
    }
  }

  @Test("axpy, shift, scal match the loops", arguments: lengths)
  func updates(n: Int) {
    let x = Self.vector(n, seed: 3), y = Self.vector(n, seed: 4)
    var axpy = y, shifted = y, scaled = x
    x.withUnsafeBufferPointer { xb in axpy.withUnsafeMutableBufferPointer { BLAS.axpy(-1.75, xb, $0) } }
    shifted.withUnsafeMutableBufferPointer { BLAS.shift($0, by: 2.5) }
    scaled.withUnsafeMutableBufferPointer { BLAS.scal(-0.3, $0) }
    // One multiply-add per element: FMA or not, at most one rounding apart.
    #expect(zip(axpy, Oracle.axpy(-1.75, x, y)).allSatisfy { isClose($0, $1, rel: 1e-15, abs: 1e-15) })
    #expect(shifted == Oracle.shift(y, by: 2.5))
    #expect(scaled == Oracle.scal(-0.3, x))
  }

  static let shapes: [(rows: Int, columns: Int)] = [(0, 0), (0, 3), (1, 1), (1, 5), (5, 1), (2, 3), (3, 2), (7, 9), (64, 33), (3, 0)]

  @Test("gemv matches the loop", arguments: shapes)
  func gemv(shape: (rows: Int, columns: Int)) {
    let a = Self.vector(shape.rows * shape.columns, seed: 5), x = Self.vector(shape.columns, seed: 6)
    let y = Self.vector(shape.rows, seed: 7)
    for (alpha, beta) in [(1.0, 0.0), (0.5, -2.0), (-1.0, 1.0)] {
      var out = y
      a.withUnsafeBufferPointer { ab in
        x.withUnsafeBufferPointer { xb in
          out.withUnsafeMutableBufferPointer { BLAS.gemv(rows: shape.rows, columns: shape.columns, alpha: alpha, ab, xb, beta: beta, $0) }
        }
      }
      let expected = Oracle.gemv(rows: shape.rows, columns: shape.columns, alpha: alpha, a, x, beta: beta, y)
      #expect(zip(out, expected).allSatisfy { isClose($0, $1, rel: 1e-12, abs: 1e-12) }, "α \(alpha) β \(beta)")
    }
  }

  @Test("hand-worked values")
  func handWorked() {
    let x: [Double] = [1, -2, 3], y: [Double] = [4, 5, -6]
    x.withUnsafeBufferPointer { xb in
      y.withUnsafeBufferPointer { yb in
        #expect(BLAS.dot(xb, yb) == -24)  // 4 − 10 − 18
        #expect(BLAS.sum(xb) == 2)  // 1 − 2 + 3
        #expect(BLAS.asum(xb) == 6)  // 1 + 2 + 3
        #expect(isClose(BLAS.nrm2(xb), 14.0.squareRoot(), rel: 1e-15))  // √(1 + 4 + 9)
      }
    }
    // A = [[1, 2, 3], [4, 5, 6]], x = [1, 0, −1], y = [10, 20]: 2·Ax + 1·y = [2·(−2) + 10, 2·(−2) + 20].
    var out: [Double] = [10, 20]
    [1.0, 2, 3, 4, 5, 6].withUnsafeBufferPointer { a in
      [1.0, 0, -1].withUnsafeBufferPointer { v in out.withUnsafeMutableBufferPointer { BLAS.gemv(rows: 2, columns: 3, alpha: 2, a, v, beta: 1, $0) } }
    }
    #expect(out == [6, 16])
  }

  /// The extreme term at index 0, in the middle and at the last index.
  @Test("a dominant element anywhere", arguments: [0, 4, 8])
  func extremePosition(at index: Int) {
    var x = [Double](repeating: 1, count: 9)
    x[index] = -1e6
    x.withUnsafeBufferPointer { xb in
      #expect(BLAS.sum(xb) == -1e6 + 8)
      #expect(BLAS.asum(xb) == 1e6 + 8)
      #expect(isClose(BLAS.nrm2(xb), (1e12 + 8).squareRoot(), rel: 1e-14))
      #expect(BLAS.dot(xb, xb) == 1e12 + 8)
    }
  }

  @Test("NaN propagates through the reductions and updates", arguments: [0, 2, 4])
  func nanInput(at index: Int) {
    var x: [Double] = [1, 2, 3, 4, 5]
    x[index] = .nan
    var y = [Double](repeating: 1, count: 5)
    x.withUnsafeBufferPointer { xb in
      #expect(BLAS.dot(xb, xb).isNaN)
      #expect(BLAS.sum(xb).isNaN)
      #expect(BLAS.asum(xb).isNaN)
      #expect(BLAS.nrm2(xb).isNaN)
      y.withUnsafeMutableBufferPointer { BLAS.axpy(2, xb, $0) }
    }
    #expect(y.indices.allSatisfy { y[$0].isNaN == ($0 == index) })
    x.withUnsafeMutableBufferPointer { BLAS.scal(2, $0) }
    #expect(x.indices.allSatisfy { x[$0].isNaN == ($0 == index) })
  }

  @Test func `dot traps on length mismatch`() async {
    await #expect(processExitsWith: .failure) {
      [1.0].withUnsafeBufferPointer { x in [1.0, 2.0].withUnsafeBufferPointer { y in _ = BLAS.dot(x, y) } }
    }
  }

  @Test func `axpy traps on length mismatch`() async {
    await #expect(processExitsWith: .failure) {
      var y: [Double] = [1, 2, 3]
      [1.0, 2.0].withUnsafeBufferPointer { x in y.withUnsafeMutableBufferPointer { BLAS.axpy(1, x, $0) } }
    }
  }

  @Test func `gemv traps on a shape mismatch`() async {
    await #expect(processExitsWith: .failure) {
      var y: [Double] = [0, 0]
      [1.0, 2, 3, 4, 5].withUnsafeBufferPointer { a in
        [1.0, 1, 1].withUnsafeBufferPointer { x in
          y.withUnsafeMutableBufferPointer { BLAS.gemv(rows: 2, columns: 3, alpha: 1, a, x, beta: 0, $0) }
        }
      }
    }
  }
}
