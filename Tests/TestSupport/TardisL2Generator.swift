/// Tardis `incremental_book_L2` rows of instruments interleaved on random walks, with the
/// cases a rebuilt book must carry from row to row: updates before the first snapshot,
/// instants of several rows, levels deleted and the next one becoming best, a fresh
/// snapshot after updates, a crossed instant and an instant whose book is empty (neither
/// writes a quote), and, when asked, bad rows (an unknown side, a negative amount, a
/// time going back).
public enum TardisL2Generator {
  public static let header = "exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount"

  /// One instrument's book as the generator left it (prices in tenths), and its walk.
  private struct Book {
    var bids: [Int: Int] = [:]
    var asks: [Int: Int] = [:]
    var mid = 300_000
    var started = false
    var messages = 0
    /// A crossing bid left in the book, deleted by the instrument's next message.
    var crossing: Int? = nil
    var lastTime: Int64 = 0
  }

  /// The rows (without the header) of `messages` messages of `exchange`'s `symbols`.
  /// - Parameters:
  ///   - gap: the most µs between two messages (a ninth of them share the time before).
  ///   - snapshotEvery: an instrument's messages between two snapshots.
  ///   - badEvery: a bad row after every so many messages (0: none).
  public static func rows(
    exchange: String, symbols: [String], messages: Int, seed: UInt64, gap: UInt64 = 200_000, snapshotEvery: Int = 400, badEvery: Int = 0
  ) -> [String] {
    var random = SplitMix64(seed: seed)
    var books = symbols.map { _ in Book() }
    var time: Int64 = 1_700_000_000_000_000
    var lines: [String] = []
    lines.reserveCapacity(messages * 3)
    func decimal(_ tenths: Int) -> String { "\(tenths / 10).\(tenths % 10)" }
    for m in 0..<messages {
      if m == 0 || random.next() % 9 != 0 { time += 1 + Int64(random.next() % gap) }
      let k = Int(random.next() % UInt64(symbols.count))
      var book = books[k]
      defer { books[k] = book }
      let prefix = "\(exchange),\(symbols[k]),\(time),\(time + 1_500)"
      func row(_ snapshot: Bool, _ bid: Bool, _ tenths: Int, _ size: Int) {
        lines.append("\(prefix),\(snapshot),\(bid ? "bid" : "ask"),\(decimal(tenths)),\(decimal(size))")
        if bid { book.bids[tenths] = size == 0 ? nil : size } else { book.asks[tenths] = size == 0 ? nil : size }
      }
      book.messages += 1
      book.lastTime = time
      if !book.started && random.next() % 3 == 0 {
        // Before the first snapshot: accepted, counted, not applied.
        lines.append("\(prefix),false,bid,\(decimal(book.mid - 1)),1.0")
        continue
      }
      if !book.started || book.messages % snapshotEvery == 0 {
        book.started = true
        (book.bids, book.asks, book.crossing) = ([:], [:], nil)
        for i in 0..<1 + Int(random.next() % 8) { row(true, true, book.mid - 1 - i, 1 + Int(random.next() % 40)) }
        for i in 0..<1 + Int(random.next() % 8) { row(true, false, book.mid + 1 + i, 1 + Int(random.next() % 40)) }
        continue
      }
      if let crossing = book.crossing {
        row(false, true, crossing, 0)
        book.crossing = nil
      }
      book.mid += Int(random.next() % 7) - 3
      // Levels on the wrong side of the new mid go, as an exchange's would.
      for price in book.bids.keys.sorted() where price >= book.mid { row(false, true, price, 0) }
      for price in book.asks.keys.sorted() where price <= book.mid { row(false, false, price, 0) }
      switch random.next() % 200 {
      case 0:
        // Every level deleted: an instant with no quote.
        for price in book.bids.keys.sorted() { row(false, true, price, 0) }
        for price in book.asks.keys.sorted() { row(false, false, price, 0) }
      case 1, 2:
        // A bid above the best ask: a crossed instant, undone by the next message.
        if let best = book.asks.keys.min() {
          row(false, true, best + 2, 1 + Int(random.next() % 40))
          book.crossing = best + 2
        }
      default:
        for _ in 0..<1 + Int(random.next() % 4) {
          let bid = random.next() % 2 == 0, depth = Int(random.next() % 6)
          let size = random.next() % 5 == 0 ? 0 : 1 + Int(random.next() % 40)
          row(false, bid, bid ? book.mid - 1 - depth : book.mid + 1 + depth, size)
        }
      }
      if badEvery > 0 && m % badEvery == badEvery - 1 {
        switch random.next() % 3 {
        case 0: lines.append("\(prefix),false,buy,\(decimal(book.mid - 1)),1.0")
        case 1: lines.append("\(prefix),false,bid,\(decimal(book.mid - 1)),-1.0")
        default: lines.append("\(exchange),\(symbols[k]),\(time - 5_000),\(time - 3_500),false,bid,\(decimal(book.mid - 1)),1.0")
        }
      }
    }
    return lines
  }
}
