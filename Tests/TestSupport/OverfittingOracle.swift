import Foundation

/// Slow, obvious implementations of the out-of-sample statistics, written from the
/// definitions in `docs/definitions.md` ("Out of sample") and nothing else: a matrix of
/// rows (`m[t][n]`), every Sharpe ratio recomputed from its rows, full sorts. They call
/// nothing in the package, so an agreement with it is evidence.
public enum OverfittingOracle {
  /// mean / sample std of `values`; all equal: +∞, −∞ or 0 by the sign of the mean.
  public static func sharpe(_ values: [Double]) -> Double {
    if values.allSatisfy({ $0 == values[0] }) { return values[0] > 0 ? .infinity : values[0] < 0 ? -.infinity : 0 }
    let mean = values.reduce(0, +) / Double(values.count)
    var squares = 0.0
    for v in values { squares += (v - mean) * (v - mean) }
    return mean / (squares / Double(values.count - 1)).squareRoot()
  }

  static func sharpe(_ m: [[Double]], rows: [Int], cell: Int) -> Double { sharpe(rows.map { m[$0][cell] }) }

  /// Ratios equal to 1e-9 relative are tied (docs/definitions.md, "Out of sample").
  static func tied(_ a: Double, _ b: Double) -> Bool { a == b || (a.isFinite && b.isFinite && abs(a - b) <= 1e-9 * max(abs(a), abs(b))) }

  /// The first index of the largest value, values tied with it counting as equal.
  static func argmax(_ values: [Double]) -> Int {
    var best = 0
    for n in 1..<values.count where values[n] > values[best] && !tied(values[n], values[best]) { best = n }
    return best
  }

  /// The logits of every combination, in lexicographic order of block indices.
  public static func logits(_ m: [[Double]], blocks: Int) -> [Double] {
    let t = m.count, cells = m[0].count
    let blockRows = (0..<blocks).map { b in Array(b * t / blocks..<(b + 1) * t / blocks) }
    var logits: [Double] = []
    for chosen in combinations(blocks, blocks / 2) {
      let inRows = chosen.flatMap { blockRows[$0] }
      let outRows = (0..<t).filter { !inRows.contains($0) }
      let best = argmax((0..<cells).map { sharpe(m, rows: inRows, cell: $0) })
      let out = (0..<cells).map { sharpe(m, rows: outRows, cell: $0) }
      // Average rank: sort, then the mean of the 1-based positions holding a value tied with it.
      let sorted = out.sorted()
      let positions = sorted.indices.filter { tied(sorted[$0], out[best]) }.map { Double($0 + 1) }
      let rank = positions.reduce(0, +) / Double(positions.count)
      let omega = rank / Double(cells + 1)
      logits.append(log(omega / (1 - omega)))
    }
    return logits
  }

  /// Every k-subset of 0..<n, lexicographic.
  static func combinations(_ n: Int, _ k: Int) -> [[Int]] {
    if k == 0 { return [[]] }
    guard n >= k else { return [] }
    var result: [[Int]] = []
    for first in 0..<n {
      for rest in combinations(n - first - 1, k - 1) { result.append([first] + rest.map { $0 + first + 1 }) }
    }
    return result
  }

  public static func pbo(_ logits: [Double]) -> Double { Double(logits.filter { $0 <= 0 }.count) / Double(logits.count) }

