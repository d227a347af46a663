#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore

/// One leg named on the command line: `[VENUE:MARKET:SYMBOL=]PATH[,PATH…][#FIELD][@FORMAT]`.
///
/// `FORMAT` is a named format (`tardis.quotes`) or the path of a column spec
/// (`Data/formats/kraken-ohlcvt.json`). Several paths are consecutive files of the
/// same leg (e.g. days) and are joined in the order given. `FIELD` picks the series
/// of a file that holds several quantities per instrument (`price`, `mark`, `index`,
/// `funding_rate`, `premium_index`): `binance:linear:BTCUSDT=deriv.csv.gz#mark`.
/// Without it the leg takes the price series, or the only field the file holds.
public struct LegSpec: Sendable, Equatable {
  public var instrument: Instrument?
  public var paths: [String]
  public var format: String?
  /// The series field named with `#FIELD`, or `nil`.
  public var field: SeriesField?
  /// Column-spec assignments of this leg (a scenario leg's `spec_set`), applied after
  /// those given to `load` for every leg.
  public var specSet: [String] = []

  /// Every file the leg reads: its data files, and its column spec when its format is one.
  public var files: [String] { paths + (format.map { RecordFormat(id: $0) == nil ? [$0] : [] } ?? []) }

  public init(instrument: Instrument?, paths: [String], format: String? = nil, field: SeriesField? = nil, specSet: [String] = []) {
    self.instrument = instrument
    self.paths = paths
    self.format = format
    self.field = field
    self.specSet = specSet
  }

  /// The leg of one of its files, `path`, read alone.
  public func file(_ path: String) -> LegSpec {
    var one = self
    one.paths = [path]
    return one
  }

  /// Parses the `--leg` text; the error is a usage message.
  public init(parsing text: String) throws(LegSpecError) {
    // A path that exists is that file or folder, even if it holds `,`, `=`, `#` or `@`.
    if access(text, F_OK) == 0 {
      paths = [text]
      return
    }
    var rest = Substring(text)
    if let at = rest.lastIndex(of: "@") {
      let suffix = String(rest[rest.index(after: at)...])
      if RecordFormat(id: suffix) != nil || suffix.hasSuffix(".json") {
        format = suffix
        rest = rest[..<at]
      }
    }
    // `#FIELD`: a word after the last `#` (a `#` followed by a path stays in the path).
    if let hash = rest.lastIndex(of: "#") {
      let suffix = String(rest[rest.index(after: hash)...])
      if !suffix.contains("/") && !suffix.contains(".") {
        guard let named = SeriesField(rawValue: suffix) else {
          let fields = SeriesField.allCases.map(\.rawValue).joined(separator: ", ")
          throw LegSpecError(message: "unknown field '\(suffix)' in leg '\(text)', expected one of \(fields)")
        }
        field = named
        rest = rest[..<hash]
      }
    }
    if let eq = rest.firstIndex(of: "=") {
      let parts = rest[..<eq].split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count == 3, !parts[0].isEmpty, !parts[2].isEmpty else {
        throw LegSpecError(message: "leg prefix '\(rest[..<eq])' is not VENUE:MARKET:SYMBOL")
      }
      guard let market = MarketKind(rawValue: String(parts[1])) else {
        let kinds = MarketKind.allCases.map(\.rawValue).joined(separator: ", ")
        throw LegSpecError(message: "unknown market '\(parts[1])' in leg '\(text)', expected one of \(kinds)")
      }
      instrument = Instrument(venue: String(parts[0]), market: market, symbol: String(parts[2]))
      rest = rest[rest.index(after: eq)...]
    }
    paths = rest.split(separator: ",").map(String.init)
    guard !paths.isEmpty else { throw LegSpecError(message: "leg '\(text)' names no file") }
  }
}

/// A `--leg` text that cannot be parsed.
public struct LegSpecError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// A leg read into one series, with the report of each of its files.
public struct LoadedLeg: Sendable {
  public var series: QuoteSeries
  public var reports: [IngestReport]
}

