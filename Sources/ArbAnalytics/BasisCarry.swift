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
    precondition(window > 0, "FundingCarry: a positive window")
    self.window = window
    let times = funding.time
    let n = times.count
    let interval = funding.interval
    self.interval = interval
    sampled = funding.sampled
    var windows: [Window] = []
    let firstValid = basis.valid.firstIndex(of: true), lastValid = basis.valid.lastIndex(of: true)
    if n > 0, let firstValid, let lastValid {
      let spanStart = basis.time[firstValid], spanEnd = basis.time[lastValid]
      let coveredFrom = times[0] - interval, coveredUntil = times[n - 1] + interval
      var start = max(spanStart, coveredFrom + 1).ceilDiv(window) * window
      var event = 0, point = 0
      var lastBasis: Double? = nil
      // The basis as of `time`: the last valid point at or before it.
      func basisAsOf(_ time: Int64) -> Double? {
        while point < basis.count && basis.time[point] <= time {
          if basis.valid[point] { lastBasis = basis.mid[point] }
          point += 1
        }
        return lastBasis
      }
      while start + window <= min(spanEnd, coveredUntil) {
        let end = start + window
        while event < n && times[event] < start { event += 1 }
        var carry = 0.0, count = 0
        var perContract: Double? = settlement == .inverse(contractSize: nil) ? nil : 0
        while event < n && times[event] < end {
          let rate = funding.rate[event]
          let mid = Self.mid(perp, asOf: times[event])
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

  /// The mid of `series` as of `time` (its last quote at or before it, else its first).
  static func mid(_ series: QuoteSeries, asOf time: Int64) -> Double {
    let k = series.time.withUnsafeBufferPointer { AsOfMerge.countBefore(time + 1, in: $0) }
    let j = max(k - 1, 0)
    return (series.bid[j] + series.ask[j]) / 2
  }
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
