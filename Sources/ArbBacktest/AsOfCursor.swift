import ArbCore

/// One leg at one latency some streamed run fills at: the cursor its fill quotes are
/// read through. Runs share a slot when their fills are the same: a fixed latency's
/// fills do not depend on the seed, a drawn one's do.
struct FillSlot: Equatable {
  var leg: Int
  var latency: Latency
  /// The seed of the draws (0 for a fixed latency).
  var seed: UInt64

  init(leg: Int, latency: Latency, seed: UInt64) {
    self.leg = leg
    self.latency = latency
    if case .fixed = latency { self.seed = 0 } else { self.seed = seed }
  }

  /// The slots streamed runs read their fill quotes through, one per leg and latency
  /// (with its seed) some run fills at, and each run's slot for leg 0 and leg 1; a run
  /// is given by its legs' latencies and its seed.
  static func slots(_ runs: [(latencies: [Latency], seed: UInt64)]) -> (slots: [FillSlot], runs: [(Int, Int)]) {
    var slots: [FillSlot] = []
    let runSlots = runs.map { run -> (Int, Int) in
      let slot = (0..<2).map { k in
        let slot = FillSlot(leg: k, latency: run.latencies[k], seed: run.seed)
        if let s = slots.firstIndex(of: slot) { return s }
        slots.append(slot)
        return slots.count - 1
      }
      return (slot[0], slot[1])
    }
    return (slots, runSlots)
  }
}

/// One leg's fill quotes at one slot, read from a stream: for signals at increasing
/// times, each fill time (the signal's time plus the slot's latency, fixed or drawn as
/// `Fills` draws it on whole legs) and the last quote at or before it, with its row in
/// the leg and its own time.
///
/// A drawn latency's fill times do not ascend, and a signal's fill may lie past a later
/// signal's, or past the chunk the signal is in: the cursor keeps, copied out of the
/// stream's chunks, every quote from the one in force at its floor (the last signal
/// asked about plus the slot's least latency: no later fill is earlier) to the last it
/// has read, and reads on as far as the latest fill asks. Memory: the quotes between
/// the floor and the latest fill asked so far, and `readRows` more (twice that at most,
/// as the kept quotes move down in bulk).
final class AsOfCursor {
  private let stream: any QuoteStream
  private let slot: FillSlot
  private let rows: Int
  private let readsSizes: Bool
  /// Whether the stream has no quote left.
  private var ended = false
  /// The quotes kept, at positions from `start` on (the ones before are released and
  /// dropped in bulk); position `i` is leg row `firstRow + i`.
  private var time: [Int64] = []
  private var otherTime: [Int64] = []
  private var bid: [Double] = []
  private var ask: [Double] = []
  private var bidSize: [Double] = []
  private var askSize: [Double] = []
  private var start = 0
  private var firstRow = 0
  /// The earliest time still to be asked for: the quotes before the one in force then
  /// are let go before more are read.
  private var floor = Int64.min
  /// The position of the last quote found (where the next search starts).
  private var hint = 0
  /// The longest recorded delay of the quotes read (a `recorded` slot's; 0 for others).
  private var longestRecorded: Int64 = 0
  /// The columns `fill` returns.
  private var filledQuotes: [FillQuote] = []
  private var filledTimes: [Int64] = []
  private var fillTimes: [Int64] = []

  /// Quotes read at a time at most: the copies kept ahead of the fills asked stay small
  /// whatever the legs' chunk size.
  static let readRows = 1 << 12

  /// A cursor on `stream` (leg `slot.leg`, with its other clock when `slot` is
  /// `recorded`), read `rows` quotes (at most `readRows`) at a time; `readsSizes`: the
  /// quotes carry the book sizes (else `nan`).
  init(_ stream: any QuoteStream, slot: FillSlot, rows: Int, readsSizes: Bool) {
    self.stream = stream
    self.slot = slot
    self.rows = min(rows, Self.readRows)
    self.readsSizes = readsSizes
  }

  /// The fill time after each of `times` (ascending, none before a time asked earlier),
  /// the quote in force then and its own time: the cursor's columns, refilled in place
  /// on its next call (when the caller has let go of them, without a fresh allocation).
  func fill(_ times: [Int64]) throws -> (quotes: [FillQuote], times: [Int64], fillTimes: [Int64]) {
    filledQuotes.removeAll(keepingCapacity: true)
    filledTimes.removeAll(keepingCapacity: true)
    fillTimes.removeAll(keepingCapacity: true)
    // Room for exactly the points (appending would double it past them).
    filledQuotes.reserveCapacity(times.count)
    filledTimes.reserveCapacity(times.count)
    fillTimes.reserveCapacity(times.count)
    for t in times {
      // No fill from here on is before this signal plus the least latency.
      floor = IndexedRun.adding(slot.latency.least, to: t)
      let recorded = slot.latency == .recorded ? try recordedDelay(at: t) : 0
      let delay = slot.latency.delay(seed: slot.seed, time: t, leg: slot.leg, recorded: recorded)
      let fillTime = IndexedRun.adding(delay, to: t)
      let (quote, quoteTime) = try quote(at: fillTime)
      filledQuotes.append(quote)
      filledTimes.append(quoteTime)
      fillTimes.append(fillTime)
    }
    return (filledQuotes, filledTimes, fillTimes)
  }

