import ArbCore

/// Funding carry of the cash-and-carry position, spot long and perpetual short, from a
/// recorded funding-rate series (`docs/definitions.md`, "Funding carry"):
///
/// - A funding event at `t` with rate `r` pays `r` of the position's notional from longs
///   to shorts: the spot-long/perp-short position receives `+r` (a negative rate is paid).
/// - The carry over `[a, b)` is `Σ r_j × 100` (percent of notional) over the events with
///   `a ≤ t_j < b`: a position opened at `a` holds the perp at a funding instant `a`, and
///   one closed at `b` does not hold it at `b`. So consecutive windows share no event.
/// - Windows are the UTC windows `[kW, (k+1)W)` lying inside the basis span (first to last
///   valid point) and covered by the funding record (`kW > F_first − I`, `(k+1)W ≤ F_last + I`,
///   with `I` the funding interval), so that no window counts missing events as zero.
/// - Basis net of carry over a window: `carry − (basis_end − basis_start)`, the basis at
///   each edge taken as of the last valid basis point at or before it: the
///   position's return in percent of notional, to first order.
/// - Per contract, in the settle currency: `Σ r_j × mid_perp(t_j)` quote per unit of base
///   (linear), `Σ r_j × contractSize / mid_perp(t_j)` base coin per contract (inverse),
///   with the perpetual's mid as of `t_j`.
public struct FundingCarry: Sendable {
  /// One window of the carry.
  public struct Window: Sendable, Equatable {
    public var start: Int64
    public var end: Int64
    /// Funding events in `[start, end)`.
    public var events: Int
    /// Percent of notional.
    public var carry: Double
    /// Settle currency (see the type's description); `nil` when the perpetual had no
    /// two-sided quote at an event.
    public var carryPerContract: Double?
    public var basisStart: Double?
    public var basisEnd: Double?
    /// `carry − (basisEnd − basisStart)`, when both edges have a basis.
    public var net: Double? {
      guard let basisStart, let basisEnd else { return nil }
      return carry - (basisEnd - basisStart)
    }
  }

  public var window: Int64
  /// The funding interval `I` used for coverage (µs).
  public var interval: Int64
  /// Whether the events were sampled from a record of the rate in force (`FundingEvents`).
  public var sampled: Bool
  public var windows: [Window]
  /// Sums over `windows` (0 and `nil` without a window).
  public var carry: Double
  public var carryPerContract: Double?
  public var events: Int
  /// `carry − (basis at the last window's end − basis at the first window's start)`.
  public var net: Double?
  /// Of the per-window carry and net, weighted by window length.
  public var carryStatistics: SeriesStatistics
  public var netStatistics: SeriesStatistics

  /// How the perpetual settles, for the carry per contract.
  public enum Settlement: Sendable, Equatable {
    /// Quote-margined: carry per unit of base, in the quote currency.
    case linear
    /// Coin-margined with this face value per contract (`nil`: unknown, no per-contract carry).
    case inverse(contractSize: Double?)
  }

  /// Checks once that the times `FundingEvents` and `init` compute are times: the
  /// funding times `funding` up to an `interval` either side (its events' interval, or
  /// the ticker interval they are sampled on), and windows of `window` µs from any of
  /// them or of the basis times `basis` (a window starts up to one window late).
  ///
  /// - Throws: `TimeError.Reason.overflow` (`.carryWindow`), `.spanOverflow`.
  public static func checkRange(funding: ClosedRange<Int64>, basis: ClosedRange<Int64>, interval: Int64, window: Int64) throws(TimeError) {
    _ = try TimeArithmetic.span(from: funding.lowerBound, to: funding.upperBound)
    try TimeArithmetic.check(funding, plus: -interval...interval, .carryWindow)
    let lowest = min(funding.lowerBound, basis.lowerBound), highest = max(funding.upperBound, basis.upperBound)
    let oneWindow = try TimeArithmetic.add(window, to: highest, .carryWindow)
    try TimeArithmetic.check(lowest...oneWindow, plus: 0...window, .carryWindow)
  }

  /// Carry of the funding `events` over windows of `window` µs.
  ///
  /// - Parameters:
  ///   - basis: the basis of `perp` over spot; gives the span and the edges' basis.
  ///   - settlement: linear, or inverse with the contract's face value.
  /// - Precondition: `checkRange` passes for the times (user data: call it first).
  /// - Complexity: O(windows + events + basis points).
  public init(events funding: FundingEvents, basis: PremiumSeries, perp: QuoteSeries, settlement: Settlement, window: Int64) {
    let firstValid = basis.valid.firstIndex(of: true), lastValid = basis.valid.lastIndex(of: true)
    let span = firstValid.flatMap { first in lastValid.map { (first: basis.time[first], last: basis.time[$0]) } }
    var point = 0
    var lastBasis: Double? = nil
    self.init(
      events: funding, basisSpan: span, settlement: settlement, window: window,
      basisAsOf: { time in
        while point < basis.count && basis.time[point] <= time {
          if basis.valid[point] { lastBasis = basis.mid[point] }
          point += 1
        }
        return lastBasis
      },
      perpMid: { Self.mid(perp, asOf: $0) })
  }

