import ArbAnalytics
import ArbCore
import ArbIngest
import ArbResearch

/// `arbkit board PATH…`: the historical premium board, one row per instrument quoted
/// on two or more venues.
struct BoardCommand: Command {
  static let name = "board"
  /// `--sort` orders the board's rows, so the switch that sorts input rows is `--sort-rows`.
  static let sortSwitch: String? = "--sort-rows"
  static let abstract = "Premium board: per instrument across venues the top and bottom, max premium, bands, best edge"
  static let usage = """
    Usage: arbkit board INPUT… [options]
           arbkit board --follow DIR|STORE [--speed N] [--alert CONDITION]… [live options]

    Groups every leg of the inputs by canonical instrument across venues and, for each
    instrument quoted on two or more venues, prints the historical version of a live
    premium board: the venue most often on top and at the bottom (share of valid
    points), the max premium (highest over lowest mid − 1, in percent: mean, p50, p95,
    max), the share of time at or above each band, the longest episode per band, and
    the best executable edge with its venues and time. A point needs two venues with a
    usable quote; a stale or missing venue is left out of it (shown "-"), never read as
    0: a venue is stale once its last quote is older than --max-stale (default 1d, so
    daily closes count until the next day's; none compares quotes of any age). Premium
    cells are grey at or above the lowest band and orange at or above the highest when
    stdout is a colour terminal and NO_COLOR is unset.
    Definitions: docs/definitions.md.

    An INPUT is a leg VENUE:MARKET:SYMBOL=PATH[,PATH…][#FIELD][@FORMAT], a file whose
    rows name their venue and symbol (Tardis, REST snapshots, cryptofeed, order-book
    lines: each of its instruments is a leg), or a folder of such files.

    Options:
    \(HelpText.options([
      ("--sort COLUMN", "order rows by a column (numbers descending, instrument ascending): \(BoardResult.sortHelp); default mean"),
    ] + AnalysisFlags.help(defaultMaxStale: defaultMaxStale) + ExecutionFlags.help + [
      ("--chunk-rows N", "points, and quotes per leg, worked on at a time (default 65536): memory grows with it, not with the history"),
      ("--format table|csv|json", "output (default table)"),
    ] + ShardFlags.boardHelp))
    \(IngestFlags.help(sortSwitch: sortSwitch!))

    Live board (--follow): the board of a folder written by arbkit record, redrawn once
    a second in place while the recording grows (rotated and compressed files
    included; a last line is read once its newline is written), or a finished
    recording (or a store made from one by arbkit convert) replayed with --speed. One row per instrument quoted on two or more
    venues or with a kimchi premium: the highest and lowest venue by mid, the premium
    (highest / lowest mid − 1, in %; grey from 0.05, orange from 0.1 on a colour
    terminal), the kimchi premium of a KRW market over the USDT markets of its coin
    through Upbit's KRW-USDT (or --fx), the age of the newest quote; the UTC and KST
    clocks in the header. An alert line, 'TIME alert start|end|open CONDITION value=V
    [duration_s=D]', is printed when a condition starts to hold, when it ends (with
    how long it held) and, still holding, when the board stops. Without a terminal
    the alert lines are printed as they come and the board once at the end. Stops on
    SIGINT or SIGTERM, after --duration, or at the end of a replay.

    Live options:
    \(BoardFollowCommand.help)
    """

  /// One day: a venue is compared only with quotes at most a day apart (daily closes
  /// of consecutive days), never with prices of another month or year.
  static let defaultMaxStale: Int64 = 86_400_000_000

