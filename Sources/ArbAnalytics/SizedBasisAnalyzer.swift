import ArbCore

/// The executable basis at a trade size and its statistics, from the alignment of a
/// derivative D and its reference R fed a chunk at a time (`PremiumStream` of `[D, R]`
/// with `keepUsableQuotes` and `keepSizes`), in memory that does not grow with the
/// series (`docs/definitions.md`, "Basis and funding carry"):
///
/// - `open(Q) = (avgBid_D(Q) / avgAsk_R(Q) − 1) × 100`: sell Q of D on its bids, buy Q
///   of R on its asks;
/// - `close(Q) = (avgAsk_D(Q) / avgBid_R(Q) − 1) × 100`: buy Q of D back on its asks,
///   sell Q of R on its bids.
///
/// Each is valid at a valid point of the alignment whose two books fill Q on the sides
/// it takes; a point where one of them cannot is short of depth (invalid at that size,
/// never 0) and counted. Books are walked as for the sized premium
/// (`SizedPremiumAnalyzer`): a leg with books in the book behind its quote, any other as
/// the one level of its quote and sizes; a leg without sizes fills nothing.
public final class SizedBasisAnalyzer {
  public let quantity: Double
  /// The bands of the capacity, percent.
  public let bands: [Double]
  private let derivative: LegBooks, reference: LegBooks
  /// The top levels of the point being worked on: D's bid, bid size, ask, ask size, then R's.
  private let tops: UnsafeMutableBufferPointer<Double>
  private let summaries: (open: SignedSummaryStream, close: SignedSummaryStream)
  private let capacity: CapacityAccumulator
  private let capacityAtPoint: UnsafeMutableBufferPointer<Double>
  private var openShort = 0, closeShort = 0
  /// Per chunk: each side's values and validity.
  private let values = (open: Scratch<Double>(), close: Scratch<Double>()), valid = (open: Scratch<Bool>(), close: Scratch<Bool>())

  /// - Parameters:
  ///   - options: bands and episode options of `open` and `close`; its bands are the capacity's.
  ///   - spillMemoryLimit: values of a column held in memory before they go to a temporary file.
  public init(
    quantity: Double, options: BandOptions = BandOptions(), spillMemoryLimit: Int = ValueSpill.defaultMemoryLimit
  ) {
    precondition(quantity > 0 && quantity.isFinite, "SizedBasisAnalyzer: size must be positive")
    self.quantity = quantity
    bands = options.bands
    let tops = UnsafeMutableBufferPointer<Double>.allocate(capacity: 8)
    tops.initialize(repeating: .nan)
    self.tops = tops
    derivative = LegBooks(top: tops.baseAddress!)
    reference = LegBooks(top: tops.baseAddress! + 4)
    summaries = (
      SignedSummaryStream(columns: 1, options: options, spillMemoryLimit: spillMemoryLimit),
      SignedSummaryStream(columns: 1, options: options, spillMemoryLimit: spillMemoryLimit)
    )
    capacity = CapacityAccumulator(bands: options.bands.count, spillMemoryLimit: spillMemoryLimit)
    capacityAtPoint = .allocate(capacity: options.bands.count)
    capacityAtPoint.initialize(repeating: 0)
  }

  deinit {
    tops.deallocate()
    capacityAtPoint.deallocate()
  }

  /// Adds the next points; `chunk` carries `usableQuotes`, `usableSizes` and the usable books.
  /// - Throws: `SpillError`.
  public func add(_ chunk: PremiumChunk) throws(SpillError) {
    let n = chunk.count
    guard n > 0 else { return }
    precondition(
      chunk.usableQuotes.count == 4 * n && chunk.usableSizes.count == 4 * n && chunk.usableBookIndex.count == 2 * n,
      "SizedBasisAnalyzer: the chunk lacks its usable quotes, sizes or books")
    (derivative.books, reference.books) = (chunk.usableBooks, chunk.usableBooks)
    let (open, close) = (values.open.reserve(n), values.close.reserve(n))
    let (openValid, closeValid) = (valid.open.reserve(n), valid.close.reserve(n))
    capacity.reserve(n)
    for i in 0..<n {
      (open[i], close[i], openValid[i], closeValid[i]) = (.nan, .nan, false, false)
      guard chunk.valid[i] else { continue }
      // Bids then asks, per leg: D is leg 0, R leg 1.
      for leg in 0..<2 {
        let top = tops.baseAddress! + 4 * leg
        top[0] = chunk.usableQuotes[4 * i + leg]
        top[1] = chunk.usableSizes[4 * i + leg]
        top[2] = chunk.usableQuotes[4 * i + 2 + leg]
        top[3] = chunk.usableSizes[4 * i + 2 + leg]
      }
      (derivative.index, reference.index) = (Int(chunk.usableBookIndex[2 * i]), Int(chunk.usableBookIndex[2 * i + 1]))
      if let bid = derivative.average(bid: true, quantity: quantity), let ask = reference.average(bid: false, quantity: quantity) {
        (open[i], openValid[i]) = ((bid / ask - 1) * 100, true)
      } else {
        openShort += 1
      }
      if let ask = derivative.average(bid: false, quantity: quantity), let bid = reference.average(bid: true, quantity: quantity) {
        (close[i], closeValid[i]) = ((ask / bid - 1) * 100, true)
      } else {
        closeShort += 1
      }
      for (b, band) in bands.enumerated() { capacityAtPoint[b] = derivative.capacity(against: reference, band: band) }
      capacity.append(UnsafeBufferPointer(capacityAtPoint), duration: chunk.duration[i])
    }
    func view<T>(_ buffer: UnsafeMutableBufferPointer<T>) -> UnsafeBufferPointer<T> { UnsafeBufferPointer(rebasing: buffer[0..<n]) }
    try summaries.open.add([view(open)], valid: view(openValid), time: chunk.time, duration: chunk.duration)
    try summaries.close.add([view(close)], valid: view(closeValid), time: chunk.time, duration: chunk.duration)
    try capacity.flush()
  }

  /// The figures of every point added.
  /// - Throws: `SpillError` when a spilled column cannot be read back.
  public func finish() throws(SpillError) -> SizedBasisSummary {
    let (open, close) = (try summaries.open.finish()[0], try summaries.close.finish()[0])
    return SizedBasisSummary(
      quantity: quantity, bands: bands, openShort: openShort, closeShort: closeShort, open: open, close: close, capacity: try capacity.finish())
  }
}

/// What is reported of the basis at a trade size.
public struct SizedBasisSummary: Sendable {
  public var quantity: Double
  /// The bands of the capacity, percent.
  public var bands: [Double]
  /// Valid points of the alignment at which `open(Q)` (resp. `close(Q)`) cannot fill.
  public var openShort: Int
  public var closeShort: Int
  /// `open(Q)` and `close(Q)` summarised as signed premiums.
  public var open: SeriesSummary
  public var close: SeriesSummary
  /// Per band, statistics of the capacity of `open` over the valid points of the alignment.
  public var capacity: [SeriesStatistics]

  public init(
    quantity: Double, bands: [Double], openShort: Int, closeShort: Int, open: SeriesSummary, close: SeriesSummary, capacity: [SeriesStatistics]
  ) {
    (self.quantity, self.bands, self.openShort, self.closeShort) = (quantity, bands, openShort, closeShort)
    (self.open, self.close, self.capacity) = (open, close, capacity)
  }
}