  /// Carry of the funding `events` over windows of `window` µs inside `basisSpan` (the
  /// first and last valid basis time), with `basisAsOf(t)` the last valid basis at or
  /// before `t` (asked at the windows' edges, in increasing order) and `perpMid(t)` the
  /// perpetual's mid as of an event time `t` inside a window.
  ///
  /// - Precondition: `checkRange` passes for the times (user data: call it first).
  public init(
    events funding: FundingEvents, basisSpan: (first: Int64, last: Int64)?, settlement: Settlement, window: Int64,
    basisAsOf: (Int64) -> Double?, perpMid: (Int64) -> Double
  ) {
    precondition(window > 0, "FundingCarry: a positive window")
    self.window = window
    let times = funding.time
    let n = times.count
    let interval = funding.interval
    self.interval = interval
    sampled = funding.sampled
    var windows: [Window] = []
    if n > 0, let (spanStart, spanEnd) = basisSpan {
      let coveredFrom = times[0] - interval, coveredUntil = times[n - 1] + interval
      var start = max(spanStart, coveredFrom + 1).ceilDiv(window) * window
      var event = 0
      while start + window <= min(spanEnd, coveredUntil) {
        let end = start + window
        while event < n && times[event] < start { event += 1 }
        var carry = 0.0, count = 0
        var perContract: Double? = settlement == .inverse(contractSize: nil) ? nil : 0
        while event < n && times[event] < end {
          let rate = funding.rate[event]
          let mid = perpMid(times[event])
          carry += rate * 100
          switch settlement {
          case _ where !(mid > 0 && mid < .infinity): perContract = nil
          case .linear: perContract = perContract.map { $0 + rate * mid }
          case .inverse(let size): perContract = perContract.flatMap { sum in size.map { sum + rate * $0 / mid } }
          }
          count += 1
          event += 1
        }
        let basisStart = basisAsOf(start)
        windows.append(
          Window(
            start: start, end: end, events: count, carry: carry, carryPerContract: perContract,
            basisStart: basisStart, basisEnd: basisAsOf(end)))
        start = end
      }
    }
    self.windows = windows
    carry = windows.reduce(0) { $0 + $1.carry }
    carryPerContract = windows.isEmpty ? nil : windows.reduce(0 as Double?) { total, w in total.flatMap { t in w.carryPerContract.map { t + $0 } } }
    events = windows.reduce(0) { $0 + $1.events }
    if let first = windows.first?.basisStart, let last = windows.last?.basisEnd { net = carry - (last - first) }
    let length = Double(window)
    carryStatistics = SeriesStatistics(values: windows.map(\.carry), weights: windows.map { _ in length })
    let nets = windows.compactMap(\.net)
    netStatistics = SeriesStatistics(values: nets, weights: nets.map { _ in length })
  }

  /// The mid of `stream` as of each of `times` (ascending): its last quote at or before
  /// it, else its first (`nan` for an empty stream); one pass over the stream.
  public static func mids(_ stream: any QuoteStream, asOf times: [Int64]) throws -> [Double] {
    var mids: [Double] = []
    mids.reserveCapacity(times.count)
    var current: Double? = nil, first: Double? = nil
    var chunk = try stream.next(maxRows: 1 << 16), position = 0
    for time in times {
      while let block = chunk, block.time[position] <= time {
        current = (block.bid[position] + block.ask[position]) / 2
        first = first ?? current
        position += 1
        if position == block.count { (chunk, position) = (try stream.next(maxRows: 1 << 16), 0) }
      }
      if first == nil, let block = chunk { first = (block.bid[position] + block.ask[position]) / 2 }
      mids.append(current ?? first ?? .nan)
    }
    return mids
  }

  /// The mid of `series` as of `time` (its last quote at or before it, else its first).
  static func mid(_ series: QuoteSeries, asOf time: Int64) -> Double {
    let k = series.time.withUnsafeBufferPointer { AsOfMerge.countBefore(time + 1, in: $0) }
    let j = max(k - 1, 0)
    return (series.bid[j] + series.ask[j]) / 2
  }
}

