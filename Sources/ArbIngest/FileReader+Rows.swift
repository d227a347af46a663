import ArbCore

// The per-row work of `FileReader` for line-based formats: split, parse, validate,
// append, and the full error of a rejected row.
extension FileReader {
  /// Why the hot path rejected a row: a one-byte code plus the field, expanded into a
  /// full `IngestError.Reason` (with the offending text) only for rejected rows.
  private enum Fault: UInt8 {
    case none, unterminatedQuote, fieldCount, timestamp, invalidNumber, nonFinite, nonPositive
    case negativeSize, missingPrice, crossed, backwards, marketName, offFundingGrid, fundingInterval, depthOrder, depthSize
  }

  /// Validates and appends one row; returns the reason and field index when rejected.
  @inline(__always)
  mutating func decodeRow(_ line: UnsafeBufferPointer<UInt8>) -> (IngestError.Reason, Int?)? {
    var field = -1
    var fault = Fault.unterminatedQuote
    if let count = splitter.split(line) {
      if let expected = layout.fieldCount { fault = count == expected ? .none : .fieldCount } else { fault = count < minimumFields ? .fieldCount : .none }
      if fault == .none { fault = decodeFields(TextRowFields(line: line, starts: splitter.starts, ends: splitter.ends, thousands: layout.thousands), &field) }
    } else {
      field = splitter.badQuotedField
    }
    if fault == .none { return nil }
    return (reason(fault, line, field), field >= 0 ? field : nil)
  }

  /// Reads one row whose fields `row` gives (a Parquet row group's typed columns) as
  /// `consume(line:number:)` reads its CSV line: the same rules, counts and errors. Only
  /// when it is rejected, `line` writes that CSV line, for the error's text and column and
  /// for the quarantine.
  mutating func consume<Row: RowFields>(_ row: Row, number: Int, line: (inout [UInt8]) -> Void) throws(IngestError) {
    report.rowsRead += 1
    var field = -1
    let fault = decodeFields(row, &field)
    if fault == .none {
      report.rowsAccepted += 1
      return
    }
    var text: [UInt8] = []
    line(&text)
    try text.withUnsafeBufferPointer { line throws(IngestError) in
      _ = splitter.split(line)
      try reject(reason(fault, line, field), line: line, number: number, field: field >= 0 ? field : nil)
    }
  }

