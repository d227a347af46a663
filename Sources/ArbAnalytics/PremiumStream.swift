import ArbCore

/// Consecutive points of a premium series: what `PremiumStream` yields, a bounded
/// chunk at a time. The buffers belong to the stream and stay valid until its next
/// `next()`.
public struct PremiumChunk: @unchecked Sendable {
  public let time: UnsafeBufferPointer<Int64>
  /// Time to the next point (of this chunk or the next); 0 for the last point of the series.
  public let duration: UnsafeBufferPointer<Int64>
  public let valid: UnsafeBufferPointer<Bool>
  /// As `PremiumSeries`: percent, `nan` at invalid points (never read there).
  public let mid: UnsafeBufferPointer<Double>
  public let exec: UnsafeBufferPointer<Double>
  public let rich: UnsafeBufferPointer<Int8>
  public let cheap: UnsafeBufferPointer<Int8>
  public let top: UnsafeBufferPointer<Int8>
  public let bottom: UnsafeBufferPointer<Int8>
  /// With `keepQuotes`: per point, every leg's quote in force, bids then asks
  /// (`2 × legCount` values per point; `nan` before a leg's first quote); else empty.
  public let quotes: UnsafeBufferPointer<Double>
  /// With `keepQuotes`: per point, the time of every leg's quote in force (`legCount`
  /// values per point; `Int64.min` before a leg's first quote); else empty.
  public let quoteTimes: UnsafeBufferPointer<Int64>
  /// With `keepUsableQuotes`: per point, every leg's quote when it is usable (as for
  /// `valid`: quoted, both sides finite and positive, no older than its staleness limit),
  /// `nan` when not, bids then asks (`2 × legCount` values per point); else empty.
  public let usableQuotes: UnsafeBufferPointer<Double>
  /// With `keepSizes`: per point, the sizes of every leg's quote when it is usable (as
  /// `usableQuotes`), `nan` when not or when the quote has none, bids then asks
  /// (`2 × legCount` values per point); else empty.
  public let usableSizes: UnsafeBufferPointer<Double>
  /// With `keepSizes`: per point, the index in `usableBooks` of the book behind every
  /// leg's quote when it is usable and its leg has books, -1 when not (`legCount` values
  /// per point); else empty.
  public let usableBookIndex: UnsafeBufferPointer<Int64>
  /// With `keepSizes`, when a leg has books: those `usableBookIndex` names.
  public let usableBooks: BookChunk?

  public var count: Int { time.count }

  /// A chunk of the given columns; `quotes`, `quoteTimes`, `usableQuotes`, `usableSizes`
  /// and `usableBookIndex` may be empty.
  public init(
    time: UnsafeBufferPointer<Int64>, duration: UnsafeBufferPointer<Int64>, valid: UnsafeBufferPointer<Bool>,
    mid: UnsafeBufferPointer<Double>, exec: UnsafeBufferPointer<Double>, rich: UnsafeBufferPointer<Int8>,
    cheap: UnsafeBufferPointer<Int8>, top: UnsafeBufferPointer<Int8>, bottom: UnsafeBufferPointer<Int8>,
    quotes: UnsafeBufferPointer<Double> = UnsafeBufferPointer(start: nil, count: 0),
    quoteTimes: UnsafeBufferPointer<Int64> = UnsafeBufferPointer(start: nil, count: 0),
    usableQuotes: UnsafeBufferPointer<Double> = UnsafeBufferPointer(start: nil, count: 0),
    usableSizes: UnsafeBufferPointer<Double> = UnsafeBufferPointer(start: nil, count: 0),
    usableBookIndex: UnsafeBufferPointer<Int64> = UnsafeBufferPointer(start: nil, count: 0), usableBooks: BookChunk? = nil
  ) {
    (self.time, self.duration, self.valid, self.mid, self.exec) = (time, duration, valid, mid, exec)
    (self.rich, self.cheap, self.top, self.bottom) = (rich, cheap, top, bottom)
    (self.quotes, self.quoteTimes, self.usableQuotes) = (quotes, quoteTimes, usableQuotes)
    (self.usableSizes, self.usableBookIndex, self.usableBooks) = (usableSizes, usableBookIndex, usableBooks)
  }
}

