#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArbCore

/// One source file's series, to be read back one after another a chunk at a time: what
/// `convert --out FILE.parquet` writes its table from. A regular file is streamed into a
/// temporary store, in memory that does not grow with the file; the store is made in a
/// hidden folder beside the output and removed when the spill is released, or when the
/// run is interrupted. A pipe is read whole.
public final class SourceSpill: Sendable {
  /// One series of the source: what it is, and its first and last times.
  public struct Series: Sendable {
    public let instrument: Instrument
    public let field: SeriesField
    public let priceSource: PriceSource
    public let firstTime: Int64?
    public let lastTime: Int64?
  }

  /// The source's row accounting, as `Ingest.read` reports it.
  public let report: IngestReport
  /// The source's series, in the order it holds them.
  public let series: [Series]
  private let quotes: Quotes

  private enum Quotes {
    case store(Store, folder: String, interruptToken: UInt64)
    case memory([QuoteSeries])
  }

  /// Reads the one file `leg` names: into a store beside `output` when it is a regular
  /// file (streamed when it can be, as `StoreTransaction.add` reads it, `chunkRows`
  /// quotes at a time), else whole.
  /// - Throws: as `Ingest.read`; `FileError.unwritable` when the folder of `output`
  ///   cannot hold the spill.
  public init(_ leg: LegSpec, options: IngestOptions, specOverrides: [String] = [], chunkRows: Int = 1 << 16, beside output: String) throws {
    var info = stat()
    guard stat(leg.paths[0], &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      let file = try Ingest.read(path: leg.paths[0], options: try leg.ingestOptions(options, specOverrides: specOverrides))
      report = file.report
      series = file.series.map {
        Series(instrument: $0.instrument, field: $0.field, priceSource: $0.priceSource, firstTime: $0.time.first, lastTime: $0.time.last)
      }
      quotes = .memory(file.series)
      return
    }
    let name = output.split(separator: "/").last.map(String.init) ?? "output"
    let (folder, token) = try StoreTransaction.makeStaging(FileOutput.folder(of: output) + "/." + name + ".spill", for: output)
    do {
      let transaction = try StoreTransaction(path: folder + "/store", clock: options.clock)
      guard let added = try transaction.add(leg, options: options, specOverrides: specOverrides, chunkRows: chunkRows) else {
        preconditionFailure("a new store holds no source yet")
      }
      try transaction.commit()
      let store = try Store.open(path: folder + "/store")
      report = added.report
      series = store.series.map {
        Series(instrument: $0.instrument, field: $0.field, priceSource: $0.priceSource, firstTime: $0.firstTime, lastTime: $0.lastTime)
      }
      quotes = .store(store, folder: folder, interruptToken: token)
    } catch {
      StoreTransaction.removeStaging(folder)
      InterruptCleanup.unregister(token)
      // Named by the output the user gave, not by a file of the hidden store.
      if case FileError.unwritable(let path, let reason) = error, path == folder || path.hasPrefix(folder + "/") {
        throw FileError.unwritable(path: output, reason: "in its temporary store beside it, \(reason)")
      }
      throw error
    }
  }

  deinit {
    if case .store(_, let folder, let token) = quotes {
      StoreTransaction.removeStaging(folder)
      InterruptCleanup.unregister(token)
    }
  }

  /// The temporary store the source was streamed into, its series those of `series`;
  /// `nil` when the source was read whole (a pipe). Valid while the spill is.
  public var store: Store? {
    if case .store(let store, _, _) = quotes { store } else { nil }
  }

  /// A stream over the quotes of series `k`.
  public func stream(_ k: Int) -> any QuoteStream {
    switch quotes {
    case .store(let store, _, _): store.stream(store.series[k])
    case .memory(let series): SeriesQuoteStream(series[k])
    }
  }
}
