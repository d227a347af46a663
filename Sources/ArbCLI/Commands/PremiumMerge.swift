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
  static func merge(_ set: PartialSet, format: OutputFormat?, terminal: inout Terminal) throws -> ExitCode {
    var command = try PremiumCommand(arguments: set.first.arguments)
    command.format = try MergeCommand.format(format, or: command.format)
    let specs = command.inputs.legs
    try set.expect(sections: [(specs.count, command.series != nil)])
    let ingest = command.inputs.ingest
    // The legs as the unsharded run names and accounts for them, their warnings printed at the end as it prints them.
    let (sources, reports, spans) = try set.stores(specs, options: ingest.options)
    defer { for report in reports { IngestSummary.warn(report, terminal: &terminal) } }
    let alignment = command.inputs.alignment
    try checkWhole(spans, alignment: alignment, legs: specs)
    let progress = Progress(total: set.points, unit: "points", show: Progress.onTerminal(terminal), every: 0.2)
    defer { progress.finish() }
    let replay = set.replay(0, legs: spans, chunkPoints: command.chunkRows, counted: progress.advance)
    let analyzer = PremiumAnalyzer(
      legCount: spans.count, maxPremium: spans.count > 2, options: command.bands, spillMemoryLimit: max(1 << 16, 16 * command.chunkRows))
    var seriesFile = try command.series.map { try SeriesOutput.premium($0, legCount: spans.count) }
    while let chunk = try replay.next() {
      try analyzer.add(chunk)
      try seriesFile?.write(chunk)
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
      legs: described, canonical: try command.canonical(sources.map(\.instrument)), points: replay.points,
      validPoints: replay.validPoints, analysis: try analyzer.finish(), alignment: alignment,
      bands: command.bands, clock: command.inputs.ingest.options.clock)
    try command.report(result, terminal: &terminal) { try seriesFile?.commit() }
    return .success
  }

  /// The checks of `PremiumStream` that need the whole history: every leg has quotes,
  /// the legs overlap, a grid stays within its point limit.
  static func checkWhole(_ spans: [RowSpan], alignment: AlignmentOptions, legs: [LegSpec]) throws {
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
