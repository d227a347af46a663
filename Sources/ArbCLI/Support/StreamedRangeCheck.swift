/// A check a command makes on the time range of a whole series (`Candles.checkRange`,
/// `TimeOfDayProfile.checkRange`), made on a series read a chunk at a time: each chunk
/// is checked from the series' first time to its own last before it is used; one that
/// fails has the rest of the series read, so that the error is the whole range's.
struct StreamedRangeCheck {
  private let check: (ClosedRange<Int64>) throws -> Void
  private var first: Int64? = nil

  init(_ check: @escaping (ClosedRange<Int64>) throws -> Void) { self.check = check }

  /// Checks `times` (ascending, after those checked before); `nextLast` reads the next
  /// chunk of the series and gives its last time, `nil` at the end.
  mutating func check(_ times: UnsafeBufferPointer<Int64>, nextLast: () throws -> Int64?) throws {
    guard let last = times.last else { return }
    let first = self.first ?? times[0]
    self.first = first
    do { try check(first...last) } catch {
      var end = last
      while let later = try nextLast() { end = later }
      try check(first...end)
      throw error
    }
  }
}
