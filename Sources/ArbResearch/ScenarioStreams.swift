import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import Synchronization

/// A scenario's legs opened as streams, each as often as a streamed run asks (it
/// aligns the legs and reads their fill quotes on cursors of their own): a store leg
/// from its mapped partitions, a leg of files in time order parsed as it is read, any
/// other leg read whole once and streamed from memory; each moved by its venue's clock
/// offset, as `ScenarioLegs.prepared` moves the whole legs, and the legs of the venue
/// `fx.converts` names divided by the FX series read alongside, as it converts them.
public struct ScenarioStreams: Sendable {
  private let specs: [LegSpec]
  /// Each leg as the scenario names it.
  public let instruments: [Instrument]
  private let options: IngestOptions
  /// Per leg, its venue's clock offset (µs).
  private let offsets: [Int64]
  /// Per leg, its series when it cannot stream.
  private let whole: [QuoteSeries?]
  /// Quotes a file leg is parsed ahead by.
  private let chunkRows: Int
  /// Told the quotes read from the legs (from any thread).
  private let counted: (@Sendable (Int) -> Void)?
  /// The legs end before this time (on the corrected clock), when set.
  private var cut: Int64?
  /// The scenario's FX series and what its conversions counted; `nil` without `fx`.
  private var fx: FXRates?

  /// The FX series a scenario's `fx` names, opened once per converted leg.
  private final class FXRates: Sendable {
    let spec: LegSpec
    /// The series when it cannot stream.
    let whole: QuoteSeries?
    let summary: ScenarioLegs.FXSummary
    /// Per converted leg, the quotes converted and those without a usable rate, as its
    /// longest-read stream counted them (every stream of a leg converts the same quotes).
    let counts = Mutex<[Int: (quotes: Int, unusable: Int)]>([:])

    init(spec: LegSpec, whole: QuoteSeries?, summary: ScenarioLegs.FXSummary) {
      self.spec = spec
      self.whole = whole
      self.summary = summary
    }

    /// The same series, nothing counted yet.
    func restarted() -> FXRates { FXRates(spec: spec, whole: whole, summary: summary) }
  }

  /// The legs of `scenario` read with `options` (the scenario's clock and leg options
  /// already set: the books kept when the scenario walks them), a file leg parsed ahead
  /// `chunkRows` quotes at a time; a leg that cannot stream is read here, whole.
  /// `counted` is told the quotes the streams read, as they read them.
  public init(_ scenario: Scenario, options: IngestOptions, chunkRows: Int, counted: (@Sendable (Int) -> Void)? = nil) throws {
    specs = try ScenarioLegs.specs(scenario)
    instruments = scenario.legs.map { Instrument(venue: $0.venue, market: $0.market, symbol: $0.symbol) }
    self.options = options
    self.chunkRows = chunkRows
    self.counted = counted
    offsets = scenario.legs.map { scenario.offsets[$0.venue] ?? 0 }
    var wholeOptions = options
    wholeOptions.storeColumns = .all
    whole = try specs.map { try Self.wholeUnlessStreaming($0, options: options, wholeOptions: wholeOptions) }
    if let scenarioFX = scenario.fx, let spec = try ScenarioLegs.rateSpec(scenario) {
      let whole = try Self.wholeUnlessStreaming(spec, options: options, wholeOptions: wholeOptions)
      let first = try Self.stream(spec, whole: whole, options: options, chunkRows: 1)
      if first.field.isRate { throw ScenarioLegError(.rateSeries(field: first.field, path: scenarioFX.files[0])) }
      let usdtAsUSD = ScenarioLegs.FXSummary.takesUSDTAsUSD(
        legs: instruments, converts: scenarioFX.converts, rate: first.instrument, registry: options.registry)
      let summary = ScenarioLegs.FXSummary(
        series: first.instrument, converts: scenarioFX.converts, maxStale: scenarioFX.maxStale, quotes: 0, unusable: 0, usdtAsUSD: usdtAsUSD)
      fx = FXRates(spec: spec, whole: whole, summary: summary)
    } else {
      fx = nil
    }
    // A recorded latency reads both clocks of its leg, as `ScenarioLegs.prepared` checks on whole legs.
    for k in scenario.legs.indices where scenario.legLatency[k] == .recorded {
      if try open(k, allColumns: true, counting: false).next(maxRows: 1)?.otherTime.isEmpty ?? true {
        throw ScenarioLegError(.oneClock(leg: k, instrument: instruments[k].description))
      }
    }
    // Book-walking fills need every leg's books, as `ScenarioLegs.prepared` checks on whole legs.
    for k in scenario.legs.indices where scenario.fill == .book {
      if let first = try open(k, allColumns: true, counting: false, books: true).next(maxRows: 1), first.books == nil {
        throw ScenarioLegError(.noDepth(leg: k, instrument: instruments[k].description))
      }
    }
  }

  /// A new stream over leg `k` from its first quote, with the book sizes and the other
  /// clock when `allColumns`, and the books behind the quotes when `books` (a book file
  /// read without them still reads and checks their levels: the same rows).
  public func open(_ k: Int, allColumns: Bool, books: Bool = false) throws -> any QuoteStream {
    try open(k, allColumns: allColumns, counting: true, books: books)
  }

