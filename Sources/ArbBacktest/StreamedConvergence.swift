import ArbAnalytics
import ArbCore
import Dispatch
import Synchronization

/// The decisions of streamed convergence runs and the size of the alignment they ran on.
public struct StreamedDecisions: Sendable {
  /// One per run, in the order of the runs.
  public var decisions: [ConvergenceDecisions]
  /// Clock points of the aligned legs, and the valid ones.
  public var clockPoints: Int
  public var validPoints: Int
  /// Each leg's first and last quote time (`nil` for a leg without quotes).
  public var legTimes: [ClosedRange<Int64>?]
  /// Each leg's price source, as its stream knew it at its end, and its quotes.
  public var priceSources: [PriceSource]
  public var legRows: [Int]
}

extension ConvergenceBacktest {
  /// Whether `decide(_:streams:…)` can take this run's decisions: fixed latencies
  /// (a drawn one may fill before an earlier signal's fill) and fills at the top of the
  /// book with both legs filling (a book walk and a failed leg read the legs' rows).
  public var streams: Bool { !parameters.walksFills && parameters.latencies.allSatisfy { if case .fixed = $0 { true } else { false } } }

  /// The decisions of every run of `runs` on two legs read as streams, each exactly as
  /// `decide(legs:index:)` takes them on the whole legs; memory depends on
  /// `chunkPoints`, the number of runs and their latencies, not on the length of the legs.
  ///
  /// Each leg is opened once and read through a `QuoteTee`. The valid points are aligned
  /// by a `PremiumStream` and indexed a chunk of `chunkPoints` clock points at a time;
  /// each chunk's fill quotes are read, per leg and latency, by a cursor of its own (the
  /// two legs' cursors side by side). The runs advance over one chunk's index, on `jobs`
  /// threads, and carry their state to the next (whose first point is the chunk's last:
  /// no entry is taken at the last valid point).
  ///
  /// - Parameters:
  ///   - open: a new stream over leg `k` (0 or 1), from its first quote, with the book
  ///     sizes when `readsSizes`.
  ///   - sellLeg: the runs' `sellLeg` (equal for all).
  /// - Throws: `AlignmentError` as `ConvergenceIndex.init`, or what a stream throws.
  public static func decide(
    _ runs: [ConvergenceBacktest], open: (_ leg: Int, _ readsSizes: Bool) throws -> any QuoteStream, options: AlignmentOptions,
    sellLeg: Int? = nil, chunkPoints: Int = 1 << 16, legChunkRows: Int = 1 << 16, jobs: Int = 1
  ) throws -> StreamedDecisions {
    precondition(chunkPoints > 1, "a chunk holds the point it carries and at least one more")
    precondition(runs.allSatisfy { $0.streams && $0.parameters.sellLeg == sellLeg }, "runs that stream, on one direction rule")
    let readsSizes = runs.contains { $0.parameters.capAtBook }
    // One cursor per leg and latency; latency 0 of each leg gives the quotes in force.
    var slots: [(leg: Int, latency: Int64)] = [(0, 0), (1, 0)]
    var states: [IndexedRun] = runs.map { run in
      let latencies = run.parameters.latencies.map { latency -> Int64 in
        guard case .fixed(let value) = latency else { preconditionFailure("a streamed run has fixed latencies") }
        return value
      }
      let slot = (0..<2).map { k in
        if let s = slots.firstIndex(where: { $0 == (k, latencies[k]) }) { return s }
        slots.append((k, latencies[k]))
        return slots.count - 1
      }
      return IndexedRun(parameters: run.parameters, fills: .slots(slot[0], slot[1]))
    }
    // Each leg is read once; the alignment and the cursors read it through a tee.
    let legs = [try open(0, readsSizes), try open(1, readsSizes)]
    let tees = legs.map { QuoteTee($0, rows: legChunkRows) }
    let aligned = tees.map { $0.branch() }
    let branches = slots.map { tees[$0.leg].branch() }
    let alignment = try PremiumStream(legs: aligned, options: options, chunkPoints: chunkPoints, legChunkRows: legChunkRows, keepQuotes: true)
    let cursors = try zip(slots, branches).map { try AsOfCursor($1, rows: legChunkRows, readsSizes: readsSizes) }
    var pending = PendingPoints(sellLeg: sellLeg, capacity: chunkPoints + 1)
    var firstTime: Int64?
    var lastTime: Int64?
    /// Indexes the pending points and advances every run through them.
    func decideChunk(isLast: Bool) throws {
      let m = pending.times.count
      guard m > 0 else { return }
      firstTime = firstTime ?? pending.times[0]
      lastTime = pending.times[m - 1]
      // The cursors of the two legs read side by side (those of one leg share its tee: in turn).
      let read = Mutex<(filled: [Int: (quotes: [FillQuote], times: [Int64])], failure: (any Error)?)>(([:], nil))
      nonisolated(unsafe) let (cursors, times, slots) = (cursors, pending.times, slots)  // each thread moves its own leg's cursors
      DispatchQueue.concurrentPerform(iterations: 2) { k in
        for s in slots.indices where slots[s].leg == k {
          do {
            let column = try cursors[s].fill(times, latency: slots[s].latency)
            read.withLock { $0.filled[s] = column }
          } catch {
            read.withLock { $0.failure = $0.failure ?? error }
            return
          }
        }
      }
      let (filled, failure) = read.withLock { ($0.filled, $0.failure) }
      if let failure { throw failure }
      let fills = DelayedFills(
        slots: slots, quotes: slots.indices.map { filled[$0]!.quotes }, quoteTimes: slots.indices.map { filled[$0]!.times }, inForce: (0, 1))
      let index = ConvergenceIndex(
        points: .streamed(times: pending.times, fills: fills), richIsFirst: pending.richIsFirst,
        premiums: [pending.entry, pending.closeFirst, pending.closeSecond], sellLeg: sellLeg, clockPoints: 0)
      // The runs in `jobs` contiguous batches, one thread each.
      let batches = max(1, min(jobs, states.count))
      let size = (states.count + batches - 1) / batches
      states.withUnsafeMutableBufferPointer { all in
        nonisolated(unsafe) let all = all  // each batch advances its own runs
        DispatchQueue.concurrentPerform(iterations: batches) { b in
          let range = min(b * size, all.count)..<min((b + 1) * size, all.count)
          var batch = ArraySlice(all[range])
          IndexedRun.advance(&batch, through: index, isLast: isLast, span: 1 << 12)
          for (k, run) in zip(range, batch) { all[k] = run }
        }
      }
      guard !isLast else { return }
      for k in states.indices { states[k].rebase(by: m - 1) }
      pending.keepLast()
    }
    // Each chunk of the alignment is decided as it comes, so that the tees hold at most
    // about a chunk of each leg (and its latencies' span).
    while let chunk = try alignment.next() {
      pending.append(chunk)
      if pending.times.count > 1 { try decideChunk(isLast: false) }
    }
    try decideChunk(isLast: true)
    let decisions = states.map { ConvergenceDecisions(trades: $0.trades, skipped: $0.skipped.list, firstTime: firstTime, lastTime: lastTime) }
    let legTimes = (0..<2).map { k in alignment.legFirstTime[k].flatMap { first in alignment.legLastTime[k].map { first...$0 } } }
    return StreamedDecisions(
      decisions: decisions, clockPoints: alignment.points, validPoints: alignment.validPoints, legTimes: legTimes, priceSources: legs.map(\.priceSource),
      legRows: alignment.legRows)
  }
}