  /// (SR, SR0, DSR) of the best cell over all rows.
  public static func deflatedSharpe(_ m: [[Double]]) -> (sharpe: Double, sr0: Double?, dsr: Double?) {
    let t = m.count, cells = m[0].count
    let ratios = (0..<cells).map { sharpe(m, rows: Array(0..<t), cell: $0) }
    let best = argmax(ratios)
    let sr = ratios[best]
    let finite = ratios.filter { $0.isFinite }
    guard finite.count >= 2 else { return (sr, nil, nil) }
    let n = Double(finite.count)
    let mean = finite.reduce(0, +) / n
    let v = finite.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)
    let gamma = 0.5772156649015329
    let sr0 = v.squareRoot() * ((1 - gamma) * inverseNormal(1 - 1 / n) + gamma * inverseNormal(1 - 1 / (n * M_E)))
    let x = (0..<t).map { m[$0][best] }
    let mu = x.reduce(0, +) / Double(t)
    func moment(_ k: Double) -> Double { x.map { pow($0 - mu, k) }.reduce(0, +) / Double(t) }
    let g3 = moment(3) / pow(moment(2), 1.5), g4 = moment(4) / pow(moment(2), 2)
    let radicand = 1 - g3 * sr + (g4 - 1) / 4 * sr * sr
    guard sr.isFinite, g3.isFinite, g4.isFinite, radicand > 0 else { return (sr, sr0, nil) }
    return (sr, sr0, 0.5 * erfc(-((sr - sr0) * Double(t - 1).squareRoot() / radicand.squareRoot()) / 2.0.squareRoot()))
  }

  /// Φ⁻¹ by bisection on Φ (slow and plain), for the oracle.
  public static func inverseNormal(_ p: Double) -> Double {
    var (lo, hi) = (-40.0, 40.0)
    for _ in 0..<200 {
      let mid = (lo + hi) / 2
      if 0.5 * erfc(-mid / 2.0.squareRoot()) < p { lo = mid } else { hi = mid }
    }
    return (lo + hi) / 2
  }

  /// One walk-forward window: (train rows, test rows, best cell, train Sharpe, test PnL).
  public typealias Window = (train: Range<Int>, test: Range<Int>, best: Int, trainSharpe: Double, testPnL: Double)

  /// The windows, then oos_pnl, oos_sharpe and in_sample_pnl (nil without a window).
  public static func walkForward(
    _ m: [[Double]], train: Int, test: Int, anchored: Bool
  )
    -> (windows: [Window], oosPnL: Double?, oosSharpe: Double?, inSamplePnL: Double?)
  {
    let t = m.count, cells = m[0].count
    var windows: [Window] = []
    var k = 0
    while k * test + train + test <= t {
      let trainRows = (anchored ? 0 : k * test)..<(k * test + train)
      let testRows = (k * test + train)..<(k * test + train + test)
      let ratios = (0..<cells).map { sharpe(m, rows: Array(trainRows), cell: $0) }
      let best = argmax(ratios)
      windows.append((trainRows, testRows, best, ratios[best], testRows.map { m[$0][best] }.reduce(0, +)))
      k += 1
    }
    guard !windows.isEmpty else { return ([], nil, nil, nil) }
    let stitched = windows.flatMap { w in w.test.map { m[$0][w.best] } }
    let overall = argmax((0..<cells).map { sharpe(m, rows: Array(0..<t), cell: $0) })
    let inSample = windows.flatMap { w in w.test.map { m[$0][overall] } }.reduce(0, +)
    return (windows, windows.map(\.testPnL).reduce(0, +), sharpe(stitched), inSample)
  }

  /// The stationary bootstrap of `x` as defined (SplitMix64 draws in the documented
  /// order), with type-7 quantiles from a full sort: (pnl quantiles, sharpe quantiles,
  /// share of totals ≤ 0).
  public static func bootstrap(
    _ x: [Double], resamples: Int, blockLength: Int, seed: UInt64
  )
    -> (pnl: [Double], sharpe: [Double], shareAtMostZero: Double)
  {
    var g = SplitMix64(seed: seed)
    var totals: [Double] = [], ratios: [Double] = []
    for _ in 0..<resamples {
      var sample: [Double] = []
      var index = 0
      for t in 0..<x.count {
        if t == 0 || g.uniform() < 1 / Double(blockLength) {
          index = Int(g.uniform() * Double(x.count))
        } else {
          index = (index + 1) % x.count
        }
        sample.append(x[index])
      }
      totals.append(sample.reduce(0, +))
      ratios.append(sharpe(sample))
    }
    func quantiles(_ values: [Double]) -> [Double] {
      let s = values.sorted()
      return [0.025, 0.5, 0.975].map { q in
        let h = Double(s.count - 1) * q
        let lo = Int(h.rounded(.down)), hi = min(lo + 1, s.count - 1)
        return s[lo] + (h - Double(lo)) * (s[hi] - s[lo])
      }
    }
    return (quantiles(totals), quantiles(ratios), Double(totals.filter { $0 <= 0 }.count) / Double(resamples))
  }
}
