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
protocol FillCursor: AnyObject {
  /// The fill time after each of `times` (ascending, none before a time asked earlier),
  /// the quote in force then and its own time: the cursor's columns, refilled in place
  /// on its next call (when the caller has let go of them, without a fresh allocation).
  func fill(_ times: [Int64]) throws -> (quotes: [FillQuote], times: [Int64], fillTimes: [Int64])

  /// The longest recorded delay of every quote of the leg (0 unless the slot is
  /// `recorded`), reading the stream to its end.
  func longestRecordedDelay() throws -> Int64
}

/// The cursor for `slot` on `stream`, read `rows` quotes at a time; `readsSizes`: the
/// quotes carry the book sizes (else `nan`). A fixed latency's fills ascend with the
/// signals and are found by one walk through the stream's chunks (`FixedLatencyCursor`);
/// a drawn one's are searched among the quotes kept (`AsOfCursor`).
func fillCursor(_ stream: any QuoteStream, slot: FillSlot, rows: Int, readsSizes: Bool) -> any FillCursor {
  if case .fixed(let latency) = slot.latency { return FixedLatencyCursor(stream, latency: latency, rows: rows, readsSizes: readsSizes) }
  return AsOfCursor(stream, slot: slot, rows: rows, readsSizes: readsSizes)
}

/// A fixed latency's fill quotes: the quote in force `latency` after each signal, found
/// by walking the stream's chunks forward, the current chunk and the quote in force
/// kept by value between calls. Memory: one chunk.
final class FixedLatencyCursor: FillCursor {
  private let stream: any QuoteStream
  private let latency: Int64
  private let rows: Int
  private let readsSizes: Bool
  private var chunk: QuoteChunk?
  private var started = false
  /// The next row of `chunk` to take, and the leg row of the chunk's first.
  private var next = 0
  private var base = 0
  private var quote = FillQuote(bid: .nan, ask: .nan, bidSize: .nan, askSize: .nan, row: -1)
  private var quoteTime = Int64.min
  /// The columns `fill` returns.
  private var filledQuotes: [FillQuote] = []
  private var filledTimes: [Int64] = []
  private var fillTimes: [Int64] = []

  init(_ stream: any QuoteStream, latency: Int64, rows: Int, readsSizes: Bool) {
    self.stream = stream
    self.latency = latency
    self.rows = rows
    self.readsSizes = readsSizes
  }

  func longestRecordedDelay() -> Int64 { 0 }

  func fill(_ times: [Int64]) throws -> (quotes: [FillQuote], times: [Int64], fillTimes: [Int64]) {
    if !started {
      started = true
      chunk = try stream.next(maxRows: rows)
    }
    let n = times.count
    filledQuotes.removeAll(keepingCapacity: true)
    filledTimes.removeAll(keepingCapacity: true)
    fillTimes.removeAll(keepingCapacity: true)
    filledQuotes.append(contentsOf: repeatElement(quote, count: n))
    filledTimes.append(contentsOf: repeatElement(0, count: n))
    fillTimes.append(contentsOf: repeatElement(0, count: n))
    // The walk in locals (a class's stored properties cost an access check per use).
    var (chunk, next, base, quote, quoteTime) = (chunk, next, base, quote, quoteTime)
    let (latency, readsSizes, rows, stream) = (latency, readsSizes, rows, stream)
    try filledQuotes.withUnsafeMutableBufferPointer { quotes in
      try filledTimes.withUnsafeMutableBufferPointer { quoteTimes in
        try fillTimes.withUnsafeMutableBufferPointer { fillTimes in
          for i in 0..<n {
            let t = IndexedRun.adding(latency, to: times[i])
            // Every quote at or before t, reading chunks as needed.
            while let current = chunk {
              let time = current.time
              var j = next
              while j < time.count && time[j] <= t { j += 1 }
              if j > next {
                let k = j - 1
                let sized = readsSizes && !current.bidSize.isEmpty
                quote = FillQuote(
                  bid: current.bid[k], ask: current.ask[k], bidSize: sized ? current.bidSize[k] : .nan,
                  askSize: sized ? current.askSize[k] : .nan, row: base + k)
                quoteTime = time[k]
                next = j
              }
              guard next == time.count else { break }
              base += time.count
              next = 0
              chunk = try stream.next(maxRows: rows)
            }
            quotes[i] = quote
            quoteTimes[i] = quoteTime
            fillTimes[i] = t
          }
        }
      }
    }
    (self.chunk, self.next, self.base, self.quote, self.quoteTime) = (chunk, next, base, quote, quoteTime)
    return (filledQuotes, filledTimes, fillTimes)
  }
}

/// A drawn latency's fill quotes (uniform, lognormal or recorded).
///
/// A drawn latency's fill times do not ascend, and a signal's fill may lie past a later
/// signal's, or past the chunk the signal is in: the cursor keeps, copied out of the
/// stream's chunks, every quote from the one in force at its floor (the last signal
/// asked about plus the slot's least latency: no later fill is earlier) to the last it
/// has read, and reads on as far as the latest fill asks. Memory: the quotes between
/// the floor and the latest fill asked so far, and `readRows` more (twice that at most,
/// as the kept quotes move down in bulk).
final class AsOfCursor: FillCursor {
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
