import ArbCore
import ArbIngest

/// The state of the live board: the latest quote of each instrument on each venue, and
/// the rows made from them at a given time (`docs/definitions.md`, "Live board").
///
/// Memory holds one quote per instrument, however long the recording.
public struct LiveBoard {
  /// Where the KRW per USDT rate of the kimchi premium comes from.
  public enum Rate {
    /// The mid of a market quoted in the recording (Upbit's KRW-USDT by default).
    case market(Instrument)
    /// An FX file of KRW per USD (USDT taken as 1 USD), as-of, valid up to `maxStale` µs.
    case file(QuoteSeries, maxStale: Int64)
  }

  /// The default rate: Upbit's KRW-USDT.
  public static let upbitUSDT = Instrument(venue: "upbit", market: .spot, symbol: "KRW-USDT")

  public let registry: ExchangeRegistry
  public let rate: Rate
  /// A venue's quote older than this (µs) is left out of a row.
  public let maxStale: Int64
  public private(set) var quotes: [Instrument: LiveQuote] = [:]
  /// The canonical instrument of each instrument seen (`nil`: not placed on the board).
  private var canonical: [Instrument: CanonicalInstrument?] = [:]
  /// The instruments of each canonical instrument.
  private var members: [CanonicalInstrument: [Instrument]] = [:]
  /// Quotes read (the latest of each instrument kept).
  public private(set) var quotesRead = 0

  public init(registry: ExchangeRegistry, rate: Rate, maxStale: Int64) {
    self.registry = registry
    self.rate = rate
    self.maxStale = maxStale
  }

  /// Keeps `quote` as its instrument's latest unless a later one is kept already.
  /// A quote whose mid is not a positive finite number (an overflow of extreme prices)
  /// is read but not kept.
  public mutating func apply(_ quote: LiveQuote) {
    quotesRead += 1
    guard quote.mid.isFinite, quote.mid > 0 else { return }
    if let kept = quotes[quote.instrument], kept.time > quote.time { return }
    if quotes.updateValue(quote, forKey: quote.instrument) == nil {
      let placed = (try? registry.canonical(ofLeg: quote.instrument)) ?? nil
      canonical[quote.instrument] = placed
      if let placed { members[placed, default: []].append(quote.instrument) }
    }
  }

  /// The rows at `now`: one per instrument quoted on two or more venues, or with a
  /// kimchi premium; in instrument order.
  public func rows(now: Int64) -> [LiveRow] {
    members.keys.compactMap { row($0, now: now) }.sorted { $0.instrument.description < $1.instrument.description }
  }

  /// The row of `instrument` at `now`, `nil` when it has fewer than two fresh venues
  /// and no kimchi premium.
  public func row(_ instrument: CanonicalInstrument, now: Int64) -> LiveRow? {
    let venues = fresh(instrument, now: now)
    guard !venues.isEmpty else { return nil }
    let kimchi = self.kimchi(instrument, venues: venues, now: now)
    guard venues.count >= 2 || kimchi != nil else { return nil }
    return LiveRow(instrument: instrument, venues: venues, kimchi: kimchi, updated: venues.map(\.time).max()!)
  }

  /// The row of the instrument an alert watches.
  public func row(watchedBy alert: BoardAlert, now: Int64) -> LiveRow? {
    members.keys.first(where: alert.watches).flatMap { row($0, now: now) }
  }

  /// The fresh quotes of `instrument`, one per venue (the latest), highest mid first.
  private func fresh(_ instrument: CanonicalInstrument, now: Int64) -> [LiveQuote] {
    var byVenue: [String: LiveQuote] = [:]
    for member in members[instrument] ?? [] {
      guard let quote = quotes[member], now - quote.time <= maxStale else { continue }
      if let kept = byVenue[member.venue], kept.time >= quote.time { continue }
      byVenue[member.venue] = quote
    }
    return byVenue.values.sorted { ($0.mid, $1.instrument.venue) > ($1.mid, $0.instrument.venue) }
  }

