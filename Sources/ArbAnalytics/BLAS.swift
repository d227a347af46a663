// The only file that imports CBLAS: each C function is wrapped once, with Swift
// lengths checked and converted, and no C type leaves this file.
internal import CBLAS

/// Thin Swift wrappers over the OpenBLAS routines ArbKit uses.
///
/// Every function takes Swift buffers, checks lengths with `precondition` (a length
/// mismatch is a bug in the caller), and handles empty input before calling C, where
/// `baseAddress` may be `nil`. The test target holds a pure-Swift oracle for each.
enum BLAS {
  @inline(__always)
  private static func length(_ n: Int) -> blasint {
    guard let converted = blasint(exactly: n) else { preconditionFailure("BLAS: length \(n) does not fit blasint") }
    return converted
  }

  /// xᵀy.
  static func dot(_ x: UnsafeBufferPointer<Double>, _ y: UnsafeBufferPointer<Double>) -> Double {
    precondition(x.count == y.count, "BLAS.dot: length mismatch (\(x.count) vs \(y.count))")
    guard x.count > 0 else { return 0 }
    return cblas_ddot(length(x.count), x.baseAddress, 1, y.baseAddress, 1)
  }

  /// Σ xᵢ, as the dot product with a stride-0 vector of one.
  static func sum(_ x: UnsafeBufferPointer<Double>) -> Double {
    guard x.count > 0 else { return 0 }
    var one = 1.0
    return cblas_ddot(length(x.count), x.baseAddress, 1, &one, 0)
  }

  /// Σ |xᵢ|.
  static func asum(_ x: UnsafeBufferPointer<Double>) -> Double {
    guard x.count > 0 else { return 0 }
    return cblas_dasum(length(x.count), x.baseAddress, 1)
  }

  /// ‖x‖₂.
  static func nrm2(_ x: UnsafeBufferPointer<Double>) -> Double {
    guard x.count > 0 else { return 0 }
    return cblas_dnrm2(length(x.count), x.baseAddress, 1)
  }

  /// y ← αx + y.
  static func axpy(_ alpha: Double, _ x: UnsafeBufferPointer<Double>, _ y: UnsafeMutableBufferPointer<Double>) {
    precondition(x.count == y.count, "BLAS.axpy: length mismatch (\(x.count) vs \(y.count))")
    guard x.count > 0 else { return }
    cblas_daxpy(length(x.count), alpha, x.baseAddress, 1, y.baseAddress, 1)
  }

  /// y ← y + α (every element shifted by the same constant), as axpy with a stride-0 one.
  static func shift(_ y: UnsafeMutableBufferPointer<Double>, by alpha: Double) {
    guard y.count > 0 else { return }
    var one = 1.0
    cblas_daxpy(length(y.count), alpha, &one, 0, y.baseAddress, 1)
  }

  /// x ← αx.
  static func scal(_ alpha: Double, _ x: UnsafeMutableBufferPointer<Double>) {
    guard x.count > 0 else { return }
    cblas_dscal(length(x.count), alpha, x.baseAddress, 1)
  }

  /// y ← αAx + βy for a row-major `rows × columns` matrix A.
  static func gemv(
    rows: Int, columns: Int, alpha: Double, _ a: UnsafeBufferPointer<Double>,
    _ x: UnsafeBufferPointer<Double>, beta: Double, _ y: UnsafeMutableBufferPointer<Double>
  ) {
    precondition(a.count == rows * columns && x.count == columns && y.count == rows, "BLAS.gemv: shape mismatch")
    guard rows > 0 else { return }
    // No columns: Ax is the zero vector and y ← βy (BLAS itself returns early here).
    guard columns > 0 else { return scal(beta, y) }
    cblas_dgemv(
      CblasRowMajor, CblasNoTrans, length(rows), length(columns), alpha, a.baseAddress, length(columns),
      x.baseAddress, 1, beta, y.baseAddress, 1)
  }

  /// C ← αAAᵀ + βC for a row-major `rows × columns` matrix A (leading dimension
  /// `stride` ≥ columns) and a row-major `rows × rows` C; only the upper triangle of C
  /// (`C[i][j]`, i ≤ j) is written.
  static func syrk(
    rows: Int, columns: Int, alpha: Double, _ a: UnsafeBufferPointer<Double>, stride: Int,
    beta: Double, _ c: UnsafeMutableBufferPointer<Double>
  ) {
    precondition(stride >= columns && a.count >= (rows - 1) * stride + columns && c.count == rows * rows, "BLAS.syrk: shape mismatch")
    guard rows > 0 else { return }
    cblas_dsyrk(
      CblasRowMajor, CblasUpper, CblasNoTrans, length(rows), length(columns), alpha, a.baseAddress,
      length(max(stride, 1)), beta, c.baseAddress, length(rows))
  }

  /// C ← αABᵀ + βC for row-major `rows × columns` matrices A and B (leading dimension
  /// `stride`) and a row-major `rows × rows` C.
  static func gemmTransposed(
    rows: Int, columns: Int, alpha: Double, _ a: UnsafeBufferPointer<Double>, _ b: UnsafeBufferPointer<Double>,
    stride: Int, beta: Double, _ c: UnsafeMutableBufferPointer<Double>
  ) {
    let needed = rows == 0 ? 0 : (rows - 1) * stride + columns
    precondition(stride >= columns && a.count >= needed && b.count >= needed && c.count == rows * rows, "BLAS.gemm: shape mismatch")
    guard rows > 0 else { return }
    cblas_dgemm(
      CblasRowMajor, CblasNoTrans, CblasTrans, length(rows), length(rows), length(columns), alpha,
      a.baseAddress, length(max(stride, 1)), b.baseAddress, length(max(stride, 1)), beta, c.baseAddress, length(rows))
  }

  /// Makes OpenBLAS run on the calling thread only: ArbKit parallelises across legs
  /// and sweep cells itself, and idle BLAS worker threads would spin on the same cores.
  static func useCallingThreadOnly() {
    openblas_set_num_threads(1)
  }
}

/// Process-wide set-up for the analytics: call once at start (the CLI does).
public enum Analytics {
  public static func configure() { BLAS.useCallingThreadOnly() }
}