  /// The longest recorded delay of every quote of the leg (0 unless the slot is
  /// `recorded`), reading the stream to its end.
  func longestRecordedDelay() throws -> Int64 {
    if slot.latency == .recorded {
      while try readChunk(keeping: false) {}
    }
    return longestRecorded
  }

  /// The recorded delay of the quote in force at `t` (a valid point's: there is one).
  private func recordedDelay(at t: Int64) throws -> Int64 {
    let i = try position(at: t)
    precondition(i >= start, "a signal has a quote in force")
    return stream.clock.recordedDelay(time: time[i], otherTime: otherTime[i])
  }

  /// The quote in force at `t` and its time: none (`nan`, row -1, `Int64.min`) before
  /// the leg's first.
  private func quote(at t: Int64) throws -> (FillQuote, Int64) {
    let i = try position(at: t)
    guard i >= start else { return (FillQuote(bid: .nan, ask: .nan, bidSize: .nan, askSize: .nan, row: -1), .min) }
    let sized = readsSizes && !bidSize.isEmpty
    let quote = FillQuote(
      bid: bid[i], ask: ask[i], bidSize: sized ? bidSize[i] : .nan, askSize: sized ? askSize[i] : .nan, row: firstRow + i)
    return (quote, time[i])
  }

  /// The position of the last quote at or before `t` (`start - 1`: none), reading the
  /// stream until a quote after `t` is kept or it ends.
  private func position(at t: Int64) throws -> Int {
    while !ended && (time.count == start || time[time.count - 1] <= t) {
      release(before: floor)
      _ = try readChunk(keeping: true)
    }
    // time[low] ≤ t < time[high], with time[start - 1] = -∞ and time[count] = +∞.
    var (low, high) = (start - 1, time.count)
    if hint >= start && hint < time.count {
      if time[hint] <= t {
        // Galloping from the last quote found: signals' fills are mostly near each other.
        low = hint
        var step = 1
        while low + step < high {
          if time[low + step] <= t {
            low += step
            step *= 2
          } else {
            high = low + step
          }
        }
      } else {
        high = hint
      }
    }
    while high - low > 1 {
      let middle = (low + high) / 2
      if time[middle] <= t { low = middle } else { high = middle }
    }
    hint = max(low, start)
    return low
  }

  /// Reads the stream's next chunk, keeping its quotes when `keeping`; whether there was one.
  private func readChunk(keeping: Bool) throws -> Bool {
    guard !ended, let chunk = try stream.next(maxRows: rows) else {
      ended = true
      return false
    }
    if slot.latency == .recorded {
      precondition(chunk.count == 0 || !chunk.otherTime.isEmpty, "a recorded latency reads a leg with both clocks")
      for j in 0..<chunk.count {
        longestRecorded = max(longestRecorded, stream.clock.recordedDelay(time: chunk.time[j], otherTime: chunk.otherTime[j]))
      }
      if keeping { otherTime.append(contentsOf: chunk.otherTime) }
    }
    guard keeping else { return true }
    time.append(contentsOf: chunk.time)
    bid.append(contentsOf: chunk.bid)
    ask.append(contentsOf: chunk.ask)
    if readsSizes && !chunk.bidSize.isEmpty {
      bidSize.append(contentsOf: chunk.bidSize)
      askSize.append(contentsOf: chunk.askSize)
    }
    return true
  }

  /// Drops the quotes before the one in force at `floor` (none is asked for again),
  /// moving the rest down once the dropped ones are as many as the kept.
  private func release(before floor: Int64) {
    var (low, high) = (start - 1, time.count)
    while high - low > 1 {
      let middle = (low + high) / 2
      if time[middle] <= floor { low = middle } else { high = middle }
    }
    start = max(start, low)
    guard start > 0, 2 * start >= time.count else { return }
    time.removeFirst(start)
    bid.removeFirst(start)
    ask.removeFirst(start)
    if !otherTime.isEmpty { otherTime.removeFirst(start) }
    if !bidSize.isEmpty {
      bidSize.removeFirst(start)
      askSize.removeFirst(start)
    }
    firstRow += start
    hint = max(0, hint - start)
    start = 0
  }
}
