import ArbCore

/// An alert of the live board, `INSTRUMENT FIELD OP NUMBER`: a condition on one figure
/// of one instrument's row, e.g. `BTC/KRW kimchi >= 3`.
///
/// INSTRUMENT is a canonical instrument as the board shows it (`BTC/KRW`, the market
/// `spot` implied, or `BTC/USDT linear perp`, `BTC/USD inverse future 2025-03-28`);
/// FIELD is `premium` or `kimchi` (both in percent); OP is `>=`, `>`, `<=` or `<`.
public struct BoardAlert: Equatable, Sendable {
  /// The figure of a row an alert watches.
  public enum Field: String, CaseIterable, Sendable {
    case premium, kimchi
  }

  /// How the figure is compared with the threshold.
  public enum Operator: String, CaseIterable, Sendable {
    case atLeast = ">="
    case above = ">"
    case atMost = "<="
    case below = "<"

    /// Whether `value` compares so with `threshold`.
    public func holds(_ value: Double, _ threshold: Double) -> Bool {
      switch self {
      case .atLeast: value >= threshold
      case .above: value > threshold
      case .atMost: value <= threshold
      case .below: value < threshold
      }
    }
  }

  public var instrument: CanonicalInstrument
  public var field: Field
  public var comparison: Operator
  /// Percent.
  public var threshold: Double

  /// Reads `rule`, `INSTRUMENT FIELD OP NUMBER` separated by spaces.
  public init(rule: String) throws(BoardAlertError) {
    let words = rule.split(whereSeparator: \.isWhitespace).map(String.init)
    func invalid(_ reason: BoardAlertError.Reason) -> BoardAlertError { BoardAlertError(rule: rule, reason: reason) }
    guard words.count >= 4 else { throw invalid(.tooFewWords) }
    let tail = words.suffix(3).map { $0 }
    guard let field = Field(rawValue: tail[0]) else { throw invalid(.unknownField(tail[0])) }
    guard let comparison = Operator(rawValue: tail[1]) else { throw invalid(.unknownOperator(tail[1])) }
    // A decimal number, with an exponent or not: no hexadecimal, inf or nan.
    guard tail[2].allSatisfy({ "0123456789+-.eE".contains($0) }), let threshold = Double(tail[2]), threshold.isFinite else {
      throw invalid(.notANumber(tail[2]))
    }
    let instrumentWords = words.dropLast(3)
    guard let instrument = Self.instrument(instrumentWords) else { throw invalid(.notAnInstrument(instrumentWords.joined(separator: " "))) }
    self.instrument = instrument
    self.field = field
    self.comparison = comparison
    self.threshold = threshold
  }

  /// `BASE/QUOTE [KIND [EXPIRY]]` as `CanonicalInstrument.description` writes it, the
  /// kind `spot` when absent.
  private static func instrument(_ words: ArraySlice<String>) -> CanonicalInstrument? {
    guard let pair = words.first else { return nil }
    let parts = pair.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
    var rest = Array(words.dropFirst())
    var expiry: CalendarDay?
    if let last = rest.last, last.first?.isNumber == true {
      let fields = last.split(separator: "-").compactMap { Int($0) }
      guard fields.count == 3, let day = CalendarDay(year: fields[0], month: fields[1], day: fields[2]) else { return nil }
      expiry = day
      rest.removeLast()
    }
    let kindText = rest.isEmpty ? "spot" : rest.joined(separator: " ")
    guard let kind = CanonicalInstrument.Kind(rawValue: kindText), kind.isDated == (expiry != nil) else { return nil }
    return CanonicalInstrument(base: parts[0].uppercased(), quote: parts[1].uppercased(), kind: kind, expiry: expiry)
  }

  /// Whether `other` is the instrument this alert names (a contract size, which the
  /// alert does not give, is not compared).
  public func watches(_ other: CanonicalInstrument) -> Bool {
    other.base == instrument.base && other.quote == instrument.quote && other.kind == instrument.kind && other.expiry == instrument.expiry
  }

