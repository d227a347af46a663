import ArbCore
import ArbIngest
import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// Covariance and correlation matrices against a slow loop over every pair.
@Suite("Covariance and correlation matrices")
struct CovarianceTests {
  /// Two-pass covariance and correlation of a pair over `points` (those where both are
  /// valid, or the given subset).
  static func slowPair(_ a: [Double], _ b: [Double], points: [Int]) -> (count: Int, cov: Double?, corr: Double?) {
    let common = points.filter { a[$0].isFinite && b[$0].isFinite }
    guard common.count >= 2 else { return (common.count, nil, nil) }
    let n = Double(common.count)
    // Corrected means: the plain sum of values near 10⁶ is off by ~1e-9 of the spread.
    func mean(_ x: [Double]) -> Double {
      let rough = common.map { x[$0] }.reduce(0, +) / n
      return rough + common.map { x[$0] - rough }.reduce(0, +) / n
    }
    let ma = mean(a), mb = mean(b)
    var sab = 0.0, saa = 0.0, sbb = 0.0
    for t in common {
      sab += (a[t] - ma) * (b[t] - mb)
      saa += (a[t] - ma) * (a[t] - ma)
      sbb += (b[t] - mb) * (b[t] - mb)
    }
    return (common.count, sab / (n - 1), saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : nil)
  }