  /// The per-row work, free of allocation and of `String`: read the fields, validate,
  /// append. The one set of row rules, whether the fields are CSV text or typed values.
  @inline(__always)
  private mutating func decodeFields<Row: RowFields>(_ row: Row, _ field: inout Int) -> Fault {
    field = layout.time
    guard var parsed = row.time(field, form: layout.timeForm, offset: layout.timeOffset, isCloseTime: layout.timeIsCloseTime) else { return .timestamp }
    if layout.snapsToFundingGrid {
      guard let snapped = FundingGrid.snap(parsed) else { return .offFundingGrid }
      parsed = snapped
    }
    let (time, shiftOverflows) = parsed.addingReportingOverflow(layout.timeShift)
    if shiftOverflows { return .timestamp }
    var other: Int64? = nil
    if let o = layout.otherTime {
      field = o
      guard let value = row.time(o, form: layout.otherTimeForm, offset: 0, isCloseTime: false) else { return .timestamp }
      other = value
    }

    var interval: Int64 = 0
    if let k = layout.fundingIntervalHours {
      field = k
      guard let hours = row.integer(k), hours > 0, hours <= 8784 else {
        return .fundingInterval
      }
      interval = hours * FundingGrid.hour
    }

    // Several quantities: each non-empty one is checked, to be appended below.
    if !layout.values.isEmpty {
      for (k, value) in layout.values.enumerated() {
        field = value.column
        var parsed = Double.nan
        let fault = price(row, field, &parsed, rate: value.field.isRate)
        if fault != .none && fault != .missingPrice { return fault }
        rowValues[k] = parsed
      }
    }

    // Prices: a book (bid/ask; Tardis may leave a side empty), or one price.
    var bid = Double.nan, ask = Double.nan, bidSize = Double.nan, askSize = Double.nan
    var isBook = false
    if let b = layout.bid, let a = layout.ask {
      field = b
      let bidFault = price(row, b, &bid)
      if bidFault != .none && bidFault != .missingPrice { return bidFault }
      field = a
      let askFault = price(row, a, &ask)
      if askFault != .none && askFault != .missingPrice { return askFault }
      isBook = bidFault == .none || askFault == .none
      if bidFault != askFault && !layout.emptySidesAllowed {
        field = bidFault == .missingPrice ? b : a
        return .missingPrice
      }
      if !isBook && !layout.emptySidesAllowed && layout.price == nil {
        field = b
        return .missingPrice
      }
      if isBook && bid > ask {
        field = b
        crossed = (bid, ask)
        return .crossed
      }
      if let k = layout.bidSize {
        field = k
        let sizeFault = size(row, k, &bidSize)
        if sizeFault != .none { return sizeFault }
      }
      if let k = layout.askSize {
        field = k
        let sizeFault = size(row, k, &askSize)
        if sizeFault != .none { return sizeFault }
      }
    }
    if !isBook, let p = layout.price {
      field = p
      var value = Double.nan
      let priceFault = price(row, p, &value, rate: layout.field.isRate)
      if priceFault != .none && !(priceFault == .missingPrice && layout.emptySidesAllowed) { return priceFault }
      bid = value
      ask = value
      // A trade's size (`IngestOptions.readsTradeSizes`), for both sides as its price is.
      if let k = layout.tradeSize {
        field = k
        let sizeFault = size(row, k, &bidSize)
        if sizeFault != .none { return sizeFault }
        askSize = bidSize
      }
    }

    // Deeper levels of a book snapshot, when its depth is kept: checked here, appended below.
    var depthCount = (bids: 0, asks: 0)
    if layout.depthLevels > 0 {
      let fault = readDepth(row, &field, &depthCount)
      if fault != .none { return fault }
    }

    // Which instrument, then the order check against its last accepted row.
    field = -1
    guard let group = row.group(in: &self) else {
      field = layout.market ?? -1
      return .marketName
    }
    let first = group * groupSize
    if let previous = builders[first].takeRowTime(time, descending: layout.descending, checked: !options.sort) {
      field = layout.time
      backwards = (previous, time)
      return .backwards
    }
    if layout.values.isEmpty {
      builders[first].append(
        time: time, otherTime: other, bid: bid, ask: ask, bidSize: bidSize, askSize: askSize, fundingInterval: interval, isBook: isBook)
      // A series only counted (a streamed read's other series) keeps no book either.
      if layout.depthLevels > 0 && builders[first].tally == nil {
        let levels = layout.depthLevels
        for i in 0..<depthCount.bids { builders[first].series.depth!.appendLevel(bid: true, price: depthRow[i], size: depthRow[levels + i]) }
        for i in 0..<depthCount.asks {
          builders[first].series.depth!.appendLevel(bid: false, price: depthRow[2 * levels + i], size: depthRow[3 * levels + i])
        }
        builders[first].series.depth!.closeBook()
      }
    } else {
      for k in 0..<rowValues.count where !rowValues[k].isNaN {
        let value = rowValues[k]
        builders[first + k].append(time: time, otherTime: other, bid: value, ask: value, bidSize: .nan, askSize: .nan)
      }
    }
    return .none
  }

  /// Reads the levels of a Tardis book snapshot row (`asks[i].price,asks[i].amount,
  /// bids[i].price,bids[i].amount` at fields `4 + 4i`) into `depthRow` (bid prices, bid
  /// sizes, ask prices, ask sizes, `depthLevels` each). A side ends at its first empty
  /// price; every level needs a size; bid prices must fall and ask prices rise level by
  /// level.
  @inline(__always)
  private mutating func readDepth<Row: RowFields>(_ row: Row, _ field: inout Int, _ count: inout (bids: Int, asks: Int)) -> Fault {
    let levels = layout.depthLevels
    if depthRow.count != 4 * levels { depthRow = [Double](repeating: .nan, count: 4 * levels) }
    for side in 0..<2 {
      let isBid = side == 0
      var n = 0
      for i in 0..<levels {
        let p = 4 + 4 * i + (isBid ? 2 : 0)
        if row.isEmpty(p) { break }
        field = p
        var price = Double.nan, amount = Double.nan
        let fault = self.price(row, p, &price)
        if fault != .none { return fault }
        if n > 0 {
          let previous = depthRow[(isBid ? 0 : 2 * levels) + n - 1]
          if isBid ? price >= previous : price <= previous { return .depthOrder }
        }
        field = p + 1
        let sizeFault = size(row, p + 1, &amount)
        if sizeFault != .none { return sizeFault }
        if amount.isNaN { return .depthSize }
        depthRow[(isBid ? 0 : 2 * levels) + n] = price
        depthRow[(isBid ? levels : 3 * levels) + n] = amount
        n += 1
      }
      if isBid { count.bids = n } else { count.asks = n }
    }
    return .none
  }

