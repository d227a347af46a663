import ArbCore

/// Accumulates the accepted rows of one instrument, then orders and de-duplicates them.
struct SeriesBuilder {
  var series: QuoteSeries
  /// Time of the last accepted row, for the order check.
  var lastTime: Int64 = .min
  var hasBook = false

  init(instrument: Instrument, clock: Clock, keepsOtherTime: Bool, expectedRows: Int) {
    series = QuoteSeries(instrument: instrument, priceSource: .book, clock: clock)
    series.time.reserveCapacity(expectedRows)
    if keepsOtherTime { series.otherTime.reserveCapacity(expectedRows) }
    series.bid.reserveCapacity(expectedRows)
    series.ask.reserveCapacity(expectedRows)
    series.bidSize.reserveCapacity(expectedRows)
    series.askSize.reserveCapacity(expectedRows)
  }

  @inline(__always)
  mutating func append(time: Int64, otherTime: Int64?, bid: Double, ask: Double, bidSize: Double, askSize: Double) {
    series.time.append(time)
    if let otherTime { series.otherTime.append(otherTime) }
    series.bid.append(bid)
    series.ask.append(ask)
    series.bidSize.append(bidSize)
    series.askSize.append(askSize)
    lastTime = time
  }

  /// The finished series, ascending in time with duplicates collapsed to the last row
  /// in file order, and the number of rows collapsed away.
  ///
  /// - Parameter order: how the rows were checked while reading: ascending, descending
  ///   (reversed here) or unsorted (stable-sorted here).
  mutating func finish(order: RowOrder) -> (series: QuoteSeries, collapsed: Int) {
    series.priceSource = hasBook ? .book : .last
    let n = series.count
    var permutation: [Int]? = nil
    switch order {
    case .ascending:
      var duplicates = false
      series.time.withUnsafeBufferPointer { t in
        for k in 1..<max(n, 1) where t[k] == t[k - 1] { duplicates = true; break }
      }
      if !duplicates { return (series, 0) }
    case .descending: permutation = Array((0..<n).reversed())
    case .unsorted:
      let time = series.time
      var index = Array(0..<n)
      index.sort { time[$0] != time[$1] ? time[$0] < time[$1] : $0 < $1 }
      if index != Array(0..<n) { permutation = index }
    }
    // Keep, for each run of equal times, the row that came last in the file.
    let fileIndexOf: (Int) -> Int = { permutation?[$0] ?? $0 }
    var keep: [Int] = []
    keep.reserveCapacity(n)
    let time = series.time
    var i = 0
    while i < n {
      let t = time[permutation?[i] ?? i]
      var best = i
      var j = i + 1
      while j < n && time[permutation?[j] ?? j] == t {
        if fileIndexOf(j) > fileIndexOf(best) { best = j }
        j += 1
      }
      keep.append(permutation?[best] ?? best)
      i = j
    }
    let collapsed = n - keep.count
    if permutation != nil || collapsed > 0 {
      series.time = keep.map { series.time[$0] }
      if !series.otherTime.isEmpty { series.otherTime = keep.map { series.otherTime[$0] } }
      series.bid = keep.map { series.bid[$0] }
      series.ask = keep.map { series.ask[$0] }
      series.bidSize = keep.map { series.bidSize[$0] }
      series.askSize = keep.map { series.askSize[$0] }
    }
    return (series, collapsed)
  }
}

/// The order rows are expected in while reading.
enum RowOrder {
  case ascending, descending, unsorted
}
