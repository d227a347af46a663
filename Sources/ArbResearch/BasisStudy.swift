import ArbAnalytics
import ArbCore

/// What `arbkit basis` computes from its legs (`docs/definitions.md`, "Basis and funding
/// carry"): the basis of a derivative over a reference, the summaries of its columns,
/// the premiums between reference prices, and the funding carry of a perpetual.
///
/// Every price leg is streamed a chunk of points at a time and summarised as it goes:
/// one pass over the derivative and the reference for the basis (and the funding
/// carry's window edges), one per reference premium, and one more over the perpetual
/// for its mid at the funding events. The funding rates (a few a day) are read whole.
public struct BasisStudy {
  /// The price legs a pass opens.
  public enum Leg: Sendable, Hashable {
    case derivative, reference, mark, index
  }

  /// Summaries of the basis columns.
  public struct Summaries {
    public var basis: SeriesSummary
    public var open: SeriesSummary
    public var close: SeriesSummary
    public var annualised: SeriesSummary?
  }

  /// A premium between reference prices (mark over index, derivative over mark).
  public struct Reference {
    public var name: String
    public var points: Int
    public var validPoints: Int
    public var summary: SeriesSummary
  }

  /// The perpetual's funding rates and how their carry is summed.
  public struct Funding {
    public var rates: QuoteSeries
    /// The funding interval of a record of the rate in force (a ticker), sampled on it.
    public var tickerInterval: Int64
    /// The carry's window (µs).
    public var window: Int64

    public init(rates: QuoteSeries, tickerInterval: Int64, window: Int64) {
      (self.rates, self.tickerInterval, self.window) = (rates, tickerInterval, window)
    }
  }

  /// What a pass read of a leg: its quotes, and the first and last quote time.
  public struct Read: Sendable {
    public var rows: Int
    public var firstTime: Int64?
    public var lastTime: Int64?
  }

  /// Points of the alignment, and the valid ones.
  public let points: Int
  public let validPoints: Int
  public let expiry: Int64?
  /// Valid points at or after the expiry (no annualised value).
  public let pointsAfterExpiry: Int
  /// What the first pass over each price leg read.
  public let reads: [Leg: Read]
  public let summaries: Summaries
  public let references: [Reference]
  /// With funding rates: the carry per window.
  public let carry: FundingCarry?

  /// A pass of the study over its price legs: an alignment of two of them.
  public enum Pass: Sendable, Hashable {
    /// The derivative over the reference, their quotes kept (the basis).
    case basis
    /// A premium between reference prices: `a` over `b`.
    case reference(Leg, Leg)

    /// The two legs it aligns.
    public var legs: [Leg] {
      switch self {
      case .basis: [.derivative, .reference]
      case .reference(let a, let b): [a, b]
      }
    }
  }

  /// The passes of a study of the derivative (`derivativeName`) with the mark and index
  /// premiums of `priced` legs, in the order they are made, and each reference
  /// premium's name.
  public static func passes(priced: [Leg], derivativeName: String) -> [(pass: Pass, name: String?)] {
    [(.basis, nil)] + (priced.count == 2 ? [(.reference(priced[0], priced[1]), "mark over index")] : [])
      + priced.map { (.reference(.derivative, $0), "\(derivativeName) over \($0 == .mark ? "mark" : "index")") }
  }

  /// The alignment `pass` makes of the legs `open` opens, `chunkPoints` points at a time.
  /// - Parameter checksOverlap: as `PremiumStream`: `false` for a shard's days.
  /// - Throws: what `PremiumStream` or `open` throws.
  public static func align(
    _ pass: Pass, open: (Leg) throws -> any QuoteStream, alignment: AlignmentOptions, chunkPoints: Int, checksOverlap: Bool = true
  ) throws -> PremiumStream {
    try PremiumStream(
      legs: try pass.legs.map(open), options: alignment, chunkPoints: chunkPoints, legChunkRows: chunkPoints, keepQuotes: pass == .basis,
      checksOverlap: checksOverlap)
  }