  let inputs: [LegSpec]
  let alignment: AlignmentOptions
  let bands: BandOptions
  /// `--size` and `--offset`.
  let execution: ExecutionFlags
  let sort: String
  /// `--chunk-rows`: points, and quotes per leg, worked on at a time.
  let chunkRows: Int
  var format: OutputFormat
  let ingest: IngestFlags
  /// `--shard I/N --out PATH`: the shard made, and where its partial result goes.
  let shard: ShardFlags?
  /// The arguments without `--shard` and `--out`: what every shard of one run shares.
  let sharedArguments: [String]
  /// `--size`: trade size for the executable premium from depth.
  var size: Double? { execution.size }

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(
      arguments, flags: ["--sort", "--chunk-rows", "--format"] + ShardFlags.flags + AnalysisFlags.flags + ExecutionFlags.flags + IngestFlags.flags,
      switches: [Self.sortSwitch!])
    try cursor.validate()
    var ingest = try IngestFlags(cursor, sortSwitch: Self.sortSwitch!)
    guard !cursor.arguments.isEmpty else { throw UsageError("no input given") }
    var inputs: [LegSpec] = []
    for text in cursor.arguments {
      do { inputs.append(ingest.leg(try LegSpec(parsing: text))) } catch { throw UsageError(error.message) }
    }
    if let rate = inputs.first(where: { $0.field?.isRate == true }) { throw LegInputs.rateLeg(named: rate) }
    for case let instrument? in inputs.map(\.instrument) {
      do { _ = try ingest.options.registry.canonical(ofLeg: instrument) } catch { throw UsageError(error.description) }
    }
    self.inputs = inputs
    let analysis = try AnalysisFlags(cursor, defaultMaxStale: Self.defaultMaxStale)
    alignment = analysis.alignment
    bands = analysis.bands
    execution = try ExecutionFlags(cursor, ingest: &ingest)
    self.ingest = ingest
    let sort = cursor.value("--sort") ?? "mean"
    let columns = BoardResult.sortColumns(bands: bands.bands, sized: execution.size != nil)
    guard columns.contains(sort) else {
      let closest = columns.min { EditDistance.between(sort, $0) < EditDistance.between(sort, $1) }!
      throw UsageError("unknown column '\(sort)' for --sort, did you mean '\(closest)'? (columns: \(columns.joined(separator: ", ")))")
    }
    self.sort = sort
    chunkRows = try cursor.chunkRows()
    format = try OutputFormat.parse(cursor)
    shard = try ShardFlags.parse(cursor, split: .instruments, refusing: [("--size", execution.size != nil)])
    sharedArguments = ShardFlags.shared(arguments)
  }

  var files: RunFiles { ingest.files(inputs: inputs.flatMap(\.files), outputs: [shard?.out]) }

  /// Groups the legs by instrument before their quotes are read, then streams each
  /// group's legs through its row a chunk at a time, one group after another: a store's
  /// series from its mapped partitions, a named leg of files as they are parsed (with
  /// its books); files whose rows name their instruments go through a temporary store
  /// first, or are read whole when a store cannot hold them (a book's depth among them).
  /// The legs not on the board are read to count their quotes. With `--size` the streams
  /// yield their sizes and each row walks its legs' books as its points go by. With
  /// `--shard`, only the shard's parts of the board (`BoardPartial`) are made, and
  /// written as its partial.
  func run(_ terminal: inout Terminal) throws -> ExitCode {
    var inputs = try BoardInputs.resolve(self.inputs, ingest: ingest, sizes: size != nil, chunkRows: chunkRows)
    /// The rows, once the board is printed.
    var rows: [BoardRow]? = nil
    // Deferred so that they are printed when the run fails too.
    defer {
      for note in inputs.skipped { terminal.printError("arbkit: warning: \(note)") }
      inputs.warn(&terminal)
      for instrument in inputs.duplicates { terminal.printError("arbkit: warning: \(instrument) is given more than once; the first is used") }
      if rows?.isEmpty == true { Self.warnEmpty(&terminal) }
    }
    try execution.checkOffsets(venues: inputs.legs.map(\.instrument.venue))
    let grouping = BoardGrouping(legs: inputs.legs, instrument: \.instrument, registry: ingest.options.registry)
    let layout = BoardLayout(grouping)
    let owned = layout.parts.indices.filter { k in shard.map { BoardPartial.owns(k, shard: $0.index, of: $0.count) } ?? true }
    let counts = owned.flatMap { layout.parts[$0].legs }.map(\.expectedRows)
    let progress = Progress(
      total: counts.contains(nil) ? nil : counts.reduce(0) { $0 + $1! }, unit: "quotes", show: Progress.onTerminal(terminal), every: 0.2)
    defer { progress.finish() }
    /// The leg's quotes moved by its venue's clock offset (counted on a terminal).
    func open(_ leg: BoardInputs.Leg) throws -> BoardRow.Input {
      var stream = try inputs.open(leg)
      if let micros = execution.offsets.first(where: { $0.venue == leg.instrument.venue })?.micros, micros != 0 {
        stream = ShiftedQuoteStream(stream, by: micros)
      }
      if Progress.onTerminal(terminal) { stream = CountingQuoteStream(stream, counted: progress.advance) }
      return (leg.instrument, stream)
    }
    func described(_ leg: BoardInputs.Leg) throws -> BoardLeg {
      try BoardLeg(reading: try open(leg).stream, instrument: leg.instrument, chunkRows: chunkRows)
    }
    var parts: [BoardPartial.Meta.Owned] = []
    for k in owned {
      let part: BoardPartial.Part
      switch layout.parts[k] {
      case .row(let instrument, let legs):
        if size != nil { try ExecutionFlags.refuseContractBooks(legs.map { ($0.instrument, instrument) }) }
        let opened = try legs.map(open)
        part = .row(
          try BoardRow(
            instrument: instrument, legs: opened, alignment: alignment, bands: bands, chunkRows: chunkRows, size: size))
      case .singleVenue(let instrument, let leg): part = .singleVenue(instrument: instrument, leg: try described(leg))
      case .unplaced(let leg, let reason): part = .unplaced(leg: try described(leg), reason: reason)
      case .sameVenue(let leg): part = .sameVenue(leg: try described(leg))
      }
      parts.append(BoardPartial.Meta.Owned(index: k, part: part))
    }
    progress.finish()
    if let shard {
      var skipped: [String] = []
      let read = try files.inputs.flatMap { try BoardInputs.expand($0, skipped: &skipped) }
      let meta = BoardPartial.Meta(
        command: Self.name, arguments: sharedArguments, shard: shard.index, shards: shard.count,
        inputs: try read.map { BoardPartial.Meta.Input(path: $0, fingerprint: try BoardPartial.fingerprint($0)) }, layout: layout.labels, parts: parts)
      try BoardPartial.write(meta, to: shard.out)
      return .success
    }
    rows = try report(parts.map(\.part), terminal: &terminal)
    return .success
  }

  /// Prints the board of `parts` (every part of it, in order) in `format`, and returns
  /// its rows; every format prints the figures of the JSON, checked once before
  /// anything is written.
  /// - Throws: `NonFiniteResult` for a figure that is not finite.
  func report(_ parts: [BoardPartial.Part], terminal: inout Terminal) throws -> [BoardRow] {
    var rows: [BoardRow] = [], singleVenue: [(CanonicalInstrument, BoardLeg)] = []
    var unplaced: [(BoardLeg, String)] = [], sameVenue: [BoardLeg] = []
    for part in parts {
      switch part {
      case .row(let row): rows.append(row)
      case .singleVenue(let instrument, let leg): singleVenue.append((instrument, leg))
      case .unplaced(let leg, let reason): unplaced.append((leg, reason))
      case .sameVenue(let leg): sameVenue.append(leg)
      }
    }
    var result = BoardResult(
      rows: rows, singleVenue: singleVenue, unplaced: unplaced, sameVenue: sameVenue, alignment: alignment, bands: bands,
      clock: ingest.options.clock, sort: sort, size: size)
    result.offsets = execution.offsets
    let json = try result.json.checkedFinite()
    switch format {
    case .json: terminal.print(json.rendered())
    case .csv: terminal.print(result.csv, terminator: "")
    case .table: terminal.print(result.table(colour: terminal.colour))
    }
    return rows
  }

  static func warnEmpty(_ terminal: inout Terminal) { terminal.printError("arbkit: warning: no instrument is quoted on two or more venues") }
}

