/// What a venue's symbol means, independent of how the venue spells it:
/// `BTC/USDT spot`, `BTC/USDT linear perp`, `BTC/USD inverse perp`,
/// `BTC/USD inverse future 2025-03-28`.
///
/// Two legs with the same canonical instrument trade the same thing (up to the
/// contract size of inverse contracts), whatever the venues call them.
public struct CanonicalInstrument: Sendable, Hashable, Codable, CustomStringConvertible {
  /// What kind of contract the instrument is.
  public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
    case spot
    /// Perpetual margined and settled in the quote currency (USDT, USDC).
    case linearPerp = "linear perp"
    /// Perpetual margined and settled in the base coin, with a face value in the quote.
    case inversePerp = "inverse perp"
    case linearFuture = "linear future"
    case inverseFuture = "inverse future"

    /// Whether the contract is settled in the base coin.
    public var isInverse: Bool { self == .inversePerp || self == .inverseFuture }
    /// Whether the contract has an expiry date.
    public var isDated: Bool { self == .linearFuture || self == .inverseFuture }
  }

  /// Base asset, canonical code (`BTC`, never `XBT`).
  public var base: String
  /// Quote currency, canonical code.
  public var quote: String
  public var kind: Kind
  /// Expiry day of a dated future, `nil` otherwise.
  public var expiry: CalendarDay?
  /// Face value of one inverse contract in the quote currency (100 for Binance COIN-M
  /// BTC); `nil` for spot and linear contracts.
  public var contractSize: Double?

  public init(base: String, quote: String, kind: Kind, expiry: CalendarDay? = nil, contractSize: Double? = nil) {
    self.base = base
    self.quote = quote
    self.kind = kind
    self.expiry = expiry
    self.contractSize = contractSize
  }

  /// The currency margin and profit are settled in: none for spot, the base coin for
  /// inverse contracts, the quote currency for linear ones.
  public var settle: String? {
    switch kind {
    case .spot: nil
    case .inversePerp, .inverseFuture: base
    case .linearPerp, .linearFuture: quote
    }
  }

  /// `BTC/USDT linear perp`, `BTC/USD inverse future 2025-03-28`.
  public var description: String {
    "\(base)/\(quote) \(kind.rawValue)" + (expiry.map { " \($0)" } ?? "")
  }
}

/// A day of the proleptic Gregorian calendar, as futures expiries are given.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  public var year: Int
  public var month: Int
  public var day: Int

  /// A valid day, or `nil` (month 13, 30 February).
  public init?(year: Int, month: Int, day: Int) {
    guard (1...12).contains(month), day >= 1, day <= CalendarDay.days(inMonth: month, year: year) else { return nil }
    self.year = year
    self.month = month
    self.day = day
  }

  /// The last Friday of a month: the expiry of BitMEX and Bybit quarterly contracts.
  public static func lastFriday(year: Int, month: Int) -> CalendarDay {
    let last = days(inMonth: month, year: year)
    // Day 0 of the civil count (1970-01-01) was a Thursday: weekday 0 = Thursday, 1 = Friday.
    let weekday = ((daysSinceEpoch(year: year, month: month, day: last) % 7) + 7) % 7
    let back = (weekday - 1 + 7) % 7
    return CalendarDay(year: year, month: month, day: last - back)!
  }

  public static func < (a: CalendarDay, b: CalendarDay) -> Bool {
    (a.year, a.month, a.day) < (b.year, b.month, b.day)
  }

  /// `2025-03-28`.
  public var description: String {
    "\(year)-" + (month < 10 ? "0" : "") + "\(month)-" + (day < 10 ? "0" : "") + "\(day)"
  }

  static func days(inMonth month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
  static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146097 + dayOfEra - 719468
  }
}
