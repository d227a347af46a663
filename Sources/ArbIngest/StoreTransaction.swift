#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore
import Foundation

/// Adds source files to a store, all or nothing (docs/formats.md, "Store").
///
/// Each source is begun (`beginSource`), its series written through `StoreWriter`s,
/// and ended with its row accounting (`endSource`); `commit` puts every new partition
/// in place and then replaces `store.json`. Partitions are written into a hidden
/// staging folder (inside the store, or beside a new store, which is renamed into
/// place whole); nothing in the store is rewritten or removed. A transaction released
/// before its commit removes its staging folder and leaves the store as it was.
///
/// Merge rule: a store holds one partition per series and UTC day. A source whose
/// quotes of a series and day equal, column for column, those the store holds adds
/// nothing (its rows count as collapsed); any other quotes of a series and day the
/// store already holds are refused (`StoreError.conflict`), as is a series whose price
/// source or columns differ from the store's.
public final class StoreTransaction {
  /// The store folder as the caller named it.
  public let path: String
  let clock: Clock
  private var manifest: StoreManifest
  /// The manifest as the store held it.
  private let original: StoreManifest?
  /// The store exists (else it is built whole beside and renamed into place).
  private let storeExists: Bool
  private var staging: String? = nil
  private var stagedCount = 0
  /// Staged partition folders and their place relative to the store.
  private var pending: [(staged: String, target: String)] = []
  private var source: Int? = nil
  private var writers: [StoreWriter] = []
  private var committed = false
  /// The staging folder's removal should the run be interrupted (`InterruptCleanup`).
  private var interruptToken: UInt64? = nil

  /// Opens the store in `path` for adding, or prepares a new one there when `path` is
  /// missing or an empty folder.
  /// - Throws: `StoreError` for a store that cannot be opened (a stale source, damage,
  ///   another `clock`); `FileError.unwritable` when `path` is another folder or file,
  ///   or its folder is missing.
  public init(path: String, clock: Clock) throws {
    self.path = path
    self.clock = clock
    if Store.isStore(path: path) {
      let store = try Store.open(path: path)
      guard store.clock == clock else { throw StoreError.clockMismatch(store: path, stored: store.clock, requested: clock) }
      manifest = store.manifest
      original = store.manifest
      storeExists = true
      return
    }
    var info = stat()
    if stat(path, &info) == 0 {
      let empty = info.st_mode & S_IFMT == S_IFDIR && ((try? FileManager.default.contentsOfDirectory(atPath: path))?.isEmpty ?? false)
      guard empty else { throw FileError.unwritable(path: path, reason: "exists and is not a store, not writing into it") }
    } else {
      try FileOutput.checkWritable(path, shown: path)
    }
    manifest = StoreManifest(clock: clock.rawValue)
    original = nil
    storeExists = false
  }

  deinit {
    if !committed, let staging { Self.removeStaging(staging) }
    if let interruptToken { InterruptCleanup.unregister(interruptToken) }
  }

  /// Begins adding the file at `path`; `false` (nothing to add, the file need not be
  /// read) when the store already holds it unchanged, or a file with the same bytes.
  /// - Throws: `FileError` when the file cannot be read.
  public func beginSource(path sourcePath: String) throws -> Bool {
    precondition(source == nil, "a source is ended before the next begins")
    let stamp = try StoreSource(stamping: sourcePath)
    if manifest.sources.contains(where: { $0.path == stamp.path || ($0.checksum == stamp.checksum && $0.size == stamp.size) }) {
      return false
    }
    manifest.sources.append(stamp)
    source = manifest.sources.count - 1
    return true
  }

  /// A writer for one series of the source being added, fed in ascending time. A
  /// streamed source learns its series' price source at its end: the writer's
  /// `priceSource` is set before `endSource`.
  public func writer(instrument: Instrument, field: SeriesField, priceSource: PriceSource? = nil) -> StoreWriter {
    guard source != nil else { preconditionFailure("writer(instrument:field:priceSource:) needs a begun source") }
    let writer = StoreWriter(transaction: self, instrument: instrument, field: field, priceSource: priceSource)
    writers.append(writer)
    return writer
  }

