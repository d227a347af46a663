#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Thin Swift wrappers over the OpenBLAS routines ArbKit uses.
///
/// Every function takes Swift buffers, checks lengths with `precondition` (a length
/// mismatch is a bug in the caller), and handles empty input before calling C, where
/// `baseAddress` may be `nil`. The test target holds a pure-Swift oracle for each.
///
/// OpenBLAS is loaded (`dlopen`) the first time a routine is called, not when the
/// process starts: most runs never need it, and it starts its worker threads when it
/// is loaded unless `OPENBLAS_NUM_THREADS` says otherwise, which the process sets at its
/// start (`Analytics.configure()`), before any thread of its own exists.
enum BLAS {
  /// A CBLAS length or stride (`blasint`: `int` in Debian's OpenBLAS).
  typealias Index = Int32

  @inline(__always)
  private static func length(_ n: Int) -> Index {
    guard let converted = Index(exactly: n) else { preconditionFailure("BLAS: length \(n) does not fit blasint") }
    return converted
  }

  // CBLAS enumerations (cblas.h).
  private static let rowMajor: Int32 = 101
  private static let noTranspose: Int32 = 111
  private static let transpose: Int32 = 112
  private static let upper: Int32 = 121

  /// The routines of the library, resolved once.
  private struct Routines: @unchecked Sendable {
    typealias Reduce = @convention(c) (Index, UnsafePointer<Double>?, Index) -> Double
    typealias Dot = @convention(c) (Index, UnsafePointer<Double>?, Index, UnsafePointer<Double>?, Index) -> Double
    typealias Axpy = @convention(c) (Index, Double, UnsafePointer<Double>?, Index, UnsafeMutablePointer<Double>?, Index) -> Void
    typealias Scal = @convention(c) (Index, Double, UnsafeMutablePointer<Double>?, Index) -> Void
    typealias Gemv =
      @convention(c) (
        Int32, Int32, Index, Index, Double, UnsafePointer<Double>?, Index, UnsafePointer<Double>?, Index, Double,
        UnsafeMutablePointer<Double>?, Index
      ) -> Void
    typealias Syrk =
      @convention(c) (Int32, Int32, Int32, Index, Index, Double, UnsafePointer<Double>?, Index, Double, UnsafeMutablePointer<Double>?, Index) ->
      Void
    typealias Gemm =
      @convention(c) (
        Int32, Int32, Int32, Index, Index, Index, Double, UnsafePointer<Double>?, Index, UnsafePointer<Double>?, Index, Double,
        UnsafeMutablePointer<Double>?, Index
      ) -> Void
    typealias SetThreads = @convention(c) (Int32) -> Void

    let ddot: Dot
    let dasum: Reduce
    let dnrm2: Reduce
    let daxpy: Axpy
    let dscal: Scal
    let dgemv: Gemv
    let dsyrk: Syrk
    let dgemm: Gemm

    /// Loads the library and makes it run on the calling thread only: ArbKit
    /// parallelises across legs and sweep cells itself, and idle BLAS worker threads
    /// would spin on the same cores.
    init() {
      guard let library = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL) else {
        BLAS.fail("cannot load OpenBLAS (libopenblas.so.0): \(String(cString: dlerror())); install Debian's libopenblas0")
      }
      func routine<Function>(_ name: String, as type: Function.Type) -> Function {
        guard let symbol = dlsym(library, name) else { BLAS.fail("the OpenBLAS loaded has no \(name)") }
        return unsafeBitCast(symbol, to: type)
      }
      ddot = routine("cblas_ddot", as: Dot.self)
      dasum = routine("cblas_dasum", as: Reduce.self)
      dnrm2 = routine("cblas_dnrm2", as: Reduce.self)
      daxpy = routine("cblas_daxpy", as: Axpy.self)
      dscal = routine("cblas_dscal", as: Scal.self)
      dgemv = routine("cblas_dgemv", as: Gemv.self)
      dsyrk = routine("cblas_dsyrk", as: Syrk.self)
      dgemm = routine("cblas_dgemm", as: Gemm.self)
      routine("openblas_set_num_threads", as: SetThreads.self)(1)
    }
  }

  private static let library = Routines()

  /// Ends the process with `message` (exit 1): a machine without OpenBLAS cannot run
  /// the computation asked for.
  fileprivate static func fail(_ message: String) -> Never {
    fputs("arbkit: error: \(message)\n", stderr)
    exit(1)
  }

  /// xᵀy.
  static func dot(_ x: UnsafeBufferPointer<Double>, _ y: UnsafeBufferPointer<Double>) -> Double {
    precondition(x.count == y.count, "BLAS.dot: length mismatch (\(x.count) vs \(y.count))")
    guard x.count > 0 else { return 0 }
    return library.ddot(length(x.count), x.baseAddress, 1, y.baseAddress, 1)
  }

  /// Σ xᵢ, as the dot product with a stride-0 vector of one.
  static func sum(_ x: UnsafeBufferPointer<Double>) -> Double {
    guard x.count > 0 else { return 0 }
    var one = 1.0
    return library.ddot(length(x.count), x.baseAddress, 1, &one, 0)
  }

  /// Σ |xᵢ|.
  static func asum(_ x: UnsafeBufferPointer<Double>) -> Double {
    guard x.count > 0 else { return 0 }
    return library.dasum(length(x.count), x.baseAddress, 1)
  }

  /// ‖x‖₂.
  static func nrm2(_ x: UnsafeBufferPointer<Double>) -> Double {
    guard x.count > 0 else { return 0 }
    return library.dnrm2(length(x.count), x.baseAddress, 1)
  }

  /// y ← αx + y.
  static func axpy(_ alpha: Double, _ x: UnsafeBufferPointer<Double>, _ y: UnsafeMutableBufferPointer<Double>) {
    precondition(x.count == y.count, "BLAS.axpy: length mismatch (\(x.count) vs \(y.count))")
    guard x.count > 0 else { return }
    library.daxpy(length(x.count), alpha, x.baseAddress, 1, y.baseAddress, 1)
  }

  /// y ← y + α (every element shifted by the same constant), as axpy with a stride-0 one.
  static func shift(_ y: UnsafeMutableBufferPointer<Double>, by alpha: Double) {
    guard y.count > 0 else { return }
    var one = 1.0
    library.daxpy(length(y.count), alpha, &one, 0, y.baseAddress, 1)
  }

  /// x ← αx.
  static func scal(_ alpha: Double, _ x: UnsafeMutableBufferPointer<Double>) {
    guard x.count > 0 else { return }
    library.dscal(length(x.count), alpha, x.baseAddress, 1)
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
    library.dgemv(
      rowMajor, noTranspose, length(rows), length(columns), alpha, a.baseAddress, length(columns),
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
    library.dsyrk(
      rowMajor, upper, noTranspose, length(rows), length(columns), alpha, a.baseAddress,
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
    library.dgemm(
      rowMajor, noTranspose, transpose, length(rows), length(rows), length(columns), alpha,
      a.baseAddress, length(max(stride, 1)), b.baseAddress, length(max(stride, 1)), beta, c.baseAddress, length(rows))
  }
}

/// Process-wide set-up for the analytics: call once at start, before any other thread
/// exists (the CLI does). BLAS is to run on the calling thread only: OpenBLAS reads
/// `OPENBLAS_NUM_THREADS` when it is loaded, so it is set here unless the caller chose a
/// value.
public enum Analytics {
  public static func configure() { setenv("OPENBLAS_NUM_THREADS", "1", 0) }
}
