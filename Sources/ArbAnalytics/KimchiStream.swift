import ArbCore

/// The columns of `KimchiSeries` at consecutive points, as `KimchiStream` yields them.
/// The buffers belong to the stream and stay valid until its next `next()`.
public struct KimchiChunk: @unchecked Sendable {
  public let time: UnsafeBufferPointer<Int64>
  /// Time to the next point; 0 for the last point of the series.
  public let duration: UnsafeBufferPointer<Int64>
  public let valid: UnsafeBufferPointer<Bool>
  /// Percent, `nan` at invalid points.
  public let premium: UnsafeBufferPointer<Double>
  /// The FX rate in force (`nan` at invalid points).
  public let rate: UnsafeBufferPointer<Double>
  /// With a USDT-USD leg: the USDT term and the premium in USD terms; else empty.
  public let usdtTerm: UnsafeBufferPointer<Double>
  public let kimchiUSD: UnsafeBufferPointer<Double>

  public var count: Int { time.count }
}

/// The kimchi premium of a KRW market read as streams: the columns of `KimchiSeries`
/// (the same formulas at the same points) a bounded chunk at a time, on the as-of
/// alignment of `PremiumStream` with the FX leg's own staleness limit.
public final class KimchiStream {
  /// The alignment of the KRW, USD, FX (and USDT-USD) legs: points, valid points, and
  /// the rows and times read of each leg.
  public let alignment: any PremiumPoints
  /// Points so far where the FX leg had no rate yet or one older than its limit.
  public private(set) var fxStalePoints = 0
  private let fxLimit: Int64
  private let usdt: Bool
  private let premium = Scratch<Double>(), rate = Scratch<Double>(), usdtTerm = Scratch<Double>(), kimchiUSD = Scratch<Double>()

  /// Opens the alignment of the legs (their first chunks are read).
  ///
  /// - Parameter fxMaxStale: staleness limit of `fx` (µs), `nil` for none.
  /// - Throws: `AlignmentError`, or what a leg's stream throws.
  public convenience init(
    krw: any QuoteStream, usd: any QuoteStream, fx: any QuoteStream, usdtUSD: (any QuoteStream)? = nil,
    options: AlignmentOptions = AlignmentOptions(), fxMaxStale: Int64? = nil, chunkPoints: Int = 1 << 16, legChunkRows: Int = 1 << 16
  ) throws {
    self.init(
      alignment: try PremiumStream(
        legs: [krw, usd, fx] + (usdtUSD.map { [$0] } ?? []), options: Self.options(options, fxMaxStale: fxMaxStale), chunkPoints: chunkPoints,
        legChunkRows: legChunkRows, keepQuotes: true),
      fxMaxStale: fxMaxStale)
  }

  /// The premium of the points of `alignment`: of the KRW, USD, FX (and USDT-USD) legs
  /// aligned with `options(_:fxMaxStale:)`, their quotes kept (`PremiumStream(…,
  /// keepQuotes: true)`, or a replay of its points).
  public init(alignment: any PremiumPoints, fxMaxStale: Int64?) {
    precondition((3...4).contains(alignment.legCount), "a kimchi premium aligns three or four legs")
    self.alignment = alignment
    fxLimit = fxMaxStale ?? .max
    usdt = alignment.legCount == 4
  }

  /// `options` with the FX leg's staleness limit `fxMaxStale` (µs, `nil` for none).
  public static func options(_ options: AlignmentOptions, fxMaxStale: Int64?) -> AlignmentOptions {
    var legOptions = options
    legOptions.legMaxStale = [nil, nil, fxMaxStale ?? .max]
    return legOptions
  }

  /// The next chunk of points, `nil` after the last.
  public func next() throws -> KimchiChunk? {
    guard let chunk = try alignment.next() else { return nil }
    let n = chunk.count, legs = alignment.legCount
    let (premium, rate) = (premium.reserve(n), rate.reserve(n))
    let (usdtTerm, kimchiUSD) = usdt ? (usdtTerm.reserve(n), kimchiUSD.reserve(n)) : (.init(start: nil, count: 0), .init(start: nil, count: 0))
    /// The mid of leg `k`'s quote in force at point `i`.
    func mid(_ k: Int, _ i: Int) -> Double { (chunk.quotes[2 * legs * i + k] + chunk.quotes[2 * legs * i + legs + k]) / 2 }
    for i in 0..<n {
      let fxTime = chunk.quoteTimes[legs * i + 2]
      if fxTime == .min || chunk.time[i] - fxTime > fxLimit { fxStalePoints += 1 }
      guard chunk.valid[i] else {
        (premium[i], rate[i]) = (.nan, .nan)
        if usdt { (usdtTerm[i], kimchiUSD[i]) = (.nan, .nan) }
        continue
      }
      let k = mid(0, i), u = mid(1, i), r = mid(2, i)
      rate[i] = r
      premium[i] = (k / (u * r) - 1) * 100
      if usdt {
        let q = mid(3, i)
        usdtTerm[i] = (q - 1) * 100
        kimchiUSD[i] = (k / (u * q * r) - 1) * 100
      }
    }
    func view(_ buffer: UnsafeMutableBufferPointer<Double>) -> UnsafeBufferPointer<Double> {
      UnsafeBufferPointer(rebasing: buffer[0..<(buffer.count == 0 ? 0 : n)])
    }
    return KimchiChunk(
      time: chunk.time, duration: chunk.duration, valid: chunk.valid, premium: view(premium), rate: view(rate), usdtTerm: view(usdtTerm),
      kimchiUSD: view(kimchiUSD))
  }
}
