import ArbCore

/// One bucket of a resampled series (`docs/definitions.md`, "Candles").
public struct Candle: Sendable, Equatable {
  /// Bucket start, µs UTC.
  public var start: Int64
  public var open: Double
  public var high: Double
  public var low: Double
  public var close: Double
  /// Event mean: the plain mean of the bucket's values.
  public var mean: Double
  /// Time-weighted mean: each value weighted by the time it holds inside the bucket
  /// (to the next point of the series, at most to the bucket's end); `nil` when those
  /// weights sum to 0 (a bucket holding only the series' last point).
  public var meanTW: Double?
  public var count: Int
}

/// Resamples a series into candles: buckets of `every` µs aligned to the day
/// boundaries of a time zone `offset` µs east of UTC (bucket `k` covers
/// `[k·every − offset, (k+1)·every − offset)`). Buckets without a valid point are
/// omitted; nothing is filled in.
public enum Candles {
  /// Checks once that the buckets of `make` around `times` are times: each time moved
  /// into the zone, and a bucket's start and end up to `every` from it.
  ///
  /// - Throws: `TimeError.Reason.overflow` (`.candle`).
  public static func checkRange(_ times: ClosedRange<Int64>, every: Int64, offset: Int64) throws(TimeError) {
    try TimeArithmetic.check(times, plus: offset...offset, .candle)
    try TimeArithmetic.check(times, plus: -every...every, .candle)
  }

  /// Candles of the valid values of `values` (non-finite = invalid point) at `time`.
  ///
  /// An invalid point is not a value of any bucket, but it ends the time during which
  /// the value before it holds (as every next point does).
  /// - Precondition: `checkRange` passes for the times (user data: call it first).
  /// - Complexity: O(n), one pass.
  public static func make(time: [Int64], values: [Double], every: Int64, offset: Int64 = 0) -> [Candle] {
    precondition(time.count == values.count && every > 0, "Candles: \(time.count) times vs \(values.count) values")
    var builder = CandleBuilder(every: every, offset: offset)
    for i in time.indices { builder.add(time: time[i], value: values[i], duration: i + 1 < time.count ? time[i + 1] - time[i] : 0) }
    return builder.finish()
  }
}

/// Builds the candles of `Candles.make` from a series handed over point by point, as a
/// stream yields it: each point with its time to the next point (0 for the last).
public struct CandleBuilder: Sendable {
  public let every: Int64
  public let offset: Int64
  private var candles: [Candle] = []
  private var current: Candle? = nil
  private var sum = 0.0, weighted = 0.0, weights = 0.0

  /// Buckets of `every` µs aligned to the day boundaries `offset` µs east of UTC.
  public init(every: Int64, offset: Int64 = 0) {
    precondition(every > 0, "a candle lasts a positive time")
    self.every = every
    self.offset = offset
  }

  /// Adds the point at `time` (after the point before) holding for `duration`; a
  /// non-finite `value` is an invalid point, in no bucket.
  /// - Precondition: `Candles.checkRange` passes for `time`.
  @inline(__always)
  public mutating func add(time t: Int64, value v: Double, duration: Int64) {
    guard v.isFinite else { return }
    // (t + offset) floored to `every`, less `offset`, without leaving `t − every…t`.
    let start = t - (t + offset).floorMod(every)
    if current?.start != start {
      close()
      current = Candle(start: start, open: v, high: v, low: v, close: v, mean: v, meanTW: nil, count: 0)
      (sum, weighted, weights) = (0, 0, 0)
    }
    current!.high = max(current!.high, v)
    current!.low = min(current!.low, v)
    current!.close = v
    current!.count += 1
    sum += v
    // The value holds to the next point, at most to the bucket's end.
    let w = Double(min(duration, start + every - t))
    weighted += w * v
    weights += w
  }

  /// The candles, the last one closed.
  public mutating func finish() -> [Candle] {
    close()
    current = nil
    return candles
  }

  private mutating func close() {
    guard var candle = current else { return }
    candle.mean = sum / Double(candle.count)
    candle.meanTW = weights > 0 ? weighted / weights : nil
    candles.append(candle)
  }
}