  /// Lists the series of a finished writer in the store, or checks it against the
  /// series the store holds.
  /// - Throws: `StoreError.conflict` when the store holds the series with another price source.
  func register(_ instrument: Instrument, _ field: SeriesField, priceSource: PriceSource) throws {
    let folder = StoreLayout.seriesFolder(instrument, field)
    if let entry = manifest.series.first(where: { $0.folder == folder }) {
      guard entry.priceSource == priceSource.rawValue else {
        throw StoreError.conflict(
          partition: path + "/" + folder, source: sourcePath,
          reason: "has \(priceSource.rawValue) prices of \(instrument) (\(field.rawValue)), the store \(entry.priceSource) prices")
      }
    } else {
      manifest.series.append(
        StoreSeries(
          venue: instrument.venue, market: instrument.market.rawValue, symbol: instrument.symbol, field: field.rawValue,
          priceSource: priceSource.rawValue, folder: folder, columns: [], partitions: []))
    }
  }

  /// Ends the source being added: finishes its writers and keeps the row accounting of
  /// `report` in `store.json`.
  public func endSource(report: IngestReport) throws {
    guard let source else { preconditionFailure("endSource(report:) needs a begun source") }
    for writer in writers { try writer.finish() }
    writers = []
    manifest.sources[source].account(report)
    self.source = nil
  }

  /// Adds a file read whole (`Ingest.read`) from `file.report.path`: its series a chunk
  /// at a time, and its row accounting; `false` when the store holds it already.
  public func add(_ file: IngestedFile) throws -> Bool {
    guard try beginSource(path: file.report.path) else { return false }
    try write(file)
    return true
  }

  /// Adds the one file `leg` names, read as a stream a chunk at a time when it can be
  /// (`FileQuoteStream.drain`: memory that does not grow with the file), else read whole;
  /// `nil` when the store holds it already (it is not read). Returns its report and each
  /// series' price source, in the order of `report.instruments`.
  /// - Throws: as `Ingest.read`; `StoreError.conflict`; `FileError.unwritable`.
  public func add(
    _ leg: LegSpec, options: IngestOptions, specOverrides: [String] = [], chunkRows: Int = 1 << 16
  ) throws -> (report: IngestReport, priceSources: [PriceSource])? {
    precondition(leg.paths.count == 1, "a source is one file")
    guard try beginSource(path: leg.paths[0]) else { return nil }
    var sink = Writers(transaction: self)
    if let drained = try FileQuoteStream.drain(leg, options: options, specOverrides: specOverrides, chunkRows: chunkRows, into: &sink) {
      // The writers are in the order the series appeared, the price sources in the
      // report's (a JSON source's series are ranked).
      var listed = Array(zip(drained.report.instruments, drained.priceSources))
      for writer in sink.writers {
        guard let k = listed.firstIndex(where: { $0.0.0 == writer.instrument && $0.0.1 == writer.field }) else { continue }
        writer.priceSource = listed.remove(at: k).1
      }
      try endSource(report: drained.report)
      return drained
    }
    let file = try Ingest.read(path: leg.paths[0], options: try leg.ingestOptions(options, specOverrides: specOverrides))
    try write(file)
    return (file.report, file.series.map(\.priceSource))
  }

  /// Writes the series of `file`, its source begun, and ends the source.
  private func write(_ file: IngestedFile) throws {
    for series in file.series {
      try writer(instrument: series.instrument, field: series.field, priceSource: series.priceSource).append(series)
    }
    try endSource(report: file.report)
  }

  /// A streamed source's series, each into its own writer.
  private struct Writers: SeriesSink {
    let transaction: StoreTransaction
    var writers: [StoreWriter] = []

