import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

extension PremiumCommand {
  /// `arbkit merge PARTIAL…`: the output of the unsharded premium run from the partials
  /// of its shards (`--shard I/N`): every shard once, of the same arguments, its stores
  /// unchanged. The points are analysed shard after shard in the unsharded run's chunks
  /// (the figures are its bits), the legs' quotes are the sums of the shards' days, and
  /// the checks the unsharded run makes over the whole history (legs that overlap, a
  /// grid within its limit) are made on the whole. A `--series` among the arguments is
  /// written here, from the quotes the shards kept.
  static func merge(_ paths: [String], format: OutputFormat?, terminal: inout Terminal) throws -> ExitCode {
    let partials = try paths.map { try PremiumPartialFile(path: $0) }
    let first = partials[0].meta
    for partial in partials where partial.meta.arguments != first.arguments {
      throw UsageError("\(partial.path) is a shard of another run than \(paths[0]) (its arguments differ)")
    }
    let order = try MergeCommand.order(partials.map { (index: $0.meta.shard, count: $0.meta.shards) })
    let shards = order.map { partials[$0] }
    var command = try PremiumCommand(arguments: first.arguments)
    if let format { command.format = format }
    let specs = command.inputs.legs
    guard specs.count == first.legs.count else { throw PartialError(path: paths[0], reason: "names \(first.legs.count) legs, its arguments \(specs.count)") }
    for (spec, leg) in zip(specs, first.legs) {
      // The stores are named as the shards were given them: relative to the folder they ran in.
      guard spec.isStore else { throw FileError.missing(path: leg.store + "/store.json") }
      guard try PremiumPartial.storeChecksum(leg.store) == leg.storeChecksum else {
        throw UsageError("\(leg.store) changed since the shards were made (its store.json differs); make the shards again")
      }
    }
    for shard in shards where shard.meta.legs.map(\.storeChecksum) != first.legs.map(\.storeChecksum) {
      throw UsageError("\(shard.path) was made from other stores than \(paths[0]) (store.json differs)")
    }
    // The legs as the unsharded run names and accounts for them, each store opened once
    // (no quote is read), their warnings printed at the end as it prints them.
    let ingest = command.inputs.ingest
    let sources = try specs.map { try $0.storeSeries(options: ingest.options) }
    let reports = sources.map { $0.store.sourceReport() }
    defer { for report in reports { IngestSummary.warn(report, terminal: &terminal) } }
    // Each leg's quotes in the window, from its store: what the shards' days add up to.
    let spans = try sources.map { try $0.store.span($0.series, window: ingest.options.window ?? TimeWindow()) }
    for (k, span) in spans.enumerated() where shards.map({ $0.meta.legs[k].span }).reduce(RowSpan(), +) != span {
      throw PartialError(path: paths[0], reason: "the shards' quotes of \(first.legs[k].store) do not add up to the store's \(span.rows)")
    }
    let alignment = command.inputs.alignment
    try checkWhole(spans, alignment: alignment, legs: specs)
    let replay = PremiumPartialReplay(shards, chunkPoints: command.chunkRows, quoteLegs: first.quoteLegs)
    let analyzer = PremiumAnalyzer(
      legCount: spans.count, maxPremium: spans.count > 2, options: command.bands, spillMemoryLimit: max(1 << 16, 16 * command.chunkRows))
    var seriesFile = try command.series.map { try SeriesOutput.premium($0, legCount: spans.count) }
    let points = shards.reduce(0) { $0 + $1.meta.points }
    let progress = Progress(total: points, unit: "points", show: Progress.onTerminal(terminal), every: 0.2)
    defer { progress.finish() }
    while let chunk = try replay.next() {
      try analyzer.add(chunk)
      try seriesFile?.write(chunk)
      progress.advance(chunk.count)
    }
    progress.finish()
    let described = sources.indices.map { k in
      var leg = LegSummary(
        sources[k].store.stream(sources[k].series), instrument: sources[k].instrument, rows: spans[k].rows, firstTime: spans[k].firstTime,
        lastTime: spans[k].lastTime)
      leg.reports = [reports[k]]
      return leg
    }
    let result = PremiumResult(
      legs: described, canonical: try command.canonical(sources.map(\.instrument)), points: points,
      validPoints: shards.reduce(0) { $0 + $1.meta.validPoints }, analysis: try analyzer.finish(), alignment: alignment,
      bands: command.bands, clock: command.inputs.ingest.options.clock)
    try command.report(result, terminal: &terminal) { try seriesFile?.commit() }
    return .success
  }

  /// The checks of `PremiumStream` that need the whole history: every leg has quotes,
  /// the legs overlap, a grid stays within its point limit.
  private static func checkWhole(_ spans: [RowSpan], alignment: AlignmentOptions, legs: [LegSpec]) throws {
    if let empty = spans.firstIndex(where: { $0.rows == 0 }) {
      throw AlignmentError.emptyLeg(instrument: legs[empty].instrument?.description ?? legs[empty].paths[0])
    }
    let firsts = spans.map { $0.firstTime! }, lasts = spans.map { $0.lastTime! }
    let required = min(alignment.minimumLegs ?? spans.count, spans.count)
    try PremiumStream.checkOverlap(firsts: firsts, lasts: lasts, required: required)
    if let step = alignment.grid {
      do { _ = try TimeArithmetic.grid(from: firsts.sorted()[required - 1], through: lasts.max()!, step: step) } catch { throw AlignmentError.time(error) }
    }
  }
}

extension RowSpan {
  /// The quotes of `a` then `b`, later in time.
  static func + (a: RowSpan, b: RowSpan) -> RowSpan {
    RowSpan(rows: a.rows + b.rows, firstTime: a.firstTime ?? b.firstTime, lastTime: b.lastTime ?? a.lastTime)
  }
}