  static func check(_ m: CovarianceMatrix, _ series: [[Double]], rel: Double = 1e-9) {
    let n = series.count, length = series[0].count
    let complete = (0..<length).filter { t in series.allSatisfy { $0[t].isFinite } }
    for i in 0..<n {
      for j in 0..<n {
        let points = m.missing == .pairwise ? Array(0..<length) : complete
        let (count, cov, corr) = slowPair(series[i], series[j], points: points)
        #expect(m.counts[i * n + j] == count)
        if let cov { #expect(isClose(m.covariance[i * n + j], cov, rel: rel, abs: 1e-15)) } else { #expect(m.covariance[i * n + j].isNaN) }
        if let corr { #expect(isClose(m.correlation[i * n + j], corr, rel: rel, abs: 1e-12)) } else { #expect(m.correlation[i * n + j].isNaN) }
      }
    }
  }

  /// Five correlated series with an offset, about 10 % missing points each, one series
  /// constant; small blocks so that the BLAS accumulation runs over many of them.
  static func generated() -> [[Double]] {
    var rng = SplitMix64(seed: 21)
    let length = 3_000
    let common = (0..<length).map { _ in rng.normal() }
    var series = (0..<4).map { k in
      (0..<length).map { t in rng.uniform() < 0.1 ? Double.nan : 1e3 * Double(k) + 0.5 * common[t] + rng.normal() * Double(k + 1) }
    }
    series.append((0..<length).map { t in t % 13 == 0 ? .nan : 2.5 })
    return series
  }

  @Test("complete case and pairwise equal the slow loop", arguments: [CovarianceMatrix.Missing.completeCase, .pairwise])
  func generatedData(missing: CovarianceMatrix.Missing) {
    let series = Self.generated()
    // With missing points (gathered) and with none (read contiguously).
    let full = series.map { $0.map { $0.isFinite ? $0 : 0.5 } }
    for data in [series, full] {
      for block in [7, 8192] { Self.check(CovarianceMatrix(series: data, missing: missing, blockPoints: block), data) }
    }
  }

  @Test("a matrix taken over: in place without missing points, delegated with them", arguments: [CovarianceMatrix.Missing.completeCase, .pairwise])
  func flatMatrix(missing: CovarianceMatrix.Missing) {
    let series = Self.generated()
    let full = series.map { $0.map { $0.isFinite ? $0 : 0.5 } }
    for data in [series, full] {
      let m = CovarianceMatrix(matrix: data.flatMap { $0 }, series: data.count, missing: missing)
      Self.check(m, data)
    }
  }

  /// `series` given to a `CovarianceAccumulator` in consecutive chunks of the given lengths.
  static func accumulated(_ series: [[Double]], missing: CovarianceMatrix.Missing, chunks: [Int]) -> CovarianceMatrix {
    var accumulator = CovarianceAccumulator(size: series.count, missing: missing, blockPoints: 64)
    var start = 0
    for length in chunks {
      let part = series.map { Array($0[start..<start + length]) }
      withUnsafeBuffers(part) { accumulator.add($0) }
      start += length
    }
    return accumulator.matrix
  }

  /// Chunk lengths covering `length` points: all `size` long but the last, or (`random`)
  /// drawn from 1…size.
  static func chunks(_ length: Int, size: Int, random: inout SplitMix64?) -> [Int] {
    var lengths: [Int] = []
    var left = length
    while left > 0 {
      let next = min(left, random.map { _ in Int(random!.next() % UInt64(size)) + 1 } ?? size)
      lengths.append(next)
      left -= next
    }
    return lengths
  }

  @Test("chunks merged equal the whole computation and the slow loop", arguments: [CovarianceMatrix.Missing.completeCase, .pairwise])
  func accumulatedChunks(missing: CovarianceMatrix.Missing) {
    let series = Self.generated()
    let full = series.map { $0.map { $0.isFinite ? $0 : 0.5 } }
    for data in [series, full] {
      let length = data[0].count
      let whole = CovarianceMatrix(series: data, missing: missing)
      for size in [1, 2, 7, 1000, length] {
        for seed: UInt64? in [nil, 1, 2] {
          var random = seed.map { SplitMix64(seed: $0) }
          let m = Self.accumulated(data, missing: missing, chunks: Self.chunks(length, size: size, random: &random))
          #expect(m.counts == whole.counts, "size \(size)")
          for k in 0..<m.size * m.size {
            for (a, b) in [(m.covariance[k], whole.covariance[k]), (m.correlation[k], whole.correlation[k])] {
              #expect(a.isNaN && b.isNaN || isClose(a, b, rel: 1e-12, abs: 0), "figure \(k): \(a) vs \(b), size \(size)")
            }
          }
          Self.check(m, data)
        }
      }
    }
    // One chunk is the whole computation, bit for bit; no chunk, no point.
    let one = Self.accumulated(series, missing: missing, chunks: [series[0].count])
    let whole = CovarianceMatrix(series: series, missing: missing, blockPoints: 64)
    #expect(one.counts == whole.counts)
    #expect(zip(one.covariance, whole.covariance).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) })
    let none = Self.accumulated(series, missing: missing, chunks: [])
    #expect(none.counts.allSatisfy { $0 == 0 } && none.covariance.allSatisfy(\.isNaN))
  }

  /// Offsets of 10⁶ with a drift that moves the first 4096 points' mean (the provisional
  /// centre of the matrix path) away from the mean: both paths keep 9 digits, where
  /// `Σxy − ΣxΣy/n` on the raw values would keep none (Σx² ≈ 10¹⁶, spread ≈ 10⁻²).
  @Test func `large offsets and a drift`() {
    var rng = SplitMix64(seed: 41)
    let length = 20_000
    var data: [[Double]] = []
    for k in 0..<3 {
      let offset = 1e6 * Double(k + 1)
      data.append((0..<length).map { t -> Double in offset + 1e-3 * Double(t) / Double(length) + 1e-3 * rng.normal() })
    }
    Self.check(CovarianceMatrix(series: data, missing: .completeCase), data, rel: 1e-9)
    Self.check(CovarianceMatrix(matrix: data.flatMap { $0 }, series: 3, missing: .completeCase), data, rel: 1e-9)
    var random: SplitMix64? = SplitMix64(seed: 3)
    for missing in [CovarianceMatrix.Missing.completeCase, .pairwise] {
      Self.check(Self.accumulated(data, missing: missing, chunks: Self.chunks(length, size: 7, random: &random)), data, rel: 1e-9)
    }
  }

  @Test func `two series by hand`() {
    // Complete rows 0, 1, 3: x = 1, 2, 4; y = 2, 4, 9; means 7/3 and 5; Σdxdy = 11, Σdx² = 14/3, Σdy² = 26.
    let x: [Double] = [1, 2, .nan, 4], y: [Double] = [2, 4, 6, 9]
    let m = CovarianceMatrix(series: [x, y], missing: .completeCase)
    #expect(m.counts == [3, 3, 3, 3])
    #expect(isClose(m.covariance[1], 5.5) && isClose(m.covariance[0], 7.0 / 3) && isClose(m.covariance[3], 13))
    #expect(isClose(m.correlation[1], 11 / (14.0 / 3 * 26).squareRoot()) && m.correlation[0] == 1)
    let p = CovarianceMatrix(series: [x, y], missing: .pairwise)
    #expect(p.counts == [3, 3, 3, 4])
    #expect(isClose(p.covariance[3], (3.25 * 3.25 + 1.25 * 1.25 + 0.75 * 0.75 + 3.75 * 3.75) / 3))  // y alone: all four points, mean 5.25
  }

  @Test func `too few points leave the figures undefined`() {
    let m = CovarianceMatrix(series: [[1, .nan], [.nan, 2]], missing: .pairwise)
    #expect(m.counts == [1, 0, 0, 1] && m.covariance.allSatisfy(\.isNaN) && m.correlation.allSatisfy(\.isNaN))
    let empty = CovarianceMatrix(series: [[], []], missing: .completeCase)
    #expect(empty.counts == [0, 0, 0, 0] && empty.covariance.allSatisfy(\.isNaN))
  }

  /// Premiums of Binance.US BTCUSDT, BTCUSD and Kraken BTCUSDC over Binance.US BTCUSDC,
  /// first two days of March 2023, minute clock with a one-minute staleness limit.
  @Test("real premiums: both modes equal the slow loop")
  func realData() throws {
    let format = "@" + Repository.data("formats/binanceus-kline-1m.json")
    let specs = [
      "binanceus:spot:BTCUSDC=" + Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv") + format,
      "binanceus:spot:BTCUSDT=" + Repository.data("samples/binanceus_BTCUSDT_1m_2023-03-01_02.csv") + format,
      "binanceus:spot:BTCUSD=" + Repository.data("samples/binanceus_BTCUSD_1m_2023-03-01_02.csv") + format,
      "kraken:spot:BTCUSDC=" + Repository.data("samples/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz") + "@" + Repository.data("formats/kraken-ohlcvt-1m.json"),
    ]
    let legs = try specs.map { try LegSpec(parsing: $0).load(options: IngestOptions()).series }
    let panel = try PremiumPanel(legs: legs, base: 0, options: AlignmentOptions(maxStale: 60_000_000))
    let series = panel.premiums
    #expect(panel.legs == [1, 2, 3] && series.allSatisfy { $0.count == panel.time.count })
    // Slow check of the panel itself at a few points: as-of quotes, staleness, premium.
    for i in stride(from: 0, to: panel.time.count, by: 997) {
      let t = panel.time[i]
      func mid(_ k: Int) -> Double? {
        guard let c = legs[k].time.lastIndex(where: { $0 <= t }), t - legs[k].time[c] <= 60_000_000 else { return nil }
        return (legs[k].bid[c] + legs[k].ask[c]) / 2
      }
      for j in 0..<3 {
        if let a = mid(j + 1), let b = mid(0) { #expect(isClose(series[j][i], (a / b - 1) * 100, rel: 1e-9)) } else { #expect(series[j][i].isNaN) }
      }
    }
    let complete = CovarianceMatrix(series: series, missing: .completeCase)
    let pairwise = CovarianceMatrix(series: series, missing: .pairwise)
    #expect(complete.counts[0] > 1_000 && pairwise.counts[0] > complete.counts[0])
    Self.check(complete, series, rel: 1e-8)
    Self.check(pairwise, series, rel: 1e-8)
  }
}
