import ArbCore

// Wide files: one time column and one price column per venue (bitcoinity's
// `Time,bithumb,korbit,kraken`). Each venue column is its own series; an empty cell
// is a venue with no price that day, not a bad row.
extension FileReader {
  /// One builder per venue column, in column order, so that a venue with no price at
  /// all is still listed (with 0 rows).
  mutating func prepareWide(_ columns: [(field: Int, venue: String)]) {
    for column in columns {
      let instrument = Instrument(
        venue: column.venue, market: options.instrument?.market ?? layout.fixedMarket ?? .spot,
        symbol: options.instrument?.symbol ?? layout.fixedSymbol ?? "unknown")
      newBuilder(instrument, key: [])
    }
  }

  /// Validates one row of a wide file and appends its non-empty prices; returns the
  /// reason and field index when rejected (then nothing of the row is kept).
  mutating func decodeWideRow(_ line: UnsafeBufferPointer<UInt8>) -> (IngestError.Reason, Int?)? {
    guard let count = splitter.split(line) else { return (.unterminatedQuote, splitter.badQuotedField) }
    guard count >= minimumFields else { return (.wrongFieldCount(expected: minimumFields, found: count), nil) }
    let base = line.baseAddress!
    let starts = splitter.starts, ends = splitter.ends
    let t = layout.time
    guard let parsed = TimeParser.parse(base + starts[t], ends[t] - starts[t], form: layout.timeForm, defaultOffset: layout.timeOffset),
      case let (time, shiftOverflows) = parsed.addingReportingOverflow(layout.timeShift), !shiftOverflows
    else { return (.invalidTimestamp(column: layout.name(t), text: text(line, t)), t) }
    let columns = layout.venueColumns!
    var prices = [Double](repeating: .nan, count: columns.count)
    for (k, column) in columns.enumerated() {
      let f = column.field
      if starts[f] == ends[f] { continue }
      guard let value = number(base, starts[f], ends[f]) else { return (.invalidNumber(column: layout.name(f), text: text(line, f)), f) }
      guard value.isFinite else { return (.nonFinite(column: layout.name(f), text: text(line, f)), f) }
      guard value > 0 else { return (.nonPositivePrice(column: layout.name(f), text: text(line, f)), f) }
      prices[k] = value
    }
    // The order is the file's, row by row, whether or not a row has any price.
    let previous = lastWideRowTime
    if previous != .min && !options.sort && (layout.descending ? time > previous : time < previous) {
      let reason: IngestError.Reason =
        layout.descending
        ? .timestampNotDecreasing(previous: previous, found: time) : .timestampNotIncreasing(previous: previous, found: time)
      return (reason, t)
    }
    lastWideRowTime = time
    for k in columns.indices where !prices[k].isNaN {
      builders[k].append(time: time, otherTime: nil, bid: prices[k], ask: prices[k], bidSize: .nan, askSize: .nan)
    }
    return nil
  }
}
