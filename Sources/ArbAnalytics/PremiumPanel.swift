import ArbCore

/// The mid premium of every leg over one base leg, on the common clock of all legs
/// (`docs/definitions.md`, "Covariance and correlation matrices"): the chunks of a
/// `PremiumPanelStream` over the whole series, joined.
public struct PremiumPanel: Sendable {
  public var time: [Int64]
  /// The legs other than the base, in order.
  public var legs: [Int]
  /// `premiums[j]` is the premium of leg `legs[j]`, one value per clock point.
  public var premiums: [[Double]]

  /// - Throws: `AlignmentError` as `AlignedLegs.init`.
  public init(legs series: [QuoteSeries], base: Int, options: AlignmentOptions = AlignmentOptions()) throws(AlignmentError) {
    var time: [Int64] = []
    var premiums: [[Double]] = []
    let stream = try inMemory { () throws -> PremiumPanelStream in
      let stream = try PremiumPanelStream(legs: series.map(SeriesQuoteStream.init), base: base, options: options)
      premiums = Array(repeating: [], count: stream.legs.count)
      while let chunk = try stream.next() {
        time += chunk.time
        for j in premiums.indices { premiums[j] += chunk.premiums[j] }
      }
      return stream
    }
    self.time = time
    self.legs = stream.legs
    self.premiums = premiums
  }
}

/// Consecutive points of a premium panel: what `PremiumPanelStream` yields. The buffers
/// belong to the stream and stay valid until its next `next()`.
public struct PremiumPanelChunk: @unchecked Sendable {
  public let time: UnsafeBufferPointer<Int64>
  /// `premiums[j]`: the premium of the stream's `legs[j]` at each point, `nan` where missing.
  public let premiums: [UnsafeBufferPointer<Double>]

  public var count: Int { time.count }
}

/// The mid premium of every leg over one base leg, legs read as streams and the panel
/// made a bounded chunk of points at a time (`docs/definitions.md`, "Covariance and
/// correlation matrices").
///
/// The clock and the as-of rule are those of `PremiumStream` (union clock or grid). At a
/// point, the premium of leg k is `(mid_k / mid_base − 1) × 100` when both leg k and
/// the base have a usable quote (quoted, both sides finite and positive, no older than
/// the leg's staleness limit), and `nan` (missing) otherwise: each series has its own
/// missing points.
public final class PremiumPanelStream {
  public let base: Int
  /// The legs other than the base, in order.
  public let legs: [Int]
  /// Points produced so far.
  public var points: Int { stream.points }

  private let stream: PremiumStream
  /// Series `j` at point `i` of a chunk is `premiums[j * chunkPoints + i]`.
  private let premiums: UnsafeMutableBufferPointer<Double>
  private let chunkPoints: Int

  /// Opens the merge of `legs` (as `PremiumStream`, whose errors it throws).
  public init(
    legs streams: [any QuoteStream], base: Int, options: AlignmentOptions = AlignmentOptions(), chunkPoints: Int = 1 << 16,
    legChunkRows: Int = 1 << 16
  ) throws {
    precondition(streams.indices.contains(base), "PremiumPanelStream: no leg \(base)")
    stream = try PremiumStream(
      legs: streams, options: options, chunkPoints: chunkPoints, legChunkRows: legChunkRows, keepUsableQuotes: true)
    self.base = base
    legs = streams.indices.filter { $0 != base }
    self.chunkPoints = chunkPoints
    premiums = .allocate(capacity: legs.count * chunkPoints)
  }

  deinit { premiums.deallocate() }

  /// The next at most `chunkPoints` points, or `nil` after the last.
  ///
  /// - Throws: what `PremiumStream.next()` throws.
  public func next() throws -> PremiumPanelChunk? {
    guard let chunk = try stream.next() else { return nil }
    let legCount = stream.legCount, width = 2 * legCount
    let quotes = chunk.usableQuotes
    for i in 0..<chunk.count {
      let point = i * width
      // An unusable quote is nan; twice the mids: the factor cancels.
      let baseMid = quotes[point + base] + quotes[point + legCount + base]
      let baseOK = !baseMid.isNaN
      for (j, k) in legs.enumerated() {
        let mid = quotes[point + k] + quotes[point + legCount + k]
        premiums[j * chunkPoints + i] = baseOK && !mid.isNaN ? (mid / baseMid - 1) * 100 : .nan
      }
    }
    return PremiumPanelChunk(
      time: chunk.time,
      premiums: legs.indices.map { j in UnsafeBufferPointer(rebasing: premiums[j * chunkPoints..<j * chunkPoints + chunk.count]) })
  }
}
