import ArbCore

/// The basis of a derivative D (a perpetual or a dated future) over a reference R
/// (spot, or the perpetual of a calendar spread), in percent, at every point of their
/// as-of alignment (`docs/definitions.md`, "Basis and funding carry"):
///
/// - `basis = (mid_D / mid_R − 1) × 100`;
/// - executable basis of the carry trade (buy R, sell D): `open = (bid_D / ask_R − 1) × 100`,
///   and of unwinding it (sell R, buy D): `close = (ask_D / bid_R − 1) × 100`;
/// - for a dated D with expiry `x` (µs): `annualised = basis × 365 × 86400e6 / (x − t)`,
///   only at points with `t < x` (points at or after expiry have none, counted).
public struct BasisSeries: Sendable {
  /// The basis as a one-column premium series (`mid`), with the points' validity.
  public var basis: PremiumSeries
  public var open: [Double]
  public var close: [Double]
  /// Annualised basis, valid at the valid points before expiry; `nil` without an expiry.
  public var annualised: PremiumSeries?
  /// Expiry instant of D (µs), when D is dated.
  public var expiry: Int64?
  /// Valid points at or after the expiry (no annualised value).
  public var pointsAfterExpiry: Int

  /// Microseconds in the 365-day year of the annualised basis.
  public static let year: Double = 365 * 86_400e6

  /// Aligns `derivative` and `reference` as-of and computes every column.
  ///
  /// - Throws: `AlignmentError` when the legs are empty or never overlap, `.time` when
  ///   the expiry is further from the first time than a duration holds.
  /// - Complexity: O(points).
  public init(
    derivative: QuoteSeries, reference: QuoteSeries, expiry: Int64? = nil, options: AlignmentOptions = AlignmentOptions()
  )
    throws(AlignmentError)
  {
    let aligned = try AlignedLegs(legs: [derivative, reference], options: options)
    if let expiry, let first = aligned.time.first, first < expiry {
      do { _ = try TimeArithmetic.span(from: first, to: expiry) } catch { throw .time(error) }
    }
    let n = aligned.count
    var basis = [Double](repeating: .nan, count: n)
    var open = basis, close = basis
    for i in 0..<n where aligned.valid[i] {
      let d = Int(aligned.state(leg: 0, point: i)), r = Int(aligned.state(leg: 1, point: i))
      let (bidD, askD, bidR, askR) = (derivative.bid[d], derivative.ask[d], reference.bid[r], reference.ask[r])
      basis[i] = ((bidD + askD) / (bidR + askR) - 1) * 100
      open[i] = (bidD / askR - 1) * 100
      close[i] = (askD / bidR - 1) * 100
    }
    self.basis = PremiumSeries(time: aligned.time, valid: aligned.valid, values: basis)
    self.open = open
    self.close = close
    self.expiry = expiry
    guard let expiry else {
      annualised = nil
      pointsAfterExpiry = 0
      return
    }
    var before = aligned.valid
    var yearly = [Double](repeating: .nan, count: n)
    for i in 0..<n where before[i] {
      let t = aligned.time[i]
      if t < expiry { yearly[i] = basis[i] * Self.year / Double(expiry - t) } else { before[i] = false }
    }
    let annualised = PremiumSeries(time: aligned.time, valid: before, values: yearly)
    pointsAfterExpiry = self.basis.validPoints - annualised.validPoints
    self.annualised = annualised
  }

  /// The expiry instant of a dated contract expiring on `day`, at `hour` UTC
  /// (08:00 for Binance, OKX, Deribit and Bybit quarterlies).
  public static func expiry(_ day: CalendarDay, hour: Int = 8) -> Int64 {
    Int64(TimeText.daysFromCivil(year: day.year, month: day.month, day: day.day)) * 86_400_000_000 + Int64(hour) * 3_600_000_000
  }
}