    mutating func begin(_ series: Int, instrument: Instrument, field: SeriesField) {
      precondition(series == writers.count, "series begin in order")
      writers.append(transaction.writer(instrument: instrument, field: field))
    }

    mutating func append(_ series: Int, _ chunk: QuoteChunk) throws { try writers[series].append(chunk) }
  }

  /// Puts every staged partition in place, then `store.json`.
  /// - Throws: `FileError.unwritable` when a folder cannot be made or moved.
  public func commit() throws {
    precondition(source == nil, "commit() after the last source is ended")
    // Every source was in the store already: nothing changes, not even store.json.
    guard manifest != original else { return }
    let root = storeExists ? path : try stagingFolder()
    let manifestFile = try AtomicFile(path: root + "/" + StoreManifest.fileName, named: false)
    let bytes = try manifest.encoded()
    try bytes.withUnsafeBytes { raw in try manifestFile.write(raw) }
    try manifestFile.sync()
    // The partitions and store.json land together: an interruption waits for them.
    try InterruptCleanup.committing { () throws(FileError) in
      for (staged, target) in pending {
        try Self.makeFolders(root + "/" + FileOutput.folder(of: target), below: root)
        try Self.move(staged, to: root + "/" + target)
      }
      try manifestFile.publish()
      if storeExists {
        if let staging { rmdir(staging) }
      } else {
        try Self.move(root, to: path)
      }
      committed = true
    }
    Self.syncFolder(FileOutput.folder(of: path))
  }

  // MARK: Partitions, from `StoreWriter`

  var sourcePath: String { source.map { manifest.sources[$0].path } ?? "" }
  var sourceChecksum: String { source.map { manifest.sources[$0].checksum } ?? "" }

  /// A new, empty folder to write one partition's files in (`.p<n>`: no series folder
  /// starts with a dot).
  func newPartitionFolder() throws -> String {
    let folder = try stagingFolder() + "/.p\(stagedCount)"
    stagedCount += 1
    try Self.makeFolder(folder)
    return folder
  }

  /// Takes the partition written in `folder`: adds it to the store, or drops it when
  /// the store holds the same quotes.
  /// - Throws: `StoreError.conflict`.
  func stage(_ partition: PartitionManifest, folder: String, columns: [String]) throws {
    guard let source else { preconditionFailure("a partition belongs to a begun source") }
    let seriesFolder = StoreLayout.seriesFolder(
      venue: partition.venue, market: partition.market, symbol: partition.symbol, field: partition.field)
    guard let s = manifest.series.firstIndex(where: { $0.folder == seriesFolder }) else {
      preconditionFailure("a writer's series is listed when the writer is made")
    }
    let target = seriesFolder + "/" + partition.day
    let entry = StorePartition(day: partition.day, rows: partition.rows, firstTsUs: partition.firstTsUs, lastTsUs: partition.lastTsUs, source: source)
    let name = "\(partition.venue):\(partition.market):\(partition.symbol) (\(partition.field))"
    if let held = manifest.series[s].partitions.first(where: { $0.day == partition.day }) {
      let heldFolder = pending.first { $0.target == target }?.staged ?? path + "/" + target
      guard held.rows == entry.rows, manifest.series[s].columns == columns, try Self.sameFiles(folder, heldFolder, columns: columns) else {
        throw StoreError.conflict(
          partition: path + "/" + target, source: sourcePath,
          reason: "holds \(entry.rows) quotes of \(name) on \(partition.day), the store \(held.rows) other ones from "
            + "\(manifest.sources[held.source].path) (a series and day come from one source)")
      }
      manifest.sources[source].rowsCollapsed += entry.rows
      Self.removePartition(folder)
      return
    }
    if !manifest.series[s].columns.isEmpty && manifest.series[s].columns != columns {
      throw StoreError.conflict(
        partition: path + "/" + target, source: sourcePath,
        reason: "has the columns \(columns.joined(separator: ", ")) for \(name), the store \(manifest.series[s].columns.joined(separator: ", "))")
    }
    if storeExists && FileManager.default.fileExists(atPath: path + "/" + target) {
      throw StoreError.conflict(
        partition: path + "/" + target, source: sourcePath,
        reason: "has quotes of \(name) on \(partition.day), and the store's folder for them exists though store.json lists none "
          + "(left by an interrupted convert: remove it)")
    }
    manifest.series[s].columns = columns
    var partitions = manifest.series[s].partitions
    partitions.append(entry)
    partitions.sort { $0.firstTsUs < $1.firstTsUs }
    manifest.series[s].partitions = partitions
    pending.append((folder, target))
  }

