import ArbResearch

/// The partials of one board split by instrument (`arbkit board … --shard I/N`), each
/// shard once, of the same arguments and inputs, in shard order.
struct BoardPartialSet {
  let shards: [BoardPartial.Meta]
  /// The first partial given: its arguments are the run's.
  let first: BoardPartial.Meta

  /// - Throws: `PartialError` for a damaged partial or one of another board; `UsageError`
  ///   for partials of other runs or inputs, a missing or repeated shard.
  init(_ paths: [String]) throws {
    let partials = try paths.map(BoardPartial.read)
    first = partials[0]
    for (path, partial) in zip(paths, partials) {
      guard partial.command == first.command, partial.arguments == first.arguments else {
        throw UsageError("\(path) is a shard of another run than \(paths[0]) (its command or arguments differ)")
      }
      guard partial.inputs == first.inputs else {
        throw UsageError("\(path) was made from other inputs than \(paths[0]) (a file's size or time, or a store's store.json, differs)")
      }
      guard partial.layout == first.layout else { throw PartialError(path: path, reason: "has other instruments than \(paths[0])") }
    }
    shards = try MergeCommand.order(partials.map { (index: $0.shard, count: $0.shards) }).map { partials[$0] }
  }

  /// Every part of the board, in order: part `k` from shard `k mod N + 1`.
  var parts: [BoardPartial.Part] {
    (0..<first.layout.count).map { k in shards[k % shards.count].parts[k / shards.count].part }
  }
}

extension BoardCommand {
  /// `arbkit merge PARTIAL…` of a board split by instrument: the board the unsharded run
  /// prints, byte for byte, from the parts its shards made. No input is read again: the
  /// shards printed the inputs' warnings.
  static func merge(_ set: BoardPartialSet, format: OutputFormat?, terminal: inout Terminal) throws -> ExitCode {
    var command = try BoardCommand(arguments: set.first.arguments)
    command.format = try MergeCommand.format(format, or: command.format)
    if try command.report(set.parts, terminal: &terminal).isEmpty { warnEmpty(&terminal) }
    return .success
  }
}