  /// As `open(_:allColumns:books:)`, its quotes told to `counted` when `counting`.
  func open(_ k: Int, allColumns: Bool, counting: Bool, books: Bool = false) throws -> any QuoteStream {
    var options = options
    options.storeColumns = allColumns ? .all : .skippingSizesAndOtherClock
    let stream = try Self.stream(specs[k], whole: whole[k], options: options, chunkRows: chunkRows, books: books)
    let told = counting ? counted.map { CountingQuoteStream(stream, counted: $0) } ?? stream : stream
    let shifted = offsets[k] == 0 ? told : ShiftedQuoteStream(told, by: offsets[k])
    // Cut before it is converted, so that the conversion counts the quotes kept only.
    var moved = cut.map { TruncatedQuoteStream(shifted, before: $0) } ?? shifted
    if let fx, instruments[k].venue == fx.summary.converts {
      options.storeColumns = .skippingSizesAndOtherClock
      let rates = try Self.stream(fx.spec, whole: fx.whole, options: options, chunkRows: chunkRows)
      moved = FXConvertedQuoteStream(moved, by: rates, maxStale: fx.summary.maxStale) { quotes, unusable in
        fx.counts.withLock { counts in
          if quotes > counts[k]?.quotes ?? 0 { counts[k] = (quotes, unusable) }
        }
      }
    }
    return moved
  }

  /// The series of `spec` read whole with `wholeOptions` when it can be read neither
  /// from a store nor as files in time order (with `options`); `nil` when it streams.
  private static func wholeUnlessStreaming(_ spec: LegSpec, options: IngestOptions, wholeOptions: IngestOptions) throws -> QuoteSeries? {
    guard !spec.isStore, try FileQuoteStream.open(spec, options: options) == nil else { return nil }
    return try spec.load(options: wholeOptions).series
  }

  /// A new stream over `spec` read with `options` (`whole` when it was read whole), a
  /// file parsed ahead `chunkRows` quotes at a time, with its books when `books`.
  private static func stream(_ spec: LegSpec, whole: QuoteSeries?, options: IngestOptions, chunkRows: Int, books: Bool = false) throws -> any QuoteStream {
    if let whole { return SeriesQuoteStream(whole) }
    if spec.isStore { return try spec.stream(options: options).stream }
    return PrefetchedQuoteStream(try FileQuoteStream.open(spec, options: options, books: books)!, rows: chunkRows)
  }

  /// What the FX conversion of the legs read so far counted (`nil` without `fx`): once a
  /// run has read every converted leg to its end, the summary a run on whole legs gives.
  public var fxSummary: ScenarioLegs.FXSummary? {
    guard let fx else { return nil }
    var summary = fx.summary
    for (quotes, unusable) in fx.counts.withLock({ Array($0.values) }) {
      summary.quotes += quotes
      summary.unusable += unusable
    }
    return summary
  }

  /// The same legs cut at `cut`: each ends with its last quote before `cut` on the
  /// corrected clock, as `ScenarioRecording.truncated(before:scenario:)` cuts whole legs.
  public func truncated(before cut: Int64) -> ScenarioStreams {
    var copy = self
    copy.cut = cut
    copy.fx = fx?.restarted()
    return copy
  }
}

extension ScenarioStreams {
  /// The decisions of `runs` (one direction rule: mode convergence's or carry's) on these
  /// legs (`ConvergenceBacktest.decide(_:open:…)`), and
  /// each of `scenarios` checked against the legs' times once they are read
  /// (`Scenario.checkTimes`, as on whole legs).
  public func decide(
    _ runs: [ConvergenceBacktest], checking scenarios: [Scenario], alignment: AlignmentOptions, chunkPoints: Int, jobs: Int
  ) throws -> StreamedDecisions {
    let result = try ConvergenceBacktest.decide(
      runs, open: { try self.open($0, allColumns: $1) }, options: alignment, sellLeg: runs.first?.parameters.sellLeg, chunkPoints: chunkPoints,
      legChunkRows: chunkPoints, jobs: jobs)
    try Self.check(scenarios, result)
    return result
  }

  /// The inventory runs `runs` on these legs (`InventoryArbitrage.run(_:open:…)`), and
  /// each of `scenarios` checked as by `decide`.
  public func run(
    _ runs: [InventoryArbitrage], checking scenarios: [Scenario], alignment: AlignmentOptions, chunkPoints: Int, jobs: Int
  ) throws -> StreamedResult<InventoryRun> {
    let result = try InventoryArbitrage.run(
      runs, open: { try self.open($0, allColumns: $1) }, options: alignment, chunkPoints: chunkPoints, legChunkRows: chunkPoints, jobs: jobs)
    try Self.check(scenarios, result)
    return result
  }

  /// Checks each of `scenarios` against the legs' first and last times and longest
  /// recorded delays in `result` (`Scenario.checkTimes`).
  private static func check<Run>(_ scenarios: [Scenario], _ result: StreamedResult<Run>) throws {
    let legTimes = result.legTimes.compactMap { $0.map { [$0.lowerBound, $0.upperBound] } }
    guard let times = try TimeArithmetic.bounds(of: legTimes) else { return }
    for scenario in scenarios {
      try scenario.checkTimes(times, latencyBound: scenario.latencyBound { result.longestRecordedDelays[$0] })
    }
  }
}