/// The valid points of a chunk waiting to be indexed, with the premiums the
/// convergence rules test (as `SignalColumns` computes them).
private struct PendingPoints {
  let sellLeg: Int?
  var times: [Int64] = []
  var richIsFirst: [Bool] = []
  var entry: [Double] = []
  var closeFirst: [Double] = []
  var closeSecond: [Double] = []

  /// Room for `capacity` points, kept as points come and go.
  init(sellLeg: Int?, capacity: Int) {
    self.sellLeg = sellLeg
    times.reserveCapacity(capacity)
    richIsFirst.reserveCapacity(capacity)
    entry.reserveCapacity(capacity)
    closeFirst.reserveCapacity(capacity)
    closeSecond.reserveCapacity(capacity)
  }

  /// The valid points of `chunk` (two legs, with their quotes in force), written in
  /// place after the points held.
  mutating func append(_ chunk: PremiumChunk) {
    var valid = 0
    for i in 0..<chunk.count where chunk.valid[i] { valid += 1 }
    let start = times.count
    times.append(contentsOf: repeatElement(0, count: valid))
    richIsFirst.append(contentsOf: repeatElement(false, count: valid))
    entry.append(contentsOf: repeatElement(0, count: valid))
    closeFirst.append(contentsOf: repeatElement(0, count: valid))
    closeSecond.append(contentsOf: repeatElement(0, count: valid))
    let sellLeg = sellLeg
    times.withUnsafeMutableBufferPointer { times in
      richIsFirst.withUnsafeMutableBufferPointer { richIsFirst in
        entry.withUnsafeMutableBufferPointer { entry in
          closeFirst.withUnsafeMutableBufferPointer { closeFirst in
            closeSecond.withUnsafeMutableBufferPointer { closeSecond in
              var next = start
              for i in 0..<chunk.count where chunk.valid[i] {
                // Quotes: bid 0, bid 1, ask 0, ask 1.
                let (bid0, bid1, ask0, ask1) = (chunk.quotes[4 * i], chunk.quotes[4 * i + 1], chunk.quotes[4 * i + 2], chunk.quotes[4 * i + 3])
                let signal = SignalColumns.entrySignal(forward: (bid0 / ask1 - 1) * 100, backward: (bid1 / ask0 - 1) * 100, sellLeg: sellLeg)
                times[next] = chunk.time[i]
                richIsFirst[next] = signal.rich == 0
                entry[next] = signal.premium
                closeFirst[next] = (ask0 / bid1 - 1) * 100
                closeSecond[next] = (ask1 / bid0 - 1) * 100
                next += 1
              }
            }
          }
        }
      }
    }
  }

