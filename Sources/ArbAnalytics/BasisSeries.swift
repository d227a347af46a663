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

  /// Aligns `derivative` and `reference` as-of and computes every column (`BasisStream`
  /// over the series in memory).
  ///
  /// - Throws: `AlignmentError` when the legs are empty or never overlap, `.time` when
  ///   the expiry is further from the first time than a duration holds.
  /// - Complexity: O(points).
  public init(
    derivative: QuoteSeries, reference: QuoteSeries, expiry: Int64? = nil, options: AlignmentOptions = AlignmentOptions()
  )
    throws(AlignmentError)
  {
    var time: [Int64] = [], valid: [Bool] = [], basis: [Double] = [], open: [Double] = [], close: [Double] = []
    var yearly: [Double] = [], before: [Bool] = []
    let stream = try inMemory { () throws -> BasisStream in
      let stream = try BasisStream(
        derivative: SeriesQuoteStream(derivative), reference: SeriesQuoteStream(reference), expiry: expiry, options: options)
      while let chunk = try stream.next() {
        time += chunk.time
        valid += chunk.valid
        basis += chunk.basis
        open += chunk.open
        close += chunk.close
        yearly += chunk.annualised
        before += chunk.beforeExpiry
      }
      return stream
    }
    self.basis = PremiumSeries(time: time, valid: valid, values: basis)
    self.open = open
    self.close = close
    self.expiry = expiry
    annualised = expiry.map { _ in PremiumSeries(time: time, valid: before, values: yearly) }
    pointsAfterExpiry = stream.pointsAfterExpiry
  }

  /// The expiry instant of a dated contract expiring on `day`, at `hour` UTC
  /// (08:00 for Binance, OKX, Deribit and Bybit quarterlies).
  public static func expiry(_ day: CalendarDay, hour: Int = 8) -> Int64 {
    Int64(TimeText.daysFromCivil(year: day.year, month: day.month, day: day.day)) * 86_400_000_000 + Int64(hour) * 3_600_000_000
  }
}
