import ArbCore

/// An alert of the live board, `--alert 'INSTRUMENT FIELD OP NUMBER'`: a condition on
/// one figure of one instrument's row, e.g. `BTC/KRW kimchi >= 3`.
///
/// INSTRUMENT is a canonical instrument as the board shows it (`BTC/KRW`, the market
/// `spot` implied, or `BTC/USDT linear perp`, `BTC/USD inverse future 2025-03-28`);
/// FIELD is `premium` or `kimchi` (both in percent); OP is `>=`, `>`, `<=` or `<`.
struct BoardAlert: Equatable {
  /// The figure of a row an alert watches.
  enum Field: String, CaseIterable {
    case premium, kimchi
  }

  /// How the figure is compared with the threshold.
  enum Operator: String, CaseIterable {
    case atLeast = ">="
    case above = ">"
    case atMost = "<="
    case below = "<"

    func holds(_ value: Double, _ threshold: Double) -> Bool {
      switch self {
      case .atLeast: value >= threshold
      case .above: value > threshold
      case .atMost: value <= threshold
      case .below: value < threshold
      }
    }
  }

  var instrument: CanonicalInstrument
  var field: Field
  var comparison: Operator
  /// Percent.
  var threshold: Double

  /// Reads `text`, `INSTRUMENT FIELD OP NUMBER` separated by spaces.
  init(parsing text: String) throws(UsageError) {
    let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
    func invalid(_ why: String) -> UsageError {
      UsageError("invalid value for '--alert', \(why), expected INSTRUMENT FIELD OP NUMBER such as 'BTC/KRW kimchi >= 3', was '\(text)'")
    }
    guard words.count >= 4 else { throw invalid("too few words") }
    let tail = words.suffix(3).map { $0 }
    guard let field = Field(rawValue: tail[0]) else {
      throw invalid("unknown field '\(tail[0])' (fields: \(Field.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    guard let comparison = Operator(rawValue: tail[1]) else {
      throw invalid("unknown operator '\(tail[1])' (operators: \(Operator.allCases.map(\.rawValue).joined(separator: " ")))")
    }
    // A decimal number, with an exponent or not: no hexadecimal, inf or nan.
    guard tail[2].allSatisfy({ "0123456789+-.eE".contains($0) }), let threshold = Double(tail[2]), threshold.isFinite else {
      throw invalid("'\(tail[2])' is not a number")
    }
    guard let instrument = Self.instrument(words.dropLast(3)) else { throw invalid("'\(words.dropLast(3).joined(separator: " "))' is not an instrument") }
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
  func watches(_ other: CanonicalInstrument) -> Bool {
    other.base == instrument.base && other.quote == instrument.quote && other.kind == instrument.kind && other.expiry == instrument.expiry
  }

  /// Whether `value` meets the condition; an absent value never does.
  func holds(_ value: Double?) -> Bool { value.map { comparison.holds($0, threshold) } ?? false }

  /// `BTC/KRW spot kimchi >= 3`: the condition as the alert lines print it.
  var description: String { "\(instrument) \(field.rawValue) \(comparison.rawValue) \(JSONValue.format(threshold))" }
}

/// The alerts' states over time: each condition starts when it first holds and ends
/// when it stops holding, with how long it held.
struct AlertTracker {
  /// One change of an alert's state.
  struct Event: Equatable {
    enum Kind: String {
      /// The condition holds and did not before.
      case start
      /// The condition held and no longer does.
      case end
      /// The condition still held when the board stopped.
      case open
    }

    var kind: Kind
    var alert: BoardAlert
    /// The board's time (µs).
    var time: Int64
    /// The figure at that time (percent), `nil` when it has none (a stale venue).
    var value: Double?
    /// Since the start (µs), for `end` and `open`.
    var duration: Int64?

    /// The alert line: `TIME alert KIND CONDITION value=V[ duration_s=D]`, e.g.
    /// `2025-01-01T00:00:07Z alert end BTC/KRW spot kimchi >= 3 value=2.9812 duration_s=5.000`.
    var line: String {
      var text = "\(TimeText.iso8601(time)) alert \(kind.rawValue) \(alert.description) value=\(NumberText.fixed(value, 4))"
      if let duration { text += " duration_s=" + NumberText.fixed(Double(duration) / 1e6, 3) }
      return text
    }
  }

  let alerts: [BoardAlert]
  /// When each alert's current episode started, `nil` while it does not hold.
  private var since: [Int64?]

  init(_ alerts: [BoardAlert]) {
    self.alerts = alerts
    since = alerts.map { _ in nil }
  }

  /// The events of the alerts at `time`, given each alert's figure (`value(alert)`).
  mutating func update(at time: Int64, value: (BoardAlert) -> Double?) -> [Event] {
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
  func open(at time: Int64, value: (BoardAlert) -> Double?) -> [Event] {
    alerts.indices.compactMap { k in
      since[k].map { Event(kind: .open, alert: alerts[k], time: time, value: value(alerts[k]), duration: time - $0) }
    }
  }
}
