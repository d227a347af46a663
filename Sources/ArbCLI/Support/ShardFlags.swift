import ArbCore
import ArbIngest
import ArbResearch

/// `--shard I/N --out PATH` of a command split by time (`premium`, `basis`, `kimchi`) or
/// by instrument (`board`): the shard made, and where its partial result goes.
struct ShardFlags {
  let index: Int
  let count: Int
  let out: String

  static let flags = ["--shard", "--out"]

  /// What the shards of a command split.
  enum Split {
    /// Whole days of the legs' stores.
    case days
    /// The instruments of a board.
    case instruments

    /// Why a shard cannot take a refused flag.
    var refusal: String {
      switch self {
      case .days: "a shard reads only its days"
      case .instruments: "a board's partial keeps no books"
      }
    }
  }

  /// The help of `board`'s flags.
  static let boardHelp = [
    (
      "--shard I/N",
      "make shard I of N, every N-th part of the board from the I-th (rows in order of first appearance, then the legs not on it), "
        + "and write its partial result to --out; arbkit merge joins the N partials into this command's output, byte for byte"
    ),
    ("--out PATH", "with --shard: the partial result"),
  ]

  /// The help of the flags; `series` says what a `--series` makes the shard keep.
  static func help(series: String) -> [(String, String)] {
    [
      (
        "--shard I/N",
        "of legs that are stores: make shard I of N, the I-th of N runs of whole days, and write its partial result to --out; "
          + "arbkit merge joins the N partials into this command's output, byte for byte"
      ),
      ("--out PATH", "with --shard: the partial result (\(series))"),
    ]
  }

  /// The flags of `cursor` for a command whose shards split `split`, `nil` when neither
  /// is given; `refused` are the flags given that a shard cannot take.
  /// - Throws: `UsageError` for an `I/N` out of range, one flag without the other, a refused flag.
  static func parse(_ cursor: ArgumentCursor, split: Split = .days, refusing refused: [(flag: String, given: Bool)]) throws(UsageError) -> ShardFlags? {
    let shard = try cursor.value("--shard", "I/N with 1 ≤ I ≤ N") { text -> (Int, Int)? in
      let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
      guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (1...count).contains(index) else { return nil }
      return (index, count)
    }
    switch (shard, cursor.value("--out")) {
    case (let (index, count)?, let out?):
      if let flag = refused.first(where: \.given)?.flag { throw UsageError("\(flag) cannot be used with --shard: \(split.refusal)") }
      return ShardFlags(index: index, count: count, out: out)
    case (nil, nil): return nil
    case (_?, nil): throw UsageError("--shard needs --out PATH for the shard's partial result")
    case (nil, _?):
      switch split {
      case .days: throw UsageError("--out is the partial result of --shard; the aligned series is written with --series")
      case .instruments: throw UsageError("--out is the partial result of --shard")
      }
    }
  }

  /// `arguments` without `--shard` and `--out` and their values: what every shard of one run shares.
  static func shared(_ arguments: [String]) -> [String] {
    var kept: [String] = []
    var skipNext = false
    for argument in arguments {
      if skipNext {
        skipNext = false
      } else if flags.contains(argument) {
        skipNext = true
      } else if !flags.contains(where: { argument.hasPrefix($0 + "=") }) {
        kept.append(argument)
      }
    }
    return kept
  }
}

/// The legs of a shard, every one a store: the shard's days, and a stream of a leg over
/// them from its last day with quotes before them (for the quote in force).
struct ShardLegs {
  let shard: TimeShard
  let sources: [(store: Store, series: Store.Series, instrument: Instrument)]
  /// The run's window (`--from`, `--to`).
  let window: TimeWindow
  /// Counts the quotes read (on a terminal).
  let progress: Progress
  private let counted: Bool

  /// Opens the stores of `specs` for `flags`' shard, of the days on which the first
  /// `dayLegs` legs have quotes (the others, such as funding rates, are read whole); `reads`
  /// is how often each leg is read.
  /// - Throws: `UsageError` for a leg that is not a store; what opening a store throws.
  init(_ specs: [LegSpec], dayLegs: Int, flags: ShardFlags, options: IngestOptions, reads: [Int], terminal: Terminal) throws {
    if let file = specs.first(where: { !$0.isStore }) {
      throw UsageError("--shard splits the days of stores; \(file.paths.joined(separator: ",")) is not one: convert it with arbkit convert … --out STORE")
    }
    sources = try specs.map { try $0.storeSeries(options: options) }
    window = options.window ?? TimeWindow()
    shard = TimeShard(index: flags.index, count: flags.count, series: sources.prefix(dayLegs).map(\.series), window: window)
    let (shard, window) = (shard, window)
    let total = zip(sources, reads).reduce(0) { sum, leg in
      sum + leg.1 * (leg.0.store.stream(leg.0.series, window: shard.readWindow(leg.0.series, window: window)).expectedRows ?? 0)
    }
    counted = Progress.onTerminal(terminal)
    progress = Progress(total: total, unit: "quotes", show: counted, every: 0.2)
  }

  /// A new stream of leg `k` over the shard's days, from its last day with quotes before them.
  func open(_ k: Int) -> any QuoteStream {
    let (store, series, _) = sources[k]
    let stream = store.stream(series, window: shard.readWindow(series, window: window), columns: .skippingSizesAndOtherClock)
    return counted ? CountingQuoteStream(stream, counted: progress.advance) : stream
  }

