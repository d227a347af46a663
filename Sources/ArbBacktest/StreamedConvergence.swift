import ArbAnalytics
import ArbCore
import Dispatch
import Synchronization

/// The results of streamed runs and the size of the alignment they ran on.
public struct StreamedResult<Run: Sendable>: Sendable {
  /// One per run, in the order of the runs.
  public var runs: [Run]
  /// Clock points of the aligned legs, and the valid ones.
  public var clockPoints: Int
  public var validPoints: Int
  /// Each leg's first and last quote time (`nil` for a leg without quotes).
  public var legTimes: [ClosedRange<Int64>?]
  /// Each leg's price source, as its stream knew it at its end, and its quotes.
  public var priceSources: [PriceSource]
  public var legRows: [Int]
  /// Each leg's longest recorded delay (µs, `QuoteSeries.recordedDelay`) when a run's
  /// latency on it is `recorded`, else 0: what `Scenario.latencyBound` reads of it.
  public var longestRecordedDelays: [Int64]

  /// The runs' results `runs` on the legs `alignment` aligned, read from `legs`, with
  /// the legs' longest recorded delays read by `cursors` (those of `slots`).
  init(_ runs: [Run], alignment: PremiumStream, legs: [any QuoteStream], slots: [FillSlot], cursors: [any FillCursor]) throws {
    self.runs = runs
    var longest: [Int64] = [0, 0]
    for k in 0..<2 {
      // One recorded slot of the leg reads its delays.
      if let s = slots.firstIndex(where: { $0.leg == k && $0.latency == .recorded }) { longest[k] = try cursors[s].longestRecordedDelay() }
    }
    longestRecordedDelays = longest
    clockPoints = alignment.points
    validPoints = alignment.validPoints
    legTimes = (0..<2).map { k in alignment.legFirstTime[k].flatMap { first in alignment.legLastTime[k].map { first...$0 } } }
    priceSources = legs.map(\.priceSource)
    legRows = alignment.legRows
  }
}

/// The decisions of streamed convergence runs.
public typealias StreamedDecisions = StreamedResult<ConvergenceDecisions>

extension ConvergenceBacktest {
  /// Whether `decide(_:open:…)` can take this run's decisions: both legs taking (a maker
  /// order's rest reads its leg's trades and books), any latency, fixed or drawn. A book
  /// walk or a failed leg prices the decisions on another pass over the legs
  /// (`price(_:streams:chunkRows:)`).
  public var streams: Bool { parameters.maker == nil }

