#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore

// Tardis.dev `incremental_book_L2` (sources.md §1.7): one row per changed price level,
// `exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount`, where
// `amount` is the level's new absolute size (`0` deletes it). The book of each
// instrument is rebuilt in file order and read as one top-of-book quote per instant of
// the chosen clock, after all the rows of that instant (one exchange message is many
// rows with one timestamp):
//
// - rows of an instrument before its first `is_snapshot=true` row are accepted but
//   not applied (counted in `IngestReport.rowsBeforeSnapshot`);
// - a `true` row after `false` rows starts a new snapshot: both sides are cleared first;
// - an instant whose book is crossed (best bid > best ask) writes no quote and is
//   counted in `IngestReport.crossedStates`: the book is ours, not the recorder's, and
//   real L2 data crosses for a moment; the quote before it stays in force;
// - an instant whose book is empty on both sides (every level deleted) writes no
//   quote either: it has no price to give;
// - a rejected row (bad number, unknown side, time going back) is not applied, so
//   under `skip` the book may differ from the exchange's until the next snapshot.

/// Header and layout of the Tardis.dev `incremental_book_L2` files.
enum TardisL2 {
  static let header = "exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount"

  /// Field positions. Time is `local_timestamp` for `Clock.local`, `timestamp` for
  /// `Clock.exchange`; the other one is kept as the other time. Fields 4–7 are read by
  /// `FileReader.decodeBookRow`, not through the layout's book fields.
  static func layout(clock: Clock) -> RecordLayout {
    let local = clock == .local
    return RecordLayout(
      names: header.split(separator: ",").map(String.init), fieldCount: 8,
      venue: 0, symbol: 1, time: local ? 3 : 2, timeForm: .epochMicros, otherTime: local ? 2 : 3,
      emptySidesAllowed: true, tardisVenue: true)
  }
}

/// One side of an order book: levels kept sorted ascending by key, the best last.
/// Bids are keyed by price, asks by `-price`, so that both sides insert and delete
/// near their end in the common case.
///
/// Not a `Collection` of levels: the best level is read, and the best few when the
/// depth is kept.
struct BookSide {
  var keys: [Double] = []
  var sizes: [Double] = []

  /// Sets the level at `key` to `size` (absolute); `0` deletes it (a level not in the
  /// book stays absent).
  ///
  /// - Complexity: O(log *n*) to find the level, plus the shift of the levels above it.
  @inline(__always)
  mutating func set(_ key: Double, _ size: Double) {
    var low = 0, high = keys.count
    while low < high {
      let mid = (low + high) >> 1
      if keys[mid] < key { low = mid + 1 } else { high = mid }
    }
    if low < keys.count && keys[low] == key {
      if size == 0 {
        keys.remove(at: low)
        sizes.remove(at: low)
      } else {
        sizes[low] = size
      }
    } else if size != 0 {
      keys.insert(key, at: low)
      sizes.insert(size, at: low)
    }
  }

  mutating func clear() {
    keys.removeAll(keepingCapacity: true)
    sizes.removeAll(keepingCapacity: true)
  }
}

/// The rebuilt book of one instrument and the instant it has pending.
struct L2Book {
  var bids = BookSide()
  var asks = BookSide()
  /// The instrument's first snapshot row has been seen.
  var started = false
  /// The last applied row was a snapshot row.
  var inSnapshot = false
  /// Time of the instrument's last accepted row, for the order check.
  var lastTime: Int64 = .min
  /// The instant whose rows are being applied (its quote is written when the next
  /// instant of the instrument starts, or at the end of the file).
  var pending: (time: Int64, otherTime: Int64?)? = nil
}

extension FileReader {
  /// Validates one `incremental_book_L2` row and applies it to its instrument's book;
  /// returns the reason and field index when rejected. Rejections: field count,
  /// timestamps, `is_snapshot` not `true`/`false`, `side` not `bid`/`ask`, a price that
  /// is not a finite positive number, an `amount` that is not a finite number ≥ 0, a
  /// time going back within the instrument (unless `--sort`).
  ///
  /// - Complexity: O(fields) plus `BookSide.set`, once per row.
  mutating func decodeBookRow(_ line: UnsafeBufferPointer<UInt8>) -> (IngestError.Reason, Int?)? {
    guard let count = splitter.split(line) else { return (.unterminatedQuote, splitter.badQuotedField) }
    if count != 8 { return (.wrongFieldCount(expected: 8, found: count), nil) }
    let base = line.baseAddress!
    let starts = splitter.starts, ends = splitter.ends
    func bytes(_ k: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + starts[k], count: ends[k] - starts[k]) }

