/// Means and co-moments of the pairs `(x_k, y_k)`, `k` in a sliding window `lo..<hi`
/// of two buffers: the update behind rolling statistics and rolling regressions.
///
/// Numerically stable over any length: the values are shifted by a reference (the
/// window's first pair, then its mean at the last exact pass), updated with Welford's add/remove formulas
/// (no difference of large running sums), and recomputed exactly by two passes over the
/// window after every `max(4 × window, 65 536)` updates, so rounding cannot accumulate
/// beyond that many steps and the amortised cost stays O(1) per update. The rounding
/// left in `Σ(x − x̄)²` is relative to the largest value it had since the last exact
/// pass, so a window whose spread falls 10⁴-fold below that peak is recomputed too.
struct WindowedMoments {
  private var x: UnsafeBufferPointer<Double>
  private var y: UnsafeBufferPointer<Double>
  /// The window is `lo..<hi`.
  private(set) var lo = 0
  private(set) var hi = 0
  private var referenceX = 0.0, referenceY = 0.0
  /// Means of the shifted values `u = x − referenceX`, `v = y − referenceY`.
  private var meanU = 0.0, meanV = 0.0
  /// `Σ (u − ū)²` and `Σ (u − ū)(v − v̄)` over the window.
  private var cxx = 0.0, cxy = 0.0
  private var updates = 0
  /// The largest `cxx` since the last exact pass.
  private var peak = 0.0
  /// `1 / count`, kept for `slide`, which does not change the count.
  private var inverse = 0.0
  /// `x` and `y` are one series: the `y` moments are the `x` ones and are not updated.
  private let single: Bool

  /// Moments of `(x_k, y_k)`, an empty window at `start`; pass the same buffer twice
  /// for one series.
  init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, start: Int = 0) {
    precondition(x.count == y.count, "WindowedMoments: \(x.count) vs \(y.count) values")
    self.x = x
    self.y = y
    single = x.baseAddress == y.baseAddress
    lo = start
    hi = start
  }

  /// The same window over buffers that hold the pairs from `shift` on: pair `k` of the
  /// old buffers is pair `k − shift` of the new ones (for a caller that drops the pairs
  /// before the window).
  mutating func rebase(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, by shift: Int) {
    precondition(shift <= lo && (x.baseAddress == y.baseAddress) == single, "WindowedMoments: the window moves with its pairs")
    self.x = x
    self.y = y
    lo -= shift
    hi -= shift
  }

  var count: Int { hi - lo }
  var meanX: Double { referenceX + meanU }
  var meanY: Double { single ? meanX : referenceY + meanV }
  /// `Σ (x − x̄)²` over the window (≥ 0).
  var sxx: Double { max(cxx, 0) }
  /// `Σ (x − x̄)(y − ȳ)` over the window.
  var sxy: Double { single ? sxx : cxy }

  /// Adds pair `hi` to the window.
  @inline(__always)
  mutating func push() {
    if hi == lo {
      // An empty window takes its first pair as the reference.
      (referenceX, referenceY) = (x[hi], y[hi])
      reset()
    }
    let u = x[hi] - referenceX, v = y[hi] - referenceY
    hi += 1
    inverse = 1 / Double(hi - lo)
    let du = u - meanU
    meanU += du * inverse
    cxx += du * (u - meanU)
    if !single {
      meanV += (v - meanV) * inverse
      cxy += du * (v - meanV)
    }
    counted()
  }

  /// Removes pair `lo` from the window.
  @inline(__always)
  mutating func pop() {
    let u = x[lo] - referenceX, v = y[lo] - referenceY
    lo += 1
    guard hi > lo else { return reset() }
    inverse = 1 / Double(hi - lo)
    let du = u - meanU, dv = v - meanV
    let smallU = meanU - du * inverse
    cxx -= (u - smallU) * du
    if !single {
      cxy -= (u - smallU) * dv
      meanV -= dv * inverse
    }
    meanU = smallU
    counted()
  }

  /// Removes pair `lo` and adds pair `hi` in one update (the window keeps its size).
  @inline(__always)
  mutating func slide() {
    let uOld = x[lo] - referenceX, vOld = y[lo] - referenceY
    let uNew = x[hi] - referenceX, vNew = y[hi] - referenceY
    lo += 1
    hi += 1
    let du = uNew - uOld, dv = vNew - vOld
    let oldMeanU = meanU
    meanU += du * inverse
    // C' = C + (u_new − u_old)(v_new − v̄') + (u_old − ū)(v_new − v_old).
    cxx += du * (uNew - meanU) + (uOld - oldMeanU) * du
    if !single {
      meanV += dv * inverse
      cxy += du * (vNew - meanV) + (uOld - oldMeanU) * dv
    }
    counted()
  }

  /// Moves the window to `start..<hi + 1`: one slide when it drops exactly one pair,
  /// otherwise a push and as many pops as needed (`start` ≥ `lo`).
  @inline(__always)
  mutating func advance(to start: Int) {
    if start == lo + 1 && hi > lo {
      slide()
    } else {
      push()
      while lo < start { pop() }
    }
  }

  @inline(__always)
  private mutating func counted() {
    updates += 1
    peak = max(peak, cxx)
    if updates >= max(4 * (hi - lo), 1 << 16) || cxx < 1e-4 * peak { recompute() }
  }

  private mutating func reset() {
    (meanU, meanV, cxx, cxy, updates, peak) = (0, 0, 0, 0, 0, 0)
  }

  /// Two passes over the window: the means become the new references, then the
  /// centred sums (with the mean of the deviations as a correction).
  private mutating func recompute() {
    updates = 0
    let n = Double(hi - lo)
    var sumX = 0.0, sumY = 0.0
    for k in lo..<hi {
      sumX += x[k]
      sumY += y[k]
    }
    referenceX = sumX / n
    referenceY = sumY / n
    var su = 0.0, sv = 0.0, suu = 0.0, suv = 0.0
    for k in lo..<hi {
      let u = x[k] - referenceX, v = y[k] - referenceY
      su += u
      sv += v
      suu += u * u
      suv += u * v
    }
    meanU = su / n
    meanV = sv / n
    cxx = suu - su * meanU
    cxy = suv - su * meanV
    inverse = 1 / n
    peak = cxx
  }
}
