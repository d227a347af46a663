import Testing
import TestSupport

@testable import ArbAnalytics

/// `SeriesStatistics` against hand-worked numbers and the compensated two-pass oracle.
@Suite("Series statistics")
struct StatisticsTests {
  /// Every field of `got` against `expected`; `rel` for the moments, `momentsAbs` as the
  /// absolute floor of skew and kurtosis (both are differences that can be near 0).
  func expectMatches(
    _ got: SeriesStatistics, _ expected: Oracle.Statistics, rel: Double = 1e-12, momentsAbs: Double = 1e-12,
    _ comment: Comment? = nil
  ) {
    #expect(got.count == expected.count, comment)
    // Means of data with σ ≫ |mean| cancel: an absolute floor at the data's rounding level.
    #expect(isClose(got.mean, expected.mean, rel: rel, abs: 1e-15), comment)
    #expect(isClose(got.std, expected.std, rel: rel, abs: 0), comment)
    #expect(got.min == expected.min, comment)
    #expect(got.max == expected.max, comment)
    #expect(isClose(got.meanTW, expected.meanTW, rel: rel, abs: 1e-15), comment)
    #expect(isClose(got.stdTW, expected.stdTW, rel: rel, abs: 0), comment)
    #expect(isClose(got.skew, expected.skew, rel: rel, abs: momentsAbs), comment)
    #expect(isClose(got.kurtosis, expected.kurtosis, rel: rel, abs: momentsAbs), comment)
    #expect(got.quantiles == expected.quantiles, comment)
  }

  @Test("hand-worked four points")
  func handWorked() {
    // x = 1 2 4 8, w = 1 1 2 0. mean 15/4 = 3.75; deviations −2.75 −1.75 0.25 4.25,
    // squares sum 28.75: std √(28.75/3); m2 = 7.1875, m3 = 50.625/4, m4 = 392.828125/4.
    // meanTW = (1 + 2 + 8)/4 = 2.75, stdTW = √((3.0625 + 0.5625 + 2·1.5625)/4) = √1.6875.
    // Figures from numpy/scipy.stats (bias=True).
    let s = SeriesStatistics(values: [1, 2, 4, 8], weights: [1, 1, 2, 0])
    #expect(s.count == 4)
    #expect(s.mean == 3.75)
    #expect(isClose(s.std, 3.095695936834452, rel: 1e-15))
    #expect(s.min == 1 && s.max == 8)
    #expect(s.meanTW == 2.75)
    #expect(isClose(s.stdTW, 1.299038105676658, rel: 1e-15))
    #expect(isClose(s.skew, 0.6568077344996993, rel: 1e-14))
    #expect(isClose(s.kurtosis, -1.0989792060491494, rel: 1e-14))
    // numpy.quantile(x, [.01, .05, .25, .5, .75, .95, .99])
    let numpy = [1.03, 1.15, 1.75, 3.0, 5.0, 7.399999999999999, 7.879999999999999]
    #expect(zip(s.quantiles, numpy).allSatisfy { isClose($0, $1, rel: 1e-15) })
  }

  static let sizes: [Int] = [0, 1, 2, 3, 4, 7, 100, 10_001]

  @Test("random series against the oracle", arguments: sizes)
  func random(n: Int) {
    var rng = SplitMix64(seed: 7 + UInt64(n))
    for round in 0..<5 {
      let x = (0..<n).map { _ in 0.05 * rng.normal() + 0.01 * rng.uniform() }
      let w = (0..<n).map { _ in Double(rng.int(0...60_000_000)) }
      expectMatches(SeriesStatistics(values: x, weights: w), Oracle.statistics(x, w), "n \(n) round \(round)")
    }
  }

  /// Skewed data with the extreme at index 0 or the last index.
  @Test("an outlier at either end", arguments: [0, 499])
  func outlier(at index: Int) {
    var rng = SplitMix64(seed: 31)
    var x = (0..<500).map { _ in rng.uniform() }
    x[index] = 40
    let w = (0..<500).map { _ in rng.uniform() }
    let s = SeriesStatistics(values: x, weights: w)
    expectMatches(s, Oracle.statistics(x, w))
    #expect(s.max == 40)
  }

