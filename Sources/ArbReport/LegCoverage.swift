import ArbCore

/// What was read for one leg: its rows, time range, rejections and gaps.
public struct LegCoverage: Sendable {
  public var instrument: Instrument
  /// File names (no folders) the leg was read from.
  public var files: [String]
  public var rowsRead: Int
  public var rowsRejected: Int
  /// Rejected rows by reason kind.
  public var rejected: [(reason: String, count: Int)]
  /// Points of the series after duplicates collapsed.
  public var points: Int
  public var firstTime: Int64?
  public var lastTime: Int64?
  public var priceSource: PriceSource
  public var gaps: Gaps

  /// Gaps between consecutive quotes longer than a limit.
  public struct Gaps: Sendable, Equatable {
    public var count = 0
    /// µs.
    public var total: Int64 = 0
    public var longest: Int64 = 0
    public var longestStart: Int64? = nil

    /// The gaps of `time` (ascending) longer than `limit` µs.
    public init(time: [Int64], limit: Int64) {
      for i in time.indices.dropFirst() {
        let gap = time[i] - time[i - 1]
        guard gap > limit else { continue }
        count += 1
        total += gap
        if gap > longest {
          longest = gap
          longestStart = time[i - 1]
        }
      }
    }
  }

  public init(
    series: QuoteSeries, files: [String], rowsRead: Int, rowsRejected: Int, rejected: [(reason: String, count: Int)], staleLimit: Int64?
  ) {
    instrument = series.instrument
    self.files = files.map { String($0.split(separator: "/").last ?? Substring($0)) }
    self.rowsRead = rowsRead
    self.rowsRejected = rowsRejected
    self.rejected = rejected
    points = series.count
    firstTime = series.time.first
    lastTime = series.time.last
    priceSource = series.priceSource
    gaps = staleLimit.map { Gaps(time: series.time, limit: $0) } ?? Gaps(time: [], limit: 0)
  }
}
