import ArbCore

extension PremiumPoints {
  /// Calls `body` with every chunk in order while the source makes the next one on a
  /// thread of its own (`ReadAhead`), so that the as-of walk (or a partial's replay)
  /// and the work on its points run on two cores. `body` gets copies of the chunks,
  /// each valid until `body` returns; it must not touch the source, whose counters
  /// (`points`, `legRows`, …) are final once this returns.
  ///
  /// - Throws: what `next()` or `body` throws, at the chunk where it occurs (the source
  ///   stops reading ahead when `body` throws).
  public func forEachChunk(_ body: (PremiumChunk) throws -> Void) throws {
    let ahead = ReadAhead(slots: [ChunkSlot(), ChunkSlot()], name: "arbkit.premium-walk") { slot in
      guard let chunk = try self.next() else { return false }
      slot.fill(chunk)
      return true
    }
    defer { ahead.stop() }
    while let slot = ahead.take() {
      try body(slot.chunk)
      ahead.release()
    }
    if let failure = ahead.failure { throw failure }
  }
}

/// One chunk copied out of the stream's buffers, in buffers kept from chunk to chunk.
private final class ChunkSlot {
  private var int64s = UnsafeMutableBufferPointer<Int64>(start: nil, count: 0)
  private var doubles = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
  private var bytes = UnsafeMutableBufferPointer<Int8>(start: nil, count: 0)
  private var flags = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
  private let books = BookBlock()
  /// The copy (empty until the first fill).
  private(set) var chunk = PremiumChunk(
    time: .init(start: nil, count: 0), duration: .init(start: nil, count: 0), valid: .init(start: nil, count: 0),
    mid: .init(start: nil, count: 0), exec: .init(start: nil, count: 0), rich: .init(start: nil, count: 0),
    cheap: .init(start: nil, count: 0), top: .init(start: nil, count: 0), bottom: .init(start: nil, count: 0))

  deinit {
    int64s.deallocate()
    doubles.deallocate()
    bytes.deallocate()
    flags.deallocate()
  }

  /// Copies `source`'s columns, laid end to end in one buffer per element type.
  func fill(_ source: PremiumChunk) {
    let n = source.count
    let int64Count = 2 * n + source.quoteTimes.count + source.usableBookIndex.count
    let doubleCount = 2 * n + source.quotes.count + source.usableQuotes.count + source.usableSizes.count
    Self.reserve(&int64s, int64Count)
    Self.reserve(&doubles, doubleCount)
    Self.reserve(&bytes, 4 * n)
    Self.reserve(&flags, n)
    var (i, d, b) = (0, 0, 0)
    func copy<T>(_ column: UnsafeBufferPointer<T>, _ into: UnsafeMutableBufferPointer<T>, _ at: inout Int) -> UnsafeBufferPointer<T> {
      let part = UnsafeMutableBufferPointer(rebasing: into[at..<(at + column.count)])
      if !column.isEmpty {
        UnsafeMutableRawPointer(part.baseAddress!).copyMemory(from: column.baseAddress!, byteCount: column.count * MemoryLayout<T>.stride)
      }
      at += column.count
      return UnsafeBufferPointer(part)
    }
    var f = 0
    books.removeAll()
    if let usableBooks = source.usableBooks { books.append(contentsOf: usableBooks) }
    chunk = PremiumChunk(
      time: copy(source.time, int64s, &i), duration: copy(source.duration, int64s, &i), valid: copy(source.valid, flags, &f),
      mid: copy(source.mid, doubles, &d), exec: copy(source.exec, doubles, &d), rich: copy(source.rich, bytes, &b),
      cheap: copy(source.cheap, bytes, &b), top: copy(source.top, bytes, &b), bottom: copy(source.bottom, bytes, &b),
      quotes: copy(source.quotes, doubles, &d), quoteTimes: copy(source.quoteTimes, int64s, &i),
      usableQuotes: copy(source.usableQuotes, doubles, &d), usableSizes: copy(source.usableSizes, doubles, &d),
      usableBookIndex: copy(source.usableBookIndex, int64s, &i), usableBooks: source.usableBooks == nil ? nil : books.all)
  }

  /// Grows `buffer` to hold `count` elements (its contents dropped).
  private static func reserve<T>(_ buffer: inout UnsafeMutableBufferPointer<T>, _ count: Int) {
    guard buffer.count < count else { return }
    buffer.deallocate()
    buffer = .allocate(capacity: count)
  }
}