  /// Keeps only the last point (the first of the next chunk).
  mutating func keepLast() {
    times.removeFirst(times.count - 1)
    richIsFirst.removeFirst(richIsFirst.count - 1)
    entry.removeFirst(entry.count - 1)
    closeFirst.removeFirst(closeFirst.count - 1)
    closeSecond.removeFirst(closeSecond.count - 1)
  }
}

/// One leg's quote in force at increasing times, read from a stream: the last quote at
/// or before the time asked, kept by value across the stream's chunks, with its row in
/// the leg and its own time.
private final class AsOfCursor {
  private let stream: any QuoteStream
  private let rows: Int
  private let readsSizes: Bool
  private var chunk: QuoteChunk?
  /// The next row of `chunk` to take, and the leg row of the chunk's first.
  private var next = 0
  private var base = 0
  private var quote = FillQuote(bid: .nan, ask: .nan, bidSize: .nan, askSize: .nan, row: -1)
  private var quoteTime = Int64.min

  init(_ stream: any QuoteStream, rows: Int, readsSizes: Bool) throws {
    self.stream = stream
    self.rows = rows
    self.readsSizes = readsSizes
    chunk = try stream.next(maxRows: rows)
  }

  /// The quotes in force `latency` after each of `times` (ascending, none before a time
  /// asked earlier), and their own times.
  func fill(_ times: [Int64], latency: Int64) throws -> (quotes: [FillQuote], times: [Int64]) {
    var quoteTimes = [Int64](repeating: 0, count: times.count)
    let quotes = try [FillQuote](unsafeUninitializedCapacity: times.count) { quotes, count in
      for (i, time) in times.enumerated() {
        let (sum, overflow) = time.addingReportingOverflow(latency)
        try advance(to: overflow ? .max : sum)
        quotes.initializeElement(at: i, to: quote)
        quoteTimes[i] = quoteTime
        count = i + 1
      }
    }
    return (quotes, quoteTimes)
  }

  /// Takes every quote at or before `t` (not before the time asked last).
  @inline(__always)
  private func advance(to t: Int64) throws {
    while let current = chunk {
      let time = current.time
      var j = next
      while j < time.count && time[j] <= t { j += 1 }
      if j > next {
        let k = j - 1
        let sized = readsSizes && !current.bidSize.isEmpty
        quote = FillQuote(
          bid: current.bid[k], ask: current.ask[k], bidSize: sized ? current.bidSize[k] : .nan, askSize: sized ? current.askSize[k] : .nan,
          row: base + k)
        quoteTime = time[k]
        next = j
      }
      guard next == time.count else { return }
      base += time.count
      next = 0
      chunk = try stream.next(maxRows: rows)
    }
  }
}