  /// Whether `value` meets the condition; an absent value never does.
  public func holds(_ value: Double?) -> Bool { value.map { comparison.holds($0, threshold) } ?? false }

  /// `BTC/KRW spot kimchi >= 3`: the condition as the alert lines print it.
  public var description: String { "\(instrument) \(field.rawValue) \(comparison.rawValue) \(JSONValue.format(threshold))" }
}

/// The alerts' states over time: each condition starts when it first holds and ends
/// when it stops holding, with how long it held.
public struct AlertTracker: Sendable {
  /// One change of an alert's state.
  public struct Event: Equatable, Sendable {
    public enum Kind: String, Sendable {
      /// The condition holds and did not before.
      case start
      /// The condition held and no longer does.
      case end
      /// The condition still held when the board stopped.
      case open
    }

    public var kind: Kind
    public var alert: BoardAlert
    /// The board's time (µs).
    public var time: Int64
    /// The figure at that time (percent), `nil` when it has none (a stale venue).
    public var value: Double?
    /// Since the start (µs), for `end` and `open`.
    public var duration: Int64?
  }

  public let alerts: [BoardAlert]
  /// When each alert's current episode started, `nil` while it does not hold.
  private var since: [Int64?]

  public init(_ alerts: [BoardAlert]) {
    self.alerts = alerts
    since = alerts.map { _ in nil }
  }

  /// The events of the alerts at `time`, given each alert's figure (`value(alert)`).
  public mutating func update(at time: Int64, value: (BoardAlert) -> Double?) -> [Event] {
    var events: [Event] = []
    for (k, alert) in alerts.enumerated() {
      let figure = value(alert)
      switch (since[k], alert.holds(figure)) {
      case (nil, true):
        since[k] = time
        events.append(Event(kind: .start, alert: alert, time: time, value: figure))
      case (let start?, false):
        since[k] = nil
        events.append(Event(kind: .end, alert: alert, time: time, value: figure, duration: time - start))
      default: break
      }
    }
    return events
  }

  /// An `open` event for every alert that holds at `time`, when the board stops.
  public func open(at time: Int64, value: (BoardAlert) -> Double?) -> [Event] {
    alerts.indices.compactMap { k in
      since[k].map { Event(kind: .open, alert: alerts[k], time: time, value: value(alerts[k]), duration: time - $0) }
    }
  }
}

/// An alert rule that cannot be read.
public struct BoardAlertError: Error, Equatable, Sendable, CustomStringConvertible {
  public enum Reason: Equatable, Sendable, CustomStringConvertible {
    /// Fewer than the four parts `INSTRUMENT FIELD OP NUMBER`.
    case tooFewWords
    /// A FIELD that is not one of `BoardAlert.Field`.
    case unknownField(String)
    /// An OP that is not one of `BoardAlert.Operator`.
    case unknownOperator(String)
    /// A NUMBER that is not a finite decimal number.
    case notANumber(String)
    /// The words before FIELD, which are not a canonical instrument.
    case notAnInstrument(String)

    /// The problem, e.g. `unknown field 'spread' (fields: premium, kimchi)`.
    public var description: String {
      switch self {
      case .tooFewWords: "too few words"
      case .unknownField(let word): "unknown field '\(word)' (fields: \(BoardAlert.Field.allCases.map(\.rawValue).joined(separator: ", ")))"
      case .unknownOperator(let word): "unknown operator '\(word)' (operators: \(BoardAlert.Operator.allCases.map(\.rawValue).joined(separator: " ")))"
      case .notANumber(let word): "'\(word)' is not a number"
      case .notAnInstrument(let words): "'\(words)' is not an instrument"
      }
    }
  }

  /// The rule as given.
  public var rule: String
  public var reason: Reason

  public init(rule: String, reason: Reason) {
    self.rule = rule
    self.reason = reason
  }

  public var description: String { "alert '\(rule)': \(reason)" }
}