/// Where the points of a premium series come from, a chunk at a time, and what was
/// read to make them: the alignment of legs (`PremiumStream`), or the replay of the
/// points shards made of it.
public protocol PremiumPoints: AnyObject {
  var legCount: Int { get }
  /// Quotes read, and the first and last quote time, of each leg so far.
  var legRows: [Int] { get }
  var legFirstTime: [Int64?] { get }
  var legLastTime: [Int64?] { get }
  /// Points produced so far, and the valid ones among them.
  var points: Int { get }
  var validPoints: Int { get }
  /// The next chunk of points, `nil` after the last.
  func next() throws -> PremiumChunk?
}

/// The premium series of legs read as streams: the as-of merge of `PremiumSeries`
/// (`docs/definitions.md`, "Alignment") walked over bounded chunks of each leg, so that
/// memory depends on the chunk size and the number of legs, not on the length of the
/// history. The points, their validity and premiums are exactly those of
/// `PremiumSeries(legs:options:maxPremium:)` on the same quotes.
///
/// Each leg's quote in force is kept by value across its chunks. Errors the whole-series
/// alignment finds before it starts are found here as soon as they can be: an empty leg
/// at the first chunk, times spanning more than an `Int64` as they are read, a grid past
/// `TimeArithmetic.gridPointLimit` points as it is walked, and legs that never overlap
/// when the last leg ends (before the caller has the last chunk).
public final class PremiumStream: PremiumPoints {
  public let legCount: Int
  /// Quotes read, and the first and last quote time, of each leg so far.
  public private(set) var legRows: [Int]
  public private(set) var legFirstTime: [Int64?]
  public private(set) var legLastTime: [Int64?]
  /// With `keepSizes`: whether each leg has yielded a quote with a size so far.
  public private(set) var legHasSizes: [Bool]
  /// With `keepSizes`: the most levels on a side of any book each leg has yielded so
  /// far; `nil` for a leg without books.
  public private(set) var legDeepest: [Int?]
  /// Points produced so far, and the valid ones among them.
  public private(set) var points = 0
  public private(set) var validPoints = 0

  private let legs: [any QuoteStream]
  private let options: AlignmentOptions
  private let chunkPoints: Int
  private let legChunkRows: Int
  private let required: Int
  /// First time at which `required` legs have quoted.
  private let start: Int64
  /// On a grid: the next grid point (`nil` past `Int64.max`).
  private var gridNext: Int64?
  private let keepQuotes: Bool
  private let keepUsableQuotes: Bool
  private let keepSizes: Bool
  private let checksOverlap: Bool
  /// Per leg (a buffer, not an array: the walk reads it at every point without access checks).
  private let readers: UnsafeMutableBufferPointer<LegReader>
  private var finished = false
  /// Earliest first time of any leg: every time read must be within an `Int64` of it.
  private let earliest: Int64

  // Point buffers: `chunkPoints + 1`, the last point waiting for its successor's time.
  private let time: UnsafeMutableBufferPointer<Int64>
  private let duration: UnsafeMutableBufferPointer<Int64>
  private let valid: UnsafeMutableBufferPointer<Bool>
  private let mid: UnsafeMutableBufferPointer<Double>
  private let exec: UnsafeMutableBufferPointer<Double>
  private let rich: UnsafeMutableBufferPointer<Int8>
  private let cheap: UnsafeMutableBufferPointer<Int8>
  private let top: UnsafeMutableBufferPointer<Int8>
  private let bottom: UnsafeMutableBufferPointer<Int8>
  private let legQuotes: UnsafeMutableBufferPointer<Double>
  private let legQuoteTimes: UnsafeMutableBufferPointer<Int64>
  private let legUsableQuotes: UnsafeMutableBufferPointer<Double>
  private let legUsableSizes: UnsafeMutableBufferPointer<Double>
  private let legUsableBookIndex: UnsafeMutableBufferPointer<Int64>
  /// The books `legUsableBookIndex` names, and the buffers they are moved to when the
  /// last point is carried (swapped with them).
  private var usableBooks = BookBlock()
  private var spareBooks = BookBlock()
  /// Per leg, the book of its quote in force when that came from an earlier chunk.
  private let carriedBooks: [BookBlock]
  /// Per leg, the stream index of the quote whose book was appended last to `usableBooks`
  /// (-1: none), and where.
  private let lastBookRow: UnsafeMutableBufferPointer<Int64>
  private let lastBookIndex: UnsafeMutableBufferPointer<Int64>
  /// The usable quotes of the point being made (bids, then asks; `nan` when unusable).
  private let usableQuotes: UnsafeMutableBufferPointer<Double>
  /// Points held in the buffers (the carried point of the last chunk, then new ones).
  private var held = 0

