import ArbCore

/// The mid premium of every leg over one base leg, on the common clock of all legs
/// (`docs/definitions.md`, "Covariance and correlation matrices").
///
/// The clock and the as-of rule are those of `AlignedLegs` (union clock or grid). At a
/// point, the premium of leg k is `(mid_k / mid_base − 1) × 100` when both leg k and
/// the base have a usable quote (quoted, both sides finite and positive, no older than
/// `maxStale`), and `nan` (missing) otherwise: each series has its own missing points.
public struct PremiumPanel: Sendable {
  public var time: [Int64]
  /// The legs other than the base, in order.
  public var legs: [Int]
  /// `premiums[j]` is the premium of leg `legs[j]`, one value per clock point.
  public var premiums: [[Double]]

  /// - Throws: `AlignmentError` as `AlignedLegs.init`.
  public init(legs series: [QuoteSeries], base: Int, options: AlignmentOptions = AlignmentOptions()) throws(AlignmentError) {
    precondition(series.indices.contains(base), "PremiumPanel: no leg \(base)")
    let merge = try AsOfMerge(legs: series, options: options)
    let others = series.indices.filter { $0 != base }
    var time = [Int64](repeating: 0, count: merge.capacity)
    // One flat buffer, series after series, split when done.
    let capacity = merge.capacity
    var flat = [Double](repeating: .nan, count: others.count * capacity)
    let produced = withUnsafeBuffers(series.map(\.time)) { times in
      time.withUnsafeMutableBufferPointer { time in
        flat.withUnsafeMutableBufferPointer { flat in
          var panel = PanelWriter(
            times: times, time: time, premiums: flat, capacity: capacity, base: base, others: others,
            limit: options.maxStale ?? .max)
          return merge.forEachPoint(&panel)
        }
      }
    }
    time.removeLast(capacity - produced)
    let premiums = others.indices.map { j in Array(flat[j * capacity..<j * capacity + produced]) }
    self.time = time
    self.legs = others
    self.premiums = premiums
  }
}

/// Writes each point's time and the premium of every other leg over the base.
private struct PanelWriter: PointVisitor {
  let times: [UnsafeBufferPointer<Int64>]
  let time: UnsafeMutableBufferPointer<Int64>
  /// Series `j` at point `i` is `premiums[j * capacity + i]`.
  let premiums: UnsafeMutableBufferPointer<Double>
  let capacity: Int
  let base: Int
  let others: [Int]
  let limit: Int64

  @inline(__always)
  mutating func visit(
    _ i: Int, time t: Int64, valid: Bool, cursor: UnsafeMutableBufferPointer<Int>, quotes: UnsafeMutableBufferPointer<Double>
  ) {
    time[i] = t
    let legCount = times.count
    func usable(_ k: Int) -> Bool {
      let c = cursor[k], bid = quotes[k], ask = quotes[legCount + k]
      return c >= 0 && bid > 0 && bid < .infinity && ask > 0 && ask < .infinity && t - times[k][c] <= limit
    }
    let baseMid = quotes[base] + quotes[legCount + base]  // twice the mid: the factor cancels
    let baseOK = usable(base)
    for (j, k) in others.enumerated() {
      premiums[j * capacity + i] = baseOK && usable(k) ? ((quotes[k] + quotes[legCount + k]) / baseMid - 1) * 100 : .nan
    }
  }
}