  /// `(K / (U × r) − 1) × 100` for a KRW spot instrument: K and U the mean mids of its
  /// fresh venues and of the fresh venues of BASE/USDT spot, r the KRW per USDT rate.
  private func kimchi(_ instrument: CanonicalInstrument, venues: [LiveQuote], now: Int64) -> Double? {
    guard instrument.quote == "KRW", instrument.kind == .spot else { return nil }
    let usdt = fresh(CanonicalInstrument(base: instrument.base, quote: "USDT", kind: .spot), now: now)
    guard !usdt.isEmpty, let rate = self.rate(now: now) else { return nil }
    let k = venues.map(\.mid).reduce(0, +) / Double(venues.count)
    let u = usdt.map(\.mid).reduce(0, +) / Double(usdt.count)
    return Self.finite((k / (u * rate) - 1) * 100)
  }

  /// `value`, or `nil` when it is not finite (prices too extreme for double arithmetic).
  static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }

  /// KRW per USDT at `now`, `nil` when stale or missing.
  public func rate(now: Int64) -> Double? {
    switch rate {
    case .market(let market):
      guard let quote = quotes[market], now - quote.time <= maxStale else { return nil }
      return quote.mid
    case .file(let series, let fxMaxStale):
      // The last rate at or before `now` (as-of).
      var low = 0, high = series.count
      while low < high {
        let middle = (low + high) / 2
        if series.time[middle] <= now { low = middle + 1 } else { high = middle }
      }
      guard low > 0, now - series.time[low - 1] <= fxMaxStale else { return nil }
      return (series.bid[low - 1] + series.ask[low - 1]) / 2
    }
  }
}

/// One instrument of the live board at one time.
public struct LiveRow: Sendable {
  public var instrument: CanonicalInstrument
  /// The fresh quote of each venue, highest mid first.
  public var venues: [LiveQuote]
  /// Percent, for a KRW spot instrument with a USDT market and a rate.
  public var kimchi: Double?
  /// The newest quote's receive time (µs).
  public var updated: Int64

  public var high: LiveQuote { venues.first! }
  public var low: LiveQuote { venues.last! }
  /// `(highest mid / lowest mid − 1) × 100` over two or more venues.
  /// `nil` too when it is not finite (prices too extreme for double arithmetic).
  public var premium: Double? { venues.count >= 2 ? LiveBoard.finite((high.mid / low.mid - 1) * 100) : nil }

  /// The figure an alert watches.
  public func value(_ field: BoardAlert.Field) -> Double? {
    switch field {
    case .premium: premium
    case .kimchi: kimchi
    }
  }

  /// The columns of the board, in order: what rows sort by, and the table's header.
  public enum Column: String, CaseIterable, Sendable {
    case instrument, venues, high, highMid = "high_mid", low, lowMid = "low_mid", premium, kimchi, age
  }

  /// The value to sort on: numbers descending, text ascending; `nil` (absent) last.
  private func key(_ column: Column, now: Int64) -> SortKey {
    switch column {
    case .instrument: .text(instrument.description)
    case .venues: .number(Double(venues.count))
    case .high: .text(high.instrument.venue)
    case .highMid: .number(high.mid)
    case .low: .text(venues.count >= 2 ? low.instrument.venue : nil)
    case .lowMid: .number(venues.count >= 2 ? low.mid : nil)
    case .premium: .number(premium)
    case .kimchi: .number(kimchi)
    case .age: .number(Double(now - updated))
    }
  }

  /// A sort key of a cell.
  private enum SortKey {
    case text(String?)
    case number(Double?)

    /// Whether `a` sorts before `b`: text ascending, numbers descending, absent last;
    /// `nil` on a tie.
    static func before(_ a: SortKey, _ b: SortKey) -> Bool? {
      switch (a, b) {
      case (.text(let x?), .text(let y?)): x == y ? nil : x < y
      case (.number(let x?), .number(let y?)): x == y ? nil : x > y
      case (.text(nil), .text(nil)), (.number(nil), .number(nil)): nil
      case (.text(nil), _), (.number(nil), _): false
      default: true
      }
    }
  }

  /// `rows` by `column`, ties by instrument.
  public static func sorted(_ rows: [LiveRow], by column: Column, now: Int64) -> [LiveRow] {
    rows.sorted { a, b in
      SortKey.before(a.key(column, now: now), b.key(column, now: now)) ?? (a.instrument.description < b.instrument.description)
    }
  }
}