  /// Opens the merge of `legs`; reads each leg's first chunk.
  ///
  /// - Parameters:
  ///   - chunkPoints: points per chunk yielded (> 0); with `keepSizes` over legs with
  ///     books, at most `BookChunk.rowsAtATime` (each point's books are copied into the chunk).
  ///   - legChunkRows: quotes asked of a leg's stream at a time (> 0).
  ///   - maxPremium: `mid` is the max premium even for two legs.
  ///   - keepQuotes: fill `PremiumChunk.quotes` (what `--series` prints).
  ///   - keepUsableQuotes: fill `PremiumChunk.usableQuotes`.
  ///   - keepSizes: fill `PremiumChunk.usableSizes`, `usableBookIndex` and `usableBooks`,
  ///     and note which legs have sizes (`legHasSizes`) and how deep their books are
  ///     (`legDeepest`); the legs' streams must yield their sizes.
  ///   - checksOverlap: refuse legs that never overlap at the end; `false` when the legs
  ///     are part of a history, whose overlap the caller checks (`checkOverlap`).
  /// - Throws: `AlignmentError` (too few legs, an empty leg, `.time`), or what a leg's stream throws.
  public init(
    legs: [any QuoteStream], options: AlignmentOptions = AlignmentOptions(), maxPremium: Bool = false, chunkPoints: Int = 1 << 16,
    legChunkRows: Int = 1 << 16, keepQuotes: Bool = false, keepUsableQuotes: Bool = false, keepSizes: Bool = false,
    checksOverlap: Bool = true
  ) throws {
    precondition(chunkPoints > 0 && legChunkRows > 0, "chunks hold at least one row")
    precondition(legs.count <= 127, "PremiumStream: at most 127 legs")
    guard legs.count >= 2 else { throw AlignmentError.tooFewLegs(count: legs.count) }
    self.legs = legs
    self.options = options
    self.legChunkRows = legChunkRows
    self.keepQuotes = keepQuotes
    self.keepUsableQuotes = keepUsableQuotes
    self.keepSizes = keepSizes
    self.checksOverlap = checksOverlap
    legCount = legs.count
    required = min(options.minimumLegs ?? legs.count, legs.count)
    let limits = (0..<legs.count).map(options.maxStale(leg:))
    var readers: [LegReader] = []
    carriedBooks = legs.map { _ in BookBlock() }
    for (k, (leg, limit)) in zip(legs, limits).enumerated() {
      var reader = LegReader(limit: limit, readsSizes: keepSizes)
      try reader.refill(leg, rows: legChunkRows, carried: carriedBooks[k])
      guard reader.nextTime != .max else { throw AlignmentError.emptyLeg(instrument: leg.instrument.description) }
      readers.append(reader)
    }
    let firsts = readers.map(\.nextTime)
    start = firsts.sorted()[required - 1]
    earliest = firsts.min()!
    legRows = readers.map(\.rows)
    legHasSizes = readers.map(\.sawSize)
    legDeepest = readers.map(\.deepest)
    let chunkPoints = keepSizes && legDeepest.contains { $0 != nil } ? min(chunkPoints, BookChunk.rowsAtATime) : chunkPoints
    self.chunkPoints = chunkPoints
    legFirstTime = firsts
    legLastTime = readers.map(\.lastRead)
    if let step = options.grid {
      precondition(step > 0, "grid step must be positive")
      // A grid too fine for the limit is refused before it is walked, when the legs' ends are known.
      let lasts = legs.compactMap(\.lastTime)
      if lasts.count == legs.count, let last = lasts.max(), last >= start {
        do { _ = try TimeArithmetic.grid(from: start, through: last, step: step) } catch { throw AlignmentError.time(error) }
      }
      do { gridNext = try TimeArithmetic.add(-start.floorMod(step), to: start, .grid) } catch { throw AlignmentError.time(error) }
    } else {
      gridNext = nil
    }
    self.readers = .allocate(capacity: readers.count)
    _ = self.readers.initialize(from: readers)
    let capacity = chunkPoints + 1
    time = .allocate(capacity: capacity)
    duration = .allocate(capacity: capacity)
    valid = .allocate(capacity: capacity)
    mid = .allocate(capacity: capacity)
    exec = .allocate(capacity: capacity)
    rich = .allocate(capacity: capacity)
    cheap = .allocate(capacity: capacity)
    top = .allocate(capacity: capacity)
    bottom = .allocate(capacity: capacity)
    legQuotes = .allocate(capacity: keepQuotes ? capacity * 2 * legs.count : 0)
    legQuoteTimes = .allocate(capacity: keepQuotes ? capacity * legs.count : 0)
    legUsableQuotes = .allocate(capacity: keepUsableQuotes ? capacity * 2 * legs.count : 0)
    legUsableSizes = .allocate(capacity: keepSizes ? capacity * 2 * legs.count : 0)
    legUsableBookIndex = .allocate(capacity: keepSizes ? capacity * legs.count : 0)
    lastBookRow = .allocate(capacity: legs.count)
    lastBookIndex = .allocate(capacity: legs.count)
    lastBookRow.initialize(repeating: -1)
    lastBookIndex.initialize(repeating: -1)
    usableQuotes = .allocate(capacity: 2 * legs.count)
    self.maxPremium = maxPremium || legs.count > 2
    try checkSpan()
  }