  /// The study of the derivative `derivative` (a `perp` or a `future`, as `derivativeName`
  /// says; its canonical instrument tells a linear from an inverse settlement) over the
  /// reference, with the mark and index premiums of `priced` legs and the carry of
  /// `funding`, `chunkPoints` points at a time. `points(pass)` gives the points of each
  /// of `passes(priced:derivativeName:)` (`align`, or a replay of shards' points);
  /// `mids(times)` the perpetual's mid as of each funding event; `each` sees every chunk
  /// of the basis, `eachReference(r, chunk)` every chunk of reference premium `r`.
  ///
  /// - Throws: `AlignmentError`, `TimeError` for times that cannot be aligned or
  ///   windowed, `SpillError`, what `points`, `mids` or a callback throws.
  public init(
    points pointsOf: (Pass) throws -> any PremiumPoints, mids: ([Int64]) throws -> [Double], priced: [Leg], derivative: Instrument, derivativeName: String,
    canonical: CanonicalInstrument?, expiry: Int64?, bands: BandOptions, chunkPoints: Int = 1 << 16, funding: Funding?,
    each: (BasisChunk) throws -> Void = { _ in }, eachReference: (Int, PremiumChunk) throws -> Void = { _, _ in }
  ) throws {
    // The values kept for the quantiles stay in memory up to 16 chunks' worth.
    let limit = max(1 << 16, 16 * chunkPoints)
    // The funding times are checked before they are sampled; the basis's span joins them once it is known.
    let rates = funding?.rates
    let fundingRange = rates.flatMap { $0.time.isEmpty ? nil : $0.time[0]...$0.time[$0.count - 1] }
    if let funding, let fundingRange {
      try FundingCarry.checkRange(funding: fundingRange, basis: fundingRange, interval: funding.tickerInterval, window: funding.window)
    }
    let events = funding.map { FundingEvents($0.rates, tickerInterval: $0.tickerInterval) }
    var edges = events.flatMap { events in funding.map { CarryEdges(events: events, window: $0.window) } }

    let stream = BasisStream(alignment: try pointsOf(.basis), expiry: expiry)
    // Basis, open and close share their points; the annualised basis is valid before the expiry only.
    let columns = SignedSummaryStream(columns: 3, options: bands, spillMemoryLimit: limit)
    let annualised = expiry.map { _ in SignedSummaryStream(columns: 1, options: bands, spillMemoryLimit: limit) }
    var basisRange: ClosedRange<Int64>? = nil
    while let chunk = try stream.next() {
      try columns.add([chunk.basis, chunk.open, chunk.close], valid: chunk.valid, time: chunk.time, duration: chunk.duration)
      try annualised?.add([chunk.annualised], valid: chunk.beforeExpiry, time: chunk.time, duration: chunk.duration)
      if edges != nil { for i in 0..<chunk.count { edges!.add(time: chunk.time[i], valid: chunk.valid[i], basis: chunk.basis[i]) } }
      basisRange = (basisRange?.lowerBound ?? chunk.time[0])...chunk.time[chunk.count - 1]
      try each(chunk)
    }
    let aligned = stream.alignment
    (points, validPoints, pointsAfterExpiry, self.expiry) = (aligned.points, aligned.validPoints, stream.pointsAfterExpiry, expiry)
    var reads: [Leg: Read] = [:]
    for (k, leg) in [Leg.derivative, .reference].enumerated() {
      reads[leg] = Read(rows: aligned.legRows[k], firstTime: aligned.legFirstTime[k], lastTime: aligned.legLastTime[k])
    }
    let (summary, yearly) = (try columns.finish(), try annualised?.finish())
    summaries = Summaries(basis: summary[0], open: summary[1], close: summary[2], annualised: yearly?[0])

    var references: [Reference] = []
    for (r, (pass, name)) in Self.passes(priced: priced, derivativeName: derivativeName).dropFirst().enumerated() {
      guard case .reference(let a, let b) = pass, let name else { preconditionFailure("the passes after the first are reference premiums") }
      let premium = try pointsOf(pass)
      let summary = SignedSummaryStream(columns: 1, options: bands, spillMemoryLimit: limit)
      try premium.forEachChunk { chunk in
        try summary.add([chunk.mid], valid: chunk.valid, time: chunk.time, duration: chunk.duration)
        try eachReference(r, chunk)
      }
      references.append(Reference(name: name, points: premium.points, validPoints: premium.validPoints, summary: try summary.finish()[0]))
      for (k, leg) in [a, b].enumerated() where reads[leg] == nil {
        reads[leg] = Read(rows: premium.legRows[k], firstTime: premium.legFirstTime[k], lastTime: premium.legLastTime[k])
      }
    }
    self.references = references
    self.reads = reads

    guard let funding, let events, let edges else {
      carry = nil
      return
    }
    if let fundingRange, let basisRange {
      try FundingCarry.checkRange(funding: fundingRange, basis: basisRange, interval: funding.tickerInterval, window: funding.window)
      try FundingCarry.checkRange(funding: fundingRange, basis: basisRange, interval: events.interval, window: funding.window)
    }
    // The perpetual's mid at each funding event (one more pass over it, or what shards kept of it).
    let perpMids = Dictionary(try zip(events.time, mids(events.time)).map { ($0, $1) }) { first, _ in first }
    let inverse = canonical?.kind.isInverse ?? (derivative.market == .inverse)
    carry = FundingCarry(
      events: events, basisSpan: edges.span, settlement: inverse ? .inverse(contractSize: canonical?.contractSize) : .linear,
      window: funding.window, basisAsOf: { edges.basis(asOf: $0) }, perpMid: { perpMids[$0] ?? .nan })
  }
}