extension LegSpec {
  /// Reads every file of the leg and joins them into one series.
  ///
  /// - Parameters:
  ///   - options: ingest options shared by all legs (its `format` and `instrument`
  ///     are replaced by the leg's own).
  ///   - specOverrides: `--spec-set` assignments applied to a column spec.
  /// - Throws: `FileError`, `IngestError`, `SpecError`, or `LegSpecError` when the file
  ///   holds several instruments and the leg names none, or no series of the leg's field.
  public func load(options: IngestOptions, specOverrides: [String] = []) throws -> LoadedLeg {
    var fileOptions = try ingestOptions(options, specOverrides: specOverrides)
    // Files of one leg are joined column by column: each keeps every column.
    if paths.count > 1 { fileOptions.storeColumns = .all }
    var joined: QuoteSeries? = nil
    var reports: [IngestReport] = []
    for path in paths {
      let file = try Ingest.read(path: path, options: fileOptions)
      reports.append(file.report)
      var picked = try pick(from: file, path: path)
      if joined != nil {
        try joined!.join(picked, path: path, sort: options.sort)
      } else {
        picked.instrument = instrument ?? picked.instrument
        joined = picked
      }
    }
    return LoadedLeg(series: joined!, reports: reports)
  }

  /// `options` with this leg's instrument and format (a named format, or a column spec
  /// read from its path with `specOverrides` applied).
  public func ingestOptions(_ options: IngestOptions, specOverrides: [String]) throws -> IngestOptions {
    var fileOptions = options
    fileOptions.instrument = instrument
    fileOptions.format = try resolveFormat(overrides: specOverrides + specSet) ?? options.format
    return fileOptions
  }

  private func resolveFormat(overrides: [String]) throws -> RecordFormat? {
    guard let format else {
      return overrides.isEmpty ? nil : .columns(try ColumnSpec.fromOverrides(overrides))
    }
    if let named = RecordFormat(id: format) { return named }
    return .columns(try ColumnSpec.load(path: format, overrides: overrides))
  }

  /// The series of this leg in `file`: of its field (named, else `price`, or the
  /// only field the file holds), then of its instrument.
  private func pick(from file: IngestedFile, path: String) throws -> QuoteSeries {
    let (index, named) = try pick(from: file.series.map { ($0.instrument, $0.field) }, path: path, rowsRead: file.report.rowsRead)
    var series = file.series[index]
    series.instrument = named
    return series
  }

  /// Which of the `series` (instrument and field) of the file `path` this leg takes, and
  /// the instrument it goes by (the leg's own when it names one that matched);
  /// `rowsRead`: the rows of the file, for the error of a file without quotes.
  func pick(from series: [(instrument: Instrument, field: SeriesField)], path: String, rowsRead: Int? = nil) throws -> (Int, Instrument) {
    if series.isEmpty { throw IngestError(.noQuotes(rowsRead: rowsRead), at: SourcePosition(path: path, line: 1, column: 1)) }
    let found = series.map { "\($0.instrument) (\($0.field.rawValue))" }
    let fields = Set(series.map(\.field))
    let wanted = field ?? (fields.count == 1 ? fields.first! : .price)
    let candidates = series.indices.filter { series[$0].field == wanted }
    guard !candidates.isEmpty else {
      throw LegSpecError(message: "\(path) holds no \(wanted.rawValue) series (found \(found.joined(separator: ", "))); name one with \(path)#FIELD")
    }
    guard let instrument else {
      if candidates.count == 1 { return (candidates[0], series[candidates[0]].instrument) }
      throw LegSpecError(message: "\(path) holds several instruments (\(found.joined(separator: ", "))); name one with VENUE:MARKET:SYMBOL=\(path)")
    }
    // The exact instrument first: one file may hold a symbol on several markets of a venue.
    let exact = candidates.first { series[$0].instrument == instrument }
    if let match = exact
      ?? candidates.first(where: {
        series[$0].instrument.symbol == instrument.symbol
          && (series[$0].instrument.venue == instrument.venue || series[$0].instrument.venue == "unknown")
      })
    {
      return (match, instrument)
    }
    if candidates.count == 1 && series[candidates[0]].instrument.symbol == "unknown" { return (candidates[0], series[candidates[0]].instrument) }
    throw IngestError(.symbolNotInFile(symbol: instrument.description, found: found), at: SourcePosition(path: path, line: 1, column: 1))
  }

  /// Whether the leg is one store, which `stream(options:)` streams from its mapped
  /// partitions instead of reading it whole.
  public var isStore: Bool { paths.count == 1 && Store.isStore(path: paths[0]) }