  /// `mid` is highest over lowest mid.
  public let maxPremium: Bool

  deinit {
    readers.deallocate()
    for buffer in [time, duration, legQuoteTimes, legUsableBookIndex, lastBookRow, lastBookIndex] { buffer.deallocate() }
    valid.deallocate()
    for buffer in [mid, exec, legQuotes, legUsableQuotes, legUsableSizes, usableQuotes] { buffer.deallocate() }
    for buffer in [rich, cheap, top, bottom] { buffer.deallocate() }
  }

  /// The next at most `chunkPoints` points, or `nil` after the last.
  ///
  /// - Throws: `AlignmentError.noOverlap` when the legs turn out never to overlap,
  ///   `.time` for times out of range, or what a leg's stream throws.
  public func next() throws -> PremiumChunk? {
    guard !finished || held > 0 else { return nil }
    if held == chunkPoints + 1 {
      carryLastPoint()
    } else if keepSizes {
      usableBooks.removeAll()
      for k in 0..<legCount { (lastBookRow[k], lastBookIndex[k]) = (-1, -1) }
    }
    var writer = PremiumWriter(
      time: time, valid: valid, mid: mid, exec: exec, rich: rich, cheap: cheap, top: top, bottom: bottom, legCount: legCount,
      maxPremium: maxPremium)
    // The walk's counters in locals: a class's stored `var` costs an access check per use.
    var walk = Walk(held: held, points: points, gridNext: gridNext)
    while !finished && walk.held < chunkPoints + 1 {
      if try !makePoint(&writer, &walk) {
        finished = true
        if checksOverlap { try Self.checkOverlap(firsts: legFirstTime.map { $0! }, lasts: legLastTime.map { $0! }, required: required) }
      }
    }
    (held, points, gridNext) = (walk.held, walk.points, walk.gridNext)
    validPoints += writer.validPoints
    // The last held point waits for the next point's time unless the series ended.
    let count = finished ? held : chunkPoints
    for i in 0..<count { duration[i] = i + 1 < held ? time[i + 1] - time[i] : 0 }
    if finished { held = 0 }
    guard count > 0 else { return nil }
    func view<T>(_ buffer: UnsafeMutableBufferPointer<T>, _ width: Int = 1) -> UnsafeBufferPointer<T> {
      UnsafeBufferPointer(rebasing: buffer[0..<(count * width)])
    }
    return PremiumChunk(
      time: view(time), duration: view(duration), valid: view(valid), mid: view(mid), exec: view(exec), rich: view(rich),
      cheap: view(cheap), top: view(top), bottom: view(bottom), quotes: view(legQuotes, keepQuotes ? 2 * legCount : 0),
      quoteTimes: view(legQuoteTimes, keepQuotes ? legCount : 0), usableQuotes: view(legUsableQuotes, keepUsableQuotes ? 2 * legCount : 0),
      usableSizes: view(legUsableSizes, keepSizes ? 2 * legCount : 0), usableBookIndex: view(legUsableBookIndex, keepSizes ? legCount : 0),
      usableBooks: legDeepest.contains { $0 != nil } ? usableBooks.all : nil)
  }