  /// The legs as the partial records them: their stores and quotes in the shard's days.
  /// - Throws: `FileError`, `StoreError` reading a store.
  func metaLegs() throws -> [PremiumPartial.Meta.Leg] {
    try sources.map { source in
      PremiumPartial.Meta.Leg(
        store: source.store.path, storeChecksum: try PremiumPartial.storeChecksum(source.store.path),
        span: try source.store.span(source.series, window: shard.owned(of: window)))
    }
  }
}

/// The partials of one sharded run, each shard once, of the same command and arguments,
/// in shard order.
struct PartialSet {
  let shards: [PremiumPartialFile]
  /// The first partial given: its arguments are the run's.
  let first: PremiumPartial.Meta
  let firstPath: String

  /// - Throws: `PartialError` for a damaged partial; `UsageError` for partials of other
  ///   runs, a missing or repeated shard.
  init(_ paths: [String]) throws {
    let partials = try paths.map { try PremiumPartialFile(path: $0) }
    (first, firstPath) = (partials[0].meta, paths[0])
    for partial in partials where partial.meta.command != first.command || partial.meta.arguments != first.arguments {
      throw UsageError("\(partial.path) is a shard of another run than \(paths[0]) (its command or arguments differ)")
    }
    for partial in partials
    where partial.meta.sections.map(\.legs) != first.sections.map(\.legs)
      || partial.meta.sections.map(\.quotes) != first.sections.map(\.quotes)
    {
      throw PartialError(path: partial.path, reason: "has other sections than \(paths[0])")
    }
    let order = try MergeCommand.order(partials.map { (index: $0.meta.shard, count: $0.meta.shards) })
    shards = order.map { partials[$0] }
  }

  /// The stores of `specs`, the legs of the run, checked against the partials: each a
  /// store unchanged since the shards were made, whose quotes in the window are what the
  /// shards' days add up to. Each store is opened once (no quote is read).
  /// - Throws: `FileError.missing` for a leg no longer a store; `UsageError` for a changed
  ///   store; `PartialError` for quotes that do not add up.
  func stores(
    _ specs: [LegSpec], options: IngestOptions
  ) throws -> (
    sources: [(store: Store, series: Store.Series, instrument: Instrument)], reports: [IngestReport], spans: [RowSpan]
  ) {
    guard specs.count == first.legs.count else { throw PartialError(path: firstPath, reason: "names \(first.legs.count) legs, its arguments \(specs.count)") }
    for (spec, leg) in zip(specs, first.legs) {
      // The stores are named as the shards were given them: relative to the folder they ran in.
      guard spec.isStore else { throw FileError.missing(path: leg.store + "/store.json") }
      guard try PremiumPartial.storeChecksum(leg.store) == leg.storeChecksum else {
        throw UsageError("\(leg.store) changed since the shards were made (its store.json differs); make the shards again")
      }
    }
    for shard in shards where shard.meta.legs.map(\.storeChecksum) != first.legs.map(\.storeChecksum) {
      throw UsageError("\(shard.path) was made from other stores than \(firstPath) (store.json differs)")
    }
    let sources = try specs.map { try $0.storeSeries(options: options) }
    // Each leg's quotes in the window, from its store: what the shards' days add up to.
    let spans = try sources.map { try $0.store.span($0.series, window: options.window ?? TimeWindow()) }
    for (k, span) in spans.enumerated() where shards.map({ $0.meta.legs[k].span }).reduce(RowSpan(), +) != span {
      throw PartialError(path: firstPath, reason: "the shards' quotes of \(first.legs[k].store) do not add up to the store's \(span.rows)")
    }
    return (sources, sources.map { $0.store.sourceReport() }, spans)
  }

  /// Checks that the partials hold the sections the run's arguments make: of `legs`
  /// legs each, with their `quotes` or without.
  /// - Throws: `PartialError` naming the first partial.
  func expect(sections: [(legs: Int, quotes: Bool)]) throws(PartialError) {
    guard first.sections.map(\.legs) == sections.map(\.legs), first.sections.map(\.quotes) == sections.map(\.quotes) else {
      throw PartialError(path: firstPath, reason: "holds \(first.sections.count) sections, its arguments make \(sections.count) of other legs or quotes")
    }
  }

  /// The points of section `section`, whose legs hold the quotes `legs` in the run's
  /// window; `counted` is told how many as they are replayed.
  func replay(_ section: Int, legs: [RowSpan], chunkPoints: Int, counted: @escaping (Int) -> Void) -> PremiumPartialReplay {
    PremiumPartialReplay(shards, section: section, legs: legs, chunkPoints: chunkPoints, counted: counted)
  }

  /// The points of every shard, for a progress count.
  var points: Int { shards.reduce(0) { $0 + $1.meta.sections.reduce(0) { $0 + $1.points } } }
}

extension RowSpan {
  /// The quotes of `a` then `b`, later in time.
  static func + (a: RowSpan, b: RowSpan) -> RowSpan {
    RowSpan(rows: a.rows + b.rows, firstTime: a.firstTime ?? b.firstTime, lastTime: b.lastTime ?? a.lastTime)
  }
}
