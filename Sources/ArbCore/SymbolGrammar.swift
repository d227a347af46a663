/// How a venue spells the symbols of one market: literal text and placeholders.
///
/// | Placeholder | Matches | Example |
/// |---|---|---|
/// | `{BASE}`, `{base}` | a known base asset (venue code, e.g. `XBT`) | `BTC` |
/// | `{QUOTE}`, `{quote}` | one of the market's quote currencies, longest first | `USDT` |
/// | `{YYMMDD}` | expiry as year, month, day | `250328` |
/// | `{DDMMMYY}` | expiry as day (1 or 2 digits), English month, year | `28MAR25` |
/// | `{MYY}` | futures month code and year; expiry on the month's last Friday | `H25` |
///
/// Matching ignores case; formatting writes literals as given and `{base}`/`{quote}`
/// in lower case. Examples: `{BASE}{QUOTE}` (`BTCUSDT`), `{QUOTE}-{BASE}` (`KRW-BTC`),
/// `{BASE}-{QUOTE}-SWAP`, `{BASE}{QUOTE}_PERP`, `{BASE}{QUOTE}_{YYMMDD}`, `{base}_{quote}`.
public struct SymbolGrammar: Sendable, Hashable, CustomStringConvertible {
  enum Token: Sendable, Hashable {
    /// The text as written, and upper-cased for matching.
    case literal(String, [UInt8])
    case base(lower: Bool)
    case quote(lower: Bool)
    case date(DateForm)
  }

  enum DateForm: Sendable, Hashable { case yymmdd, ddmmmyy, monthCode }

  /// The pieces of a symbol.
  public struct Match: Sendable, Hashable {
    /// The base as the venue writes it, upper case (`XBT`).
    public var base: String
    /// The quote, upper case; `nil` when the grammar has no `{QUOTE}` (the market's
    /// single quote applies).
    public var quote: String?
    public var expiry: CalendarDay?

    public init(base: String, quote: String?, expiry: CalendarDay?) {
      self.base = base
      self.quote = quote
      self.expiry = expiry
    }
  }

  /// The grammar as written in the registry.
  public let text: String
  let tokens: [Token]

  static let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
  static let monthCodes = Array("FGHJKMNQUVXZ".utf8)

  /// Parses a grammar; the error names the placeholder it does not know.
  public init(_ text: String) throws(GrammarError) {
    var tokens: [Token] = []
    var rest = Substring(text)
    while !rest.isEmpty {
      guard let open = rest.firstIndex(of: "{") else {
        tokens.append(.literal(String(rest), Array(rest.uppercased().utf8)))
        break
      }
      if open > rest.startIndex { tokens.append(.literal(String(rest[..<open]), Array(rest[..<open].uppercased().utf8))) }
      guard let close = rest[open...].firstIndex(of: "}") else { throw GrammarError(grammar: text, detail: "'{' is not closed") }
      let name = rest[rest.index(after: open)..<close]
      switch name {
      case "BASE": tokens.append(.base(lower: false))
      case "base": tokens.append(.base(lower: true))
      case "QUOTE": tokens.append(.quote(lower: false))
      case "quote": tokens.append(.quote(lower: true))
      case "YYMMDD": tokens.append(.date(.yymmdd))
      case "DDMMMYY": tokens.append(.date(.ddmmmyy))
      case "MYY": tokens.append(.date(.monthCode))
      default:
        throw GrammarError(grammar: text, detail: "unknown placeholder '{\(name)}', expected BASE, QUOTE, YYMMDD, DDMMMYY or MYY")
      }
      rest = rest[rest.index(after: close)...]
    }
    guard tokens.filter({ if case .base = $0 { true } else { false } }).count == 1 else {
      throw GrammarError(grammar: text, detail: "needs exactly one {BASE}")
    }
    guard tokens.filter({ if case .quote = $0 { true } else { false } }).count <= 1,
      tokens.filter({ if case .date = $0 { true } else { false } }).count <= 1
    else { throw GrammarError(grammar: text, detail: "has a placeholder twice") }
    self.text = text
    self.tokens = tokens
  }

  public var description: String { text }

  /// Whether the grammar names dated futures (it holds an expiry placeholder).
  public var isDated: Bool { tokens.contains { if case .date = $0 { true } else { false } } }

  /// Whether the grammar has a `{QUOTE}` placeholder.
  public var hasQuote: Bool { tokens.contains { if case .quote = $0 { true } else { false } } }

  /// Splits `symbol` into its pieces, or `nil` when it does not follow the grammar.
  ///
  /// - Parameters:
  ///   - quotes: the quote currencies `{QUOTE}` may stand for; the longest that fits is tried first.
  ///   - acceptsBase: whether an upper-case venue code may be the base; the shortest
  ///     accepted base is tried first.
  public func match(_ symbol: String, quotes: [String], acceptsBase: (String) -> Bool) -> Match? {
    matches(symbol, quotes: quotes, acceptsBase: acceptsBase, limit: 1).first
  }

