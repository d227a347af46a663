/// An error found while turning recorded bytes into columns.
///
/// Every rejected row and every unreadable file produces one of these, with the
/// position of the offending field. The description follows the compiler frame
/// `path:line:column: error: reason`.
public struct IngestError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Why a row or a file was rejected. One case per failure kind.
  public enum Reason: Sendable, Equatable, Hashable {
    case emptyFile
    /// A file with a header (or a store) from which no quote was accepted: `rowsRead` rows
    /// read and all rejected (0: none after the header); nil when not counted.
    case noQuotes(rowsRead: Int?)
    case missingHeader(expected: String)
    case missingColumn(name: String)
    case unknownFormat(firstLine: String)
    case wrongFieldCount(expected: Int, found: Int)
    case invalidNumber(column: String, text: String)
    case invalidTimestamp(column: String, text: String)
    case nonFinite(column: String, text: String)
    case nonPositivePrice(column: String, text: String)
    case negativeSize(column: String, text: String)
    case missingPrice(column: String)
    case crossedBook(bid: Double, ask: Double)
    case timestampNotIncreasing(previous: Int64, found: Int64)
    case timestampNotDecreasing(previous: Int64, found: Int64)
    case unterminatedQuote
    case truncatedCompressedStream(detail: String)
    case corruptCompressedStream(detail: String)
    case symbolNotInFile(symbol: String, found: [String])
    case errorRecord(detail: String)
    case readFailed(detail: String)
    case invalidMarket(column: String, text: String)
    /// A JSON file whose structure breaks (a missing bracket or comma).
    case malformedJSON(expected: String, found: String)
    /// A funding time that is not within the tolerance of a whole hour (the funding
    /// grid); `toleranceMillis` is that tolerance.
    case offFundingGrid(column: String, text: String, toleranceMillis: Int)
    /// A field that must be one of a few words (`bid`/`ask`, `true`/`false`).
    case invalidValue(column: String, text: String, expected: String)
    /// A line longer than the reader's limit (no newline within `limit` bytes).
    case lineTooLong(limit: Int)
    /// A compressed file that inflates past its limit (a decompression bomb).
    case decompressionLimit(limit: Int, compressed: Int)
    /// A zip archive of several files (their names, in order; `…` when more follow
    /// that could not be listed): one file per archive is read.
    case severalZipEntries(names: [String])

    /// A short stable name for the reason, used to count rejections by kind.
    public var kind: String {
      switch self {
      case .emptyFile: "empty_file"
      case .noQuotes: "no_quotes"
      case .missingHeader: "missing_header"
      case .missingColumn: "missing_column"
      case .unknownFormat: "unknown_format"
      case .wrongFieldCount: "wrong_field_count"
      case .invalidNumber: "invalid_number"
      case .invalidTimestamp: "invalid_timestamp"
      case .nonFinite: "non_finite"
      case .nonPositivePrice: "non_positive_price"
      case .negativeSize: "negative_size"
      case .missingPrice: "missing_price"
      case .crossedBook: "crossed_book"
      case .timestampNotIncreasing: "timestamp_backwards"
      case .timestampNotDecreasing: "timestamp_forwards"
      case .unterminatedQuote: "unterminated_quote"
      case .truncatedCompressedStream: "truncated_stream"
      case .corruptCompressedStream: "corrupt_stream"
      case .symbolNotInFile: "symbol_not_in_file"
      case .errorRecord: "error_record"
      case .readFailed: "read_failed"
      case .invalidMarket: "invalid_market"
      case .malformedJSON: "malformed_json"
      case .offFundingGrid: "off_funding_grid"
      case .invalidValue: "invalid_value"
      case .lineTooLong: "line_too_long"
      case .decompressionLimit: "decompression_limit"
      case .severalZipEntries: "several_zip_entries"
      }
    }

    /// Rows out of time order, which sorting on ingest would accept: the command line
    /// adds the name of its sorting switch to the message (it differs per command).
    public var isOutOfOrder: Bool {
      switch self {
      case .timestampNotIncreasing, .timestampNotDecreasing: true
      default: false
      }
    }

    /// A lowercase fragment naming the parameter and showing the value.
    public var message: String {
      switch self {
      case .emptyFile: "empty file, no header and no rows"
      case .noQuotes(let rowsRead):
        switch rowsRead {
        case 0: "no quotes: a header and no rows"
        case let read?: "no quotes: all \(read) rows were rejected"
        case nil: "no quotes: no row was accepted"
        }
      case .missingHeader(let expected): "missing or wrong header, expected '\(expected)'"
      case .missingColumn(let name): "missing column '\(name)'"
      case .unknownFormat(let line): "unknown format, first line was '\(line)'"
      case .wrongFieldCount(let expected, let found):
        "wrong field count, expected \(expected), was \(found)"
      case .invalidNumber(let column, let text): "invalid number in column '\(column)', was '\(text)'"
      case .invalidTimestamp(let column, let text):
        "invalid timestamp in column '\(column)', was '\(text)'"
      case .nonFinite(let column, let text): "non-finite number in column '\(column)', was '\(text)'"
      case .nonPositivePrice(let column, let text):
        "price not positive in column '\(column)', was '\(text)'"
      case .negativeSize(let column, let text): "negative size in column '\(column)', was '\(text)'"
      case .missingPrice(let column): "missing price in column '\(column)'"
      case .crossedBook(let bid, let ask): "crossed book, bid \(bid) > ask \(ask)"
      case .timestampNotIncreasing(let previous, let found):
        "timestamp goes backwards, previous \(previous), was \(found)"
      case .timestampNotDecreasing(let previous, let found):
        "timestamp goes forwards in a newest-first file, previous \(previous), was \(found)"
      case .unterminatedQuote: "quoted field not closed by a quote before the next delimiter or the line's end"
      case .truncatedCompressedStream(let detail): "truncated compressed stream, \(detail)"
      case .corruptCompressedStream(let detail): "corrupt compressed stream, \(detail)"
      case .symbolNotInFile(let symbol, let found):
        "symbol '\(symbol)' not in file, found \(found.joined(separator: ", "))"
      case .errorRecord(let detail): "error record, \(detail)"
      case .readFailed(let detail): detail
      case .invalidMarket(let column, let text):
        "unknown market in column '\(column)', expected spot, linear, inverse, future or fx, was '\(text)'"
      case .malformedJSON(let expected, let found): "malformed JSON, expected \(expected), was '\(found)'"
      case .offFundingGrid(let column, let text, let tolerance):
        "funding time in column '\(column)' is not within \(tolerance) ms of a whole hour, was '\(text)'"
      case .invalidValue(let column, let text, let expected): "invalid value in column '\(column)', expected \(expected), was '\(text)'"
      case .lineTooLong(let limit): "line longer than \(limit) bytes"
      case .decompressionLimit(let limit, let compressed):
        "decompressed data exceeds the limit of \(limit) bytes for \(compressed) compressed bytes (a decompression bomb?)"
      case .severalZipEntries(let names):
        "zip archive holds several files (\(names.joined(separator: ", "))), one file per archive is read; unzip it and give the files as one leg, PATH,PATH"
      }
    }
  }

  public var reason: Reason
  public var position: SourcePosition

  public init(_ reason: Reason, at position: SourcePosition) {
    self.reason = reason
    self.position = position
  }

  public var description: String { "\(position): error: \(reason.message)" }
}