  /// The decisions of every run of `runs` on two legs read as streams, each exactly as
  /// `decide(legs:index:)` takes them on the whole legs; memory depends on
  /// `chunkPoints`, the number of runs and their latencies (a drawn latency's longest
  /// fill in a chunk), not on the length of the legs.
  ///
  /// Each leg is opened once and read through a `QuoteTee`. The valid points are aligned
  /// by a `PremiumStream` and indexed a chunk of `chunkPoints` clock points at a time;
  /// each chunk's fill quotes are read, per leg and latency (`FillSlot`), by a cursor of
  /// its own (`fillCursor`; the two legs' cursors side by side). The runs advance over one chunk's index, on `jobs`
  /// threads, and carry their state to the next (whose first point is the chunk's last:
  /// no entry is taken at the last valid point).
  ///
  /// - Parameters:
  ///   - open: a new stream over leg `k` (0 or 1), from its first quote, with the book
  ///     sizes and the other clock when `allColumns`.
  ///   - sellLeg: the runs' `sellLeg` (equal for all).
  /// - Throws: `AlignmentError` as `ConvergenceIndex.init`, or what a stream throws.
  public static func decide(
    _ runs: [ConvergenceBacktest], open: (_ leg: Int, _ allColumns: Bool) throws -> any QuoteStream, options: AlignmentOptions,
    sellLeg: Int? = nil, chunkPoints: Int = 1 << 16, legChunkRows: Int = 1 << 16, jobs: Int = 1
  ) throws -> StreamedDecisions {
    precondition(chunkPoints > 1, "a chunk holds the point it carries and at least one more")
    precondition(runs.allSatisfy { $0.streams && $0.parameters.sellLeg == sellLeg }, "runs that stream, on one direction rule")
    let readsSizes = runs.contains { $0.parameters.capAtBook }
    // One cursor per leg and latency the runs fill at.
    let (slots, runSlots) = FillSlot.slots(runs.map { ($0.parameters.latencies, $0.parameters.seed) })
    let states = zip(runs, runSlots).map { IndexedRun(parameters: $0.parameters, fills: .slots($1.0, $1.1)) }
    // Each leg is read once; the alignment and the cursors read it through a tee.
    let allColumns = readsSizes || slots.contains { $0.latency == .recorded }
    let legs = [try open(0, allColumns), try open(1, allColumns)]
    let tees = legs.map { QuoteTee($0, rows: legChunkRows) }
    let aligned = tees.map { $0.branch() }
    let branches = slots.map { tees[$0.leg].branch() }
    let inForce = tees.map { $0.branch() }
    let alignment = try PremiumStream(legs: aligned, options: options, chunkPoints: chunkPoints, legChunkRows: legChunkRows, keepQuotes: true)
    let cursors = zip(slots, branches).map { fillCursor($1, slot: $0, rows: legChunkRows, readsSizes: readsSizes) }
    let inForceCursors = inForce.enumerated().map { k, branch in
      fillCursor(branch, slot: FillSlot(leg: k, latency: 0, seed: 0), rows: legChunkRows, readsSizes: readsSizes)
    }
    let work = StreamedRuns(runs: states, slots: slots, cursors: cursors, inForce: inForceCursors, sellLeg: sellLeg, jobs: jobs)
    // Each chunk of the alignment is decided as it comes (the tees hold about a chunk
    // of each leg, and its latencies' span), on another thread while this one aligns the
    // next; a chunk's last point is the next chunk's first.
    var pending = [PendingPoints(sellLeg: sellLeg, capacity: chunkPoints + 1), PendingPoints(sellLeg: sellLeg, capacity: chunkPoints + 1)]
    var filling = 0
    let deciding = DispatchGroup()
    defer { deciding.wait() }
    while let chunk = try alignment.next() {
      pending[filling].append(chunk)
      guard pending[filling].times.count > 1 else { continue }
      deciding.wait()
      try work.rethrow()
      pending[1 - filling].restart(after: pending[filling])
      let points = pending[filling]  // read by the decision only; this thread fills the other
      DispatchQueue.global().async(group: deciding) { work.decide(points, isLast: false) }
      filling = 1 - filling
    }
    deciding.wait()
    try work.rethrow()
    work.decide(pending[filling], isLast: true)
    try work.rethrow()
    let decisions = work.runs.map { ConvergenceDecisions(trades: $0.trades, skipped: $0.skipped.list, firstTime: work.firstTime, lastTime: work.lastTime) }
    return try StreamedDecisions(decisions, alignment: alignment, legs: legs, slots: slots, cursors: cursors)
  }
}

/// The runs of a streamed decision and what they read: one chunk of valid points after
/// another, in order, each on one thread at a time.
private final class StreamedRuns: @unchecked Sendable {
  private(set) var runs: [IndexedRun]
  private let slots: [FillSlot]
  private let cursors: [any FillCursor]
  /// Per leg, the cursor of the quotes in force at each chunk's last point.
  private let inForce: [any FillCursor]
  private let sellLeg: Int?
  private let jobs: Int
  /// The first and last valid points' times so far.
  private(set) var firstTime: Int64?
  private(set) var lastTime: Int64?
  /// The first error of a chunk; the chunks after it are not decided.
  private var failure: (any Error)?

