import ArbCore

#if _endian(big)
#error("the store's column files are little-endian")
#endif

/// Names in a store: series folders, day folders, column files (docs/formats.md, "Store").
enum StoreLayout {
  /// `venue/market/symbol/field`, each part made safe for a file name.
  static func seriesFolder(venue: String, market: String, symbol: String, field: String) -> String {
    [venue, market, symbol, field].map(folderName).joined(separator: "/")
  }

  static func seriesFolder(_ instrument: Instrument, _ field: SeriesField) -> String {
    seriesFolder(venue: instrument.venue, market: instrument.market.rawValue, symbol: instrument.symbol, field: field.rawValue)
  }

  /// `name` as one folder name: ASCII letters, digits, `-`, `_` and `.` stay (a `.`
  /// only after the first byte); every other byte of its UTF-8, `%` included, becomes
  /// `%` and two upper-case hex digits (`BTC/USDT` → `BTC%2FUSDT`), and an empty name
  /// is `%`. The rule is one to one, so two names never share a folder.
  static func folderName(_ name: String) -> String {
    if name.isEmpty { return "%" }
    var out = ""
    for (k, byte) in name.utf8.enumerated() {
      let kept =
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        || byte == 0x2D || byte == 0x5F || (byte == 0x2E && k > 0)
      if kept {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        let hex = String(byte, radix: 16, uppercase: true)
        out += "%" + (hex.count == 1 ? "0" : "") + hex
      }
    }
    return out
  }

  /// The UTC day of `time`, `YYYY-MM-DD`: a quote at midnight starts the new day.
  static func day(of time: Int64) -> String { TimeText.isoDate(time) }

  /// The day number (days since 1970-01-01 UTC) of `time`.
  static func dayNumber(of time: Int64) -> Int64 { time.floorDiv(TimeText.microsPerDay) }
}

/// One column of a partition: a raw little-endian file of `rows × 8` bytes.
struct StoreColumn: Sendable {
  enum Kind: Sendable {
    case int64, float64
  }

  let name: String
  let kind: Kind
  /// Present in every partition (`time`, `bid`, `ask`); the others are there when the
  /// source has them.
  var required = false

  static let all: [StoreColumn] = [
    StoreColumn(name: "time", kind: .int64, required: true),
    StoreColumn(name: "other_time", kind: .int64),
    StoreColumn(name: "bid", kind: .float64, required: true),
    StoreColumn(name: "ask", kind: .float64, required: true),
    StoreColumn(name: "bid_size", kind: .float64),
    StoreColumn(name: "ask_size", kind: .float64),
    StoreColumn(name: "funding_interval", kind: .int64),
  ]

  /// The columns `StoreColumns.skippingSizesAndOtherClock` leaves on disk.
  static let sizesAndOtherClock: Set = ["other_time", "bid_size", "ask_size"]

  static func named(_ name: String) -> StoreColumn? { all.first { $0.name == name } }

  /// numpy's dtype: `<i8` or `<f8`.
  var dtype: String { kind == .int64 ? "<i8" : "<f8" }
  var fileName: String { name + (kind == .int64 ? ".i64" : ".f64") }
}

/// The columns of a store that a read maps or copies.
public enum StoreColumns: Sendable {
  /// Every column.
  case all
  /// Every column but the book sizes and the other recorded clock, which stay on disk
  /// (`QuoteSeries.bidSize`, `askSize` and `otherTime`, a chunk's likewise, are empty):
  /// for a command that reads neither.
  case skippingSizesAndOtherClock
  /// The time column alone: to count and bound quotes.
  case timeOnly

  func includes(_ column: String) -> Bool {
    switch self {
    case .all: true
    case .skippingSizesAndOtherClock: !StoreColumn.sizesAndOtherClock.contains(column)
    case .timeOnly: column == "time"
    }
  }
}