  /// A price field into `value`: finite, and positive unless it is a `rate`;
  /// `.missingPrice` when empty.
  @inline(__always)
  private mutating func price<Row: RowFields>(_ row: Row, _ k: Int, _ value: inout Double, rate: Bool = false) -> Fault {
    if row.isEmpty(k) { return .missingPrice }
    guard let parsed = row.number(k, scratch: &scratch) else { return .invalidNumber }
    guard parsed.isFinite else { return .nonFinite }
    guard rate || parsed > 0 else { return .nonPositive }
    value = parsed
    return .none
  }

  /// A size field into `value`: finite and not negative; empty stays `nan` (unknown,
  /// never output).
  @inline(__always)
  private mutating func size<Row: RowFields>(_ row: Row, _ k: Int, _ value: inout Double) -> Fault {
    if row.isEmpty(k) { return .none }
    guard let parsed = row.number(k, scratch: &scratch) else { return .invalidNumber }
    guard parsed.isFinite else { return .nonFinite }
    guard parsed >= 0 else { return .negativeSize }
    value = parsed
    return .none
  }

  /// The full reason of a rejected row, with the offending text.
  private func reason(_ fault: Fault, _ line: UnsafeBufferPointer<UInt8>, _ field: Int) -> IngestError.Reason {
    // The split stopped at the bad quoted field: no field's text is known.
    if fault == .unterminatedQuote { return .unterminatedQuote }
    let name = field >= 0 ? layout.name(field) : ""
    let value = field >= 0 ? text(line, field) : ""
    switch fault {
    case .none, .unterminatedQuote: preconditionFailure("no reason here for \(fault)")
    case .fieldCount:
      var probe = splitter
      let found = probe.split(line) ?? 0
      return .wrongFieldCount(expected: layout.fieldCount ?? minimumFields, found: found)
    case .timestamp: return .invalidTimestamp(column: name, text: value)
    case .invalidNumber: return .invalidNumber(column: name, text: value)
    case .nonFinite: return .nonFinite(column: name, text: value)
    case .nonPositive: return .nonPositivePrice(column: name, text: value)
    case .negativeSize: return .negativeSize(column: name, text: value)
    case .missingPrice: return .missingPrice(column: name)
    case .crossed: return .crossedBook(bid: crossed.bid, ask: crossed.ask)
    case .backwards:
      return layout.descending
        ? .timestampNotDecreasing(previous: backwards.previous, found: backwards.found)
        : .timestampNotIncreasing(previous: backwards.previous, found: backwards.found)
    case .marketName: return .invalidMarket(column: name, text: value)
    case .offFundingGrid: return .offFundingGrid(column: name, text: value, toleranceMillis: FundingGrid.toleranceMillis)
    case .fundingInterval: return .invalidValue(column: name, text: value, expected: "a whole number of hours from 1 to 8784")
    case .depthOrder: return .invalidValue(column: name, text: value, expected: "a price beyond the level before (bids falling, asks rising)")
    case .depthSize: return .invalidValue(column: name, text: value, expected: "the size of a level")
    }
  }

  /// Parses bytes `[start, end)`, dropping the thousands separator if the format has one.
  @inline(__always)
  mutating func number(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
    TextRowFields.number(base, start, end, thousands: layout.thousands, scratch: &scratch)
  }

  func text(_ line: UnsafeBufferPointer<UInt8>, _ k: Int) -> String { splitter.text(line, k) }
}