  init(runs: [IndexedRun], slots: [FillSlot], cursors: [any FillCursor], inForce: [any FillCursor], sellLeg: Int?, jobs: Int) {
    self.runs = runs
    self.slots = slots
    self.cursors = cursors
    self.inForce = inForce
    self.sellLeg = sellLeg
    self.jobs = jobs
  }

  /// Throws the error a chunk met.
  func rethrow() throws { if let failure { throw failure } }

  /// Reads the fill quotes of `pending`, indexes it and advances every run through it;
  /// unless `isLast`, moves the runs on to a next chunk that begins with its last point.
  func decide(_ pending: PendingPoints, isLast: Bool) {
    guard failure == nil else { return }
    do { try decideChunk(pending, isLast: isLast) } catch { failure = error }
  }

  private func decideChunk(_ pending: PendingPoints, isLast: Bool) throws {
    let m = pending.times.count
    guard m > 0 else { return }
    firstTime = firstTime ?? pending.times[0]
    lastTime = pending.times[m - 1]
    // The cursors of the two legs read side by side (those of one leg share its tee: in turn).
    let read = Mutex<(filled: [Int: (quotes: [FillQuote], times: [Int64], fillTimes: [Int64])], last: [Int: FillQuote], failure: (any Error)?)>(
      ([:], [:], nil))
    DispatchQueue.concurrentPerform(iterations: 2) { k in
      do {
        for s in slots.indices where slots[s].leg == k {
          let column = try cursors[s].fill(pending.times)
          read.withLock { $0.filled[s] = column }
        }
        let last = try inForce[k].fill([pending.times[m - 1]]).quotes[0]
        read.withLock { $0.last[k] = last }
      } catch {
        read.withLock { $0.failure = $0.failure ?? error }
      }
    }
    let (filled, last, failure) = read.withLock { ($0.filled, $0.last, $0.failure) }
    if let failure { throw failure }
    let fills = DelayedFills(
      quotes: slots.indices.map { filled[$0]!.quotes }, quoteTimes: slots.indices.map { filled[$0]!.times },
      fillTimes: slots.indices.map { filled[$0]!.fillTimes }, lastInForce: (last[0]!, last[1]!))
    let index = ConvergenceIndex(
      points: .streamed(times: pending.times, fills: fills), richIsFirst: pending.richIsFirst,
      premiums: [pending.entry, pending.closeFirst, pending.closeSecond], sellLeg: sellLeg, clockPoints: 0)
    // The runs in `jobs` contiguous batches, one thread each.
    let batches = max(1, min(jobs, runs.count))
    let size = (runs.count + batches - 1) / batches
    runs.withUnsafeMutableBufferPointer { all in
      nonisolated(unsafe) let all = all  // each batch advances its own runs
      DispatchQueue.concurrentPerform(iterations: batches) { b in
        let range = min(b * size, all.count)..<min((b + 1) * size, all.count)
        var batch = ArraySlice(all[range])
        IndexedRun.advance(&batch, through: index, isLast: isLast, span: 1 << 12)
        for (k, run) in zip(range, batch) { all[k] = run }
      }
    }
    guard !isLast else { return }
    for k in runs.indices { runs[k].rebase(by: m - 1) }
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

  /// Holds only the last point of `previous` (the first of the next chunk), keeping the room.
  mutating func restart(after previous: PendingPoints) {
    times.removeAll(keepingCapacity: true)
    richIsFirst.removeAll(keepingCapacity: true)
    entry.removeAll(keepingCapacity: true)
    closeFirst.removeAll(keepingCapacity: true)
    closeSecond.removeAll(keepingCapacity: true)
    times.append(previous.times.last!)
    richIsFirst.append(previous.richIsFirst.last!)
    entry.append(previous.entry.last!)
    closeFirst.append(previous.closeFirst.last!)
    closeSecond.append(previous.closeSecond.last!)
  }
}