/// The parts of a board in order (`BoardPartial`), named before any quote is read: its
/// rows, the instruments on one venue, the legs without an instrument, the second legs
/// of a venue.
struct BoardLayout {
  enum Part {
    case row(CanonicalInstrument, legs: [BoardInputs.Leg])
    case singleVenue(CanonicalInstrument, leg: BoardInputs.Leg)
    case unplaced(BoardInputs.Leg, reason: String)
    case sameVenue(BoardInputs.Leg)

    var legs: [BoardInputs.Leg] {
      switch self {
      case .row(_, let legs): legs
      case .singleVenue(_, let leg), .unplaced(let leg, _), .sameVenue(let leg): [leg]
      }
    }

    /// `BoardPartial.label` of the part it makes.
    var label: String {
      switch self {
      case .row(let instrument, _): BoardPartial.label(.row, instrument.description)
      case .singleVenue(let instrument, _): BoardPartial.label(.singleVenue, instrument.description)
      case .unplaced(let leg, _): BoardPartial.label(.unplaced, leg.instrument.description)
      case .sameVenue(let leg): BoardPartial.label(.sameVenue, leg.instrument.description)
      }
    }
  }

  let parts: [Part]

  init(_ grouping: BoardGrouping<BoardInputs.Leg>) {
    parts =
      grouping.board.map { Part.row($0.instrument, legs: $0.legs) } + grouping.singleVenue.map { Part.singleVenue($0.0, leg: $0.1) }
      + grouping.unplaced.map { Part.unplaced($0.leg, reason: $0.reason) } + grouping.sameVenue.map(Part.sameVenue)
  }

  var labels: [String] { parts.map(\.label) }
}