    guard let time = TimeParser.parse(base + starts[layout.time], ends[layout.time] - starts[layout.time], form: .epochMicros, defaultOffset: 0) else {
      return (.invalidTimestamp(column: layout.name(layout.time), text: text(line, layout.time)), layout.time)
    }
    let o = layout.otherTime!
    guard let other = TimeParser.parse(base + starts[o], ends[o] - starts[o], form: .epochMicros, defaultOffset: 0) else {
      return (.invalidTimestamp(column: layout.name(o), text: text(line, o)), o)
    }
    let flag = bytes(4)
    let isSnapshot = Self.field(flag, is: "true")
    guard isSnapshot || Self.field(flag, is: "false") else {
      return (.invalidValue(column: "is_snapshot", text: text(line, 4), expected: "true or false"), 4)
    }
    let sideText = bytes(5)
    let isBid = Self.field(sideText, is: "bid")
    guard isBid || Self.field(sideText, is: "ask") else {
      return (.invalidValue(column: "side", text: text(line, 5), expected: "bid or ask"), 5)
    }
    if starts[6] == ends[6] { return (.missingPrice(column: "price"), 6) }
    guard let price = number(base, starts[6], ends[6]) else { return (.invalidNumber(column: "price", text: text(line, 6)), 6) }
    guard price.isFinite else { return (.nonFinite(column: "price", text: text(line, 6)), 6) }
    guard price > 0 else { return (.nonPositivePrice(column: "price", text: text(line, 6)), 6) }
    guard starts[7] != ends[7], let amount = number(base, starts[7], ends[7]) else {
      return (.invalidNumber(column: "amount", text: text(line, 7)), 7)
    }
    guard amount.isFinite else { return (.nonFinite(column: "amount", text: text(line, 7)), 7) }
    guard amount >= 0 else { return (.negativeSize(column: "amount", text: text(line, 7)), 7) }

    // Tardis rows always name their instrument: the index cannot be nil.
    guard let index = groupIndex(line) else { return (.invalidMarket(column: "", text: ""), nil) }
    while books!.count < builders.count { books!.append(L2Book()) }
    let previous = books![index].lastTime
    if previous != .min && !options.sort && time < previous {
      return (.timestampNotIncreasing(previous: previous, found: time), layout.time)
    }
    books![index].lastTime = time

    if !books![index].started && !isSnapshot {
      report.rowsBeforeSnapshot += 1
      return nil
    }
    if let pending = books![index].pending, pending.time != time {
      emitQuote(index, at: pending)
    }
    books!.withUnsafeMutableBufferPointer { all in
      if isSnapshot && !all[index].inSnapshot {
        // The first snapshot, or a new one after updates: start from an empty book.
        all[index].bids.clear()
        all[index].asks.clear()
      }
      all[index].started = true
      all[index].inSnapshot = isSnapshot
      if isBid { all[index].bids.set(price, amount) } else { all[index].asks.set(-price, amount) }
      all[index].pending = (time, other)
    }
    return nil
  }

  /// Whether `field` holds exactly the ASCII `word` (a byte compare: the generic
  /// `elementsEqual` of a string's UTF-8 view took a sixth of the time of a row).
  @inline(__always)
  private static func field(_ field: UnsafeBufferPointer<UInt8>, is word: StaticString) -> Bool {
    field.count == word.utf8CodeUnitCount && memcmp(field.baseAddress!, word.utf8Start, field.count) == 0
  }

  /// Writes the quote of instrument `index`'s book at `instant`: best bid and ask with
  /// their sizes, `nan` for an empty side; nothing (a crossed state counted) when the
  /// best bid is above the best ask, nothing when both sides are empty.
  mutating func emitQuote(_ index: Int, at instant: (time: Int64, otherTime: Int64?)) {
    let book = books![index]
    let bid = book.bids.keys.last ?? .nan, bidSize = book.bids.sizes.last ?? .nan
    let ask = book.asks.keys.last.map { -$0 } ?? .nan, askSize = book.asks.sizes.last ?? .nan
    if bid.isNaN && ask.isNaN { return }
    if bid > ask {
      report.crossedStates += 1
      return
    }
    builders[index].hasBook = true
    builders[index].append(time: instant.time, otherTime: instant.otherTime, bid: bid, ask: ask, bidSize: bidSize, askSize: askSize)
    // A series only counted (a streamed read's other series) keeps no book.
    if options.keepDepth && builders[index].tally == nil {
      // The best `depthLevels` of each side, best first (both sides keep their best last).
      for k in book.bids.keys.indices.reversed().prefix(options.depthLevels) {
        builders[index].series.depth!.appendLevel(bid: true, price: book.bids.keys[k], size: book.bids.sizes[k])
      }
      for k in book.asks.keys.indices.reversed().prefix(options.depthLevels) {
        builders[index].series.depth!.appendLevel(bid: false, price: -book.asks.keys[k], size: book.asks.sizes[k])
      }
      builders[index].series.depth!.closeBook()
    }
  }

  /// Writes every book's pending instant (end of file).
  mutating func finishBooks() {
    for k in books!.indices {
      if let pending = books![k].pending {
        emitQuote(k, at: pending)
        books![k].pending = nil
      }
    }
  }
}
