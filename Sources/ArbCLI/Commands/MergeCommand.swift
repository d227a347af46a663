import ArbIngest
import ArbResearch
import Foundation

/// `arbkit merge SHARD.csv… --out PATH`: joins the shards of one sweep into the bytes
/// the unsharded sweep writes.
struct MergeCommand: Command {
  static let name = "merge"
  static let abstract = "Join the shard outputs of one sweep, or the partials of one sharded premium, basis, kimchi or board run, into the unsharded output"
  static let usage = """
    Usage: arbkit merge SHARD.csv… --out PATH [--pnl-matrix PATH]
           arbkit merge PARTIAL… [--format table|csv|json]

    Joins the outputs of `arbkit sweep --shard I/N` (each with its .meta.json
    sidecar) into PATH, byte for byte what the unsharded sweep writes. Refuses shards
    of different scenarios, grids or overrides, a missing or repeated shard, and an
    incomplete shard. With --pnl-matrix, also joins the shards' PnL matrices, each read
    from the path its sidecar records (as given to arbkit sweep --pnl-matrix), into the
    matrix the unsharded sweep writes.

    Joins the partial results of `arbkit premium|basis|kimchi … --shard I/N --out PARTIAL`
    (every shard once, of the same command, arguments and unchanged stores) and prints
    and writes what the unsharded run prints and writes, byte for byte: the shards'
    points are analysed in order, in the unsharded run's chunks.

    Joins the partial results of `arbkit board … --shard I/N --out PARTIAL` (every
    shard once, of the same arguments and unchanged inputs) and prints the board the
    unsharded run prints, byte for byte.

    Options:
    \(HelpText.options([
      ("--out PATH", "the merged CSV (and PATH.meta.json)"),
      ("--pnl-matrix PATH", "the merged PnL matrix; every shard must have been swept with --pnl-matrix and one --period"),
      ("--format table|csv|json", "of partials: the output (default: the shards' --format)"),
    ]))
    """

