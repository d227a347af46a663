import ArbCore

/// A `QuoteStream` over one series of a store: each chunk is a view straight into the
/// memory-mapped column files of a partition, without a copy; a chunk never spans two
/// partitions, and the stream goes on into the next partition by itself.
///
/// Resident memory stays near the chunk size: one partition is mapped at a time (the
/// finished one is unmapped when the next opens), its pages are read as touched, and
/// the pages of rows already handed out are given back to the system
/// (`MADV_DONTNEED`) as the stream moves on. Only the partitions that overlap the
/// window are opened. Each is checked when opened (`partition.json`, file sizes, first
/// and last time), and each chunk's times are checked to ascend, also across partitions.
public final class StoreQuoteStream: QuoteStream {
  public let instrument: Instrument
  public let priceSource: PriceSource
  public let field: SeriesField
  public let clock: Clock
  private let series: Store.Series
  private let window: TimeWindow
  private let columns: StoreColumns
  /// The partitions that overlap the window, ascending.
  private let partitions: [Store.Partition]
  private var nextPartition = 0
  private var current: OpenedPartition? = nil
  /// The rows of `current` in the window, and the next one to hand out.
  private var rows = 0..<0
  private var position = 0
  /// Rows of `current` below this are given back already.
  private var released = 0
  /// The time of the last row handed out.
  private var lastHandedOut: Int64? = nil

  /// Rows handed out beyond `released` before their pages are given back: 32 KiB per column.
  static let releaseRows = 4096

  init(_ series: Store.Series, window: TimeWindow, columns: StoreColumns) {
    instrument = series.instrument
    priceSource = series.priceSource
    field = series.field
    clock = series.clock
    self.series = series
    self.window = window
    self.columns = columns
    partitions = series.partitions.filter { window.overlaps(first: $0.firstTime, last: $0.lastTime) }
  }

  /// The last overlapping partition's last time, when it lies in the window (else the
  /// last row in the window is known only once that partition is read).
  public var lastTime: Int64? { partitions.last.flatMap { window.contains($0.lastTime) ? $0.lastTime : nil } }

  public var expectedRows: Int? { partitions.reduce(0) { $0 + $1.rows } }

  /// The partitions mapped now: at most one.
  var mappedPartitions: Int { current == nil ? 0 : 1 }
  /// The partitions opened so far.
  var openedPartitions: Int { nextPartition }

  public func next(maxRows: Int) throws -> QuoteChunk? {
    precondition(maxRows > 0, "a chunk holds at least one row")
    while current == nil || position == rows.upperBound {
      current = nil
      guard nextPartition < partitions.count else { return nil }
      let opened = try OpenedPartition(series, partitions[nextPartition], columns: columns, readAhead: false)
      nextPartition += 1
      current = opened
      rows = window.rows(of: opened.values(Int64.self, "time"))
      (position, released) = (rows.lowerBound, 0)
    }
    let partition = current!
    if position - released >= Self.releaseRows {
      partition.release(rows: released..<position)
      released = position
    }
    let range = position..<min(position + maxRows, rows.upperBound)
    let time = partition.values(Int64.self, "time")
    try partition.checkAscending(time[range], after: lastHandedOut)
    lastHandedOut = time[range.upperBound - 1]
    position = range.upperBound
    func view<T: BitwiseCopyable>(_ type: T.Type, _ name: String) -> UnsafeBufferPointer<T> {
      guard partition.columns.contains(name) else { return UnsafeBufferPointer(start: nil, count: 0) }
      return UnsafeBufferPointer(rebasing: partition.values(T.self, name)[range])
    }
    return QuoteChunk(
      time: view(Int64.self, "time"), otherTime: view(Int64.self, "other_time"), bid: view(Double.self, "bid"),
      ask: view(Double.self, "ask"), bidSize: view(Double.self, "bid_size"), askSize: view(Double.self, "ask_size"))
  }
}
