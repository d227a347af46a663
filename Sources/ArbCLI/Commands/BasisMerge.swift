import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

extension BasisCommand {
  /// Makes shard `I/N` of a basis run whose legs are stores: the points of each of the
  /// study's passes in the shard's days (the basis with its legs' quotes, each reference
  /// premium), and with `--funding` the perpetual's mid at each funding event the shard
  /// owns, written to `out`. The funding rates are read whole, as the unsharded run reads them.
  func runShard(_ flags: ShardFlags, terminal: Terminal) throws -> ExitCode {
    let slots = slots
    let passes = BasisStudy.passes(priced: Array(slots.dropFirst(2)), derivativeName: future != nil ? "future" : "perp")
    // How often each leg is read: once per pass it is in, the perpetual once more for the funding events.
    let reads =
      slots.map { leg in passes.filter { $0.pass.legs.contains(leg) }.count + (leg == .derivative && funding != nil ? 1 : 0) }
      + (funding == nil ? [] : [0])
    let legs = try ShardLegs(
      present.map(\.spec) + (funding.map { [$0] } ?? []), dayLegs: present.count, flags: flags, options: ingest.options, reads: reads, terminal: terminal)
    defer { legs.progress.finish() }
    _ = try checked(legs.sources.map { ($0.series.field, $0.instrument) })
    let open = { (leg: BasisStudy.Leg) in legs.open(slots.firstIndex(of: leg)!) }
    let writer = try PremiumPartialWriter(path: flags.out)
    for (pass, _) in passes {
      let premium = try BasisStudy.align(pass, open: open, alignment: analysis.alignment, chunkPoints: chunkRows, checksOverlap: false)
      try writer.write(premium, owned: legs.shard.owned, quotes: pass == .basis)
    }
    var marks: [PremiumPartial.Meta.Mark] = []
    if let funding {
      let rates = try LoadedLegs.load([funding], options: ingest.options, specOverrides: ingest.specOverrides)[0].series
      let events = FundingEvents(rates, tickerInterval: fundingInterval).time.filter(legs.shard.owned.contains)
      marks = zip(events, try FundingCarry.mids(open(.derivative), asOf: events)).map { PremiumPartial.Meta.Mark(time: $0, value: $1) }
    }
    try writer.commit(
      PremiumPartial.Meta(
        command: Self.name, arguments: sharedArguments, shard: legs.shard, legs: try legs.metaLegs(), sections: writer.sections, marks: marks))
    return .success
  }

  /// `arbkit merge PARTIAL…` of a sharded basis run: what the unsharded run prints and
  /// writes, byte for byte. Each pass's points are studied shard after shard in the
  /// unsharded run's chunks, the legs' quotes are the stores' in the window, the funding
  /// rates are read whole, and the perpetual's mid at each funding event is the one the
  /// shard owning the event recorded.
  static func merge(_ set: PartialSet, format: OutputFormat?, terminal: inout Terminal) throws -> ExitCode {
    var command = try BasisCommand(arguments: set.first.arguments)
    command.format = try MergeCommand.format(format, or: command.format, accepting: [.table, .json])
    let (present, slots) = (command.present, command.slots)
    let passes = BasisStudy.passes(priced: Array(slots.dropFirst(2)), derivativeName: command.future != nil ? "future" : "perp")
    try set.expect(sections: passes.map { pass, _ in (2, pass == .basis) })
    let ingest = command.ingest
    let (sources, reports, spans) = try set.stores(present.map(\.spec) + (command.funding.map { [$0] } ?? []), options: ingest.options)
    let fundingLeg = try command.funding.map { spec in try LoadedLegs.load([spec], options: ingest.options, specOverrides: ingest.specOverrides)[0] }
    defer {
      for report in reports.prefix(present.count) { IngestSummary.warn(report, terminal: &terminal) }
      for report in fundingLeg?.reports ?? [] { IngestSummary.warn(report, terminal: &terminal) }
    }
    let canonical = try command.checked(
      present.indices.map { (sources[$0].series.field, sources[$0].instrument) } + (fundingLeg.map { [($0.series.field, $0.series.instrument)] } ?? []))
    var marks: [Int64: Double] = [:]
    for shard in set.shards { for mark in shard.meta.marks { marks[mark.timeUs] = mark.value } }
    let progress = Progress(total: set.points, unit: "points", show: Progress.onTerminal(terminal), every: 0.2)
    defer { progress.finish() }
    let span = { (leg: BasisStudy.Leg) in spans[slots.firstIndex(of: leg)!] }
    for (pass, _) in passes {
      try PremiumCommand.checkWhole(
        pass.legs.map(span), alignment: command.analysis.alignment, legs: pass.legs.map { present[slots.firstIndex(of: $0)!].spec })
    }
    return try command.analyse(
      points: { pass in
        set.replay(passes.firstIndex { $0.pass == pass }!, legs: pass.legs.map(span), chunkPoints: command.chunkRows, counted: progress.advance)
      },
      mids: { times in
        try times.map { time in
          guard let mid = marks[time] else {
            throw PartialError(path: set.firstPath, reason: "no shard holds the perpetual's mid at the funding event at \(time) µs")
          }
          return mid
        }
      },
      legs: sources.prefix(present.count).map { ($0.store.stream($0.series), $0.instrument) }, micros: present.map { _ in 0 }, canonical: canonical,
      funding: fundingLeg?.series, progress: progress, terminal: &terminal
    ) { nil }
  }
}