  let inputs: [String]
  let out: String?
  let pnlMatrix: String?
  let format: OutputFormat?
  /// The inputs are partials of `premium|basis|kimchi|board --shard`, not sweep shards.
  let partials: Bool

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(arguments, flags: ["--out", "--pnl-matrix", "--format"], switches: [])
    try cursor.validate()
    inputs = cursor.arguments
    guard !inputs.isEmpty else { throw UsageError("no shard files") }
    out = cursor.value("--out")
    pnlMatrix = cursor.value("--pnl-matrix")
    format = cursor.value("--format") == nil ? nil : try OutputFormat.parse(cursor)
    let kinds = inputs.map { PremiumPartial.isPartial(path: $0) || BoardPartial.isPartial(path: $0) }
    partials = kinds.contains(true)
    if partials {
      // A file that holds something else is another kind of shard; a missing input, a
      // folder, a device or an empty file is left to the run, which cannot read it as a
      // partial (exit 66, 74 or 65, as for any input).
      func holdsSomething(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return false }
        return attributes[.type] as? FileAttributeType == .typeRegular && (attributes[.size] as? Int ?? 0) > 0
      }
      if let sweep = zip(inputs, kinds).first(where: { path, partial in !partial && holdsSomething(path) }) {
        throw UsageError("\(sweep.0) is not a partial of arbkit premium|basis|kimchi|board --shard, \(inputs[kinds.firstIndex(of: true)!]) is")
      }
      if out != nil || pnlMatrix != nil {
        throw UsageError("partials of arbkit premium|basis|kimchi|board --shard merge to stdout: --out and --pnl-matrix are for sweep shards")
      }
    } else {
      if out == nil && inputs.allSatisfy(FileManager.default.fileExists) { throw UsageError("--out PATH is required") }
      if format != nil { throw UsageError("--format is for partials of arbkit premium|basis|kimchi|board --shard; a sweep merges to the CSV --out") }
    }
  }

  var files: RunFiles {
    // A board's partials hold the whole board: the merge reads no input.
    if partials && BoardPartial.isPartial(path: inputs[0]) { return RunFiles(inputs: inputs) }
    if partials {
      // The run's `--series`, written by the merge; an unreadable partial is the run's error.
      let meta = try? PremiumPartial.meta(path: inputs[0])
      let series = meta.flatMap { meta -> String? in
        switch meta.command {
        case PremiumCommand.name: try? PremiumCommand(arguments: meta.arguments).series?.path
        case BasisCommand.name: try? BasisCommand(arguments: meta.arguments).series?.path
        case KimchiCommand.name: try? KimchiCommand(arguments: meta.arguments).series?.path
        default: nil
        }
      }
      return RunFiles(inputs: inputs + (meta?.legs.map(\.store) ?? []), named: series.map { [$0] } ?? [])
    }
    // Without --out every input is missing: the check of the inputs says so (exit 66).
    guard let out else { return RunFiles(inputs: inputs) }
    // The shards' matrices as their sidecars name them; an unreadable sidecar is the run's error.
    let matrices = pnlMatrix == nil ? [] : inputs.compactMap { try? SweepOutput.Meta.read($0).pnlMatrix }
    return RunFiles(inputs: inputs + inputs.map { $0 + ".meta.json" } + matrices, named: [out] + [pnlMatrix].compactMap { $0 }, derived: [out + ".meta.json"])
  }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    if partials {
      // A partial that is missing, a folder or a device says what it is (exit 66).
      for path in inputs { try InputFile.check(path) }
      let boards = inputs.map { BoardPartial.isPartial(path: $0) }
      if let other = inputs.indices.first(where: { boards[$0] != boards[0] && (boards[$0] || PremiumPartial.isPartial(path: inputs[$0])) }) {
        throw UsageError("\(inputs[other]) is a shard of another run than \(inputs[0]) (its command or arguments differ)")
      }
      if boards[0] { return try BoardCommand.merge(BoardPartialSet(inputs), format: format, terminal: &terminal) }
      let set = try PartialSet(inputs)
      switch set.first.command {
      case PremiumCommand.name: return try PremiumCommand.merge(set, format: format, terminal: &terminal)
      case BasisCommand.name: return try BasisCommand.merge(set, format: format, terminal: &terminal)
      case KimchiCommand.name: return try KimchiCommand.merge(set, format: format, terminal: &terminal)
      default: throw PartialError(path: inputs[0], reason: "a partial of arbkit \(set.first.command), which this arbkit does not merge")
      }
    }
    for path in inputs { try InputFile.check(path) }
    guard let out else { throw UsageError("--out PATH is required") }
    var shards: [(meta: SweepOutput.Meta, header: String, rows: [String])] = []
    for path in inputs {
      try InputFile.check(path)
      // A sweep that writes Arrow IPC or Parquet is never sharded (sweep --shard refuses it).
      guard ColumnarFile.parquetMetadata(path: path) == nil else {
        throw UsageError("\(path): a Parquet sweep file is no shard; merge joins the CSV files of sweep --shard")
      }
      let meta = try SweepOutput.Meta.read(path)
      guard let data = FileManager.default.contents(atPath: path) else { throw FileError.missing(path: path) }
      let text = String(decoding: data, as: UTF8.self)
      guard text.hasSuffix("\n") else { throw UsageError("\(path): the last row is incomplete; finish it with arbkit sweep --resume") }
      let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      guard lines.count - 1 == meta.cells else {
        throw UsageError("\(path): \(lines.count - 1) of its \(meta.cells) cells are done; finish it with arbkit sweep --resume")
      }
      shards.append((meta, lines[0], Array(lines.dropFirst())))
    }
    let first = shards[0].meta
    for (path, shard) in zip(inputs, shards) {
      guard shard.meta.scenarioChecksum == first.scenarioChecksum, shard.meta.grid == first.grid, shard.meta.overrides == first.overrides,
        shard.meta.totalCells == first.totalCells, shard.header == shards[0].header
      else { throw UsageError("\(path) is a shard of another sweep than \(inputs[0]) (scenario, grid or overrides differ)") }
    }
    let order = try Self.order(shards.enumerated().map { k, shard throws(UsageError) in try Self.shard(shard.meta, path: inputs[k]) })
    let count = order.count
    var byIndex = [Int: Int]()
    for (index, k) in order.enumerated() { byIndex[index + 1] = k }
    // Cell c is row c / N of shard c mod N + 1.
    var text = shards[0].header + "\n"
    for cell in 0..<first.totalCells {
      text += shards[byIndex[cell % count + 1]!].rows[cell / count] + "\n"
    }
    var merged = first
    merged.shard = "1/1"
    merged.cells = first.totalCells
    merged.pnlMatrix = pnlMatrix
    merged.period = pnlMatrix == nil ? nil : first.period
    let csv = try AtomicFile(path: out)
    try csv.write(text)
    var files = [csv]
    if let pnlMatrix {
      let matrices = try (1...count).map { index in try Self.matrix(shards[byIndex[index]!].meta, of: inputs[byIndex[index]!], period: first.period) }
      let matrix = try AtomicFile(path: pnlMatrix)
      let paths = (1...count).map { shards[byIndex[$0]!].meta.pnlMatrix! }
      try matrix.write(try SweepPnLMatrix.merged(matrices, paths: paths, totalCells: first.totalCells, length: SweepPnLMatrix.Period(first.period!)!.length))
      files.append(matrix)
    }
    try FileOutput.commit(files + [try merged.sidecar(out)])
    terminal.printError("merged \(count) shards, \(first.totalCells) cells into \(out)")
    return .success
  }

  /// The output of a merge of partials: `override` (`merge --format`) when the command
  /// writes it (`accepting`), else `shards` (the shards' `--format`).
  /// - Throws: `UsageError` for an `override` the command does not write.
  static func format(_ override: OutputFormat?, or shards: OutputFormat, accepting: [OutputFormat] = OutputFormat.allCases) throws(UsageError) -> OutputFormat {
    guard let override else { return shards }
    guard accepting.contains(override) else {
      throw UsageError("invalid value for '--format', expected \(accepting.map(\.rawValue).joined(separator: " or ")), was '\(override.rawValue)'")
    }
    return override
  }

  /// The positions of `shards` (each `I/N`) in shard order 1…N.
  /// - Throws: `UsageError` when shards of different N are given, one is given twice or some are missing.
  static func order(_ shards: [(index: Int, count: Int)]) throws(UsageError) -> [Int] {
    let count = shards[0].count
    var byIndex = [Int: Int]()
    for (k, shard) in shards.enumerated() {
      guard shard.count == count else { throw UsageError("shard \(shard.index)/\(shard.count) is given with shards of \(count)") }
      guard byIndex[shard.index] == nil else { throw UsageError("shard \(shard.index)/\(shard.count) is given twice") }
      byIndex[shard.index] = k
    }
    // Each shard is given once, so fewer than `count` means some are missing; only those up to the first ten are named.
    guard byIndex.count == count else {
      let missing = (1...count).lazy.filter { byIndex[$0] == nil }.prefix(10).map { "\($0)/\(count)" }
      throw UsageError("missing shard(s) " + missing.joined(separator: ", ") + (count - byIndex.count > 10 ? ", …" : ""))
    }
    return (1...count).map { byIndex[$0]! }
  }

  /// The PnL matrix of the shard `path` as its sidecar records it, with the `period` of the first shard.
  private static func matrix(_ meta: SweepOutput.Meta, of path: String, period: String?) throws -> SweepPnLMatrix.File {
    guard let matrix = meta.pnlMatrix, let text = meta.period, let length = SweepPnLMatrix.Period(text)?.length else {
      throw UsageError("--pnl-matrix: \(path) was swept without --pnl-matrix (its sidecar names no matrix)")
    }
    guard text == period else { throw UsageError("--pnl-matrix: \(path) has periods of \(text), others of \(period ?? "none")") }
    return try SweepPnLMatrix.File(path: matrix, length: length)
  }

  /// Shard `I/N` of a sidecar, checked against its cells: 1 ≤ I ≤ N ≤ total cells, and
  /// the shard holds every N-th cell from cell I, so that the merge's work is bounded
  /// by the rows it was given.
  private static func shard(_ meta: SweepOutput.Meta, path: String) throws(UsageError) -> (index: Int, count: Int) {
    let parts = meta.shard.split(separator: "/", omittingEmptySubsequences: false).compactMap { Int($0) }
    guard parts.count == 2, parts[0] >= 1, parts[0] <= parts[1], parts[1] <= meta.totalCells,
      meta.cells == (meta.totalCells - parts[0]) / parts[1] + 1
    else { throw UsageError("\(path).meta.json: not a sweep sidecar (shard \(meta.shard) of \(meta.cells) of \(meta.totalCells) cells)") }
    return (parts[0], parts[1])
  }
}
