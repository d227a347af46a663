#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore
import Foundation

/// Writes one series of a source into a store, a chunk at a time: each chunk's columns
/// are appended to the files of the current UTC day's partition, and a day's files are
/// closed (synced) when a quote at or past the next midnight arrives. `finish` writes
/// each day's `partition.json` and hands the partitions to the transaction, once the
/// series' price source is known. Memory stays that of one chunk, whatever the length
/// of the series.
///
/// Made by `StoreTransaction.writer(instrument:field:priceSource:)`; nothing is in the
/// store before the transaction commits.
public final class StoreWriter {
  public let instrument: Instrument
  public let field: SeriesField
  /// `book` or `last`: set before `finish` (a streamed source knows it at its end).
  public var priceSource: PriceSource?
  private unowned let transaction: StoreTransaction
  /// The columns of every partition, fixed by the first chunk.
  private var columns: [StoreColumn]? = nil
  private var open: OpenPartition? = nil
  /// The days written and closed, staged by `finish`.
  private var closed: [OpenPartition] = []
  private var lastTime: Int64? = nil
  private var finished = false

  /// The day being written: its folder and one open file per column.
  private struct OpenPartition {
    var day: Int64
    var folder: String
    var files: [(column: StoreColumn, fd: Int32)]
    var rows = 0
    var first: Int64
    var last: Int64
  }

  init(transaction: StoreTransaction, instrument: Instrument, field: SeriesField, priceSource: PriceSource?) {
    self.transaction = transaction
    self.instrument = instrument
    self.field = field
    self.priceSource = priceSource
  }

  deinit {
    for file in open?.files ?? [] { close(file.fd) }
  }

  /// Appends `chunk`, whose times continue the series in ascending order, with the
  /// funding interval of each quote of a funding-rate series that has it (empty, or
  /// one per quote). Every chunk has the columns the first one had.
  /// - Throws: `StoreError.conflict` when a day closed here clashes with the store;
  ///   `FileError.unwritable`.
  /// - Complexity: O(rows of the chunk).
  public func append(_ chunk: QuoteChunk, fundingInterval: UnsafeBufferPointer<Int64> = UnsafeBufferPointer(start: nil, count: 0)) throws {
    precondition(!finished, "append after finish")
    precondition(fundingInterval.isEmpty || fundingInterval.count == chunk.count, "funding intervals are absent or one per quote")
    guard chunk.count > 0 else { return }
    let present = StoreColumn.all.filter { column in
      column.required || !Self.values(column, chunk, fundingInterval).isEmpty
    }
    if let columns {
      precondition(columns.map(\.name) == present.map(\.name), "every chunk of a series has the same columns")
    } else {
      columns = present
    }
    var previous = lastTime ?? .min
    for (k, time) in chunk.time.enumerated() {
      precondition(time > previous || (k == 0 && lastTime == nil), "a series is written in ascending time, without repeats")
      previous = time
    }
    var start = 0
    while start < chunk.count {
      let day = StoreLayout.dayNumber(of: chunk.time[start])
      let (nextMidnight, overflow) = (day + 1).multipliedReportingOverflow(by: TimeText.microsPerDay)
      let end = overflow ? chunk.count : start + TimeWindow(to: nextMidnight).rows(of: chunk.time[start...]).count
      if open?.day != day {
        try closeDay()
        open = try openDay(day, first: chunk.time[start])
      }
      for file in open!.files {
        let bytes = UnsafeRawBufferPointer(rebasing: Self.values(file.column, chunk, fundingInterval)[(start * 8)..<(end * 8)])
        try FileOutput.writeAll(file.fd, bytes, path: open!.folder + "/" + file.column.fileName)
      }
      open!.rows += end - start
      open!.last = chunk.time[end - 1]
      start = end
    }
    lastTime = chunk.time[chunk.count - 1]
  }

