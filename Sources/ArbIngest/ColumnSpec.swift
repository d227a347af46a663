import ArbCore
import Foundation

/// A column-mapped CSV format, read from a small JSON file (`Data/formats/*.json`).
///
/// It names the timestamp column and its form, the price columns (bid/ask, or one
/// price such as a candle close), and how the file is written. Columns are named by
/// header text or by 1-based position. Example (Binance.US 1m candles):
///
///     { "kind": "quotes", "header": true,
///       "time": { "column": "open_time", "form": "iso8601", "shift": "1m" },
///       "price": "close", "venue": "binanceus", "market": "spot", "symbol": "BTCUSDC" }
public struct ColumnSpec: Sendable, Codable, Equatable {
  /// A column, by header name or 1-based position.
  public enum ColumnRef: Sendable, Codable, Equatable, CustomStringConvertible {
    case name(String)
    case position(Int)

    public init(from decoder: Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let position = try? container.decode(Int.self) {
        self = .position(position)
      } else {
        let text = try container.decode(String.self)
        self = Int(text).map(ColumnRef.position) ?? .name(text)
      }
    }

    public func encode(to encoder: Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .name(let name): try container.encode(name)
      case .position(let position): try container.encode(position)
      }
    }

    public var description: String {
      switch self {
      case .name(let name): name
      case .position(let position): "#\(position)"
      }
    }
  }

  /// The timestamp column and how to read it.
  public struct TimeColumn: Sendable, Codable, Equatable {
    public var column: ColumnRef
    public var form: TimeForm
    /// UTC offset for zone-less times and dates, e.g. `+09:00`. Default UTC.
    public var zone: String?
    /// Added to every timestamp, e.g. `1m` to stamp a 1-minute candle's close at its end.
    public var shift: String?
  }

  /// Row order in the file.
  public enum Order: String, Sendable, Codable {
    /// Oldest first; rows going backwards are rejected (or sorted with `--sort`).
    case ascending
    /// Newest first (Investing.com, Upbit candles): reversed on ingest.
    case descending
  }

  /// Columns that each hold one venue's price (a "wide" file such as bitcoinity's
  /// `Time,bithumb,korbit,kraken`): every column but the time (`*`), or header names
  /// (a JSON list, or one string with commas). Each becomes a series whose venue is the column name; an empty
  /// cell adds no point.
  public enum VenueColumns: Sendable, Codable, Equatable {
    case all
    case named([String])

    public init(from decoder: Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let names = try? container.decode([String].self) {
        self = .named(names)
      } else if let text = try? container.decode(String.self) {
        // `--spec-set venue_columns=kraken,bitstamp` gives the list as one string.
        self = text == "*" ? .all : .named(text.split(separator: ",").map(String.init))
      } else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected \"*\", a list of column names, or names separated by commas")
      }
    }

    public func encode(to encoder: Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .all: try container.encode("*")
      case .named(let names): try container.encode(names)
      }
    }
  }

  /// `quotes` (prices of an instrument) or `fx` (a rate such as USDKRW, one price).
  public var kind: String?
  public var description: String?
  public var header: Bool?
  public var delimiter: String?
  public var quote: String?
  /// Thousands separator to drop inside numbers, e.g. `,` for `"160,210,000"`.
  public var thousands: String?
  public var order: Order?
  public var time: TimeColumn
  public var price: ColumnRef?
  public var bid: ColumnRef?
  public var ask: ColumnRef?
  public var bidSize: ColumnRef?
  public var askSize: ColumnRef?
  public var venue: String?
  public var market: MarketKind?
  public var symbol: String?
  public var venueColumns: VenueColumns?
  /// What the price columns hold: `price` (the default), `mark`, `index`, or a signed
  /// rate (`funding_rate`, `premium_index`: zero and negative values are valid).
  public var field: SeriesField?

  enum CodingKeys: String, CodingKey {
    case kind, description, header, delimiter, quote, thousands, order, time, price, bid, ask
    case bidSize = "bid_size", askSize = "ask_size", venue, market, symbol, venueColumns = "venue_columns", field
  }

  /// Reads a spec from JSON, applying `overrides` (`time.form=ms`, `header=false`,
  /// dotted keys as in the file) first, as `--spec-set` does.
  public static func load(path: String, overrides: [String] = []) throws -> ColumnSpec {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw FileError.missing(path: path)
    }
    return try decode(data, path: path, overrides: overrides)
  }

  /// Decodes a spec from JSON bytes with optional dotted-key overrides.
  public static func decode(_ data: Data, path: String, overrides: [String] = []) throws -> ColumnSpec {
    do {
      var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
      for assignment in overrides {
        guard let eq = assignment.firstIndex(of: "=") else {
          throw SpecError(path: path, message: "override '\(assignment)' is not KEY=VALUE")
        }
        let key = assignment[..<eq].split(separator: ".").map(String.init)
        set(&object, key[...], jsonValue(String(assignment[assignment.index(after: eq)...])))
      }
      let normalised = try JSONSerialization.data(withJSONObject: object)
      let spec = try JSONDecoder().decode(ColumnSpec.self, from: normalised)
      if let zone = spec.time.zone, RecordLayout.zoneOffset(zone) == nil {
        throw SpecError(path: path, message: "invalid time.zone, expected UTC or an offset such as +09:00, was '\(zone)'")
      }
      if let shift = spec.time.shift, TimeText.parseDuration(shift) == nil {
        throw SpecError(path: path, message: "invalid time.shift, expected a duration such as 1m, was '\(shift)'")
      }
      return spec
    } catch let error as SpecError {
      throw error
    } catch {
      throw SpecError(path: path, message: "not a valid format spec: \(Self.explain(error))")
    }
  }

  /// A spec given entirely by assignments (a command's `--spec-set`, a scenario's
  /// `spec_set`), its errors placed at `column-spec assignments`.
  public static func fromOverrides(_ overrides: [String]) throws -> ColumnSpec {
    try decode(Data("{}".utf8), path: "column-spec assignments", overrides: overrides)
  }

  private static func explain(_ error: Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, let context):
      let path = (context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
      return "missing key '\(path)'"
    case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context):
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return "bad value at '\(path)': \(context.debugDescription)"
    default:
      return "\(error)"
    }
  }

  private static func jsonValue(_ text: String) -> Any {
    if text == "true" { return true }
    if text == "false" { return false }
    if !text.hasPrefix("+"), let int = Int(text) { return int }
    return text
  }

  private static func set(_ object: inout [String: Any], _ key: ArraySlice<String>, _ value: Any) {
    guard let first = key.first else { return }
    if key.count == 1 {
      object[first] = value
    } else {
      var inner = object[first] as? [String: Any] ?? [:]
      set(&inner, key.dropFirst(), value)
      object[first] = inner
    }
  }
}

/// A format spec that cannot be used.
public struct SpecError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var message: String
  public var description: String { "\(path): error: \(message)" }
}
