/// The quotes of a stream before a time: what a run on a recording cut at that time
/// reads (`backtest --lookahead-check` on streamed legs).
public final class TruncatedQuoteStream: QuoteStreamWrapper {
  public let base: any QuoteStream
  private let cut: Int64
  private var ended = false

  /// The quotes of `base` whose time is before `cut`.
  public init(_ base: any QuoteStream, before cut: Int64) {
    self.base = base
    self.cut = cut
  }

  public var lastTime: Int64? { base.lastTime.flatMap { $0 < cut ? $0 : nil } }
  public var expectedRows: Int? { lastTime == nil ? nil : base.expectedRows }

  public func next(maxRows: Int) throws -> QuoteChunk? {
    guard !ended, let chunk = try base.next(maxRows: maxRows) else { return nil }
    guard let last = chunk.time.last, last >= cut else { return chunk }
    ended = true
    // Times ascend: the first at or past the cut, by bisection.
    var (low, high) = (0, chunk.count)
    while low < high {
      let middle = (low + high) / 2
      if chunk.time[middle] >= cut { high = middle } else { low = middle + 1 }
    }
    guard low > 0 else { return nil }
    func prefix<T>(_ column: UnsafeBufferPointer<T>) -> UnsafeBufferPointer<T> { column.isEmpty ? column : UnsafeBufferPointer(rebasing: column[0..<low]) }
    return QuoteChunk(
      time: prefix(chunk.time), otherTime: prefix(chunk.otherTime), bid: prefix(chunk.bid), ask: prefix(chunk.ask), bidSize: prefix(chunk.bidSize),
      askSize: prefix(chunk.askSize), books: chunk.books?.slice(0..<low))
  }
}