  /// Moves the point that waited for its successor to the front.
  private func carryLastPoint() {
    let last = chunkPoints
    time[0] = time[last]
    valid[0] = valid[last]
    mid[0] = mid[last]
    exec[0] = exec[last]
    rich[0] = rich[last]
    cheap[0] = cheap[last]
    top[0] = top[last]
    bottom[0] = bottom[last]
    let width = 2 * legCount
    if keepQuotes {
      for j in 0..<width { legQuotes[j] = legQuotes[last * width + j] }
      for k in 0..<legCount { legQuoteTimes[k] = legQuoteTimes[last * legCount + k] }
    }
    if keepUsableQuotes { for j in 0..<width { legUsableQuotes[j] = legUsableQuotes[last * width + j] } }
    if keepSizes {
      for j in 0..<width { legUsableSizes[j] = legUsableSizes[last * width + j] }
      // The carried point's books go first in the next chunk's; no other is kept.
      spareBooks.removeAll()
      let books = usableBooks.all
      for k in 0..<legCount {
        let index = legUsableBookIndex[last * legCount + k]
        if index >= 0 {
          spareBooks.append(books, Int(index))
          legUsableBookIndex[k] = Int64(spareBooks.count - 1)
        } else {
          legUsableBookIndex[k] = -1
          lastBookRow[k] = -1
        }
        lastBookIndex[k] = legUsableBookIndex[k]
      }
      swap(&usableBooks, &spareBooks)
    }
    held = 1
  }

  /// The counters `next()` walks with.
  private struct Walk {
    var held: Int
    var points: Int
    var gridNext: Int64?
  }

  /// Makes the next clock point into slot `walk.held`; `false` when there is none.
  @inline(__always)
  private func makePoint(_ writer: inout PremiumWriter, _ walk: inout Walk) throws -> Bool {
    let t: Int64
    if let step = options.grid {
      // The grid's points run up to the last quote of any leg; past `Int64.max` there is none.
      guard let next = walk.gridNext else { return false }
      t = next
      for k in 0..<legCount { try advance(k, through: t) }
      if readers.allSatisfy({ $0.nextTime == .max }) && t > legLastTime.compactMap({ $0 }).max()! { return false }
      guard walk.points < TimeArithmetic.gridPointLimit else { throw try tooFineGrid(step: step) }
      walk.gridNext = try? TimeArithmetic.add(step, to: t, .grid)
    } else {
      var smallest = Int64.max
      for k in 0..<legCount where readers[k].nextTime < smallest { smallest = readers[k].nextTime }
      guard smallest != .max else { return false }
      t = max(smallest, start)
      for k in 0..<legCount { try advance(k, through: t) }
    }
    var usable = 0
    let width = 2 * legCount
    let readers = readers.baseAddress.unsafelyUnwrapped
    for k in 0..<legCount {
      let (bid, ask) = (readers[k].bid, readers[k].ask)
      if keepQuotes {
        let (hasQuote, quoteTime) = (readers[k].hasQuote, readers[k].quoteTime)
        legQuotes[walk.held * width + k] = hasQuote ? bid : .nan
        legQuotes[walk.held * width + legCount + k] = hasQuote ? ask : .nan
        legQuoteTimes[walk.held * legCount + k] = hasQuote ? quoteTime : .min
      }
      let isUsable = readers[k].pricesUsable && t <= readers[k].usableThrough
      if isUsable {
        usableQuotes[k] = bid
        usableQuotes[legCount + k] = ask
        usable += 1
      } else {
        usableQuotes[k] = .nan
        usableQuotes[legCount + k] = .nan
      }
      if keepSizes {
        legUsableSizes[walk.held * width + k] = isUsable ? readers[k].bidSize : .nan
        legUsableSizes[walk.held * width + legCount + k] = isUsable ? readers[k].askSize : .nan
        legUsableBookIndex[walk.held * legCount + k] = isUsable && readers[k].quoteHasBook ? bookIndex(k, readers) : -1
      }
    }
    if keepUsableQuotes { for j in 0..<width { legUsableQuotes[walk.held * width + j] = usableQuotes[j] } }
    writer.write(walk.held, time: t, valid: usable >= required, quotes: usableQuotes)
    walk.held += 1
    walk.points += 1
    return true
  }