  /// The leg's series in a store as a stream over its partitions in `options.window`,
  /// with the report of the store's sources (its row accounting, as `load` gives).
  /// - Throws: as `Store.open`, `StoreError.clockMismatch`, or as `load` when the store
  ///   holds no series of the leg.
  public func stream(options: IngestOptions) throws -> StreamedLeg {
    let (store, series, named) = try storeSeries(options: options)
    let window = options.window ?? TimeWindow()
    return StreamedLeg(stream: store.stream(series, window: window, columns: options.storeColumns), instrument: named, report: store.sourceReport())
  }

  /// The store this leg names, opened, its series the leg takes, and the instrument the
  /// leg goes by.
  /// - Throws: as `stream(options:)`.
  public func storeSeries(options: IngestOptions) throws -> (store: Store, series: Store.Series, instrument: Instrument) {
    precondition(isStore, "storeSeries(options:) reads a store leg")
    let store = try Store.open(path: paths[0])
    guard options.clock == store.clock else { throw StoreError.clockMismatch(store: store.path, stored: store.clock, requested: options.clock) }
    let (index, named) = try pick(from: store.series.map { ($0.instrument, $0.field) }, path: paths[0])
    return (store, store.series[index], named)
  }
}

/// A leg read as a stream (`LegSpec.stream(options:)`), named as the leg names it.
public struct StreamedLeg {
  public var stream: any QuoteStream
  public var instrument: Instrument
  public var report: IngestReport
}

extension QuoteSeries {
  /// Appends `next`, the same instrument read from the following file `path` (a
  /// consecutive day): a first row at this series' last time replaces it, as duplicates
  /// collapse; an earlier one is an error unless `sort`, which sorts the joined series.
  ///
  /// - Throws: `IngestError` `timestampNotIncreasing` at `path`'s first data line.
  public mutating func join(_ next: QuoteSeries, path: String, sort: Bool) throws(IngestError) {
    if let last = time.last, let first = next.time.first, first <= last {
      if first == last {
        self = droppingLast()
      } else if !sort {
        throw IngestError(.timestampNotIncreasing(previous: last, found: first), at: SourcePosition(path: path, line: 2, column: 1))
      }
    }
    append(contentsOf: next)
    if sort { sortByTime() }
  }

  /// Appends another series of the same instrument (its columns, in order).
  mutating func append(contentsOf other: QuoteSeries) {
    // An optional column that only one side has is padded with zeros on the other;
    // appended in place, into the capacity the column already has.
    let (count, otherCount) = (self.count, other.count)
    func appendColumn(_ mine: inout [Int64], _ theirs: [Int64]) {
      if mine.isEmpty && theirs.isEmpty { return }
      if mine.isEmpty { mine = [Int64](repeating: 0, count: count) }
      if theirs.isEmpty { mine += repeatElement(0, count: otherCount) } else { mine += theirs }
    }
    // Depth is kept only when both parts have it.
    if var mine = depth, let theirs = other.depth {
      mine.append(contentsOf: theirs)
      depth = mine
    } else {
      depth = nil
    }
    appendColumn(&otherTime, other.otherTime)
    appendColumn(&fundingInterval, other.fundingInterval)
    time += other.time
    bid += other.bid
    ask += other.ask
    bidSize += other.bidSize
    askSize += other.askSize
    if other.priceSource == .book { priceSource = .book }
  }

  func droppingLast() -> QuoteSeries {
    var copy = self
    copy.time.removeLast()
    if !copy.otherTime.isEmpty { copy.otherTime.removeLast() }
    if !copy.fundingInterval.isEmpty { copy.fundingInterval.removeLast() }
    copy.bid.removeLast()
    copy.ask.removeLast()
    copy.bidSize.removeLast()
    copy.askSize.removeLast()
    copy.depth = copy.depth.map { $0.selecting(Array(0..<(count - 1))) }
    return copy
  }

  /// Stable sort by time, then collapse equal times to the last.
  mutating func sortByTime() {
    var builder = SeriesBuilder(
      instrument: instrument, field: field, clock: clock, keepsOtherTime: !otherTime.isEmpty,
      keepsFundingInterval: !fundingInterval.isEmpty, expectedRows: 0)
    builder.series = self
    builder.hasBook = priceSource == .book
    self = builder.finish(order: .unsorted).series
  }
}
