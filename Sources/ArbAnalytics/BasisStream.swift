import ArbCore

/// The columns of `BasisSeries` at consecutive points, as `BasisStream` yields them. The
/// buffers belong to the stream and stay valid until its next `next()`.
public struct BasisChunk: @unchecked Sendable {
  public let time: UnsafeBufferPointer<Int64>
  /// Time to the next point; 0 for the last point of the series.
  public let duration: UnsafeBufferPointer<Int64>
  public let valid: UnsafeBufferPointer<Bool>
  /// Percent, `nan` at invalid points.
  public let basis: UnsafeBufferPointer<Double>
  public let open: UnsafeBufferPointer<Double>
  public let close: UnsafeBufferPointer<Double>
  /// With an expiry: the annualised basis, valid at the valid points before it; else empty.
  public let annualised: UnsafeBufferPointer<Double>
  public let beforeExpiry: UnsafeBufferPointer<Bool>

  public var count: Int { time.count }
}

/// The basis of a derivative over a reference read as streams: the columns of
/// `BasisSeries` (the same formulas at the same points) a bounded chunk at a time, on
/// the as-of alignment of `PremiumStream`.
public final class BasisStream {
  public let expiry: Int64?
  /// The alignment: points, valid points, and the rows and times read of each leg.
  public let alignment: any PremiumPoints
  /// Valid points at or after the expiry so far.
  public private(set) var pointsAfterExpiry = 0
  private let basis = Scratch<Double>(), open = Scratch<Double>(), close = Scratch<Double>(), annualised = Scratch<Double>()
  private let beforeExpiry = Scratch<Bool>()
  private var checkedExpiry = false

  /// Opens the alignment of `derivative` and `reference` (its first chunks are read).
  ///
  /// - Throws: `AlignmentError` (`.time` when the expiry is further from the first point
  ///   than a duration holds, at the first chunk), or what a leg's stream throws.
  public convenience init(
    derivative: any QuoteStream, reference: any QuoteStream, expiry: Int64?, options: AlignmentOptions = AlignmentOptions(),
    chunkPoints: Int = 1 << 16, legChunkRows: Int = 1 << 16
  ) throws {
    self.init(
      alignment: try PremiumStream(
        legs: [derivative, reference], options: options, chunkPoints: chunkPoints, legChunkRows: legChunkRows, keepQuotes: true),
      expiry: expiry)
  }

  /// The basis of the points of `alignment`: of the derivative over the reference, their
  /// quotes kept (`PremiumStream(…, keepQuotes: true)`, or a replay of its points).
  public init(alignment: any PremiumPoints, expiry: Int64?) {
    precondition(alignment.legCount == 2, "a basis aligns two legs")
    (self.alignment, self.expiry) = (alignment, expiry)
  }

  /// The next chunk of points, `nil` after the last.
  public func next() throws -> BasisChunk? {
    guard let chunk = try alignment.next() else { return nil }
    let n = chunk.count
    if let expiry, !checkedExpiry, let first = chunk.time.first {
      checkedExpiry = true
      if first < expiry {
        do { _ = try TimeArithmetic.span(from: first, to: expiry) } catch { throw AlignmentError.time(error) }
      }
    }
    let (basis, open, close) = (basis.reserve(n), open.reserve(n), close.reserve(n))
    for i in 0..<n {
      guard chunk.valid[i] else {
        (basis[i], open[i], close[i]) = (.nan, .nan, .nan)
        continue
      }
      // Quotes in force: bids of the derivative and the reference, then their asks.
      let (bidD, bidR, askD, askR) = (chunk.quotes[4 * i], chunk.quotes[4 * i + 1], chunk.quotes[4 * i + 2], chunk.quotes[4 * i + 3])
      basis[i] = ((bidD + askD) / (bidR + askR) - 1) * 100
      open[i] = (bidD / askR - 1) * 100
      close[i] = (askD / bidR - 1) * 100
    }
    var yearly = UnsafeMutableBufferPointer<Double>(start: nil, count: 0), before = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
    if let expiry {
      (yearly, before) = (annualised.reserve(n), beforeExpiry.reserve(n))
      for i in 0..<n {
        let t = chunk.time[i]
        before[i] = chunk.valid[i] && t < expiry
        yearly[i] = before[i] ? basis[i] * BasisSeries.year / Double(expiry - t) : .nan
        if chunk.valid[i] && !before[i] { pointsAfterExpiry += 1 }
      }
    }
    func view<T>(_ buffer: UnsafeMutableBufferPointer<T>, _ count: Int) -> UnsafeBufferPointer<T> {
      UnsafeBufferPointer(rebasing: buffer[0..<count])
    }
    return BasisChunk(
      time: chunk.time, duration: chunk.duration, valid: chunk.valid, basis: view(basis, n), open: view(open, n), close: view(close, n),
      annualised: view(yearly, yearly.count == 0 ? 0 : n), beforeExpiry: view(before, before.count == 0 ? 0 : n))
  }
}