  /// The index in `usableBooks` of the book of leg `k`'s quote in force, appended unless
  /// it was last.
  private func bookIndex(_ k: Int, _ readers: UnsafeMutablePointer<LegReader>) -> Int64 {
    if readers[k].quoteRow != lastBookRow[k] {
      readers[k].appendQuoteBook(to: usableBooks, carried: carriedBooks[k])
      lastBookRow[k] = readers[k].quoteRow
      lastBookIndex[k] = Int64(usableBooks.count - 1)
    }
    return lastBookIndex[k]
  }

  /// Moves leg `k` past every quote at or before `t`, reading chunks as needed.
  @inline(__always)
  private func advance(_ k: Int, through t: Int64) throws {
    while readers[k].nextTime <= t {
      if readers[k].step() {
        let before = readers[k].rows
        try readers[k].refill(legs[k], rows: legChunkRows, carried: carriedBooks[k])
        if readers[k].rows > before {
          legRows[k] = readers[k].rows
          legHasSizes[k] = readers[k].sawSize
          legDeepest[k] = readers[k].deepest
          legLastTime[k] = readers[k].lastRead
          try checkSpan()
        }
      }
    }
  }

  /// The error of a grid found too fine on the walk (a leg's last time was not known
  /// before it): the legs are read to their ends first, so that it gives the grid's
  /// whole count, as the check before the walk does.
  private func tooFineGrid(step: Int64) throws -> AlignmentError {
    for k in 0..<legCount {
      while let chunk = try legs[k].next(maxRows: legChunkRows) { legLastTime[k] = chunk.time.last }
    }
    let last = legLastTime.compactMap { $0 }.max()!
    do { _ = try TimeArithmetic.grid(from: start, through: last, step: step) } catch { return AlignmentError.time(error) }
    return AlignmentError.time(TimeError(.tooManyPoints(step: step, first: start, last: last, count: nil, limit: TimeArithmetic.gridPointLimit)))
  }

  /// Every time read lies within an `Int64` of the earliest, and before `Int64.max`.
  private func checkSpan() throws {
    let last = legLastTime.compactMap { $0 }.max()!
    if last == .max { throw AlignmentError.time(TimeError(.lastInstant)) }
    do { _ = try TimeArithmetic.bounds(of: [[earliest, last]]) } catch { throw AlignmentError.time(error) }
  }

  /// Whether `required` legs of those quoting from `firsts` to `lasts` were ever quoting
  /// at once (as `AsOfMerge`).
  /// - Throws: `AlignmentError.noOverlap` when they never were.
  public static func checkOverlap(firsts: [Int64], lasts: [Int64], required: Int) throws {
    let edges: [(Int64, Int)] = (firsts.map { ($0, 1) } + lasts.map { ($0, -1) }).sorted { ($0.0, -$0.1) < ($1.0, -$1.1) }
    var open = 0
    for (_, change) in edges {
      open += change
      if open >= required { return }
    }
    throw AlignmentError.noOverlap(lastEnd: lasts.min()!, firstStart: firsts.sorted()[required - 1])
  }

}