  // MARK: Files

  private func stagingFolder() throws -> String {
    if let staging { return staging }
    let name = path.split(separator: "/").last.map(String.init) ?? "store"
    let base = storeExists ? path + "/.staging" : FileOutput.folder(of: path) + "/." + name + ".partial"
    let (made, token) = try Self.makeStaging(base, for: path)
    (staging, interruptToken) = (made, token)
    return made
  }

  /// Makes a folder `base-XXXXXX` (`FileOutput.makeUniqueFolder`; `shown` in errors) and
  /// registers its removal should the run be interrupted, in one step
  /// (`InterruptCleanup.registering`).
  static func makeStaging(_ base: String, for shown: String) throws(FileError) -> (folder: String, token: UInt64) {
    let (made, token) = try InterruptCleanup.registering { () throws(FileError) in
      let made = try FileOutput.makeUniqueFolder(base, for: shown)
      return (made, { Self.removeStaging(made) })
    }
    return (made, token)
  }

  /// The files of `columns` in the two partition folders hold the same bytes.
  private static func sameFiles(_ a: String, _ b: String, columns: [String]) throws -> Bool {
    for name in columns {
      guard let column = StoreColumn.named(name) else { return false }
      let left = try MappedFile(path: a + "/" + column.fileName)
      let right = try MappedFile(path: b + "/" + column.fileName)
      let same = left.withBytes { x in right.withBytes { y in x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) } }
      if !same { return false }
    }
    return true
  }

  /// Removes a staged partition folder: its column files and `partition.json`, nothing else.
  private static func removePartition(_ folder: String) {
    for column in StoreColumn.all { unlink(folder + "/" + column.fileName) }
    unlink(folder + "/" + PartitionManifest.fileName)
    rmdir(folder)
  }

  /// Removes what an uncommitted transaction staged: its whole staging folder, which
  /// nothing else writes in (made by `mkdtemp`). Repeated while the run's other threads
  /// still add to it (an interrupted run's writers go on until the process ends): once
  /// the folder is gone, nothing can be made below it.
  static func removeStaging(_ staging: String) {
    for _ in 0..<100 {
      try? FileManager.default.removeItem(atPath: staging)
      if access(staging, F_OK) != 0 && errno == ENOENT { return }
    }
  }

  static func makeFolder(_ path: String) throws(FileError) {
    guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
      throw .unwritable(path: path, reason: "cannot create folder: \(String(cString: strerror(errno)))")
    }
  }

  /// Makes `folder` and the folders between it and `root`.
  private static func makeFolders(_ folder: String, below root: String) throws(FileError) {
    guard folder.count > root.count else { return }
    try makeFolders(FileOutput.folder(of: folder), below: root)
    try makeFolder(folder)
  }

  private static func move(_ from: String, to: String) throws(FileError) {
    guard rename(from, to) == 0 else {
      throw .unwritable(path: to, reason: "cannot move into place: \(String(cString: strerror(errno)))")
    }
    syncFolder(FileOutput.folder(of: to))
  }

  static func syncFolder(_ folder: String) {
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
      fsync(fd)
      close(fd)
    }
  }
}
