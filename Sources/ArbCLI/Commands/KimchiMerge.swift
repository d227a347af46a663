import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

extension KimchiCommand {
  /// Makes shard `I/N` of a kimchi run whose legs are stores: the points of each of the
  /// study's passes in the shard's days (each KRW market's with its legs' quotes and
  /// their times, the KRW markets together), written to `out`.
  func runShard(_ flags: ShardFlags, terminal: Terminal) throws -> ExitCode {
    let (krwCount, usdt) = (krw.count, usdtUSD != nil)
    let passes = KimchiStudy.passes(krwCount: krwCount)
    // How often each leg is read: once per pass it is in.
    let reads = specs.indices.map { k in passes.filter { KimchiStudy.legs($0, krwCount: krwCount, usdtUSD: usdt).contains(k) }.count }
    let legs = try ShardLegs(specs, dayLegs: specs.count, flags: flags, options: ingest.options, reads: reads, terminal: terminal)
    defer { legs.progress.finish() }
    _ = try checked(legs.sources.map { ($0.series.field, $0.instrument) })
    let writer = try PremiumPartialWriter(path: flags.out)
    for pass in passes {
      let premium = try KimchiStudy.align(
        pass, krwCount: krwCount, usdtUSD: usdt, open: legs.open, alignment: analysis.alignment, fxMaxStale: fxMaxStale, chunkPoints: chunkRows,
        checksOverlap: false)
      try writer.write(premium, owned: legs.shard.owned, quotes: pass != .board)
    }
    try writer.commit(
      PremiumPartial.Meta(command: Self.name, arguments: sharedArguments, shard: legs.shard, legs: try legs.metaLegs(), sections: writer.sections))
    return .success
  }

  /// `arbkit merge PARTIAL…` of a sharded kimchi run: what the unsharded run prints and
  /// writes, byte for byte. Each pass's points are studied shard after shard in the
  /// unsharded run's chunks, and the legs' quotes are the stores' in the window.
  static func merge(_ set: PartialSet, format: OutputFormat?, terminal: inout Terminal) throws -> ExitCode {
    var command = try KimchiCommand(arguments: set.first.arguments)
    command.format = try MergeCommand.format(format, or: command.format, accepting: [.table, .json])
    let (specs, krwCount, usdt) = (command.specs, command.krw.count, command.usdtUSD != nil)
    let passes = KimchiStudy.passes(krwCount: krwCount)
    try set.expect(
      sections: passes.map { pass in (KimchiStudy.legs(pass, krwCount: krwCount, usdtUSD: usdt).count, pass != .board) })
    let (sources, reports, spans) = try set.stores(specs, options: command.ingest.options)
    defer { for report in reports { IngestSummary.warn(report, terminal: &terminal) } }
    let canonical = try command.checked(sources.map { ($0.series.field, $0.instrument) })
    for pass in passes {
      let legs = KimchiStudy.legs(pass, krwCount: krwCount, usdtUSD: usdt)
      let alignment = pass == .board ? command.analysis.alignment : KimchiStream.options(command.analysis.alignment, fxMaxStale: command.fxMaxStale)
      try PremiumCommand.checkWhole(legs.map { spans[$0] }, alignment: alignment, legs: legs.map { specs[$0] })
    }
    let progress = Progress(total: set.points, unit: "points", show: Progress.onTerminal(terminal), every: 0.2)
    defer { progress.finish() }
    return try command.analyse(
      points: { pass in
        set.replay(
          passes.firstIndex(of: pass)!, legs: KimchiStudy.legs(pass, krwCount: krwCount, usdtUSD: usdt).map { spans[$0] },
          chunkPoints: command.chunkRows, counted: progress.advance)
      }, legs: sources.map { ($0.store.stream($0.series), $0.instrument) }, micros: specs.map { _ in 0 }, canonical: canonical, progress: progress,
      terminal: &terminal)
  }
}