/// What the funding carry reads of a basis streamed a point at a time: the first and
/// last valid basis time, and the basis as of each multiple of the window inside the
/// funding record's cover (the windows' possible edges), so that `FundingCarry` needs
/// neither the basis series nor more memory than a value per edge.
public struct CarryEdges {
  public let window: Int64
  /// The first and last valid basis time so far.
  public private(set) var span: (first: Int64, last: Int64)? = nil
  /// The last valid basis at or before each edge passed.
  private var basisAt: [Int64: Double] = [:]
  private var nextEdge: Int64?
  private let lastEdge: Int64
  private var lastBasis: Double? = nil

  /// The edges of windows of `window` µs over the cover of `events` (`FundingCarry`).
  public init(events: FundingEvents, window: Int64) {
    precondition(window > 0, "CarryEdges: a positive window")
    self.window = window
    guard let first = events.time.first, let last = events.time.last else {
      (nextEdge, lastEdge) = (nil, .min)
      return
    }
    // Overflow is left to `FundingCarry.checkRange`: an edge past the range of times is not recorded.
    let from = first.subtractingReportingOverflow(events.interval), until = last.addingReportingOverflow(events.interval)
    nextEdge = from.overflow ? nil : Self.edge(atOrAfter: from.partialValue, window)
    lastEdge = until.overflow ? .max : until.partialValue
  }

  /// The first multiple of `window` at or after `time`, `nil` past `Int64.max`.
  static func edge(atOrAfter time: Int64, _ window: Int64) -> Int64? {
    let (product, overflow) = time.ceilDiv(window).multipliedReportingOverflow(by: window)
    return overflow ? nil : product
  }

  /// Adds the next point of the basis (times in order).
  public mutating func add(time: Int64, valid: Bool, basis: Double) {
    while let edge = nextEdge, edge < time {
      guard edge <= lastEdge else {
        nextEdge = nil
        break
      }
      // Before the first valid point no window starts: the edges up to here are not asked.
      if let lastBasis { basisAt[edge] = lastBasis } else { nextEdge = Self.edge(atOrAfter: time, window) ?? nil; continue }
      let (next, overflow) = edge.addingReportingOverflow(window)
      nextEdge = overflow ? nil : next
    }
    guard valid else { return }
    lastBasis = basis
    span = (span?.first ?? time, time)
  }

  /// The last valid basis at or before `edge`, an edge at or after the first valid point:
  /// recorded as the points passed it, or the last one for an edge after them.
  public func basis(asOf edge: Int64) -> Double? { basisAt[edge] ?? lastBasis }
}

/// The funding events of a `funding_rate` series (`docs/definitions.md`, "Funding carry").
///
/// A settlement record (every point on a whole hour, as Binance `fundingRate` and freqtrade
/// funding files are after the funding-grid snap) is its own list of events. A record of
/// the rate in force (Tardis `derivative_ticker`, exchange tickers: points off the whole
/// hour) is sampled at the funding instants `kI` on the UTC grid: the event at `kI` has the
/// last rate recorded at or before it, when one was recorded within `I` before it.
public struct FundingEvents: Sendable {
  public var time: [Int64]
  public var rate: [Double]
  /// The funding interval `I` (µs).
  public var interval: Int64
  /// Whether the events were sampled from a record of the rate in force.
  public var sampled: Bool

  /// Funding interval assumed when the record states none and holds a single event.
  public static let defaultInterval: Int64 = 8 * 3_600_000_000

  /// - Parameter tickerInterval: the funding interval of a record of the rate in force.
  /// - Precondition: `FundingCarry.checkRange` passes for the funding times and this
  ///   interval (user data: call it first).
  public init(_ funding: QuoteSeries, tickerInterval: Int64 = Self.defaultInterval) {
    precondition(funding.field == .fundingRate && tickerInterval > 0, "FundingEvents: a funding_rate series")
    let hour: Int64 = 3_600_000_000
    let n = funding.count
    sampled = funding.time.contains { $0 % hour != 0 }
    guard sampled else {
      time = funding.time
      rate = funding.bid
      interval = funding.fundingInterval.last ?? (n >= 2 ? funding.time[n - 1] - funding.time[n - 2] : Self.defaultInterval)
      return
    }
    interval = tickerInterval
    var time: [Int64] = [], rate: [Double] = []
    if n > 0 {
      var j = 0
      var instant = funding.time[0].ceilDiv(tickerInterval) * tickerInterval
      while instant <= funding.time[n - 1] {
        while j + 1 < n && funding.time[j + 1] <= instant { j += 1 }
        if instant - funding.time[j] <= tickerInterval {
          time.append(instant)
          rate.append(funding.bid[j])
        }
        instant += tickerInterval
      }
    }
    self.time = time
    self.rate = rate
  }
}

extension Int64 {
  /// `self / divisor` rounded toward +∞ (`divisor > 0`).
  func ceilDiv(_ divisor: Int64) -> Int64 { -((-self).floorDiv(divisor)) }
}