  /// The readings of `symbol`, in the order `match` tries them, at most `limit`: more
  /// than one means the grammar alone cannot tell the base from the quote (`BTCTUSD` in
  /// `{BASE}{QUOTE}` with quotes `USD` and `TUSD`).
  public func matches(_ symbol: String, quotes: [String], acceptsBase: (String) -> Bool, limit: Int) -> [Match] {
    let bytes = Array(symbol.uppercased().utf8)
    let quoteBytes = quotes.map { Array($0.uppercased().utf8) }.sorted { $0.count > $1.count }
    var found: [Match] = []
    var current = Match(base: "", quote: nil, expiry: nil)
    // Walks the tokens from byte `p`; true once `limit` readings are found.
    func step(_ t: Int, _ p: Int) -> Bool {
      guard t < tokens.count else {
        if p == bytes.count && !found.contains(current) { found.append(current) }
        return found.count >= limit
      }
      switch tokens[t] {
      case .literal(_, let upper):
        return bytes[p...].starts(with: upper) && step(t + 1, p + upper.count)
      case .base:
        var end = p
        while end < bytes.count && Self.isAlphanumeric(bytes[end]) {
          end += 1
          let code = String(decoding: bytes[p..<end], as: UTF8.self)
          guard acceptsBase(code) else { continue }
          current.base = code
          if step(t + 1, end) { return true }
        }
        return false
      case .quote:
        for quote in quoteBytes where bytes[p...].starts(with: quote) {
          current.quote = String(decoding: quote, as: UTF8.self)
          if step(t + 1, p + quote.count) { return true }
        }
        return false
      case .date(let form):
        for (day, width) in Self.dates(form, in: bytes[p...]) {
          current.expiry = day
          if step(t + 1, p + width) { return true }
        }
        return false
      }
    }
    _ = step(0, 0)
    return found
  }

  /// The symbol of these pieces in this grammar. `base` and `quote` are venue codes.
  public func format(base: String, quote: String, expiry: CalendarDay?) -> String {
    var text = ""
    for token in tokens {
      switch token {
      case .literal(let literal, _): text += literal
      case .base(let lower): text += lower ? base.lowercased() : base.uppercased()
      case .quote(let lower): text += lower ? quote.lowercased() : quote.uppercased()
      case .date(let form):
        guard let day = expiry else { continue }
        let yy = Self.twoDigits(day.year % 100)
        switch form {
        case .yymmdd: text += yy + Self.twoDigits(day.month) + Self.twoDigits(day.day)
        case .ddmmmyy: text += "\(day.day)" + Self.months[day.month - 1] + yy
        case .monthCode: text += String(UnicodeScalar(Self.monthCodes[day.month - 1])) + yy
        }
      }
    }
    return text
  }

  /// Every reading of an expiry at the start of `bytes`: the day and how many bytes it took.
  static func dates(_ form: DateForm, in bytes: ArraySlice<UInt8>) -> [(CalendarDay, Int)] {
    let b = Array(bytes)
    func number(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= b.count, range.allSatisfy({ b[$0] >= 48 && b[$0] <= 57 }) else { return nil }
      return range.reduce(0) { $0 * 10 + Int(b[$1] - 48) }
    }
    switch form {
    case .yymmdd:
      guard let yy = number(0..<2), let mm = number(2..<4), let dd = number(4..<6),
        let day = CalendarDay(year: 2000 + yy, month: mm, day: dd)
      else { return [] }
      return [(day, 6)]
    case .ddmmmyy:
      return [2, 1].compactMap { digits -> (CalendarDay, Int)? in
        guard let dd = number(0..<digits), b.count >= digits + 5,
          let month = months.firstIndex(of: String(decoding: b[digits..<digits + 3], as: UTF8.self)),
          let yy = number(digits + 3..<digits + 5),
          let day = CalendarDay(year: 2000 + yy, month: month + 1, day: dd)
        else { return nil }
        return (day, digits + 5)
      }
    case .monthCode:
      guard let first = b.first, let month = monthCodes.firstIndex(of: first), let yy = number(1..<3) else { return [] }
      return [(CalendarDay.lastFriday(year: 2000 + yy, month: month + 1), 3)]
    }
  }

  static func isAlphanumeric(_ byte: UInt8) -> Bool { (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) }

  static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

extension SymbolGrammar: Codable {
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    do { try self.init(text) } catch {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(text)
  }
}

/// A symbol grammar that cannot be used.
public struct GrammarError: Error, Sendable, CustomStringConvertible {
  public var grammar: String
  public var detail: String
  public var description: String { "symbol grammar '\(grammar)' \(detail)" }
}