/// One leg of a `PremiumStream`: its current chunk's columns, the next quote to take,
/// and the quote in force (copied, since a chunk lives only until the stream's next
/// call). The chunk is held as bare pointers, so that the walk, which reads a leg at
/// every point, copies no more than the fields it reads.
private struct LegReader {
  var times: UnsafePointer<Int64>? = nil
  var bids: UnsafePointer<Double>? = nil
  var asks: UnsafePointer<Double>? = nil
  /// The chunk's sizes when the reader reads them, else `nil`.
  var bidSizes: UnsafePointer<Double>? = nil
  var askSizes: UnsafePointer<Double>? = nil
  /// The chunk's books when the reader reads sizes and the leg has books, else `nil`.
  var books: BookChunk? = nil
  /// Whether the quote in force has a book.
  var quoteHasBook = false
  /// The most levels on a side of any book read; `nil` before a book.
  var deepest: Int? = nil
  var count = 0
  /// Index in the stream of the chunk's first quote.
  var chunkStart = 0
  var position = 0
  /// Time of the next quote, `Int64.max` once the leg is exhausted.
  var nextTime = Int64.max
  var hasQuote = false
  var quoteTime: Int64 = 0
  var bid = Double.nan
  var ask = Double.nan
  var bidSize = Double.nan
  var askSize = Double.nan
  /// Index in the stream of the quote in force.
  var quoteRow: Int64 = -1
  /// The leg's staleness limit (µs).
  let limit: Int64
  /// Whether the quotes' sizes are read, and whether one was seen.
  let readsSizes: Bool
  var sawSize = false
  /// Whether the quote in force has both sides finite and positive, and the last time
  /// at which it is no older than `limit` (`AsOfMerge.isUsable`): worked out once per
  /// quote, so that a point tests each leg with two comparisons.
  var pricesUsable = false
  var usableThrough = Int64.min
  var rows = 0
  var lastRead: Int64? = nil

  init(limit: Int64, readsSizes: Bool) { (self.limit, self.readsSizes) = (limit, readsSizes) }

  /// Takes the next quote as the one in force; `true` when the chunk is used up.
  @inline(__always)
  mutating func step() -> Bool {
    quoteTime = times.unsafelyUnwrapped[position]
    bid = bids.unsafelyUnwrapped[position]
    ask = asks.unsafelyUnwrapped[position]
    if let bidSizes, let askSizes {
      (bidSize, askSize) = (bidSizes[position], askSizes[position])
    } else if readsSizes {
      (bidSize, askSize) = (.nan, .nan)
    }
    quoteRow = Int64(chunkStart + position)
    quoteHasBook = books != nil
    hasQuote = true
    pricesUsable = AsOfMerge.isUsable(bid: bid, ask: ask, age: 0, limit: limit)
    // Past either end of `Int64` every later time is within the limit, or none is.
    let (through, overflow) = quoteTime.addingReportingOverflow(limit)
    usableThrough = overflow ? (limit > 0 ? .max : .min) : through
    position += 1
    if position < count {
      nextTime = times.unsafelyUnwrapped[position]
      return false
    }
    return true
  }

  /// Appends the book of the quote in force (which has one) to `block`; `carried` holds
  /// it when it came from an earlier chunk.
  func appendQuoteBook(to block: BookBlock, carried: BookBlock) {
    if position > 0 { block.append(books!, position - 1) } else { block.append(carried.all, 0) }
  }

  /// Reads the leg's next chunk (skipping empty ones); `nextTime` is `.max` at the end.
  /// The book of the quote in force, which outlives its chunk, is copied to `carried`.
  mutating func refill(_ stream: any QuoteStream, rows wanted: Int, carried: BookBlock) throws {
    if quoteHasBook && position > 0 {
      carried.removeAll()
      carried.append(books!, position - 1)
    }
    books = nil
    (times, bids, asks, bidSizes, askSizes, count, position) = (nil, nil, nil, nil, nil, 0, 0)
    nextTime = .max
    while let next = try stream.next(maxRows: wanted) {
      guard next.count > 0 else { continue }
      (times, bids, asks, count) = (next.time.baseAddress, next.bid.baseAddress, next.ask.baseAddress, next.count)
      if readsSizes && !next.bidSize.isEmpty {
        (bidSizes, askSizes) = (next.bidSize.baseAddress, next.askSize.baseAddress)
        if !sawSize { sawSize = next.bidSize.contains { !$0.isNaN } || next.askSize.contains { !$0.isNaN } }
      }
      if readsSizes, let nextBooks = next.books {
        books = nextBooks
        deepest = max(deepest ?? 0, nextBooks.deepest)
      }
      chunkStart = rows
      position = 0
      nextTime = next.time[0]
      rows += next.count
      lastRead = next.time[next.count - 1]
      return
    }
  }
}