  /// Closes the last day, lists the series in the store and stages every day written.
  /// Called by `StoreTransaction.endSource`, `priceSource` set; later calls do nothing.
  /// - Throws: `StoreError.conflict` when the series or a day clashes with the store;
  ///   `FileError.unwritable`.
  public func finish() throws {
    guard !finished else { return }
    finished = true
    try closeDay()
    guard let priceSource else { preconditionFailure("a series' price source is set before its writer finishes") }
    try transaction.register(instrument, field, priceSource: priceSource)
    for partition in closed {
      let columns = partition.files.map(\.column)
      let manifest = PartitionManifest(
        venue: instrument.venue, market: instrument.market.rawValue, symbol: instrument.symbol, field: field.rawValue,
        priceSource: priceSource.rawValue, clock: transaction.clock.rawValue, day: StoreLayout.day(of: partition.first),
        rows: partition.rows, firstTsUs: partition.first, lastTsUs: partition.last,
        columns: columns.map { PartitionManifest.Column(name: $0.name, file: $0.fileName, dtype: $0.dtype) },
        sources: [PartitionManifest.SourceReference(path: transaction.sourcePath, checksum: transaction.sourceChecksum)])
      let bytes = try manifest.encoded()
      try bytes.withUnsafeBytes { raw in try FileOutput.write(partition.folder + "/" + PartitionManifest.fileName, bytes: raw, named: false) }
      try transaction.stage(manifest, folder: partition.folder, columns: columns.map(\.name))
    }
    closed = []
  }

  /// The bytes of `column` in `chunk` (empty when the chunk does not have it).
  private static func values(_ column: StoreColumn, _ chunk: QuoteChunk, _ fundingInterval: UnsafeBufferPointer<Int64>) -> UnsafeRawBufferPointer {
    switch column.name {
    case "time": UnsafeRawBufferPointer(chunk.time)
    case "other_time": UnsafeRawBufferPointer(chunk.otherTime)
    case "bid": UnsafeRawBufferPointer(chunk.bid)
    case "ask": UnsafeRawBufferPointer(chunk.ask)
    case "bid_size": UnsafeRawBufferPointer(chunk.bidSize)
    case "ask_size": UnsafeRawBufferPointer(chunk.askSize)
    case "funding_interval": UnsafeRawBufferPointer(fundingInterval)
    default: preconditionFailure("no chunk column for '\(column.name)'")
    }
  }

  private func openDay(_ day: Int64, first: Int64) throws -> OpenPartition {
    let folder = try transaction.newPartitionFolder()
    var partition = OpenPartition(day: day, folder: folder, files: [], first: first, last: first)
    for column in columns! {
      let path = folder + "/" + column.fileName
      let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      guard fd >= 0 else {
        for file in partition.files { close(file.fd) }
        throw FileError.unwritable(path: path, reason: String(cString: strerror(errno)))
      }
      partition.files.append((column, fd))
    }
    return partition
  }

  private func closeDay() throws {
    guard let partition = open else { return }
    open = nil
    var failure: FileError? = nil
    for file in partition.files {
      if fsync(file.fd) != 0 && failure == nil {
        failure = .unwritable(path: partition.folder + "/" + file.column.fileName, reason: "fsync failed: \(String(cString: strerror(errno)))")
      }
      close(file.fd)
    }
    if let failure { throw failure }
    closed.append(partition)
  }
}

extension PartitionManifest {
  func encoded() throws -> Data { try StoreJSON.encode(self) }
}

extension StoreWriter {
  /// Appends a whole series (ascending, after what was appended before), `chunkRows`
  /// quotes at a time: how a file read whole by `Ingest.read` goes into a store.
  public func append(_ series: QuoteSeries, chunkRows: Int = 1 << 16) throws {
    let stream = SeriesQuoteStream(series)
    var position = 0
    while let chunk = try stream.next(maxRows: chunkRows) {
      if series.fundingInterval.isEmpty {
        try append(chunk)
      } else {
        try series.fundingInterval[position..<(position + chunk.count)].withUnsafeBufferPointer { try append(chunk, fundingInterval: $0) }
      }
      position += chunk.count
    }
  }
}
