import ArbAnalytics
import ArbCore
import Dispatch

extension InventoryArbitrage {
  /// Every run of `runs` on two legs read as streams, each exactly as
  /// `run(legs:aligned:)` runs on the whole legs; memory depends on `chunkPoints`, the
  /// number of runs and their latencies (a drawn latency's longest fill in a chunk; and
  /// on the trades booked), not on the length of the legs.
  ///
  /// Each leg is opened once and read through a `QuoteTee`. A `PremiumStream` aligns the
  /// legs `chunkPoints` clock points at a time; each chunk's valid points get their fill
  /// quotes from a cursor per leg and latency (`fillCursor`, fixed or drawn), and every run steps through them (on
  /// `jobs` threads, each its own runs), carrying its balances, its rebalance under way
  /// and its counts to the next chunk.
  ///
  /// - Parameter open: a new stream over leg `k` (0 or 1), from its first quote, with the
  ///   book sizes and the other clock when `allColumns`.
  /// - Throws: `AlignmentError` as `AlignedLegs.init`, or what a stream throws.
  public static func run(
    _ runs: [InventoryArbitrage], open: (_ leg: Int, _ allColumns: Bool) throws -> any QuoteStream, options: AlignmentOptions,
    chunkPoints: Int = 1 << 16, legChunkRows: Int = 1 << 16, jobs: Int = 1
  ) throws -> StreamedResult<InventoryRun> {
    let readsSizes = runs.contains { $0.parameters.capAtBook }
    let (slots, runSlots) = FillSlot.slots(runs.map { ($0.parameters.latencies, $0.parameters.seed) })
    let allColumns = readsSizes || slots.contains { $0.latency == .recorded }
    let legs = [try open(0, allColumns), try open(1, allColumns)]
    let tees = legs.map { QuoteTee($0, rows: legChunkRows) }
    let aligned = tees.map { $0.branch() }
    let branches = slots.map { tees[$0.leg].branch() }
    let alignment = try PremiumStream(legs: aligned, options: options, chunkPoints: chunkPoints, legChunkRows: legChunkRows, keepQuotes: true)
    let cursors = zip(slots, branches).map { fillCursor($1, slot: $0, rows: legChunkRows, readsSizes: readsSizes) }
    var traders: [InventoryTrader] = []
    // A chunk's valid points: times, and the legs' quotes in force (bid 0, bid 1, ask 0, ask 1).
    var times: [Int64] = []
    var quotes: [(Double, Double, Double, Double)] = []
    while let chunk = try alignment.next() {
      if traders.isEmpty, chunk.count > 0 { traders = runs.map { InventoryTrader(parameters: $0.parameters, start: chunk.time[0]) } }
      times.removeAll(keepingCapacity: true)
      quotes.removeAll(keepingCapacity: true)
      for i in 0..<chunk.count where chunk.valid[i] {
        times.append(chunk.time[i])
        quotes.append((chunk.quotes[4 * i], chunk.quotes[4 * i + 1], chunk.quotes[4 * i + 2], chunk.quotes[4 * i + 3]))
      }
      guard !times.isEmpty else { continue }
      let columns = try cursors.map { try $0.fill(times) }
      let fills = DelayedFills(quotes: columns.map(\.quotes), quoteTimes: columns.map(\.times), fillTimes: columns.map(\.fillTimes), lastInForce: nil)
      let (points, pointQuotes) = (times, quotes)
      // The runs in `jobs` contiguous batches, one thread each.
      let batches = max(1, min(jobs, traders.count))
      let size = (traders.count + batches - 1) / batches
      traders.withUnsafeMutableBufferPointer { all in
        nonisolated(unsafe) let all = all  // each batch steps its own runs
        DispatchQueue.concurrentPerform(iterations: batches) { b in
          for r in min(b * size, all.count)..<min((b + 1) * size, all.count) {
            let (first, second) = runSlots[r]
            let (stale, sizes) = (all[r].parameters.maxStale, all[r].parameters.capAtBook)
            for (p, q) in zip(points.indices, pointQuotes) {
              all[r].step(time: points[p], bids: (q.0, q.1), asks: (q.2, q.3)) {
                fills.fills(first, second, p, maxStale: stale, readsSizes: sizes)
              }
            }
          }
        }
      }
    }
    if traders.isEmpty { traders = runs.map { InventoryTrader(parameters: $0.parameters, start: 0) } }
    return try StreamedResult(traders.map(\.finished), alignment: alignment, legs: legs, slots: slots, cursors: cursors)
  }
}
