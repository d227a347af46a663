import ArbCore
import ArbIngest
import Foundation

/// The inputs of `arbkit board`: leg specs naming their instrument
/// (`VENUE:MARKET:SYMBOL=PATH[@FORMAT]`), and files or folders whose rows name their own
/// venue and symbol (Tardis, REST snapshots, cryptofeed, order-book lines), of which
/// every price series is a leg. Series of one instrument from several files (days of
/// one recording) are joined in time order.
struct BoardInputs {
  /// Legs in input order: named legs first, then the files' series by first appearance.
  var legs: [QuoteSeries]
  /// Every file read, for the row-accounting warnings.
  var reports: [IngestReport]
  /// Instruments given more than once, of which the first was kept.
  var duplicates: [Instrument]
  /// Entries of a folder that were not read (a FIFO, a device), with why.
  var skipped: [String] = []

  /// Names that are not data files when a folder is expanded.
  static func isDataFile(_ name: String) -> Bool {
    !name.hasPrefix(".") && !name.hasSuffix(".md") && !name.hasSuffix(".txt") && !name.hasSuffix(".rejected.csv")
      && !name.hasSuffix(".meta.json")
  }

  /// The files of `path`: itself, or a folder's data files in name order (a store is
  /// one input; subfolders that are not stores are not entered). Entries that
  /// are neither regular files nor stores (a FIFO would block the read until a writer
  /// comes) are not read: each is a note in `skipped`.
  static func expand(_ path: String, skipped: inout [String]) throws -> [String] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
      !Store.isStore(path: path)
    else { return [path] }
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
      throw FileError.unreadable(path: path, reason: "cannot list the folder")
    }
    let folder = path.hasSuffix("/") ? path : path + "/"
    var files: [String] = []
    for file in names.sorted().filter(isDataFile).map({ folder + $0 }) {
      var info = stat()
      guard stat(file, &info) == 0 else { continue }
      switch info.st_mode & S_IFMT {
      case S_IFREG: files.append(file)
      case S_IFDIR: if Store.isStore(path: file) { files.append(file) }
      case S_IFIFO: skipped.append("\(file) is a FIFO, not a data file; skipped")
      default: skipped.append("\(file) is not a regular file; skipped")
      }
    }
    return files
  }

  /// Reads every input. Named specs load as `premium --leg` does; the other inputs'
  /// files are read whole and give one leg per instrument (its `#FIELD` series, `price`
  /// by default; the first such series of a file, the book before last prices).
  ///
  /// - Throws: ingest errors, or `UsageError` for a file that does not name the venue
  ///   and symbol of its rows.
  static func load(_ specs: [LegSpec], ingest: IngestFlags) throws -> BoardInputs {
    let named = specs.filter { $0.instrument != nil }
    var listed: [(path: String, spec: LegSpec)] = []
    var skipped: [String] = []
    for spec in specs where spec.instrument == nil {
      for path in spec.paths { listed += try expand(path, skipped: &skipped).map { ($0, spec) } }
    }
    let files = listed
    let options = LoadedLegs.concurrentOptions(ingest.options, inputs: named.count + files.count)
    let overrides = ingest.specOverrides
    let namedLegs = try concurrently(named.count) { k in try named[k].load(options: options, specOverrides: overrides) }
    let read = try concurrently(files.count) { k in
      try Ingest.read(path: files[k].path, options: files[k].spec.ingestOptions(options, specOverrides: overrides))
    }
    var inputs = BoardInputs(legs: namedLegs.map(\.series), reports: namedLegs.flatMap(\.reports), duplicates: [], skipped: skipped)
    // Each file's series of the wanted field, one per instrument, grouped by instrument.
    var parts: [Instrument: [(series: QuoteSeries, path: String)]] = [:]
    var order: [Instrument] = []
    for (file, input) in zip(read, files) {
      inputs.reports.append(file.report)
      let wanted = input.spec.field ?? .price
      var seen: Set<Instrument> = []
      for series in file.series where series.field == wanted && seen.insert(series.instrument).inserted {
        let instrument = series.instrument
        if instrument.venue == "unknown" || instrument.symbol == "unknown" {
          throw UsageError("\(input.path) does not name the venue and symbol of its rows; give it as VENUE:MARKET:SYMBOL=\(input.path)")
        }
        if parts[instrument] == nil { order.append(instrument) }
        parts[instrument, default: []].append((series, input.path))
      }
    }
    for instrument in order {
      let pieces = parts[instrument]!.sorted { ($0.series.time.first ?? 0) < ($1.series.time.first ?? 0) }
      var joined = pieces[0].series
      for piece in pieces.dropFirst() { try joined.join(piece.series, path: piece.path, sort: ingest.options.sort) }
      inputs.legs.append(joined)
    }
    // The first of an instrument given twice is kept.
    var kept: Set<Instrument> = []
    var duplicates: [Instrument] = []
    inputs.legs = inputs.legs.filter { leg in
      if kept.insert(leg.instrument).inserted { return true }
      duplicates.append(leg.instrument)
      return false
    }
    inputs.duplicates = duplicates
    return inputs
  }
}