  @Test("values around 1e5 with tiny variation")
  func largeOffset() {
    var rng = SplitMix64(seed: 2024)
    let n = 20_000
    // σ = 1e-3 on 1e5: eight digits cancel in every deviation. The inputs are exact
    // doubles and xᵢ − mean is exact, so the answer is well defined. Skew is sensitive to
    // the mean: an error δ moves it by 3δ/σ, and half an ulp of 1e5 (7e-12) alone would
    // be 2e-8. The deviations must be taken from the mean to far better than its ulp.
    // The skew (≈ −4e-3) and kurtosis are cancelling sums of 2e4 terms: 1e-9 relative.
    let x = (0..<n).map { _ in 1e5 + 1e-3 * (rng.normal() + 0.3 * rng.uniform() * rng.uniform()) }
    let w = (0..<n).map { _ in Double(rng.int(1...1000)) }
    let s = SeriesStatistics(values: x, weights: w), o = Oracle.statistics(x, w)
    #expect(isClose(s.mean, o.mean, rel: 1e-15, abs: 0))
    #expect(isClose(s.meanTW, o.meanTW, rel: 1e-15, abs: 0))
    #expect(isClose(s.std, o.std, rel: 1e-12, abs: 0))
    #expect(isClose(s.stdTW, o.stdTW, rel: 1e-12, abs: 0))
    #expect(isClose(s.skew, o.skew, rel: 1e-9, abs: 0))
    #expect(isClose(s.kurtosis, o.kurtosis, rel: 1e-9, abs: 0))
    #expect(s.min == o.min && s.max == o.max && s.quantiles == o.quantiles)
  }

  static let constants: [(value: Double, count: Int)] = [(0.1, 10), (2.5, 3), (-0.07, 1001), (1e5 + 0.1, 7), (0, 4)]

  @Test("a constant series: std 0, no skew or kurtosis", arguments: constants)
  func constant(c: (value: Double, count: Int)) {
    let s = SeriesStatistics(values: [Double](repeating: c.value, count: c.count), weights: [Double](repeating: 1, count: c.count))
    #expect(s.count == c.count)
    #expect(s.mean == c.value)
    #expect(s.std == 0)
    #expect(s.meanTW == c.value)
    #expect(s.stdTW == 0)
    #expect(s.skew == nil && s.kurtosis == nil)
    #expect(s.min == c.value && s.max == c.value)
    #expect(s.quantiles == [Double](repeating: c.value, count: 7))
  }

  @Test("one value: no std, no moments")
  func single() {
    let s = SeriesStatistics(values: [0.3], weights: [5])
    #expect(s.count == 1 && s.mean == 0.3 && s.min == 0.3 && s.max == 0.3)
    #expect(s.std == nil)
    #expect(s.skew == nil && s.kurtosis == nil)
    #expect(s.meanTW == 0.3 && s.stdTW == 0)
    #expect(s.quantiles == [Double](repeating: 0.3, count: 7))
  }

  @Test("two values")
  func two() {
    // mean 0, sample std √((1 + 1)/1) = √2, m2 = 1, m3 = 0, m4 = 1: skew 0, kurtosis 1 − 3.
    let s = SeriesStatistics(values: [1, -1], weights: [3, 0])
    #expect(s.mean == 0 && s.std == 2.0.squareRoot())
    #expect(s.skew == 0 && s.kurtosis == -2)
    #expect(s.meanTW == 1 && s.stdTW == 0)
  }

  @Test("zero total weight: no time-weighted figures")
  func zeroWeight() {
    let s = SeriesStatistics(values: [1, 2, 3], weights: [0, 0, 0])
    #expect(s.meanTW == nil && s.stdTW == nil)
    #expect(s.mean == 2 && s.std == 1)
  }

  @Test("empty series: count 0 and every figure nil")
  func empty() {
    let s = SeriesStatistics(values: [], weights: [])
    #expect(s.count == 0 && s.quantiles.isEmpty)
    #expect([s.mean, s.std, s.min, s.max, s.meanTW, s.stdTW, s.skew, s.kurtosis].allSatisfy { $0 == nil })
  }

  @Test func `mismatched weights trap`() async {
    await #expect(processExitsWith: .failure) { _ = SeriesStatistics(values: [1, 2], weights: [1]) }
  }
}
